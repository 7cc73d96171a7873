/* Two SCTP endpoints in one process, each either a zq association or a usrsctp socket, joined
 * by a lossy in-memory link, driven in real time: usrsctp keeps its own timer thread and
 * clock, so zq's `now` is CLOCK_MONOTONIC in ms too, and the loop polls both, sleeping at most
 * 1 ms when nothing moves. Used by the interop test (test_sctp_usrsctp.c) and by the bench
 * (bench/bench_sctp.c), which compares zq<->zq, zq<->usrsctp and usrsctp<->usrsctp on it.
 *
 * Each packet, either way, is dropped with the configured probability from a seeded PRNG. With
 * link_t.delay_ms at 0 (link_init's default) nothing is delayed beyond the loop's own
 * turnaround; otherwise every packet that survives the draw waits delay_ms in a FIFO of its
 * direction before it is handed over (a round trip of 2 x delay_ms plus the turnaround).
 * Nothing is ever reordered. */
#ifndef ZQ_SCTP_LINK_H
#define ZQ_SCTP_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stack/sctp/sctp.h"
#include "usrsctp_side.h"

typedef enum { LINK_ZQ, LINK_USRSCTP } link_kind_t;

/** A received message, or a piece of one (zq delivers large messages in pieces; usrsctp's
 *  partial delivery does too, and its MSG_EOR is @c last). */
typedef struct {
    uint16_t stream;
    uint32_t ppid;
    bool unordered;
    bool first;
    bool last;
    bool aborted; /* the sender abandoned the rest of the message under way (no data) */
    const uint8_t *data;
    size_t len;
} link_piece_t;

typedef struct link_peer link_peer_t;
typedef void (*link_piece_fn)(link_peer_t *p, const link_piece_t *piece, void *ctx);

#define LINK_LOG 64

struct link_peer {
    link_kind_t kind;
    const char *name;
    int side; /* 0 or 1 in its link */
    /* zq */
    sctp_assoc_t assoc;
    uint64_t rand_state;
    bool zq_blocked; /* a send returned WOULD_BLOCK: wait for SCTP_EVENT_WRITABLE */
    unsigned long zq_writable_events;
    /* usrsctp */
    us_options_t us_opt;
    us_endpoint_t us;
    void *us_addr; /* its packets' tag; kept after close, so its ABORT still goes out */
    bool us_in_message;
    /* what the application saw */
    bool connected, restarted, closed, aborted;
    bool lost; /* usrsctp: the association went away (COMM_LOST, or recv failed) */
    sctp_event_t zq_events[LINK_LOG];
    int n_zq_events;
    us_note_t us_notes[LINK_LOG];
    int n_us_notes;
    unsigned long abandoned_sent;   /* usrsctp SEND_FAILED after the data went out */
    unsigned long abandoned_unsent; /* ... and before */
    /* the receiving application */
    bool paused; /* reads nothing (and, for usrsctp, no notifications) while set */
    link_piece_fn on_piece;
    void *piece_ctx;
};

typedef struct link link_t;
/** The sending application, called every turn of the loop; returns how much it did. */
typedef int (*link_pump_fn)(link_t *l, void *ctx);
/** Sees every packet before the loss draw, may rewrite it (then link_reseal()), and returns
 *  true to drop it: a test's way to lose exactly the packet a scenario needs. */
typedef bool (*link_filter_fn)(link_t *l, int from, uint8_t *pkt, size_t len, void *ctx);

struct link {
    link_peer_t *peer[2];
    uint32_t loss_ppm; /* per million packets, each direction */
    uint32_t delay_ms; /* one way, each direction; set before link_start() to delay the
                          handshake too */
    uint64_t rng;
    unsigned long sent[2], lost[2]; /* packets from peer[i] */
    uint64_t sent_bytes[2];
    size_t max_packet[2];
    unsigned long chunks[2][256]; /* chunk types sent by peer[i] (when tap is on) */
    bool tap;
    FILE *dump;  /* text2pcap lines of every packet, LINK_DUMP=file */
    FILE *trace; /* one decoded line per packet, LINK_TRACE=file */
    link_pump_fn pump;
    void *pump_ctx;
    link_filter_fn filter;
    void *filter_ctx;
    unsigned long filtered[2]; /* packets from peer[i] the filter dropped */
};

typedef struct {
    bool unordered;
    int max_rtx; /* < 0: reliable; else abandon after this many retransmissions */
} link_send_opts_t;

enum { LINK_SENT = 0, LINK_BLOCKED, LINK_ERROR };

uint64_t link_now_ms(void);
/** The same clock in microseconds: the delay lines' (10 ms each way counted in whole
 *  milliseconds could be up to 1 ms short). */
uint64_t link_now_us(void);

/** A zq association with the caller's buffers and sctp_config_default() at @p mtu. */
void link_peer_zq(link_peer_t *p, const char *name, uint8_t *send_buf, size_t send_cap,
                  uint8_t *recv_buf, size_t recv_cap, uint16_t mtu, uint64_t seed);
/** A usrsctp endpoint; its socket is created by link_start(). */
void link_peer_usrsctp(link_peer_t *p, const char *name, const us_options_t *opt);

void link_init(link_t *l, link_peer_t *a, link_peer_t *b, double loss_percent, uint64_t seed);
/** Starts both: a peer with @p connect[i] sends INIT, the other waits (usrsctp listens). */
bool link_start(link_t *l, const bool connect[2]);
/** One turn: usrsctp's packets, zq's timers, reads, the pump, zq's packets. */
int link_step(link_t *l);
/** Turns until @p done or @p timeout_ms of real time. */
bool link_run(link_t *l, bool (*done)(link_t *l, void *ctx), void *ctx, uint32_t timeout_ms);
/** The first chunk of @p type in a packet, or NULL. */
uint8_t *link_find_chunk(uint8_t *pkt, size_t len, uint8_t type);
/** Recomputes the CRC32c of a packet a filter changed. */
void link_reseal(uint8_t *pkt, size_t len);

/** Packets dropped because the in-memory wire (zq's) or a delay line was full, or too large
 *  for it: never the link's loss, so a caller that measures checks it stays 0. */
unsigned long link_wire_overflows(void);
/** Closes usrsctp sockets (an ABORT if still associated) and forgets queued packets. */
void link_close(link_t *l);

bool link_established(link_t *l, void *ctx);
int link_send(link_peer_t *p, uint16_t stream, uint32_t ppid, const uint8_t *data, size_t len,
              const link_send_opts_t *opts);
/** zq only: sctp_send_part(). Once fewer bytes than offered are accepted, the peer waits for
 *  SCTP_EVENT_WRITABLE before the next call, as sctp.h says to. */
int link_send_part(link_peer_t *p, uint16_t stream, uint32_t ppid, const uint8_t *data,
                   size_t len, bool first, bool last, const link_send_opts_t *opts,
                   size_t *accepted);
/** Whether everything @p p sent was acknowledged (or abandoned). */
bool link_all_acked(link_peer_t *p);
bool link_reset_stream(link_peer_t *p, uint16_t stream);
void link_abort(link_t *l, link_peer_t *p);
bool link_shutdown(link_peer_t *p);

/** Whether @p p logged a zq event of @p type for @p stream (0xFFFF: any). */
bool link_saw_zq(const link_peer_t *p, sctp_event_type_t type, uint16_t stream);
/** The last usrsctp notification of @p type, or NULL. */
const us_note_t *link_saw_us(const link_peer_t *p, us_note_type_t type);

#endif
