/**
 * @file brk.h
 * @brief The broker: topics, work queues and services over a node's peers, ZeroQ-compatible,
 *        with the guarantees ZeroQ lacks (broker/PROTOCOL.md). Sans-IO, no allocation.
 *
 * The broker sits on a node (node/node.h: the peers of one signalling room) the way the echo
 * service does: the caller feeds it the node's events, and asks it for the broker's own events
 * (messages, jobs, requests, replies); everything it sends goes out through the node.
 *
 * @code
 * brk_config_default(&cfg);
 * brk_init(&brk, &node, &cfg);
 * brk_subscribe(&brk, now, "sensors.#");
 * brk_publish(&brk, now, "sensors.kitchen.temp", "21.5", 4, BRK_QOS_1);
 * // after every input to the node:
 * while (node_poll_event(&node, &ev)) brk_handle_node_event(&brk, now, &ev);
 * while (brk_poll_event(&brk, now, &bev)) handle(&bev);     // drives reading, too
 * // and at brk_next_timeout(): brk_handle_timeout(&brk, now)
 * @endcode
 *
 * Payloads are JSON values as text ("21.5", "\"text\"", "{\"a\":1}"), passed through
 * verbatim: a ZeroQ peer receives them as `payload`. An event's strings borrow the broker's
 * buffers until the next brk_poll_event().
 *
 * Nothing is dropped silently: publish, enqueue, request and reply return ZQ_ERR_WOULD_BLOCK
 * when the broker cannot take more now (BRK_EVENT_WRITABLE follows), ZQ_ERR_TOO_LONG for what
 * could never be sent, and messages a subscriber missed are announced (BRK_EVENT_LOST). An
 * event not tied to a frame (peer up or down, dead letter, failed request, undelivered
 * messages) that finds the event queue full, because brk_poll_event() was not called to the
 * end, is refused and counted: brk_events_refused().
 */
#ifndef ZQ_BRK_H
#define ZQ_BRK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "broker/dedup.h"
#include "broker/frame.h"
#include "broker/replay_ring.h"
#include "node/node.h"
#include "zq/config.h"
#include "zq/err.h"
#include "zq/queue.h"

/* ---- Configuration ----------------------------------------------------------------------- */

typedef enum { BRK_QOS_0 = 0, BRK_QOS_1 = 1 } brk_qos_t;

typedef struct {
    zq_rand_t rand;              /**< message ids and epochs (required) */
    uint32_t ping_ms;            /**< ZeroQ heartbeat: 10000 */
    uint32_t silence_ms;         /**< a peer silent this long is dropped: 30000 */
    uint32_t ack_delay_ms;       /**< QoS 1 acks are batched this long at most: 20 */
    uint32_t linger_ms;          /**< a QoS 1 receiver away this long is given up: 60000 */
    uint32_t lease_ms;           /**< default job lease (visibility timeout): 30000 */
    uint32_t max_attempts;       /**< a job's attempts before the dead-letter queue: 3 */
    uint32_t request_timeout_ms; /**< default request timeout: 5000 */
    uint32_t request_retries;    /**< default further responders tried after a timeout: 2 */
    int64_t wall_offset_ms;      /**< added to `now` for envelopes' "timestamp" (ZeroQ puts
                                      Date.now() there): the port's wall clock minus its
                                      monotonic one; 0 leaves the monotonic time */
    bool hold_qos1;              /**< false: a QoS 1 message is acknowledged once delivered.
                                      true (a bridge): only once the application calls
                                      brk_message_done() with its event's handle, when the
                                      next hop has it; until then the publisher keeps it, and
                                      so does this broker's resume point (a restart that
                                      restores it, brk_resume_restore(), gets it again) */
} brk_config_t;

void brk_config_default(brk_config_t *cfg);

/* ---- Events ------------------------------------------------------------------------------ */

typedef enum {
    BRK_EVENT_MESSAGE,        /**< a message on a subscribed topic */
    BRK_EVENT_LOST,           /**< messages of a publisher that may have matched are gone */
    BRK_EVENT_JOB,            /**< a job for a queue this node consumes: brk_job_done() it */
    BRK_EVENT_REQUEST,        /**< a request to a service this node serves: brk_reply() */
    BRK_EVENT_REPLY,          /**< the answer to brk_request() (ok, or a responder's error) */
    BRK_EVENT_REQUEST_FAILED, /**< no responder answered in time, after every retry */
    BRK_EVENT_DEAD_LETTER,    /**< a job of ours ran out of attempts (see brk_dlq_*) */
    BRK_EVENT_UNDELIVERED,    /**< QoS 1 messages a receiver that never came back missed */
    BRK_EVENT_WRITABLE,       /**< a call that returned ZQ_ERR_WOULD_BLOCK may succeed now */
    BRK_EVENT_PEER_UP,        /**< a peer's channel opened (zq or plain ZeroQ: @c zq) */
    BRK_EVENT_PEER_DOWN,      /**< a peer is gone */
} brk_event_type_t;

/** A string borrowed from the broker until the next brk_poll_event(). */
typedef struct {
    const char *p;
    size_t len;
} brk_str_t;

typedef struct {
    brk_event_type_t type;
    uint8_t peer;            /**< the node's peer slot it came from / concerns */
    bool zq;                 /**< PEER_UP: the peer said hello (else plain ZeroQ) */
    brk_str_t topic;         /**< MESSAGE: topic; JOB: queue; REQUEST: service */
    brk_str_t payload;       /**< MESSAGE, JOB, REQUEST, REPLY: the JSON value's text */
    brk_str_t id;            /**< MESSAGE, JOB: the message or job id */
    uint64_t seq;            /**< MESSAGE: the publisher's seq (0 from ZeroQ peers) */
    uint64_t lost_from;      /**< LOST: seq range */
    uint64_t lost_to;
    uint32_t attempt;        /**< JOB: earlier attempts; DEAD_LETTER: attempts made */
    uint32_t count;          /**< UNDELIVERED: messages */
    bool last_value;         /**< MESSAGE: a replayed last value (late joiner) */
    bool ok;                 /**< REPLY: false when the responder refused (@c payload then
                                  holds its error text as a JSON string) */
    uint32_t handle;         /**< JOB: for brk_job_done(); REQUEST: for brk_reply();
                                  REPLY, REQUEST_FAILED: the request's handle; MESSAGE with
                                  hold_qos1 and @c qos 1: for brk_message_done() */
    uint8_t qos;             /**< MESSAGE: 1 when its publisher waits for our ack */
} brk_event_t;

/** A subscriber's resume point for one publisher (PROTOCOL.md §7): everything up to @c seq of
 *  its epoch was delivered (and, under hold_qos1, finished). */
typedef struct {
    uint8_t fp[BRK_FP_HEX / 2]; /**< the publisher's identity */
    uint32_t epoch;
    uint64_t seq;
} brk_resume_point_t;

/* ---- The broker ------------------------------------------------------------------------- */

#include "broker/brk_state.h" /* brk_t's parts, one per module: caller-allocated, opaque */

zq_err_t brk_init(brk_t *b, node_t *node, const brk_config_t *cfg);

/** A node event (drain node_poll_event() into this). */
void brk_handle_node_event(brk_t *b, uint64_t now, const node_event_t *ev);

/** The next broker event, reading what the peers sent as needed; false when there is none.
 *  Also sends what is due (frames waiting for room, acks, credits). */
bool brk_poll_event(brk_t *b, uint64_t now, brk_event_t *ev);

uint64_t brk_next_timeout(const brk_t *b);
void brk_handle_timeout(brk_t *b, uint64_t now);

/* Topics */

/** Adds a subscription (brk_pattern_check rules); peers hear of it at once.
 *  @return ZQ_OK, ZQ_ERR_MALFORMED (brk_pattern_problem() says why), ZQ_ERR_TOO_LONG,
 *          ZQ_ERR_CAPACITY. */
zq_err_t brk_subscribe(brk_t *b, uint64_t now, const char *pattern);
zq_err_t brk_unsubscribe(brk_t *b, uint64_t now, const char *pattern);

/**
 * Publishes @p payload (one JSON value, @p len bytes) on @p topic to every peer that wants it.
 * QoS 1 keeps it until each receiver acknowledged it (across a reconnect).
 * @return ZQ_OK; ZQ_ERR_WOULD_BLOCK (the replay ring is full of messages owed acks:
 *         BRK_EVENT_WRITABLE follows); ZQ_ERR_TOO_LONG (the frame exceeds ZQ_BRK_FRAME_MAX or
 *         the ring); ZQ_ERR_MALFORMED (not one JSON value, or a bad topic: not UTF-8, or with
 *         a '+' or '#', which are for patterns only: brk_topic_problem() says so in words).
 */
zq_err_t brk_publish(brk_t *b, uint64_t now, const char *topic, const char *payload, size_t len,
                     brk_qos_t qos);

/** brk_publish(), and the message's seq in @p seq (for brk_publish_settled()). */
zq_err_t brk_publish_seq(brk_t *b, uint64_t now, const char *topic, const char *payload,
                         size_t len, brk_qos_t qos, uint64_t *seq);

/** True once no receiver owes an ack for our message @p seq: every QoS 1 receiver it went to
 *  (or that was away, and wanted it) acknowledged it or was given up on (BRK_EVENT_UNDELIVERED
 *  says so), or it had none. */
bool brk_publish_settled(const brk_t *b, uint64_t seq);

/** hold_qos1: the application has the QoS 1 message of @p handle (from BRK_EVENT_MESSAGE)
 *  where it goes next: its publisher hears our ack (with those before it), and the resume
 *  point moves past it. @return ZQ_OK or ZQ_ERR_NOT_FOUND. */
zq_err_t brk_message_done(brk_t *b, uint64_t now, uint32_t handle);

/** @p hold true: no frame is read from the peers (brk_poll_event() still sends) until it is
 *  false again: their messages wait in the data channels, whose SCTP windows close, and their
 *  publishers are slowed down, none lost. For an application whose next hop cannot take
 *  more. A broker with hold_qos1 holds its input by itself while ZQ_BRK_HELD_MESSAGES messages are
 *  unfinished. */
void brk_hold_input(brk_t *b, bool hold);

/** A QoS 1 receiver of ours (PROTOCOL.md §5): its identity and what it wants (its patterns
 *  now, or when it left). Borrowed from the broker until its next call. */
typedef struct {
    uint8_t fp[BRK_FP_HEX / 2];
    bool wants_all;          /**< a ZeroQ peer, or one whose sub did not fit: everything */
    uint8_t n_topics;
    const brk_name_t *topics;
} brk_receiver_info_t;

/** Our QoS 1 receivers, at most @p cap into @p out: @return how many. For a publisher that
 *  keeps them across a restart (brk_receiver_restore()), so that what it publishes before they
 *  are back waits for them, as for any receiver away for less than linger_ms. */
size_t brk_receivers(const brk_t *b, brk_receiver_info_t *out, size_t cap);

/** A receiver kept from an earlier run, taken as away since @p now: QoS 1 messages on the
 *  topics its @p n @p topics match (all with @p wants_all) wait for its ack, for linger_ms.
 *  @return ZQ_OK; ZQ_ERR_CAPACITY (ZQ_BRK_MAX_RECEIVERS); ZQ_ERR_TOO_LONG (a pattern, or more
 *  than ZQ_BRK_PEER_SUBS). */
zq_err_t brk_receiver_restore(brk_t *b, uint64_t now, const uint8_t fp[BRK_FP_HEX / 2],
                              bool wants_all, const char *const *topics, size_t n);

/** The resume points, at most @p cap into @p out: @return how many. For a subscriber that
 *  keeps them across a restart (with its identity: publishers know it by its certificate). */
size_t brk_resume_points(const brk_t *b, brk_resume_point_t *out, size_t cap);

/** A resume point kept from an earlier run: the next hello names it, so the publisher replays
 *  what came after it (and what it still holds for us), and nothing up to it is delivered
 *  again. Call before the peers come. @return ZQ_OK. */
zq_err_t brk_resume_restore(brk_t *b, uint64_t now, const brk_resume_point_t *p);

/* Work queues */

/**
 * Hands a job to exactly one consumer of @p queue in the mesh; the node keeps it until a
 * consumer finishes it (or it goes to the dead-letter queue).
 * @param id  may be NULL; else receives the job id (NUL-terminated, BRK_ID_MAX bytes).
 * @return ZQ_OK; ZQ_ERR_WOULD_BLOCK (the job store is full); ZQ_ERR_TOO_LONG;
 *         ZQ_ERR_MALFORMED.
 */
zq_err_t brk_enqueue(brk_t *b, uint64_t now, const char *queue, const char *payload, size_t len,
                     char *id);
/** Consumes @p queue: up to @p credit jobs at once (0 stops consuming). */
zq_err_t brk_consume(brk_t *b, uint64_t now, const char *queue, uint32_t credit);
/** Finishes job @p handle (from BRK_EVENT_JOB): @p ok acks it, else nacks it. A job from a
 *  plain ZeroQ peer (broadcast, without credit or acks) is nacked ZeroQ's way: the same
 *  envelope goes again, retryCount + 1, to every open ZeroQ peer while that count is under 3,
 *  else it is dead here (zeroq-wire.md §4); its ack tells nobody. Handle 0 (a ZeroQ job that
 *  found every held place taken) tells nobody either way (counted: zeroq_unsent).
 *  @return ZQ_OK, ZQ_ERR_NOT_FOUND (unknown or expired handle), ZQ_ERR_WOULD_BLOCK (nothing
 *  sent: again after BRK_EVENT_WRITABLE). */
zq_err_t brk_job_done(brk_t *b, uint64_t now, uint32_t handle, bool ok);

/** Dead letters of @p queue held by this node: calls @p fn for each (id, payload, attempts);
 *  @return how many. */
size_t brk_dlq_list(const brk_t *b, const char *queue,
                    void (*fn)(void *ctx, brk_str_t id, brk_str_t payload, uint32_t attempts),
                    void *ctx);
/** Puts every dead letter of @p queue back in the queue (attempts reset); @return how many. */
size_t brk_dlq_requeue(brk_t *b, uint64_t now, const char *queue);
/** Deletes every dead letter of @p queue; @return how many. */
size_t brk_dlq_purge(brk_t *b, const char *queue);
/** Asks every zq peer to do @p op on its dead letters of @p queue. Each peer's list comes back
 *  as one BRK_EVENT_MESSAGE with id "$dlq", topic the queue, and payload the JSON array of
 *  its dead jobs ({"id","payload","retryCount"}). */
zq_err_t brk_dlq_remote(brk_t *b, uint64_t now, const char *queue, brk_dlq_op_t op);

/* Services */

/** Answers requests to @p service (announced to peers at once). */
zq_err_t brk_serve(brk_t *b, uint64_t now, const char *service);
/** Replies to request @p handle (from BRK_EVENT_REQUEST); @p ok false refuses it with
 *  @p payload a JSON string saying why. */
zq_err_t brk_reply(brk_t *b, uint64_t now, uint32_t handle, bool ok, const char *payload,
                   size_t len);
/**
 * Sends a request to one responder of @p service; on no reply within @p timeout_ms (0: the
 * configured default), to the next, up to @p retries more.
 * @param handle receives the request's handle, repeated in its REPLY or REQUEST_FAILED event.
 * @return ZQ_OK; ZQ_ERR_WOULD_BLOCK (too many requests in flight); ZQ_ERR_TOO_LONG;
 *         ZQ_ERR_MALFORMED.
 */
zq_err_t brk_request(brk_t *b, uint64_t now, const char *service, const char *payload,
                     size_t len, uint32_t timeout_ms, uint32_t retries, uint32_t *handle);

/** What the broker counted: every drop, every refusal. */
const brk_stats_t *brk_stats(const brk_t *b);
/** Events (peers up and down, dead letters, failed requests, undelivered messages) refused
 *  because the event queue was full (zq/queue.h): events not drained. */
uint32_t brk_events_refused(const brk_t *b);

#endif /* ZQ_BRK_H */
