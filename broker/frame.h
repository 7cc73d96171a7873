/**
 * @file frame.h
 * @brief The broker's frames (broker/PROTOCOL.md): ZeroQ's envelope and heartbeat, and zq's
 *        hello, sub, ack, ready, done, dlq, rep and lost. One codec per frame type,
 *        each in its own file (frame_<name>.c): a reader from a parsed JSON object and a
 *        writer into a JSON writer. And the one binary frame, chunk (frame_chunk.c): a
 *        reader from bytes and a writer into a buffer, both bounded (zq/bytes.h).
 *
 * Reading never copies strings: a frame's string fields are json_value_t spans into the text
 * the caller parsed (read them with json_get_string() or json_string_equals()), valid while
 * that text is. Readers check every field's JSON type and range and return ZQ_ERR_MALFORMED
 * with nothing half-filled to act on; unknown members are ignored (ZeroQ keeps them, and a
 * later zq may add some).
 *
 * Writers append one whole frame to a json_writer_t; the writer's sticky error (and
 * json_finish() returning 0) reports a buffer too small. Strings given to writers are UTF-8
 * with explicit lengths.
 */
#ifndef ZQ_BRK_FRAME_H
#define ZQ_BRK_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zq/json.h"
#include "zq/err.h"

/** Protocol version this zq speaks (PROTOCOL.md §2). */
#define BRK_PROTOCOL_VERSION 1

/** Identities in frames: the first 16 hex digits of the peer's certificate fingerprint. */
#define BRK_FP_HEX 16
/** Epochs: 8 hex digits. */
#define BRK_EPOCH_HEX 8
/** Resume points a hello carries at most (PROTOCOL.md §2). */
#define BRK_HELLO_MAX_RESUME 8
/** Patterns and services one sub frame carries at most; more set brk_sub_t.too_many. */
#define BRK_SUB_MAX_ITEMS 32

/** Which frame a text is. */
typedef enum {
    BRK_FRAME_ENVELOPE, /**< a ZeroQ envelope: message, job or request (see brk_envelope_t.kind) */
    BRK_FRAME_PING,
    BRK_FRAME_PONG,
    BRK_FRAME_GOSSIP,
    BRK_FRAME_HELLO,
    BRK_FRAME_SUB,
    BRK_FRAME_ACK,
    BRK_FRAME_READY,
    BRK_FRAME_DONE,
    BRK_FRAME_DLQ,
    BRK_FRAME_DLQ_JOBS,
    BRK_FRAME_REP,
    BRK_FRAME_LOST,
    BRK_FRAME_UNKNOWN, /**< a JSON object with a "type" zq does not know: ignored, counted */
} brk_frame_type_t;

/**
 * Classifies a parsed frame @p obj: by its "type" member when it has one, else as an envelope
 * candidate (ZeroQ's dispatch: ping/pong/gossip by type, everything else to the envelope
 * reader). @return BRK_FRAME_UNKNOWN for an unknown type; a non-object is the caller's to
 * refuse before.
 */
brk_frame_type_t brk_frame_type(json_value_t obj);

/* ---- ZeroQ's envelope with zq's fields (frame_envelope.c; PROTOCOL.md §1, §4, §6) --------- */

typedef enum {
    BRK_KIND_MESSAGE = 0, /**< no "k": a published message (or a ZeroQ job/request) */
    BRK_KIND_JOB,         /**< "k":"job" */
    BRK_KIND_REQUEST,     /**< "k":"req" */
} brk_kind_t;

typedef struct {
    json_value_t id;       /**< string, non-empty */
    json_value_t topic;    /**< string (may be empty, as in ZeroQ) */
    json_value_t payload;  /**< any JSON value; span of length 0 when the member is absent */
    bool has_payload;
    int64_t timestamp;     /**< 0 when absent or not a whole number (ZeroQ never checks it) */
    uint64_t seq;          /**< 0 when absent (ZeroQ always sends 0) */
    uint32_t retry_count;  /**< ZeroQ: missing, negative or non-finite reads as 0 */
    bool has_priority;
    int64_t priority;
    /* zq's additions */
    brk_kind_t kind;
    uint32_t epoch;        /**< "ep", 8 hex digits; has_epoch false when absent */
    bool has_epoch;
    uint8_t qos;           /**< "q": 0 or 1 */
    bool lvc;              /**< "lvc":1 */
    uint32_t lease_ms;     /**< jobs: "lease" */
    json_value_t corr;     /**< requests: "corr" (string) */
    uint32_t timeout_ms;   /**< requests: "timeout" */
    json_value_t reply_to; /**< ZeroQ requests: payload.replyTo when payload is an object
                                with a string replyTo; span of length 0 otherwise */
} brk_envelope_t;

/** Reads an envelope. ZeroQ's rules: "id" a non-empty string and "topic" a string, else
 *  ZQ_ERR_MALFORMED; zq's fields, when present, must have their types and ranges. */
zq_err_t brk_envelope_read(json_value_t obj, brk_envelope_t *out);
/** Writes an envelope: the ZeroQ members always (timestamp, seq and retryCount included),
 *  zq's only when set (epoch when has_epoch, q when 1, k when not MESSAGE, ...). @p payload
 *  is inserted verbatim and must be one valid JSON value (json_raw). */
void brk_envelope_write(json_writer_t *w, const brk_envelope_t *e);

/* ---- Heartbeat and gossip (frame_heartbeat.c; PROTOCOL.md §1) ----------------------------- */

void brk_ping_write(json_writer_t *w);
void brk_pong_write(json_writer_t *w);
/** Counts the string ids of a gossip frame (non-array "peers" counts as empty, as ZeroQ). */
size_t brk_gossip_count(json_value_t obj);

/* ---- hello (frame_hello.c; PROTOCOL.md §2) ----------------------------------------------- */

enum {
    BRK_FEAT_SUB = 1u << 0,
    BRK_FEAT_QOS1 = 1u << 1,
    BRK_FEAT_QUEUE = 1u << 2,
    BRK_FEAT_RPC = 1u << 3,
    BRK_FEAT_CHUNK = 1u << 4,
    BRK_FEAT_REPLAY = 1u << 5,
};

typedef struct {
    uint8_t fp[BRK_FP_HEX / 2]; /**< the publisher's identity (8 bytes) */
    uint32_t epoch;
    uint64_t seq;
} brk_resume_t;

typedef struct {
    uint32_t version;
    uint32_t epoch;
    uint32_t max_frame;
    uint32_t features; /**< BRK_FEAT_*; unknown feature names are ignored */
    brk_resume_t resume[BRK_HELLO_MAX_RESUME];
    uint8_t n_resume;  /**< entries beyond BRK_HELLO_MAX_RESUME are ignored */
} brk_hello_t;

zq_err_t brk_hello_read(json_value_t obj, brk_hello_t *out);
void brk_hello_write(json_writer_t *w, const brk_hello_t *h);

/* ---- sub (frame_sub.c; PROTOCOL.md §3) --------------------------------------------------- */

typedef struct {
    json_value_t topics[BRK_SUB_MAX_ITEMS];   /**< strings */
    uint8_t n_topics;
    json_value_t services[BRK_SUB_MAX_ITEMS]; /**< strings */
    uint8_t n_services;
    bool too_many; /**< more than BRK_SUB_MAX_ITEMS of either: take the peer as wanting all */
} brk_sub_t;

zq_err_t brk_sub_read(json_value_t obj, brk_sub_t *out);
/** Writes a sub from NUL-terminated strings. */
void brk_sub_write(json_writer_t *w, const char *const *topics, size_t n_topics,
                   const char *const *services, size_t n_services);

/* ---- ack, lost (frame_ack.c, frame_lost.c; PROTOCOL.md §5, §7) --------------------------- */

typedef struct {
    uint32_t epoch;
    uint64_t upto;
} brk_ack_t;

zq_err_t brk_ack_read(json_value_t obj, brk_ack_t *out);
void brk_ack_write(json_writer_t *w, const brk_ack_t *a);

typedef struct {
    uint32_t epoch;
    uint64_t from;
    uint64_t to; /**< from <= to */
} brk_lost_t;

zq_err_t brk_lost_read(json_value_t obj, brk_lost_t *out);
void brk_lost_write(json_writer_t *w, const brk_lost_t *l);

/* ---- ready, done (frame_ready.c, frame_done.c; PROTOCOL.md §6) --------------------------- */

typedef struct {
    json_value_t queue; /**< string, non-empty */
    uint32_t credit;
} brk_ready_t;

zq_err_t brk_ready_read(json_value_t obj, brk_ready_t *out);
void brk_ready_write(json_writer_t *w, const char *queue, size_t queue_len, uint32_t credit);

typedef struct {
    json_value_t id; /**< string, non-empty */
    bool ok;
    bool busy;       /**< a nack for lack of room: not an attempt (only with !ok) */
} brk_done_t;

/** How a consumer is done with a job: acked, failed (an attempt), or not taken for lack of
 *  room (credit overshoot: the job goes back without costing an attempt). */
typedef enum { BRK_DONE_OK, BRK_DONE_FAILED, BRK_DONE_BUSY } brk_done_outcome_t;

zq_err_t brk_done_read(json_value_t obj, brk_done_t *out);
void brk_done_write(json_writer_t *w, const char *id, size_t id_len,
                    brk_done_outcome_t outcome);

/* ---- dlq, dlq_jobs (frame_dlq.c; PROTOCOL.md §6) ----------------------------------------- */

typedef enum { BRK_DLQ_LIST, BRK_DLQ_REQUEUE, BRK_DLQ_PURGE } brk_dlq_op_t;

typedef struct {
    json_value_t queue;
    brk_dlq_op_t op;
} brk_dlq_t;

zq_err_t brk_dlq_read(json_value_t obj, brk_dlq_t *out);
void brk_dlq_write(json_writer_t *w, const char *queue, size_t queue_len, brk_dlq_op_t op);

/** The answer to a list: the caller writes the jobs array itself between begin and end, one
 *  object per job ({"id","payload","retryCount"}), so jobs need not be gathered first. */
void brk_dlq_jobs_begin(json_writer_t *w, const char *queue, size_t queue_len);
void brk_dlq_jobs_item(json_writer_t *w, const char *id, size_t id_len, json_value_t payload,
                       uint32_t retry_count);
void brk_dlq_jobs_end(json_writer_t *w, bool more);

typedef struct {
    json_value_t queue;
    json_value_t jobs; /**< the array; walk it with json_iter and brk_dlq_job_read() */
    bool more;
} brk_dlq_jobs_t;

zq_err_t brk_dlq_jobs_read(json_value_t obj, brk_dlq_jobs_t *out);

typedef struct {
    json_value_t id;
    json_value_t payload;
    uint32_t retry_count;
} brk_dlq_job_t;

zq_err_t brk_dlq_job_read(json_value_t item, brk_dlq_job_t *out);

/* ---- chunk (frame_chunk.c; PROTOCOL.md §8): binary, not JSON ----------------------------- */

/** Bytes before a chunk's piece: "ZC", frame id, index, count. */
#define BRK_CHUNK_HEADER 10

typedef struct {
    uint32_t id;          /**< the same in every piece of one frame */
    uint16_t index;       /**< this piece's, from 0; below count */
    uint16_t count;       /**< pieces of the frame, at least 2 */
    const uint8_t *piece; /**< bytes of the frame's text: borrowed (a read's point into the
                               message read, valid while it is); may be empty */
    size_t piece_len;
} brk_chunk_t;

/** Reads one binary message @p msg of @p len bytes as a chunk, @p out->piece pointing into
 *  it. @return ZQ_ERR_TRUNCATED when it is shorter than a header, ZQ_ERR_MALFORMED for
 *  another magic, a count below 2 or an index not below the count; @p out is zeroed then. */
zq_err_t brk_chunk_read(const uint8_t *msg, size_t len, brk_chunk_t *out);

/** Writes @p c (header, then its piece) into @p buf of @p cap bytes; @p c->piece must not
 *  overlap @p buf. @return the chunk's length, or 0 when it does not fit or its numbers
 *  break the reader's rules (count below 2, index not below it). */
size_t brk_chunk_write(uint8_t *buf, size_t cap, const brk_chunk_t *c);

/* ---- rep (frame_rep.c; PROTOCOL.md §6) --------------------------------------------------- */

typedef struct {
    json_value_t corr;    /**< string, non-empty */
    json_value_t payload; /**< any value; empty span when absent */
    bool ok;              /**< default true when absent */
    json_value_t error;   /**< string; empty span when absent */
} brk_rep_t;

zq_err_t brk_rep_read(json_value_t obj, brk_rep_t *out);
void brk_rep_write(json_writer_t *w, const brk_rep_t *r);

#endif /* ZQ_BRK_FRAME_H */
