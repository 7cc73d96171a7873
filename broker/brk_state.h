/**
 * @file brk_state.h
 * @brief brk_t's parts, one struct per module, so the caller can allocate a broker. Not an
 *        API: read brk.h. Each module owns its struct:
 *
 *   brk_peer_t      broker/peer.c      per node peer: hello, interest, reassembly, due frames
 *   brk_pub_t       broker/publish.c   epoch, seq, replay ring, QoS 1 receivers, last values
 *   brk_subs_t      broker/deliver.c   local patterns, resume points, dedup
 *   brk_jobs_t      broker/queue.c     producer side: jobs, leases, dead letters
 *   brk_consumer_t  broker/consume.c   consumer side: queues consumed, jobs held
 *   brk_rpc_t       broker/rpc_*.c     services served, requests in flight
 */
#ifndef ZQ_BRK_STATE_H
#define ZQ_BRK_STATE_H

/* Included from brk.h only, after its capacities and types. */

/** Longest id the broker makes (UUID text) or keeps. */
#define BRK_ID_MAX 48
/** Frame text per chunk (PROTOCOL.md §8), after its BRK_CHUNK_HEADER (frame.h). */
#define BRK_CHUNK_PIECE 4096
/** A peer that has sent nothing this long after its channel opened is taken for a ZeroQ
 *  peer (zq peers send hello at once; ZeroQ ones gossip at once, but may not). */
#define BRK_HELLO_WAIT_MS 1000
/** ...and one whose zq frames came before its hello (lost on the way) waits this long for the
 *  hello, which a zq.js page sends again up to 3 times, 0.5 s apart (PROTOCOL.md §2). */
#define BRK_HELLO_LOST_WAIT_MS (2 * BRK_HELLO_WAIT_MS)

typedef struct {
    char text[ZQ_BRK_NAME_MAX + 1];
    uint8_t len;
} brk_name_t;

/* ---- Per peer (peer.c) ------------------------------------------------------------------- */

typedef struct {
    bool open;               /* the node's channel to it is open */
    uint64_t opened_at;
    bool classified;         /* its first frame arrived: a hello (zq) or anything (ZeroQ,
                                which gossips at once), or BRK_HELLO_WAIT_MS went by:
                                publishing to it may start */
    bool hello_lost;         /* its zq frames came before its hello: not ZeroQ, it waits */
    bool zq;                 /* its hello arrived */
    bool wants_all;          /* ZeroQ peer, or its sub did not fit: every message */
    uint8_t fp[BRK_FP_HEX / 2]; /* identity: its certificate fingerprint's first 8 bytes */
    uint32_t features;       /* BRK_FEAT_* from its hello */
    uint32_t max_frame;      /* its hello's max */
    uint32_t epoch;          /* its hello's epoch */
    brk_name_t topics[ZQ_BRK_PEER_SUBS];  /* its patterns */
    uint8_t n_topics;
    brk_name_t services[ZQ_BRK_MAX_SERVICES];
    uint8_t n_services;
    uint32_t credit[ZQ_BRK_MAX_QUEUES];   /* its credit for our produced queues (by index) */
    /* receiving */
    uint64_t last_rx;        /* any frame: ZeroQ's 30 s rule */
    uint64_t next_ping_at;
    bool reading;            /* a frame is being reassembled from pieces */
    bool chunking;           /* ...from chunks (PROTOCOL.md §8) */
    uint16_t chunk_next;     /* next chunk index expected */
    uint16_t chunk_count;
    uint32_t chunk_id;
    uint32_t asm_len;        /* frame text assembled from chunks so far, at frame[0] */
    uint32_t frame_len;      /* the message being read, at frame[asm_len] */
    bool frame_too_long;     /* the rest of this message is skipped, and counted */
    /* sending: frames due, regenerated when the channel has room */
    bool hello_due;
    bool sub_due;
    bool pong_due;
    bool ping_due;
    bool sub_received;       /* its sub arrived: publishing to it may start */
    uint32_t ready_due;      /* bit per consumed queue index */
    bool ack_due;
    uint32_t ack_epoch;
    uint64_t ack_upto;
    uint64_t ack_at;         /* when the batched ack must go at the latest */
    uint32_t acks_owed;      /* QoS 1 messages delivered since the last ack sent */
    bool lost_due;
    brk_lost_t lost;
    /* publishing to it */
    int8_t receiver;         /* its QoS 1 receiver slot (brk_pub_t), or -1 */
    uint64_t sent_seq;       /* last seq of ours it was sent (or skipped as unwanted) */
    uint64_t joined_seq;     /* our last seq when its channel opened: older last values are
                                new to it */
    uint64_t zeroq_from;     /* taken for ZeroQ without a hello: our seqs from zeroq_from */
    uint64_t zeroq_to;       /* to zeroq_to (when its hello came) went in ZeroQ's form; its
                                replay skips them (0, 0: none; PROTOCOL.md §2) */
    bool resumed;            /* its hello resumed from us: replay, not last values */
    bool lvc_offered;        /* last values are offered once, at its first sub */
    int16_t lvc_next;        /* next last-value entry to offer it, or -1 */
    /* Last: brk_peer_up() clears everything before it, not the buffer itself. */
    char frame[ZQ_BRK_FRAME_MAX];
} brk_peer_t;

/* ---- Publisher (publish.c) --------------------------------------------------------------- */

typedef struct {
    bool used;
    uint8_t fp[BRK_FP_HEX / 2];
    int8_t peer;             /* node peer slot while connected, else -1 */
    uint64_t left_at;        /* when it disconnected (linger starts) */
    uint64_t acked;          /* highest seq it acknowledged */
    /* What it wanted when it left: QoS 1 messages for it are kept while it lingers. */
    brk_name_t topics[ZQ_BRK_PEER_SUBS];
    uint8_t n_topics;
    bool wants_all;
} brk_receiver_t;

/* A last value: the topic then the frame text, in a slot of lvc_buf of BRK_LVC_SLOT bytes. */
#define BRK_LVC_SLOT (ZQ_BRK_LVC_BYTES / ZQ_BRK_LVC_TOPICS)

typedef struct {
    bool used;
    uint8_t topic_len;
    uint16_t text_len;
    uint64_t seq;
} brk_lvc_entry_t;

typedef struct {
    uint32_t epoch;
    uint64_t next_seq;
    brk_ring_t ring;
    uint8_t ring_buf[ZQ_BRK_RING_BYTES];
    brk_receiver_t receivers[ZQ_BRK_MAX_RECEIVERS];
    brk_lvc_entry_t lvc[ZQ_BRK_LVC_TOPICS];
    uint8_t next_lvc;        /* the slot a new topic takes when all are used (round robin) */
    char lvc_buf[ZQ_BRK_LVC_BYTES];
    bool blocked;            /* a publish returned WOULD_BLOCK: WRITABLE when room returns */
} brk_pub_t;

/* ---- Subscriber (deliver.c) -------------------------------------------------------------- */

typedef struct {
    bool used;
    uint8_t fp[BRK_FP_HEX / 2];
    uint32_t epoch;
    uint64_t last_seq;       /* last seq delivered from it (resume point) */
    uint64_t used_at;        /* LRU */
} brk_publisher_t;

/* A QoS 1 message delivered under hold_qos1, not finished yet: its publisher's ack and resume
 * point stay below it. */
typedef struct {
    bool used;
    uint8_t publisher;       /* index in brk_subs_t.publishers */
    uint32_t epoch;
    uint64_t seq;
    uint32_t handle;         /* brk_message_done()'s */
} brk_held_msg_t;

typedef struct {
    brk_name_t patterns[ZQ_BRK_MAX_SUBS];
    uint8_t n_patterns;
    brk_publisher_t publishers[ZQ_BRK_MAX_PUBLISHERS];
    brk_held_msg_t held[ZQ_BRK_HELD_MESSAGES];
    uint8_t n_held;
    uint32_t next_handle;
#if ZQ_BRK_ZEROQ_COMPAT
    brk_dedup_t dedup;       /* ZeroQ envelopes: (identity, id, retryCount) */
#endif
} brk_subs_t;

/* ---- Producer side of queues (queue.c) ---------------------------------------------------- */

typedef enum { BRK_JOB_FREE, BRK_JOB_WAITING, BRK_JOB_LEASED, BRK_JOB_DEAD } brk_job_state_t;

typedef struct {
    uint8_t state;           /* brk_job_state_t */
    uint8_t queue;           /* index in brk_jobs_t.queues */
    int8_t peer;             /* leased to this node peer slot */
    uint8_t avoid_fp[BRK_FP_HEX / 2]; /* the last consumer that failed it: another first */
    bool has_avoid;
    uint32_t attempts;
    uint64_t deadline;       /* lease end */
    uint64_t enqueued_at;
    uint32_t order;          /* jobs go out in the order they came (or were requeued) */
    char id[BRK_ID_MAX];
    uint32_t offset;         /* payload text in job_buf */
    uint32_t len;
} brk_job_t;

typedef struct {
    brk_name_t queues[ZQ_BRK_MAX_QUEUES];
    uint8_t n_queues;
    brk_job_t jobs[ZQ_BRK_MAX_JOBS];
    uint8_t job_buf[ZQ_BRK_JOB_BYTES];
    uint32_t job_used;
    uint8_t next_peer;       /* round-robin start */
    uint32_t next_order;
    bool blocked;
} brk_jobs_t;

/* ---- Consumer side of queues (consume.c) ---------------------------------------------------- */

typedef struct {
    bool used;
    uint8_t queue;           /* index in brk_consumer_t.queues */
    int8_t peer;             /* the producer's node peer slot */
    bool producer_gone;      /* done tells nobody */
    bool from_zeroq;         /* a ZeroQ broadcast: a nack sends it on (keep_*), ZeroQ's way */
    bool last_try;           /* from_zeroq with retryCount + 1 >= 3: a nack makes it dead */
    uint32_t handle;
    uint32_t keep_off;       /* its resend in brk_consumer_t.zeroq_keep; keep_len 0: none */
    uint32_t keep_len;
    char id[BRK_ID_MAX];
} brk_held_t;

typedef struct {
    brk_name_t queues[ZQ_BRK_MAX_QUEUES];
    uint32_t credit[ZQ_BRK_MAX_QUEUES];
    uint8_t n_queues;
    brk_held_t held[ZQ_BRK_MAX_HELD];
    uint32_t next_handle;
    char zeroq_keep[ZQ_BRK_ZEROQ_KEEP_BYTES]; /* held ZeroQ jobs' resends, packed */
    uint32_t zeroq_keep_used;
} brk_consumer_t;

/* ---- Services and requests (rpc_*.c) ----------------------------------------------------- */

typedef struct {
    bool used;
    bool zeroq;              /* sent ZeroQ's way (payload.replyTo) */
    uint32_t handle;
    char corr[BRK_ID_MAX];
    char service[ZQ_BRK_NAME_MAX + 1];
    uint8_t tried[(ZQ_NODE_MAX_PEERS + 7) / 8]; /* peers asked already */
    uint32_t retries_left;
    uint32_t timeout_ms;
    uint64_t deadline;
    int8_t peer;             /* asked now */
    uint32_t offset;         /* its slot in req_buf: the zq frame, then ZeroQ's payload */
    uint32_t len;            /* the zq frame */
    uint32_t zeroq_payload_len; /* the payload with replyTo (0: not an object) */
} brk_request_t;

typedef struct {
    bool used;
    int8_t peer;
    bool zeroq;
    uint32_t handle;
    char corr[BRK_ID_MAX];   /* or ZeroQ's replyTo */
} brk_incoming_t;

typedef struct {
#if ZQ_BRK_REQUEST_SERVER
    brk_name_t services[ZQ_BRK_MAX_SERVICES];
    uint8_t n_services;
    brk_incoming_t incoming[ZQ_BRK_MAX_REQUESTS];
#endif
#if ZQ_BRK_REQUEST_CLIENT
    brk_request_t requests[ZQ_BRK_MAX_REQUESTS];
    uint8_t req_buf[ZQ_BRK_REQUEST_BYTES];
#endif
    uint32_t next_handle;    /* requests' and incoming requests' handles alike */
} brk_rpc_t;

/* ---- Counters ------------------------------------------------------------------------------ */

typedef struct {
    uint32_t rx_frames;
    uint32_t rx_malformed;       /* not JSON, not an object, or a frame's reader refused it */
    uint32_t rx_unknown;         /* an object with a type zq does not know */
    uint32_t rx_too_long;        /* frames over ZQ_BRK_FRAME_MAX: skipped */
    uint32_t rx_duplicates;      /* dropped by dedup or by seq */
    uint32_t rx_unwanted;        /* messages matching no subscription (ZeroQ broadcasts) */
    uint32_t rx_bad_patterns;    /* patterns of a peer's sub that brk_pattern_check refused (or
                                    not UTF-8, or too long): the peer is sent everything */
    uint32_t tx_frames;
    uint32_t tx_chunks;
    uint32_t tx_unsendable;      /* due hello, sub, ping, pong, ack or lost frames that could
                                    not go at all (too long, channel gone): not retried */
    uint32_t lost_announced;     /* seq ranges announced to subscribers */
    uint32_t undelivered;        /* QoS 1 messages given up with a lingering receiver */
    uint32_t jobs_done, jobs_failed, jobs_dead, jobs_redelivered;
    uint32_t jobs_busy;          /* refused by a consumer without room: handed out again */
    uint32_t jobs_refused;       /* consumer side: jobs we had no room for, sent back busy */
    uint32_t zeroq_resent;       /* ZeroQ jobs nacked here and sent on with retryCount + 1 */
    uint32_t zeroq_dead;         /* ZeroQ jobs nacked here at their last try (ZeroQ's DLQ) */
    uint32_t zeroq_unsent;       /* ZeroQ jobs nacked here that no room was kept for: lost */
    uint32_t requests_retried, requests_failed;
    uint32_t peers_timed_out;    /* dropped after silence_ms */
    uint32_t rx_switched_off;    /* frames needing a feature this build left out (zq/config.h:
                                    work queues, requests, ZeroQ's peers, chunks): dropped */
} brk_stats_t;

typedef struct {
    node_t *node;
    brk_config_t cfg;
    brk_peer_t peers[ZQ_NODE_MAX_PEERS];
    brk_pub_t pub;
    brk_subs_t subs;
#if ZQ_BRK_WORK_QUEUES
    brk_jobs_t jobs;
    brk_consumer_t consumer;
#endif
    brk_rpc_t rpc;
    brk_stats_t stats;
    char out[ZQ_BRK_FRAME_MAX];  /* the frame being written */
    char ring_text[ZQ_BRK_NAME_MAX + 1 + ZQ_BRK_FRAME_MAX]; /* topic, NUL, frame: a ring entry */
    char ev_topic[ZQ_BRK_NAME_MAX + 1]; /* an event's topic when it had JSON escapes */
#if ZQ_BRK_CHUNKING
    uint8_t chunk[BRK_CHUNK_HEADER + BRK_CHUNK_PIECE]; /* one chunk being sent */
    uint32_t next_chunk_id;
#endif
    uint8_t own_fp[BRK_FP_HEX / 2];       /* our identity */
    bool room_changed;           /* room was freed since the last WRITABLE */
    uint8_t next_peer;           /* round-robin start for reading */
    bool input_held;             /* brk_hold_input(): no frame is read */
    bool writable_due;           /* a WOULD_BLOCK happened: report WRITABLE once room returns */
    /* events waiting for brk_poll_event (peers up and down, dead letters, failed requests,
       undelivered messages); a full queue refuses and counts (brk_events_refused()) */
    zq_queue_t evq;
    brk_event_t events[2 * ZQ_NODE_MAX_PEERS];
} brk_t;

#endif /* ZQ_BRK_STATE_H */
