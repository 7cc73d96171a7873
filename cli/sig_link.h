/**
 * @file sig_link.h
 * @brief A hosted node's link to its signalling server on this machine: the WebSocket
 *        (ws_client.h) under host/host.h's signalling side. The host decides when to
 *        reconnect and what to send; this opens the socket and moves the frames.
 *
 * The owner's loop driver calls zq_sig_link_timeout() before zq_host_handle_timeout(), and
 * zq_sig_link_flush() after each turn of I/O.
 */
#ifndef ZQ_CLI_SIG_LINK_H
#define ZQ_CLI_SIG_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host/host.h"
#include "port/posix/loop.h"
#include "port/posix/ws_client.h"

typedef struct {
    const char *cmd;  /* who its lines name: "echo", "device sensor-1" */
    zq_loop_t *loop;  /* borrowed */
    zq_host_t *host;  /* borrowed */
    zq_ws_url_t url;
    zq_ws_client_t ws;
} zq_sig_link_t;

/** Parses @p url into @p l (nothing opened yet). @return ZQ_OK, or an error with @p why. */
zq_err_t zq_sig_link_init(zq_sig_link_t *l, const char *cmd, zq_loop_t *loop, zq_host_t *host,
                          const char *url, const char **why);
/** Connects (the first time: the caller reports a failure). @return ZQ_OK or why not. */
zq_err_t zq_sig_link_open(zq_sig_link_t *l, const char **why);
/** Reconnects when the host says a try is due. */
void zq_sig_link_timeout(zq_sig_link_t *l, uint64_t now);
/** Sends the host's frames, in order; one the socket cannot take waits for the next turn. */
void zq_sig_link_flush(zq_sig_link_t *l, uint64_t now);
void zq_sig_link_close(zq_sig_link_t *l);
/** Says on stderr why a member and we are not connected (NODE_EVENT_PEER_REFUSED: it waits
 *  for our slot; NODE_EVENT_WAITING: we wait for its). @return whether @p ev was one. */
bool zq_sig_link_note_slots(const zq_sig_link_t *l, const node_event_t *ev);

#endif /* ZQ_CLI_SIG_LINK_H */
