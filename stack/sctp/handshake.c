/* Association setup (RFC 9260 §5): the four-way handshake with a state cookie, so that a
 * server keeps no state before COOKIE ECHO (§5.1.3), INIT collisions when both WebRTC peers
 * connect at once (§5.2.1), and a peer's restart (§5.2.4). */
#include <string.h>

#include "stack/sctp/sctp_internal.h"
#include "zq/crypto.h"
#include "zq/log.h"

/* Our State Cookie: what the TCB needs, authenticated with HMAC-SHA256 and time-limited.
 *
 *   0        version (1), flags (1: SCTP_PEER_*), reserved (2)
 *   4        created at (association clock, ms)
 *   8        my tag, peer tag, my initial TSN, peer initial TSN, peer a_rwnd
 *   28       tie tags: my and peer tags of the association this one may replace (§5.2.2)
 *   36       HMAC-SHA256 over bytes 0..35
 */
#define COOKIE_VERSION 1
#define COOKIE_BODY 36
#define COOKIE_LEN (COOKIE_BODY + ZQ_SHA256_LEN)

typedef struct {
    uint8_t peer_flags;
    uint32_t created;
    uint32_t my_tag;
    uint32_t peer_tag;
    uint32_t my_tsn;
    uint32_t peer_tsn;
    uint32_t peer_rwnd;
    uint32_t tie_tags[2];
} cookie_t;

static uint32_t random_u32(sctp_assoc_t *a, bool nonzero)
{
    uint32_t v = 0;
    do {
        uint8_t b[4];
        (void)zq_rand_bytes(&a->cfg.rand, b, sizeof b);
        v = zq_load_be32(b);
    } while (nonzero && v == 0);
    return v;
}

static void write_cookie(const sctp_assoc_t *a, const cookie_t *c, uint8_t out[COOKIE_LEN])
{
    zq_writer_t w = zq_writer(out, COOKIE_LEN);
    zq_write_u8(&w, COOKIE_VERSION);
    zq_write_u8(&w, c->peer_flags);
    zq_write_be16(&w, 0);
    zq_write_be32(&w, c->created);
    zq_write_be32(&w, c->my_tag);
    zq_write_be32(&w, c->peer_tag);
    zq_write_be32(&w, c->my_tsn);
    zq_write_be32(&w, c->peer_tsn);
    zq_write_be32(&w, c->peer_rwnd);
    zq_write_be32(&w, c->tie_tags[0]);
    zq_write_be32(&w, c->tie_tags[1]);
    zq_hmac_sha256(a->cookie_key, sizeof a->cookie_key, out, COOKIE_BODY, out + COOKIE_BODY);
}

/* §5.1.5: a cookie is believed only if its MAC is ours and it is not too old. */
static zq_err_t read_cookie(const sctp_assoc_t *a, const uint8_t *data, size_t len, cookie_t *c)
{
    uint8_t mac[ZQ_SHA256_LEN];
    if (len != COOKIE_LEN || data[0] != COOKIE_VERSION) {
        return ZQ_ERR_MALFORMED;
    }
    zq_hmac_sha256(a->cookie_key, sizeof a->cookie_key, data, COOKIE_BODY, mac);
    if (!zq_consttime_equal(mac, data + COOKIE_BODY, sizeof mac)) {
        return ZQ_ERR_INTEGRITY;
    }
    zq_reader_t r = zq_reader(data, COOKIE_BODY);
    (void)zq_read_u8(&r);
    c->peer_flags = zq_read_u8(&r);
    (void)zq_read_be16(&r);
    c->created = zq_read_be32(&r);
    c->my_tag = zq_read_be32(&r);
    c->peer_tag = zq_read_be32(&r);
    c->my_tsn = zq_read_be32(&r);
    c->peer_tsn = zq_read_be32(&r);
    c->peer_rwnd = zq_read_be32(&r);
    c->tie_tags[0] = zq_read_be32(&r);
    c->tie_tags[1] = zq_read_be32(&r);
    bool expired = sctp_clock(a) - c->created > a->cfg.cookie_lifetime_ms;
    return expired ? ZQ_ERR_TIMEOUT : ZQ_OK;
}

static uint8_t peer_flags_of(const sctp_init_chunk_t *init)
{
    return (uint8_t)((init->forward_tsn ? SCTP_PEER_FORWARD_TSN : 0) |
                     (init->reconfig ? SCTP_PEER_RECONFIG : 0));
}

/* The TCB of an association that has just been agreed. */
static void set_peer(sctp_assoc_t *a, uint32_t my_tag, uint32_t peer_tag, uint32_t my_tsn,
                     uint32_t peer_tsn, uint32_t peer_rwnd, uint8_t peer_flags)
{
    a->my_vtag = my_tag;
    a->peer_vtag = peer_tag;
    a->my_initial_tsn = my_tsn;
    a->next_tsn = my_tsn;
    a->cum_ack_tsn = my_tsn - 1;
    a->adv_peer_ack = my_tsn - 1;
    a->gap_top = my_tsn - 1;
    a->asked_tsn = my_tsn - 1;
    a->unasked_tsn = my_tsn - 1;
    a->fwd_tsn_sent = my_tsn - 1;
    a->fwd_tsn_after = my_tsn;
    a->peer_cum_tsn = peer_tsn - 1;
    a->highest_rx_tsn = peer_tsn - 1;
    a->peer_rwnd = peer_rwnd;
    a->ssthresh = peer_rwnd;
    a->peer_forward_tsn = (peer_flags & SCTP_PEER_FORWARD_TSN) != 0;
    a->peer_reconfig = (peer_flags & SCTP_PEER_RECONFIG) != 0;
    a->my_reconf_seq = my_tsn;   /* RFC 6525 §5.1.1: starts at the initial TSN */
    a->peer_reconf_seq = peer_tsn;
}

static void enter_established(sctp_assoc_t *a, sctp_event_type_t event)
{
    a->state = SCTP_STATE_ESTABLISHED;
    a->t1_at = ZQ_TIME_NEVER;
    a->ctl &= (uint16_t)~(SCTP_CTL_INIT | SCTP_CTL_COOKIE_ECHO);
    if (a->cfg.heartbeat_ms > 0) {
        a->heartbeat_at = a->now + a->cfg.heartbeat_ms;
    }
    sctp_push_event(a, event, 0);
}

/* ---- INIT (§5.1 A) ------------------------------------------------------------------------ */

zq_err_t sctp_connect(sctp_assoc_t *a, uint64_t now)
{
    a->now = now > a->now ? now : a->now;
    if (a->state != SCTP_STATE_CLOSED) {
        return ZQ_ERR_STATE;
    }
    sctp_reset_tcb(a);
    a->my_vtag = random_u32(a, true);
    a->my_initial_tsn = random_u32(a, false);
    a->peer_vtag = 0;
    a->init_sends = 1;
    a->t1_rto = a->cfg.rto_initial_ms;
    a->t1_at = a->now + a->t1_rto;
    a->state = SCTP_STATE_COOKIE_WAIT;
    a->ctl |= SCTP_CTL_INIT;
    return ZQ_OK;
}

void sctp_write_init(sctp_assoc_t *a, zq_writer_t *w)
{
    sctp_init_chunk_t init = {
        .initiate_tag = a->my_vtag,
        .a_rwnd = sctp_initial_rwnd(a),
        .outbound_streams = 65535,
        .inbound_streams = 65535,
        .initial_tsn = a->my_initial_tsn,
        .forward_tsn = true,
        .reconfig = true,
    };
    sctp_init_write(w, SCTP_CHUNK_INIT, &init);
}

/* §5.2.1-§5.2.2: which tag and TSN to answer an INIT with, in each state. */
static void choose_answer_tags(sctp_assoc_t *a, sctp_init_ack_t *ack)
{
    switch (a->state) {
    case SCTP_STATE_CLOSED:
        ack->my_tag = random_u32(a, true); /* stateless until COOKIE ECHO (§5.1.3) */
        ack->my_tsn = random_u32(a, false);
        break;
    case SCTP_STATE_COOKIE_WAIT:
    case SCTP_STATE_COOKIE_ECHOED:
        ack->my_tag = a->my_vtag; /* an INIT collision: keep our INIT's parameters */
        ack->my_tsn = a->my_initial_tsn;
        break;
    default:
        ack->my_tag = random_u32(a, true); /* a possible restart: new tags, old ones tied */
        ack->my_tsn = random_u32(a, false);
        ack->tie_tags[0] = a->my_vtag;
        ack->tie_tags[1] = a->peer_vtag;
        break;
    }
}

void sctp_handle_init(sctp_assoc_t *a, const sctp_common_header_t *h, const sctp_chunk_t *c)
{
    (void)h;
    sctp_init_chunk_t init;
    if (sctp_init_parse(c, &init) != ZQ_OK) {
        a->stats.rx_malformed++;
        return;
    }
    if (a->state == SCTP_STATE_SHUTDOWN_ACK_SENT) {
        return; /* §9.2: answered by SHUTDOWN ACK retransmissions */
    }
    sctp_init_ack_t *ack = &a->init_ack;
    memset(ack, 0, sizeof *ack);
    choose_answer_tags(a, ack);
    ack->peer_tag = init.initiate_tag;
    ack->peer_tsn = init.initial_tsn;
    ack->peer_rwnd = init.a_rwnd;
    ack->peer_flags = peer_flags_of(&init);
    if (init.unrecognized_len > 0 && init.unrecognized_len <= sizeof ack->unrecognized) {
        memcpy(ack->unrecognized, init.unrecognized, init.unrecognized_len);
        ack->unrecognized_len = (uint8_t)init.unrecognized_len;
    }
    a->ctl |= SCTP_CTL_INIT_ACK;
}

uint32_t sctp_init_ack_vtag(const sctp_assoc_t *a)
{
    return a->init_ack.peer_tag;
}

void sctp_write_init_ack(sctp_assoc_t *a, zq_writer_t *w)
{
    const sctp_init_ack_t *ack = &a->init_ack;
    cookie_t c = {
        .peer_flags = ack->peer_flags,
        .created = sctp_clock(a),
        .my_tag = ack->my_tag,
        .peer_tag = ack->peer_tag,
        .my_tsn = ack->my_tsn,
        .peer_tsn = ack->peer_tsn,
        .peer_rwnd = ack->peer_rwnd,
        .tie_tags = {ack->tie_tags[0], ack->tie_tags[1]},
    };
    uint8_t cookie[COOKIE_LEN];
    write_cookie(a, &c, cookie);
    sctp_init_chunk_t init = {
        .initiate_tag = ack->my_tag,
        .a_rwnd = sctp_initial_rwnd(a),
        .outbound_streams = 65535,
        .inbound_streams = 65535,
        .initial_tsn = ack->my_tsn,
        .forward_tsn = true,
        .reconfig = true,
        .cookie = cookie,
        .cookie_len = sizeof cookie,
        .unrecognized = ack->unrecognized,
        .unrecognized_len = ack->unrecognized_len,
    };
    sctp_init_write(w, SCTP_CHUNK_INIT_ACK, &init);
}

/* ---- INIT ACK (§5.1 C) -------------------------------------------------------------------- */

/* The first round trip, from the INIT or COOKIE ECHO sent once (Karn, §6.3.1 C5) to its answer:
 * SRTT from the handshake (§6.3.1 C1 asks for a first measurement, not for DATA). Without it
 * the tail-loss probe has no round trip to wait for until the first DATA sample, which under
 * loss may be long in coming (tx/retransmit.c). */
static void sample_handshake_rtt(sctp_assoc_t *a)
{
    if (a->init_sends == 1 && a->srtt == 0) {
        sctp_rto_sample(a, (uint32_t)(a->now - (a->t1_at - a->t1_rto)));
    }
}

void sctp_handle_init_ack(sctp_assoc_t *a, const sctp_chunk_t *c)
{
    sctp_init_chunk_t init;
    if (a->state != SCTP_STATE_COOKIE_WAIT) {
        return; /* §5.2.3: an unexpected INIT ACK is discarded */
    }
    if (sctp_init_parse(c, &init) != ZQ_OK || init.cookie_len == 0 ||
        init.cookie_len > sizeof a->cookie) {
        a->stats.rx_malformed++;
        return;
    }
    sample_handshake_rtt(a);
    memcpy(a->cookie, init.cookie, init.cookie_len);
    a->cookie_len = (uint16_t)init.cookie_len;
    set_peer(a, a->my_vtag, init.initiate_tag, a->my_initial_tsn, init.initial_tsn, init.a_rwnd,
             peer_flags_of(&init));
    a->state = SCTP_STATE_COOKIE_ECHOED;
    a->ctl &= (uint16_t)~SCTP_CTL_INIT;
    a->ctl |= SCTP_CTL_COOKIE_ECHO;
    a->init_sends = 1;
    a->t1_rto = a->cfg.rto_initial_ms;
    a->t1_at = a->now + a->t1_rto;
}

/* ---- COOKIE ECHO (§5.1 D, §5.2.4) ---------------------------------------------------------- */

static void accept_cookie(sctp_assoc_t *a, const cookie_t *c, sctp_event_type_t event)
{
    set_peer(a, c->my_tag, c->peer_tag, c->my_tsn, c->peer_tsn, c->peer_rwnd, c->peer_flags);
    enter_established(a, event);
}

void sctp_handle_cookie_echo(sctp_assoc_t *a, const sctp_chunk_t *ch)
{
    cookie_t c;
    zq_err_t err = read_cookie(a, ch->value, ch->value_len, &c);
    if (err != ZQ_OK) {
        ZQ_LOGD("sctp", "COOKIE ECHO dropped: %s", zq_strerror(err));
        a->stats.rx_malformed++;
        return;
    }
    bool my_tag_matches = c.my_tag == a->my_vtag;
    bool peer_tag_matches = c.peer_tag == a->peer_vtag;
    bool ties_match = c.tie_tags[0] == a->my_vtag && c.tie_tags[1] == a->peer_vtag &&
                      c.tie_tags[0] != 0;
    if (a->state == SCTP_STATE_CLOSED) {
        sctp_reset_tcb(a);
        accept_cookie(a, &c, SCTP_EVENT_CONNECTED); /* §5.1 D: a new association */
    } else if (!my_tag_matches && !peer_tag_matches && ties_match) {
        ZQ_LOGI("sctp", "peer restarted (RFC 9260 §5.2.4.1 case A)");
        sctp_reset_tcb(a);
        accept_cookie(a, &c, SCTP_EVENT_RESTARTED);
    } else if (my_tag_matches && a->state < SCTP_STATE_ESTABLISHED) {
        accept_cookie(a, &c, SCTP_EVENT_CONNECTED); /* cases B and D: INIT collision */
    } else if (!(my_tag_matches && peer_tag_matches)) {
        return; /* case C, or an old cookie: silently discarded */
    }
    a->ctl |= SCTP_CTL_COOKIE_ACK; /* also for a duplicate COOKIE ECHO (case D) */
}

void sctp_handle_cookie_ack(sctp_assoc_t *a)
{
    if (a->state == SCTP_STATE_COOKIE_ECHOED) {
        sample_handshake_rtt(a);
        enter_established(a, SCTP_EVENT_CONNECTED);
    }
}

/* ---- T1-init / T1-cookie (§5.1 A, C; §6.3.3 for the backoff) ------------------------------- */

void sctp_handshake_timeout(sctp_assoc_t *a)
{
    if (a->state != SCTP_STATE_COOKIE_WAIT && a->state != SCTP_STATE_COOKIE_ECHOED) {
        return;
    }
    if (a->init_sends > a->cfg.max_init_retransmits) {
        sctp_fail(a, SCTP_ABORT_INIT_FAILED, 0);
        return;
    }
    a->init_sends++;
    a->ctl |= a->state == SCTP_STATE_COOKIE_WAIT ? SCTP_CTL_INIT : SCTP_CTL_COOKIE_ECHO;
    a->t1_rto = a->t1_rto * 2 > a->cfg.rto_max_ms ? a->cfg.rto_max_ms : a->t1_rto * 2;
    a->t1_at = a->now + a->t1_rto;
}
