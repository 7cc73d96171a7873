/* Shared by the association's files; not part of the public API.
 *
 *   assoc.c          init, packet dispatch, verification tags, ABORT, events, timers
 *   handshake.c      INIT / INIT ACK / COOKIE ECHO / COOKIE ACK, the state cookie, restarts
 *   shutdown.c       SHUTDOWN, SHUTDOWN ACK, SHUTDOWN COMPLETE (§9.2)
 *   transmit.c       building packets: control chunks, retransmissions, new DATA, bundling
 *   ring.c           the two byte rings records live in
 *   streams.c        the stream table
 *   tx/send_queue.c  sctp_send(): messages into fragments in the send ring
 *   tx/ack.c         SACK processing, fast retransmit, RTO (RFC 6298), congestion control
 *   tx/retransmit.c  T3-rtx, probes of a stalled recovery, partial reliability (RFC 3758)
 *   rx/tracker.c     received TSNs, gap blocks, duplicates, when to SACK
 *   rx/deliver.c     the receive ring, ordering, pieces of large messages, FORWARD TSN in
 *   stream_reset.c   RE-CONFIG (RFC 6525)
 *   heartbeat.c      HEARTBEAT (§8.3)
 */
#ifndef ZQ_SCTP_INTERNAL_H
#define ZQ_SCTP_INTERNAL_H

#include "stack/sctp/sctp.h"

#define SCTP_NO_OFFSET UINT32_MAX
#define SCTP_PROBES_OFF UINT8_MAX

/* ---- Serial number arithmetic (RFC 9260 §1.6, RFC 1982) ---------------------------------- */

static inline bool tsn_lt(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) < 0;
}

static inline bool tsn_le(uint32_t a, uint32_t b)
{
    return a == b || tsn_lt(a, b);
}

static inline bool ssn_lt(uint16_t a, uint16_t b)
{
    return (int16_t)(uint16_t)(a - b) < 0;
}

/* ---- Ring records ------------------------------------------------------------------------ */

/* Every record starts with these 4 bytes; records are 4-byte aligned (the ring aligns its
 * memory). A WRAP record fills the end of the buffer when the next record does not fit. */
enum { REC_DATA = 1, REC_WRAP = 2 };

typedef struct {
    uint16_t size; /* whole record, header + payload, padded to 4 */
    uint8_t kind;  /* REC_* */
    uint8_t state; /* OUT_* or IN_* bits */
} rec_header_t;

/* An outgoing DATA fragment. The payload follows. */
enum {
    OUT_SENT = 1u << 0,      /* has a TSN and went out at least once */
    OUT_ACKED = 1u << 1,     /* cumulatively acknowledged: free once the ring reaches it */
    OUT_GAP = 1u << 2,       /* acknowledged in a gap block (may be reneged) */
    OUT_RTX = 1u << 3,       /* waiting to be sent again: change it with out_mark_rtx() and
                                out_clear_rtx() only, which keep a->n_rtx */
    OUT_ABANDONED = 1u << 5, /* partial reliability gave it up (RFC 3758) */
};

typedef struct {
    rec_header_t h;
    uint8_t data_flags; /* SCTP_DATA_BEGIN/END/UNORDERED */
    uint8_t sends;      /* transmissions so far */
    uint8_t misses;     /* miss indications since it was last sent (§7.2.4) */
    uint8_t reserved;
    uint16_t stream;
    uint16_t ssn;
    uint16_t max_rtx;   /* SCTP_RELIABLE: no limit */
    uint16_t len;       /* payload bytes */
    uint32_t tsn;
    uint32_t ppid;
    uint32_t expires;   /* clock of sctp_assoc_t (ms since init), 0: never */
    uint32_t after_tsn; /* the next TSN when it was last sent: chunks from this TSN on went
                           out after that transmission (tx/ack.c, lost retransmissions) */
} out_rec_t;

/* A received DATA fragment waiting for delivery. The payload follows. */
enum {
    IN_WAITING = 1,  /* not deliverable yet */
    IN_QUEUED = 2,   /* in the read queue */
    IN_FREE = 3,     /* delivered or discarded: space to reclaim */
};

typedef struct {
    rec_header_t h;
    uint8_t data_flags;
    uint8_t reserved[3];
    uint16_t stream;
    uint16_t ssn;
    uint32_t tsn;
    uint32_t ppid;
    uint32_t len;
} in_rec_t;

_Static_assert(sizeof(out_rec_t) % 4 == 0 && sizeof(in_rec_t) % 4 == 0,
               "records keep the ring 4-byte aligned");

/* a->n_rtx counts the records marked OUT_RTX, so that building a packet skips the walk over
 * the send ring when nothing waits to be sent again (most packets). */
static inline void out_mark_rtx(sctp_assoc_t *a, out_rec_t *r)
{
    if (!(r->h.state & OUT_RTX)) {
        r->h.state |= OUT_RTX;
        a->n_rtx++;
    }
}

static inline void out_clear_rtx(sctp_assoc_t *a, out_rec_t *r)
{
    if (r->h.state & OUT_RTX) {
        r->h.state &= (uint8_t)~OUT_RTX;
        a->n_rtx--;
    }
}

/* What one DATA chunk costs our receive ring beyond its payload: a record header and up to 3
 * bytes of padding. A window counted in payload bytes (RFC 9260 §6.2) would be overrun by a
 * stream of small chunks, so the window advertised is scaled by this (rx/tracker.c). */
#define SCTP_CHUNK_OVERHEAD ((uint32_t)sizeof(in_rec_t) + 3u)

/* ---- Pending control chunks (a->ctl bits) ------------------------------------------------ */

enum {
    SCTP_CTL_INIT = 1u << 0,
    SCTP_CTL_INIT_ACK = 1u << 1,
    SCTP_CTL_COOKIE_ECHO = 1u << 2,
    SCTP_CTL_COOKIE_ACK = 1u << 3,
    SCTP_CTL_HEARTBEAT = 1u << 4,
    SCTP_CTL_HEARTBEAT_ACK = 1u << 5,
    SCTP_CTL_SHUTDOWN = 1u << 6,
    SCTP_CTL_SHUTDOWN_ACK = 1u << 7,
    SCTP_CTL_SHUTDOWN_COMPLETE = 1u << 8,
    SCTP_CTL_ABORT = 1u << 9,
    SCTP_CTL_ERROR = 1u << 10,
    SCTP_CTL_RECONF_REQUEST = 1u << 11,
    SCTP_CTL_RECONF_RESPONSE = 1u << 12,
};

/* What a peer supports, kept in the cookie. */
enum {
    SCTP_PEER_FORWARD_TSN = 1u << 0,
    SCTP_PEER_RECONFIG = 1u << 1,
};

/* Stream flags. */
enum {
    SCTP_STREAM_IN_MESSAGE = 1u << 0,  /* a message is being delivered in pieces */
    SCTP_STREAM_RESETTING = 1u << 1,   /* our outgoing reset is requested: no new sends */
    SCTP_STREAM_ABOVE_LOW = 1u << 2,   /* unsent rose above the low-water mark */
    SCTP_STREAM_SKIPPING = 1u << 3,    /* abandoned SSNs up to skip_ssn to step over */
};

/* ---- ring.c ---- */
void sctp_ring_init(sctp_ring_t *r, uint8_t *mem, size_t cap);
/* A record of @p size bytes (multiple of 4): its offset, or SCTP_NO_OFFSET without room. */
uint32_t sctp_ring_alloc(sctp_ring_t *r, uint32_t size);
/* Grows the newest record, at @p off, by @p extra bytes (multiple of 4) when they are free
 * right after it; false, and nothing changed, when they are not. */
bool sctp_ring_extend(sctp_ring_t *r, uint32_t off, uint32_t extra);
/* Bytes a new record could have at most right now. */
uint32_t sctp_ring_largest_free(const sctp_ring_t *r);
/* Reclaims records at the front whose @p is_free says so (and WRAP records). */
void sctp_ring_reclaim(sctp_ring_t *r, bool (*is_free)(const rec_header_t *h));
/* Packs the live records toward the front, in order, leaving out free ones and WRAP fillers:
 * space freed behind an older live record becomes usable again. @p moved hears each record
 * that moved (its old and new offset). */
void sctp_ring_compact(sctp_ring_t *r, bool (*is_free)(const rec_header_t *h),
                       void (*moved)(void *ctx, uint32_t from, uint32_t to), void *ctx);
/* Rotates the buffer so the oldest record starts at offset 0 (and the free space is one piece
 * after compaction). Every offset o becomes (o - returned shift) mod cap. */
uint32_t sctp_ring_rotate_to_front(sctp_ring_t *r);
/* Walks records: the first at or after @p off (skipping WRAP), SCTP_NO_OFFSET at the end. */
uint32_t sctp_ring_first(const sctp_ring_t *r);
uint32_t sctp_ring_next(const sctp_ring_t *r, uint32_t off);
static inline rec_header_t *sctp_ring_at(const sctp_ring_t *r, uint32_t off)
{
    return (rec_header_t *)(void *)(r->mem + off);
}

/* ---- assoc.c ---- */
/** Queues an event and returns its slot for the fields beyond type and stream; NULL when the
 *  queue is full (counted) or the same WRITABLE is already queued. */
sctp_event_t *sctp_push_event(sctp_assoc_t *a, sctp_event_type_t type, uint16_t stream);
void sctp_fail(sctp_assoc_t *a, sctp_abort_reason_t reason, uint16_t cause);
/* The association clock: ms since init, what records store. */
uint32_t sctp_clock(const sctp_assoc_t *a);
/* Resets everything an association knows about its peer (a new or restarted TCB). */
void sctp_reset_tcb(sctp_assoc_t *a);

/* ---- handshake.c ---- */
void sctp_handle_init(sctp_assoc_t *a, const sctp_common_header_t *h, const sctp_chunk_t *c);
void sctp_handle_init_ack(sctp_assoc_t *a, const sctp_chunk_t *c);
void sctp_handle_cookie_echo(sctp_assoc_t *a, const sctp_chunk_t *c);
void sctp_handle_cookie_ack(sctp_assoc_t *a);
void sctp_handshake_timeout(sctp_assoc_t *a);
void sctp_write_init(sctp_assoc_t *a, zq_writer_t *w);
void sctp_write_init_ack(sctp_assoc_t *a, zq_writer_t *w);
uint32_t sctp_init_ack_vtag(const sctp_assoc_t *a);

/* ---- shutdown.c ---- */
void sctp_handle_shutdown(sctp_assoc_t *a, const sctp_chunk_t *c);
void sctp_handle_shutdown_ack(sctp_assoc_t *a);
void sctp_handle_shutdown_complete(sctp_assoc_t *a);
void sctp_shutdown_progress(sctp_assoc_t *a);
void sctp_shutdown_timeout(sctp_assoc_t *a);

/* ---- streams.c ---- */
sctp_stream_t *sctp_stream_find(sctp_assoc_t *a, uint16_t id);
const sctp_stream_t *sctp_stream_find_const(const sctp_assoc_t *a, uint16_t id);
/* Finds or adds; NULL when the table is full. */
sctp_stream_t *sctp_stream_get(sctp_assoc_t *a, uint16_t id);
/* Drops a stream that holds nothing any more. */
void sctp_stream_forget_if_idle(sctp_assoc_t *a, sctp_stream_t *s);
void sctp_stream_unsent_changed(sctp_assoc_t *a, sctp_stream_t *s, int32_t delta);

/* ---- tx ---- */
void sctp_handle_sack(sctp_assoc_t *a, const sctp_chunk_t *c);
void sctp_rto_sample(sctp_assoc_t *a, uint32_t rtt_ms);
void sctp_enter_fast_recovery(sctp_assoc_t *a);
void sctp_t3_expired(sctp_assoc_t *a);
/* Arms or stops the probe of a stalled recovery after a SACK; @p progress: it acknowledged
 * something new. */
void sctp_probe_update(sctp_assoc_t *a, bool progress);
/* The chunk @p tsn went with the I bit: its SACK comes at once, or a probe follows. */
void sctp_probe_asked(sctp_assoc_t *a, uint32_t tsn);
void sctp_probe_expired(sctp_assoc_t *a);
void sctp_abandon_expired(sctp_assoc_t *a);
/* Marks a message abandoned, starting at the record at @p off (its first fragment). */
void sctp_abandon_message(sctp_assoc_t *a, uint32_t off);
/* Gives a fragment its TSN (and SSN) as it first goes out. */
void sctp_assign_tsn(sctp_assoc_t *a, out_rec_t *r);
void sctp_update_adv_peer_ack(sctp_assoc_t *a);
void sctp_write_forward_tsn(sctp_assoc_t *a, zq_writer_t *w);
size_t sctp_forward_tsn_size(const sctp_assoc_t *a);

/* ---- rx ---- */
void sctp_handle_data(sctp_assoc_t *a, const sctp_chunk_t *c, bool *immediate_sack);
void sctp_handle_forward_tsn(sctp_assoc_t *a, const sctp_chunk_t *c);
void sctp_tracker_mark(sctp_assoc_t *a, uint32_t tsn);
bool sctp_tracker_has(const sctp_assoc_t *a, uint32_t tsn);
void sctp_tracker_advance(sctp_assoc_t *a);
void sctp_tracker_forward(sctp_assoc_t *a, uint32_t new_cum);
void sctp_write_sack(sctp_assoc_t *a, zq_writer_t *w);
size_t sctp_sack_size(const sctp_assoc_t *a);
uint32_t sctp_advertised_rwnd(const sctp_assoc_t *a);
uint32_t sctp_gap_reserve(const sctp_assoc_t *a);
uint32_t sctp_window_hold(const sctp_assoc_t *a);
uint32_t sctp_initial_rwnd(const sctp_assoc_t *a);
bool sctp_window_opened(const sctp_assoc_t *a);
/** Whether a small ring has less than a packet's room left: a SACK is due at once. */
bool sctp_window_nearly_shut(const sctp_assoc_t *a);
void sctp_deliver_waiting(sctp_assoc_t *a);
void sctp_release_read(sctp_assoc_t *a);
/* Drops everything received on @p stream that is not delivered (a reset or a restart). */
void sctp_discard_stream_input(sctp_assoc_t *a, uint16_t stream);

/* ---- stream_reset.c ---- */
void sctp_handle_reconfig(sctp_assoc_t *a, const sctp_chunk_t *c);
void sctp_reconfig_progress(sctp_assoc_t *a);
void sctp_reconfig_timeout(sctp_assoc_t *a);
void sctp_write_reconfig(sctp_assoc_t *a, zq_writer_t *w, bool request);
size_t sctp_reconfig_size(const sctp_assoc_t *a, bool request);

/* ---- heartbeat.c ---- */
void sctp_handle_heartbeat(sctp_assoc_t *a, const sctp_chunk_t *c);
void sctp_handle_heartbeat_ack(sctp_assoc_t *a, const sctp_chunk_t *c);
void sctp_heartbeat_timeout(sctp_assoc_t *a);
void sctp_write_heartbeat(sctp_assoc_t *a, zq_writer_t *w);

#endif /* ZQ_SCTP_INTERNAL_H */
