/* Two SCTP associations over a simulated network with a manual clock. Each end checks what
 * it receives against what the other sent: per stream, messages reassembled from their pieces
 * and a running CRC, so loss, reordering or duplication of data shows up as a mismatch. */
#ifndef ZQ_SCTP_PAIR_H
#define ZQ_SCTP_PAIR_H

#include <stdbool.h>
#include <stdint.h>

#include "simnet.h"
#include "stack/sctp/sctp.h"
#include "test_rand.h"

#define SCTP_PAIR_STREAMS 8
#define SCTP_PAIR_EVENT_LOG 64

typedef struct {
    unsigned long messages; /* complete messages received */
    unsigned long bytes;
    uint32_t crc;           /* CRC-32 over received bytes, in order (ordered streams) */
    unsigned long pieces;
    unsigned long aborted;  /* messages whose rest the sender abandoned */
    size_t current;         /* bytes of the message being received in pieces */
} sctp_pair_stream_t;

typedef struct sctp_pair sctp_pair_t;

typedef struct {
    sctp_assoc_t assoc;
    test_rand_t rand;
    /* Optional application on top (a data channel layer): called after every input instead
     * of the built-in reader; it must drain sctp_read() and sctp_poll_event() itself. */
    void (*app)(sctp_pair_t *p, int side, void *ctx);
    void *app_ctx;
    zq_addr_t addr;
    uint8_t *sendbuf;
    uint8_t *recvbuf;
    bool mute, deaf, stalled; /* stalled: the application does not read */
    unsigned drop_next;       /* packets to it that are lost, starting with the next */
    sctp_pair_stream_t rx[SCTP_PAIR_STREAMS];
    unsigned long unordered_messages;
    sctp_event_t events[SCTP_PAIR_EVENT_LOG];
    int n_events;
    bool connected, closed, aborted, restarted;
} sctp_end_t;

/** Sees every packet an end sends before the network does, and may change it (then its
 *  CRC32c is made right again); returning true drops it. */
typedef bool (*sctp_pair_filter_fn)(sctp_pair_t *p, int from, uint8_t *pkt, size_t len,
                                    void *ctx);

struct sctp_pair {
    simnet_t net;
    uint64_t now;
    sctp_end_t end[2];
    sctp_pair_filter_fn filter;
    void *filter_ctx;
};

/** Sets up both ends with send and receive buffers of @p bufsize bytes (static storage). */
void sctp_pair_init(sctp_pair_t *p, uint64_t seed, simnet_impairment_t impair, size_t bufsize,
                    const sctp_config_t *cfg);
/** The same with separate send and receive buffer sizes. */
void sctp_pair_init_sizes(sctp_pair_t *p, uint64_t seed, simnet_impairment_t impair,
                          size_t send_size, size_t recv_size, const sctp_config_t *cfg);
/** Both ends call sctp_connect (an INIT collision, as in WebRTC), or only end 0. */
void sctp_pair_connect(sctp_pair_t *p, bool both);
bool sctp_pair_run(sctp_pair_t *p, uint64_t until, bool (*done)(sctp_pair_t *p));
bool sctp_pair_established(sctp_pair_t *p);
/** Lets the application of @p side read what is deliverable. */
void sctp_pair_read(sctp_pair_t *p, int side);
/** Sends and flushes; returns sctp_send's result. */
zq_err_t sctp_pair_send(sctp_pair_t *p, int side, uint16_t stream, const uint8_t *data,
                        size_t len, const sctp_send_opts_t *opts);
void sctp_pair_flush(sctp_pair_t *p, int side);
/** Whether @p side logged an event of @p type (for @p stream, or any if 0xFFFF). */
bool sctp_pair_saw(const sctp_pair_t *p, int side, sctp_event_type_t type, uint16_t stream);
/** Records an association event on @p e (what the built-in reader does; apps may reuse it). */
void sctp_pair_log_event(sctp_end_t *e, const sctp_event_t *ev);
/** Fills @p buf with the deterministic content of message @p n of @p size bytes. */
void sctp_pair_pattern(uint8_t *buf, size_t size, unsigned long n);

#endif
