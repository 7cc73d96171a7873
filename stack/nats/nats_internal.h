/* Shared by the NATS client's files; not part of the API. */
#ifndef ZQ_NATS_INTERNAL_H
#define ZQ_NATS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "stack/nats/nats.h"
#include "zq/bytes.h"

/** A field of a control line, borrowed from the line buffer. */
typedef struct {
    const char *p;
    size_t len;
} nats_span_t;

/* ---- nats_rx.c: line framing ------------------------------------------------------------ */

/** Splits @p s[0..len) into fields separated by runs of spaces and tabs (protocol doc, "Field
 *  Delimiters"). Returns how many there are; at most @p max are stored, and a count above
 *  @p max says there were more. */
size_t nats_split(const char *s, size_t len, nats_span_t *f, size_t max);

/* ---- nats_client.c: state and events ---------------------------------------------------- */

void nats_emit(nats_client_t *c, const nats_event_t *ev);

/** A NATS_EV_ERR; @p fatal ends the client (NATS_STATE_FAILED) before the callback runs. */
void nats_raise_err(nats_client_t *c, const char *text, size_t len, bool fatal);

/** A fatal error with zq's reason @p why (a static string). */
void nats_fail(nats_client_t *c, const char *why);

/** A fatal protocol error zq found, with @p why (a static string), counted. */
void nats_protocol_error(nats_client_t *c, const char *why);

/** ZQ_OK if commands may be queued now: once CONNECT is (see nats.h). */
zq_err_t nats_may_send(const nats_client_t *c);

/* ---- nats_out.c: the output queue ------------------------------------------------------- */

/** A writer over the queue's free space (what is pending moved to the front first). Write a
 *  whole command into it, then nats_out_commit(): until then nothing is queued. */
zq_writer_t nats_out_begin(nats_client_t *c);

/** Queues what @p w wrote, all of it, or nothing if it failed: then ZQ_ERR_WOULD_BLOCK, or
 *  ZQ_ERR_TOO_LONG if it failed with the queue empty (it can never fit). */
zq_err_t nats_out_commit(nats_client_t *c, const zq_writer_t *w);

/** Queues a PONG, now or, if the queue is full, as soon as there is room. */
void nats_out_pong(nats_client_t *c);

/** Queues an owed PONG if there is room now. */
void nats_out_flush_owed(nats_client_t *c);

/* ---- One file per message: what the server sends -------------------------------------- */

void nats_on_info(nats_client_t *c, const char *args, size_t len);  /* nats_info.c */
void nats_on_msg(nats_client_t *c, const char *args, size_t len);   /* nats_msg.c */
void nats_msg_complete(nats_client_t *c);                           /* nats_msg.c */
void nats_on_err(nats_client_t *c, const char *args, size_t len);   /* nats_err.c */
void nats_on_ping(nats_client_t *c, const char *args, size_t len);  /* nats_ping.c */
void nats_on_pong(nats_client_t *c, const char *args, size_t len);  /* nats_ping.c */

/** Parses INFO's JSON into @p info (cleared first). Values it cannot keep (see nats_info_t)
 *  are counted in @p dropped. Returns NULL, or why the INFO is malformed. */
const char *nats_info_parse(const char *json, size_t len, nats_info_t *info, uint32_t *dropped);

/** Queues CONNECT and the PING whose PONG says it was accepted (nats_connect.c). */
zq_err_t nats_queue_connect(nats_client_t *c);

/** CONNECT's JSON for @p opt into @p buf, an nkey's signature over INFO's @p nonce; its
 *  length, or 0 with *err set. */
size_t nats_connect_json(char *buf, size_t cap, const nats_options_t *opt, const char *nonce,
                         zq_err_t *err);

#endif /* ZQ_NATS_INTERNAL_H */
