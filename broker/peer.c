/* Per peer: what zq says first (hello, sub), ZeroQ's heartbeat, reading whole frames out of
 * data channel pieces and chunks, and sending frames whole or in chunks (PROTOCOL.md §1-3,
 * §8). */
#include <string.h>

#include "broker/brk_internal.h"
#include "zq/log.h"

static brk_peer_t *peer_at(brk_t *b, uint8_t slot)
{
    return &b->peers[slot];
}

/* ---- Sending ------------------------------------------------------------------------------ */

void brk_frame_begin(brk_t *b, json_writer_t *w)
{
    json_writer_init(w, b->out, sizeof b->out);
}

/* The peer's a=max-message-size, or no limit. */
static size_t channel_max(const brk_t *b, uint8_t slot)
{
    uint32_t m = node_peer_max_message(b->node, slot);
    return m == 0 ? SIZE_MAX : m;
}

/* Send buffer bytes @p len bytes of messages need at most: one record header per ~1 KB DATA
 * fragment on top of the bytes (sctp_out_room()'s unit). */
static size_t room_needed(size_t len)
{
    return len + (len / 1024u + 1u) * 48u;
}

bool brk_peer_has_room(const brk_t *b, uint8_t slot, size_t len)
{
    return node_send_room(b->node, slot) >= room_needed(len);
}

#if ZQ_BRK_CHUNKING
/* All pieces at once or none (they must follow each other on the channel, §8), each within
 * the channel's message size. */
static zq_err_t send_chunks(brk_t *b, uint64_t now, uint8_t slot, const char *text, size_t len)
{
    if (channel_max(b, slot) <= BRK_CHUNK_HEADER) {
        return ZQ_ERR_TOO_LONG;
    }
    size_t piece = channel_max(b, slot) - BRK_CHUNK_HEADER;
    piece = piece < BRK_CHUNK_PIECE ? piece : BRK_CHUNK_PIECE;
    size_t count = (len + piece - 1) / piece;
    if (count > UINT16_MAX) {
        return ZQ_ERR_TOO_LONG;
    }
    if (node_send_room(b->node, slot) < room_needed(len + count * BRK_CHUNK_HEADER)) {
        return ZQ_ERR_WOULD_BLOCK;
    }
    uint32_t id = ++b->next_chunk_id;
    for (size_t i = 0; i < count; i++) {
        size_t off = i * piece;
        brk_chunk_t c = {id, (uint16_t)i, (uint16_t)count, (const uint8_t *)text + off,
                         len - off < piece ? len - off : piece};
        size_t n = brk_chunk_write(b->chunk, sizeof b->chunk, &c);
        /* Neither can fail after the checks above (a frame longer than the channel takes two
         * pieces at least); if one did, the peer drops the pieces that went. */
        zq_err_t err =
            n == 0 ? ZQ_ERR_INVALID_ARG : node_send(b->node, now, slot, b->chunk, n, true);
        if (err != ZQ_OK) {
            return err;
        }
        b->stats.tx_chunks++;
    }
    return ZQ_OK;
}
#else
/* Chunking left out (ZQ_BRK_CHUNKING 0): a frame longer than the channel's messages fails. */
static zq_err_t send_chunks(brk_t *b, uint64_t now, uint8_t slot, const char *text, size_t len)
{
    (void)b, (void)now, (void)slot, (void)text, (void)len;
    return ZQ_ERR_TOO_LONG;
}
#endif /* ZQ_BRK_CHUNKING */

zq_err_t brk_send_text(brk_t *b, uint64_t now, uint8_t slot, const char *text, size_t len)
{
    const brk_peer_t *p = peer_at(b, slot);
    if (!p->open) {
        return ZQ_ERR_NOT_FOUND;
    }
    if ((p->zq && len > p->max_frame) || len > ZQ_BRK_FRAME_MAX) {
        return ZQ_ERR_TOO_LONG;
    }
    zq_err_t err;
    if (len <= channel_max(b, slot)) {
        err = node_send(b->node, now, slot, (const uint8_t *)text, len, false);
    } else if (p->zq && (p->features & BRK_FEAT_CHUNK)) {
        err = send_chunks(b, now, slot, text, len);
    } else {
        err = ZQ_ERR_TOO_LONG; /* a ZeroQ peer cannot take it: its application hears it */
    }
    b->stats.tx_frames += err == ZQ_OK;
    return err;
}

zq_err_t brk_send_frame(brk_t *b, uint64_t now, uint8_t slot, json_writer_t *w)
{
    size_t len = json_finish(w);
    return len == 0 ? ZQ_ERR_TOO_LONG : brk_send_text(b, now, slot, b->out, len);
}

/* ---- Frames due --------------------------------------------------------------------------- */

static zq_err_t send_hello(brk_t *b, uint64_t now, uint8_t slot)
{
    brk_hello_t h;
    memset(&h, 0, sizeof h);
    h.version = BRK_PROTOCOL_VERSION;
    h.epoch = b->pub.epoch;
    h.max_frame = ZQ_BRK_FRAME_MAX - BRK_CHUNK_HEADER; /* what fits with a chunk's header */
    /* Only what this build has: a peer then does not send what it would have to refuse. */
    h.features = BRK_FEAT_SUB | BRK_FEAT_QOS1 | BRK_FEAT_REPLAY |
                 (ZQ_BRK_WORK_QUEUES ? BRK_FEAT_QUEUE : 0) |
                 (ZQ_BRK_REQUEST_SERVER || ZQ_BRK_REQUEST_CLIENT ? BRK_FEAT_RPC : 0) |
                 (ZQ_BRK_CHUNKING ? BRK_FEAT_CHUNK : 0);
    brk_subs_fill_resume(b, &h);
    json_writer_t w;
    brk_frame_begin(b, &w);
    brk_hello_write(&w, &h);
    return brk_send_frame(b, now, slot, &w);
}

static zq_err_t send_sub(brk_t *b, uint64_t now, uint8_t slot)
{
    const char *topics[ZQ_BRK_MAX_SUBS];
    const char *services[ZQ_BRK_MAX_SERVICES];
    size_t n_topics = brk_subs_patterns(b, topics, ZQ_BRK_MAX_SUBS);
    size_t n_services = brk_rpc_services(b, services, ZQ_BRK_MAX_SERVICES);
    json_writer_t w;
    brk_frame_begin(b, &w);
    brk_sub_write(&w, topics, n_topics, services, n_services);
    return brk_send_frame(b, now, slot, &w);
}

static zq_err_t send_heartbeat(brk_t *b, uint64_t now, uint8_t slot, bool pong)
{
    json_writer_t w;
    brk_frame_begin(b, &w);
    if (pong) {
        brk_pong_write(&w);
    } else {
        brk_ping_write(&w);
    }
    return brk_send_frame(b, now, slot, &w);
}

static zq_err_t send_ack(brk_t *b, uint64_t now, uint8_t slot)
{
    brk_peer_t *p = peer_at(b, slot);
    brk_ack_t a = {p->ack_epoch, p->ack_upto};
    json_writer_t w;
    brk_frame_begin(b, &w);
    brk_ack_write(&w, &a);
    zq_err_t err = brk_send_frame(b, now, slot, &w);
    if (err == ZQ_OK) {
        p->acks_owed = 0;
    }
    return err;
}

static zq_err_t send_lost(brk_t *b, uint64_t now, uint8_t slot)
{
    json_writer_t w;
    brk_frame_begin(b, &w);
    brk_lost_write(&w, &peer_at(b, slot)->lost);
    zq_err_t err = brk_send_frame(b, now, slot, &w);
    b->stats.lost_announced += err == ZQ_OK;
    return err;
}

/* Sends one due frame kind: clears @p flag when it went; false when the channel is full. A
 * frame that cannot go at all (too long for the peer, or its channel gone) is not retried
 * forever; it is counted and said, never dropped in silence. */
static bool send_if_due(brk_t *b, uint8_t slot, bool *flag, const char *what, zq_err_t err)
{
    if (err == ZQ_ERR_WOULD_BLOCK) {
        return false;
    }
    if (err != ZQ_OK) {
        b->stats.tx_unsendable++;
        ZQ_LOGW("brk", "peer %s: %s frame not sent: %s", node_peer_id(b->node, slot), what,
                zq_strerror(err));
    }
    *flag = false;
    return true;
}

/* The ack of a batch is due once it is large enough or old enough (PROTOCOL.md §5). */
static bool ack_ripe(const brk_peer_t *p, uint64_t now)
{
    return p->ack_due && (p->acks_owed >= 32 || now >= p->ack_at);
}

static void send_due_to(brk_t *b, uint64_t now, uint8_t slot)
{
    brk_peer_t *p = peer_at(b, slot);
    if (p->hello_due &&
        !send_if_due(b, slot, &p->hello_due, "hello", send_hello(b, now, slot))) {
        return;
    }
    if (p->zq && p->sub_due &&
        !send_if_due(b, slot, &p->sub_due, "sub", send_sub(b, now, slot))) {
        return;
    }
    if (p->pong_due &&
        !send_if_due(b, slot, &p->pong_due, "pong", send_heartbeat(b, now, slot, true))) {
        return;
    }
    if (p->ping_due &&
        !send_if_due(b, slot, &p->ping_due, "ping", send_heartbeat(b, now, slot, false))) {
        return;
    }
    if (p->zq && p->ready_due != 0 && !brk_consumer_send_ready(b, now, slot)) {
        return;
    }
    if (ack_ripe(p, now) && !send_if_due(b, slot, &p->ack_due, "ack", send_ack(b, now, slot))) {
        return;
    }
    if (p->lost_due) {
        (void)send_if_due(b, slot, &p->lost_due, "lost", send_lost(b, now, slot));
    }
}

void brk_peers_send_due(brk_t *b, uint64_t now)
{
    for (uint8_t i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        if (b->peers[i].open) {
            send_due_to(b, now, i);
        }
    }
}

void brk_peers_sub_changed(brk_t *b)
{
    for (uint8_t i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        b->peers[i].sub_due = b->peers[i].open && b->peers[i].zq;
    }
}

/* ---- Up and down -------------------------------------------------------------------------- */

void brk_peer_up(brk_t *b, uint64_t now, uint8_t slot)
{
    brk_peer_t *p = peer_at(b, slot);
    memset(p, 0, offsetof(brk_peer_t, frame));
    p->open = true;
    p->opened_at = now;
    p->wants_all = true; /* a ZeroQ peer wants everything; a hello says otherwise */
    p->receiver = -1;
    p->last_rx = now;
    p->next_ping_at = now + b->cfg.ping_ms;
    p->hello_due = true;
    const dtls_fingerprint_t *fp = node_peer_fingerprint(b->node, slot);
    if (fp != NULL) {
        memcpy(p->fp, fp->bytes, sizeof p->fp);
    }
    brk_pub_peer_up(b, now, slot);
}

void brk_peer_down(brk_t *b, uint64_t now, uint8_t slot)
{
    brk_pub_peer_down(b, now, slot);
    brk_jobs_peer_down(b, now, slot);
    brk_consumer_peer_down(b, now, slot);
    brk_rpc_peer_down(b, now, slot);
    brk_serve_peer_down(b, slot);
    b->peers[slot].open = false;
}

/* ---- Frames from the peer ------------------------------------------------------------------ */

/* A pattern too many, or an unusable one, makes the peer want everything: more traffic,
 * never a loss (PROTOCOL.md §3). An unusable one is counted: a peer of other rules (an older
 * zq's "sensors#") or a broken one, that is sent more than it asked for. */
static void store_topics(brk_t *b, brk_peer_t *p, const brk_sub_t *s)
{
    p->n_topics = 0;
    p->wants_all = s->too_many;
    for (uint8_t i = 0; i < s->n_topics; i++) {
        brk_name_t *n = &p->topics[p->n_topics];
        if (p->n_topics == ZQ_BRK_PEER_SUBS) {
            p->wants_all = true;
        } else if (brk_name_from_json(n, s->topics[i]) != ZQ_OK ||
                   brk_pattern_check(n->text, n->len) != ZQ_OK) {
            p->wants_all = true;
            b->stats.rx_bad_patterns++;
        } else {
            p->n_topics++;
        }
    }
}

static void store_services(brk_peer_t *p, const brk_sub_t *s)
{
    p->n_services = 0;
    for (uint8_t i = 0; i < s->n_services && p->n_services < ZQ_BRK_MAX_SERVICES; i++) {
        if (brk_name_from_json(&p->services[p->n_services], s->services[i]) == ZQ_OK) {
            p->n_services++;
        }
    }
}

void brk_on_sub(brk_t *b, uint64_t now, uint8_t slot, json_value_t obj)
{
    brk_sub_t s;
    if (brk_sub_read(obj, &s) != ZQ_OK) {
        b->stats.rx_malformed++;
        return;
    }
    brk_peer_t *p = peer_at(b, slot);
    store_topics(b, p, &s);
    store_services(p, &s);
    p->sub_received = true;
    brk_pub_sub_changed(b, now, slot);
}

void brk_on_hello(brk_t *b, uint64_t now, uint8_t slot, json_value_t obj)
{
    brk_hello_t h;
    if (brk_hello_read(obj, &h) != ZQ_OK) {
        b->stats.rx_malformed++;
        return;
    }
    brk_peer_t *p = peer_at(b, slot);
    bool again = p->zq;
    p->zq = true;
    /* A hello again means our sub did not come, or the peer's first hello was lost (PROTOCOL.md
     * §2): our sub goes again (sub_due below), and what its own sub said stays. */
    if (!p->sub_received) {
        p->wants_all = false; /* until its sub says what it wants */
    }
    p->features = h.features;
    p->max_frame = h.max_frame;
    p->epoch = h.epoch;
    p->sub_due = true;
    p->ready_due = UINT32_MAX; /* our credits, for every queue we consume */
    for (uint8_t i = 0; i < h.n_resume && !again; i++) { /* once: again would replay */
        if (memcmp(h.resume[i].fp, b->own_fp, sizeof b->own_fp) == 0 &&
            h.resume[i].epoch == b->pub.epoch) {
            brk_pub_resume(b, now, slot, h.resume[i].seq);
        }
    }
    if (!again && p->sub_received) {
        brk_pub_sub_changed(b, now, slot); /* its sub came first, and waited for this hello */
    }
}

static bool name_matches_any(const brk_name_t *names, uint8_t n, const char *text, size_t len,
                             bool patterns)
{
    for (uint8_t i = 0; i < n; i++) {
        bool hit = patterns ? brk_pattern_match(names[i].text, names[i].len, text, len)
                            : brk_name_equals(&names[i], text, len);
        if (hit) {
            return true;
        }
    }
    return false;
}

bool brk_peer_wants(const brk_t *b, uint8_t slot, const char *topic, size_t len)
{
    const brk_peer_t *p = &b->peers[slot];
    if (p->zq && !p->sub_received) {
        return false; /* not yet: its cursor waits for its sub */
    }
    return p->wants_all || name_matches_any(p->topics, p->n_topics, topic, len, true);
}

bool brk_peer_serves(const brk_t *b, uint8_t slot, const char *service, size_t len)
{
    const brk_peer_t *p = &b->peers[slot];
    return p->open && p->zq && name_matches_any(p->services, p->n_services, service, len, false);
}

bool brk_peer_has(const brk_t *b, uint8_t slot, uint32_t feature)
{
    const brk_peer_t *p = &b->peers[slot];
    return p->open && p->zq && (p->features & feature) != 0;
}

/* ---- Reading whole frames ------------------------------------------------------------------ */

/* Starts over: a chunk sequence broken by something else is dropped, counted. */
static void drop_assembly(brk_t *b, brk_peer_t *p)
{
    if (p->chunking) {
        b->stats.rx_malformed++;
    }
    p->chunking = false;
    p->asm_len = 0;
}

#if ZQ_BRK_CHUNKING
/* Pieces 0..count-1 of one frame, in order, with nothing between them (PROTOCOL.md §8). */
static bool chunk_in_turn(const brk_peer_t *p, const brk_chunk_t *c)
{
    if (!p->chunking) {
        return c->index == 0;
    }
    return c->id == p->chunk_id && c->index == p->chunk_next && c->count == p->chunk_count;
}

/* A chunk (PROTOCOL.md §8) now at frame[asm_len..]; true when it completed the frame. */
static bool take_chunk(brk_t *b, brk_peer_t *p)
{
    brk_chunk_t c;
    if (brk_chunk_read((const uint8_t *)p->frame + p->asm_len, p->frame_len, &c) != ZQ_OK ||
        !chunk_in_turn(p, &c)) {
        b->stats.rx_malformed += !p->chunking; /* drop_assembly counts a broken sequence */
        drop_assembly(b, p);
        return false;
    }
    memmove(p->frame + p->asm_len, c.piece, c.piece_len); /* over its own header */
    p->asm_len += (uint32_t)c.piece_len;
    p->chunking = c.index + 1u < c.count;
    p->chunk_id = c.id;
    p->chunk_next = (uint16_t)(c.index + 1u);
    p->chunk_count = c.count;
    if (p->chunking) {
        return false;
    }
    p->frame_len = p->asm_len; /* the whole frame, at frame[0] */
    p->asm_len = 0;
    return true;
}
#else
/* Chunking left out (ZQ_BRK_CHUNKING 0, not offered in our hello): a chunk is dropped. */
static bool take_chunk(brk_t *b, brk_peer_t *p)
{
    (void)p;
    b->stats.rx_switched_off++;
    return false;
}
#endif /* ZQ_BRK_CHUNKING */

/* Appends a piece of a message at frame[asm_len + frame_len]; marks it too long if it does
 * not fit (the rest is skipped and counted: never believed half). */
static void append_piece(brk_peer_t *p, const dc_message_t *m)
{
    if (m->first) {
        p->frame_len = 0;
        p->frame_too_long = false;
    }
    if (p->frame_too_long || m->len > ZQ_BRK_FRAME_MAX - p->asm_len - p->frame_len) {
        p->frame_too_long = true;
        return;
    }
    memcpy(p->frame + p->asm_len + p->frame_len, m->data, m->len);
    p->frame_len += (uint32_t)m->len;
}

/* A whole message was read: true if it is (or completed) a frame at frame[0..frame_len). */
static bool whole_message(brk_t *b, brk_peer_t *p, const dc_message_t *m)
{
    b->stats.rx_frames++;
    if (p->frame_too_long || m->aborted) {
        b->stats.rx_too_long += p->frame_too_long;
        drop_assembly(b, p);
        return false;
    }
    if (m->binary) {
        return take_chunk(b, p);
    }
    if (p->chunking) { /* a text frame inside a chunk sequence: the sequence is broken */
        memmove(p->frame, p->frame + p->asm_len, p->frame_len);
        drop_assembly(b, p);
    }
    return true;
}

bool brk_peer_take_piece(brk_t *b, uint8_t slot, const dc_message_t *m)
{
    brk_peer_t *p = peer_at(b, slot);
    append_piece(p, m);
    return m->last && whole_message(b, p, m);
}

bool brk_peer_read_frame(brk_t *b, uint64_t now, uint8_t slot)
{
    brk_peer_t *p = peer_at(b, slot);
    node_message_t m;
    bool got = node_read_peer(b->node, now, slot, &m);
    brk_ensure_peer_up(b, now, slot); /* reading may have opened the channel */
    for (; got && p->open; got = node_read_peer(b->node, now, slot, &m)) {
        p->last_rx = now;
        if (brk_peer_take_piece(b, slot, &m.msg)) {
            return true;
        }
    }
    return false;
}

/* ---- Heartbeat (ZeroQ: ping every 10 s, a peer silent for 30 s is gone) ------------------- */

/* When a peer that has not said hello is taken for ZeroQ. */
static uint64_t hello_deadline(const brk_peer_t *p)
{
    return p->opened_at + (p->hello_lost ? BRK_HELLO_LOST_WAIT_MS : BRK_HELLO_WAIT_MS);
}

uint64_t brk_peers_next_timeout(const brk_t *b)
{
    uint64_t t = ZQ_TIME_NEVER;
    for (uint8_t i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        const brk_peer_t *p = &b->peers[i];
        if (p->open) {
            t = zq_time_min(t, zq_time_min(p->next_ping_at, p->last_rx + b->cfg.silence_ms));
            t = p->ack_due ? zq_time_min(t, p->ack_at) : t;
            t = p->classified ? t : zq_time_min(t, hello_deadline(p));
        }
    }
    return t;
}

void brk_peers_timeout(brk_t *b, uint64_t now)
{
    for (uint8_t i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        brk_peer_t *p = &b->peers[i];
        if (!p->open) {
            continue;
        }
        if (now - p->last_rx >= b->cfg.silence_ms) {
            b->stats.peers_timed_out++;
            (void)node_close_channel(b->node, now, i); /* the node reports it gone */
            continue;
        }
        if (now >= p->next_ping_at) {
            p->ping_due = true;
            p->next_ping_at = now + b->cfg.ping_ms;
        }
        if (!p->classified && now >= hello_deadline(p)) {
            p->classified = true; /* no hello so far: a ZeroQ peer, which wants everything */
            brk_pub_taken_for_zeroq(b, i);
            if (p->sub_received) {
                brk_pub_sub_changed(b, now, i); /* (its sub came, its hello never did) */
            }
        }
    }
}

#if ZQ_BRK_ZEROQ_COMPAT /* else left out: broker/switched_off.c */
/* A ZeroQ envelope to @p slot: a new id, @p topic, @p payload and the wall clock. It is how a
 * ZeroQ peer is asked (the service is the topic) and answered (on its replyTo topic). */
zq_err_t brk_send_zeroq_envelope(brk_t *b, uint64_t now, uint8_t slot, const char *topic,
                                 size_t topic_len, json_value_t payload)
{
    char id[BRK_ID_MAX];
    char qid[BRK_ID_MAX + 2];
    char qtopic[BRK_QUOTED_MAX];
    brk_new_id(b, NULL, id);
    brk_envelope_t e;
    memset(&e, 0, sizeof e);
    e.id = brk_json_string(id, strlen(id), qid, sizeof qid);
    e.topic = brk_json_string(topic, topic_len, qtopic, sizeof qtopic);
    e.payload = payload;
    e.has_payload = true;
    e.timestamp = (int64_t)now + b->cfg.wall_offset_ms;
    json_writer_t w;
    brk_frame_begin(b, &w);
    brk_envelope_write(&w, &e);
    return brk_send_frame(b, now, slot, &w);
}
#endif /* ZQ_BRK_ZEROQ_COMPAT */
