/* What the broker's files share; not an API (brk.h is).
 *
 *   brk.c       init, brk_poll_event (send what is due, read, dispatch), timers
 *   peer.c      per peer: hello, sub, heartbeat, reassembly (pieces and chunks), sending
 *   publish.c   publishing: seq, replay ring, fan-out by interest, QoS 1 acks, resume, LVC
 *   deliver.c   receiving messages: subscriptions, resume points, dedup, acks owed
 *   queue.c     producer side of queues: jobs, credit, leases, dead letters
 *   consume.c   consumer side: ready credit, jobs held, done
 *   rpc_serve.c    services served, requests held for the application's reply
 *   rpc_request.c  requests in flight, their retries and replies, in zq's and ZeroQ's form
 *   switched_off.c what the entry points of a feature switched off (zq/config.h) answer
 *
 * Every handler of a received frame may fill *ev with an application event and return true;
 * the event's strings then point into that peer's frame buffer (valid until the next
 * brk_poll_event). */
#ifndef ZQ_BRK_INTERNAL_H
#define ZQ_BRK_INTERNAL_H

#include "broker/brk.h"
#include "broker/pattern.h"

/* ---- brk.c ------------------------------------------------------------------------------- */

/** One whole frame from peer @p slot (an open one): parsed and handed to its module. The
 *  event's strings point into @p text. What read_peer does per frame; the fuzzer calls it. */
bool brk_handle_frame(brk_t *b, uint64_t now, uint8_t slot, const char *text, size_t len,
                      brk_event_t *ev);

/** Queues an event that is not tied to a frame (peer up/down, dead letter, failure...) and
 *  returns it, zeroed but for @p type, for its other fields; NULL when the queue is full
 *  (counted: brk_events_refused()). */
brk_event_t *brk_push_event(brk_t *b, brk_event_type_t type);
/** Remembers that a call returned ZQ_ERR_WOULD_BLOCK: BRK_EVENT_WRITABLE once room returns. */
void brk_note_blocked(brk_t *b);
/** Room was freed (an ack, a finished job, a free request slot, a writable channel). */
void brk_note_room(brk_t *b);

/** A random id of the given prefix ("j-", "c-", ...) or a UUID v4 when @p prefix is NULL, as
 *  ZeroQ's crypto.randomUUID(); NUL-terminated in @p out (BRK_ID_MAX bytes). */
void brk_new_id(brk_t *b, const char *prefix, char out[BRK_ID_MAX]);

/** Copies a name (topic, queue, service) checking its length and UTF-8: ZQ_OK,
 *  ZQ_ERR_TOO_LONG, ZQ_ERR_MALFORMED. */
zq_err_t brk_name_set(brk_name_t *n, const char *text, size_t len);
bool brk_name_equals(const brk_name_t *n, const char *text, size_t len);
/** The JSON string value (quoted, escaped) of @p text, written into @p out: what the frame
 *  writers take for ids, topics and correlations. An empty span if it does not fit. */
json_value_t brk_json_string(const char *text, size_t len, char *out, size_t cap);
/** Room for the quoted form of any name (every byte escaped as \u00XX, and the quotes). */
#define BRK_QUOTED_MAX (ZQ_BRK_NAME_MAX * 6 + 3)

/** A JSON string value's content into a name (unescaped). */
zq_err_t brk_name_from_json(brk_name_t *n, json_value_t v);

/* ---- peer.c ------------------------------------------------------------------------------ */

/** Starts a frame in b->out. */
void brk_frame_begin(brk_t *b, json_writer_t *w);
/**
 * Sends the frame in @p w to peer @p slot: whole when it fits the channel's message size, in
 * chunk frames (PROTOCOL.md §8) when it does not but fits the peer's max.
 * @return ZQ_OK; ZQ_ERR_WOULD_BLOCK (nothing was sent: try again later); ZQ_ERR_TOO_LONG;
 *         ZQ_ERR_NOT_FOUND (no open channel).
 */
zq_err_t brk_send_frame(brk_t *b, uint64_t now, uint8_t slot, json_writer_t *w);
/** Sends text that is already a frame (from the replay ring, the job store...). */
zq_err_t brk_send_text(brk_t *b, uint64_t now, uint8_t slot, const char *text, size_t len);
/** Whether peer @p slot's channel has room for a frame of @p len bytes now. */
bool brk_peer_has_room(const brk_t *b, uint8_t slot, size_t len);

/** ZeroQ's MAX_RETRIES: a nacked ZeroQ job goes on while retryCount + 1 is under it. */
#define BRK_ZEROQ_MAX_RETRIES 3u

/** A ZeroQ envelope to @p slot: a new id, @p topic, @p payload and the wall clock. It is how a
 *  ZeroQ peer is asked (the service is the topic) and answered (on its replyTo topic). */
zq_err_t brk_send_zeroq_envelope(brk_t *b, uint64_t now, uint8_t slot, const char *topic,
                                 size_t topic_len, json_value_t payload);

/** Takes up a channel the node has open and the broker does not know yet. */
void brk_ensure_peer_up(brk_t *b, uint64_t now, uint8_t slot);
/** A peer's channel opened / closed (from brk_handle_node_event). */
void brk_peer_up(brk_t *b, uint64_t now, uint8_t slot);
void brk_peer_down(brk_t *b, uint64_t now, uint8_t slot);
/** Sends what is due to every peer (hello, sub, pong, acks, credits, lost) while it has room. */
void brk_peers_send_due(brk_t *b, uint64_t now);
/** Reads the next whole frame from @p slot into its frame buffer; false if none is complete. */
bool brk_peer_read_frame(brk_t *b, uint64_t now, uint8_t slot);
/** One message or piece @p m read from @p slot's channel, into its frame buffer, joined to
 *  its other pieces and chunks: true when a whole frame is at frame[0..frame_len). What
 *  brk_peer_read_frame() does with each thing it reads (and the fuzz targets without it). */
bool brk_peer_take_piece(brk_t *b, uint8_t slot, const dc_message_t *m);
/** Heartbeats and silence (ZeroQ's 10 s / 30 s). */
uint64_t brk_peers_next_timeout(const brk_t *b);
void brk_peers_timeout(brk_t *b, uint64_t now);
/** Marks the sub frame due for every zq peer (our subscriptions or services changed). */
void brk_peers_sub_changed(brk_t *b);
/** Whether peer @p slot's announced patterns match @p topic (always for wants_all). */
bool brk_peer_wants(const brk_t *b, uint8_t slot, const char *topic, size_t len);
bool brk_peer_serves(const brk_t *b, uint8_t slot, const char *service, size_t len);
bool brk_peer_has(const brk_t *b, uint8_t slot, uint32_t feature);

/* Frame handlers in peer.c */
void brk_on_hello(brk_t *b, uint64_t now, uint8_t slot, json_value_t obj);
void brk_on_sub(brk_t *b, uint64_t now, uint8_t slot, json_value_t obj);

/* ---- publish.c --------------------------------------------------------------------------- */

void brk_pub_init(brk_t *b);
/** Sends ring entries each peer has not had yet, in seq order, while it has room. */
void brk_pub_pump(brk_t *b, uint64_t now);
void brk_pub_peer_up(brk_t *b, uint64_t now, uint8_t slot);
void brk_pub_peer_down(brk_t *b, uint64_t now, uint8_t slot);
/** The peer is taken for ZeroQ with no hello of its own: what goes to it now is ZeroQ's form. */
void brk_pub_taken_for_zeroq(brk_t *b, uint8_t slot);
/** A hello's resume point for us (same epoch): replay from @p seq + 1, but for what went in
 *  ZeroQ's form before the hello. */
void brk_pub_resume(brk_t *b, uint64_t now, uint8_t slot, uint64_t seq);
/** The peer's sub changed: send it the last values it now wants. */
void brk_pub_sub_changed(brk_t *b, uint64_t now, uint8_t slot);
void brk_on_ack(brk_t *b, uint64_t now, uint8_t slot, json_value_t obj);
uint64_t brk_pub_next_timeout(const brk_t *b);
void brk_pub_timeout(brk_t *b, uint64_t now);

/* ---- deliver.c --------------------------------------------------------------------------- */

void brk_subs_init(brk_t *b);
/** A published message (no "k") from @p slot: an event if a subscription matches and it is
 *  not a duplicate. */
bool brk_on_message(brk_t *b, uint64_t now, uint8_t slot, const brk_envelope_t *e,
                    brk_event_t *ev);
bool brk_on_lost(brk_t *b, uint64_t now, uint8_t slot, json_value_t obj, brk_event_t *ev);
/** Fills @p h's resume points from what this node delivered before. */
void brk_subs_fill_resume(const brk_t *b, brk_hello_t *h);
/* hold_qos1: every held place is taken, no message may be read. */
bool brk_subs_input_full(const brk_t *b);
/** The patterns to announce, for the sub frame. */
size_t brk_subs_patterns(const brk_t *b, const char **out, size_t cap);

/* ---- queue.c (producer side) -------------------------------------------------------------- */

void brk_jobs_pump(brk_t *b, uint64_t now);
void brk_jobs_peer_down(brk_t *b, uint64_t now, uint8_t slot);
void brk_on_ready(brk_t *b, uint64_t now, uint8_t slot, json_value_t obj);
void brk_on_done(brk_t *b, uint64_t now, uint8_t slot, json_value_t obj);
void brk_on_dlq(brk_t *b, uint64_t now, uint8_t slot, json_value_t obj);
uint64_t brk_jobs_next_timeout(const brk_t *b);
void brk_jobs_timeout(brk_t *b, uint64_t now);
/** Index of @p queue among the produced queues (for brk_peer_t.credit), or -1. */
int brk_jobs_queue_index(const brk_t *b, const char *queue, size_t len);

/* ---- consume.c (consumer side) ------------------------------------------------------------ */

/** A job envelope ("k":"job", or a ZeroQ envelope on a consumed queue) from @p slot. */
bool brk_on_job(brk_t *b, uint64_t now, uint8_t slot, const brk_envelope_t *e,
                brk_event_t *ev);
bool brk_on_dlq_jobs(brk_t *b, uint64_t now, uint8_t slot, json_value_t obj, brk_event_t *ev);
/** Writes the ready frames due to @p slot (ready_due bits); false if the channel was full. */
bool brk_consumer_send_ready(brk_t *b, uint64_t now, uint8_t slot);
void brk_consumer_peer_down(brk_t *b, uint64_t now, uint8_t slot);
/** Whether this node consumes @p queue (ZeroQ envelopes on it are jobs, not messages). */
bool brk_consumer_has(const brk_t *b, const char *queue, size_t len);

/* ---- rpc_serve.c, rpc_request.c ------------------------------------------------------------ */

/** A request envelope ("k":"req", or a ZeroQ envelope with payload.replyTo) from @p slot:
 *  true with a REQUEST event when we serve its service; false otherwise (a ZeroQ one is then
 *  an ordinary message; a zq one is answered with a refusal). */
bool brk_on_request(brk_t *b, uint64_t now, uint8_t slot, const brk_envelope_t *e,
                    brk_event_t *ev);
bool brk_on_rep(brk_t *b, uint64_t now, uint8_t slot, json_value_t obj, brk_event_t *ev);
/** A ZeroQ envelope whose topic is the corr of one of our ZeroQ-form requests: its reply. */
bool brk_rpc_zeroq_reply(brk_t *b, uint64_t now, uint8_t slot, const brk_envelope_t *e,
                         brk_event_t *ev);
void brk_rpc_pump(brk_t *b, uint64_t now);
void brk_rpc_peer_down(brk_t *b, uint64_t now, uint8_t slot);
void brk_serve_peer_down(brk_t *b, uint8_t slot);
uint64_t brk_rpc_next_timeout(const brk_t *b);
void brk_rpc_timeout(brk_t *b, uint64_t now);
/** The services to announce, for the sub frame. */
size_t brk_rpc_services(const brk_t *b, const char **out, size_t cap);

#endif /* ZQ_BRK_INTERNAL_H */
