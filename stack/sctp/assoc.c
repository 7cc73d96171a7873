/* The association: configuration, the packet dispatcher with its verification-tag rules
 * (RFC 9260 §8.5), unknown chunks (§3.2), ABORT (§9.1), events and timers. */
#include <string.h>

#include "stack/sctp/sctp_internal.h"
#include "zq/log.h"

void sctp_config_default(sctp_config_t *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->local_port = 5000;
    cfg->remote_port = 5000;
    /* A DTLS 1.2 record of 1200 bytes with AES-128-GCM carries 1163; leave room for either
     * suite and round to 4. */
    cfg->mtu = 1160;
    cfg->rto_initial_ms = 500;
    cfg->rto_min_ms = 250;
    cfg->rto_max_ms = 10000;
    cfg->max_init_retransmits = 8;
    cfg->max_retransmits = 10;
    cfg->sack_delay_ms = 100;
    cfg->heartbeat_ms = 30000;
    cfg->cookie_lifetime_ms = 60000;
    cfg->initial_cwnd_mtus = 10;
}

uint32_t sctp_clock(const sctp_assoc_t *a)
{
    return (uint32_t)a->now;
}

static bool valid_config(const sctp_config_t *cfg)
{
    return cfg->rand.fill != NULL && cfg->mtu >= 256 && cfg->rto_min_ms > 0 &&
           cfg->rto_min_ms <= cfg->rto_initial_ms && cfg->rto_initial_ms <= cfg->rto_max_ms &&
           cfg->initial_cwnd_mtus > 0;
}

static void stop_timers(sctp_assoc_t *a)
{
    a->t1_at = ZQ_TIME_NEVER;
    a->t2_at = ZQ_TIME_NEVER;
    a->t3_at = ZQ_TIME_NEVER;
    a->probe_at = ZQ_TIME_NEVER;
    a->sack_at = ZQ_TIME_NEVER;
    a->heartbeat_at = ZQ_TIME_NEVER;
    a->reconf_at = ZQ_TIME_NEVER;
}

void sctp_reset_tcb(sctp_assoc_t *a)
{
    sctp_ring_init(&a->out, a->out.mem, a->out.cap);
    sctp_ring_init(&a->in, a->in.mem, a->in.cap);
    a->unsent_off = SCTP_NO_OFFSET;
    a->part_tail = SCTP_NO_OFFSET;
    a->flight = 0;
    a->avg_chunk = 1; /* before any DATA: the smallest chunk there is (rx/tracker.c) */
    a->cwnd = (uint32_t)a->cfg.initial_cwnd_mtus * a->cfg.mtu;
    a->ssthresh = UINT32_MAX;
    a->partial_bytes_acked = 0;
    a->fast_recovery = false;
    a->rtx_bypass = false;
    a->n_rtx = 0;
    a->probes = 0;
    a->rtx_probe = false;
    a->need_fwd_tsn = false;
    a->rto = a->cfg.rto_initial_ms;
    a->srtt = 0;
    a->rttvar = 0;
    a->rtt_tsn = 0;
    a->error_count = 0;
    memset(a->tracker, 0, sizeof a->tracker);
    a->n_dups = 0;
    a->packets_since_sack = 0;
    a->sack_now = false;
    a->sack_due = false;
    a->n_waiting = 0;
    a->rq_head = 0;
    a->rq_count = 0;
    a->last_read = SCTP_NO_OFFSET;
    a->n_streams = 0;
    a->n_pending_resets = 0;
    a->n_inflight_resets = 0;
    a->reconf_in_flight = false;
    a->ctl = 0;
    stop_timers(a);
}

zq_err_t sctp_assoc_init(sctp_assoc_t *a, const sctp_config_t *cfg, uint8_t *send_buf,
                         size_t send_cap, uint8_t *recv_buf, size_t recv_cap)
{
    if (!valid_config(cfg) || send_cap < SCTP_MIN_BUFFER || recv_cap < SCTP_MIN_BUFFER || send_cap > 0x7FFFFFFF ||
        recv_cap > 0x7FFFFFFF) {
        return ZQ_ERR_INVALID_ARG;
    }
    memset(a, 0, sizeof *a);
    a->cfg = *cfg;
    a->out.mem = send_buf;
    a->out.cap = (uint32_t)send_cap;
    a->in.mem = recv_buf;
    a->in.cap = (uint32_t)recv_cap;
    sctp_reset_tcb(a);
    a->state = SCTP_STATE_CLOSED;
    return zq_rand_bytes(&cfg->rand, a->cookie_key, sizeof a->cookie_key);
}

/* ---- Events ------------------------------------------------------------------------------ */

/* One pending WRITABLE per stream says it all. */
static bool writable_queued(sctp_assoc_t *a, uint16_t stream)
{
    const sctp_event_t *e;
    for (size_t i = 0; (e = ZQ_QUEUE_AT(&a->evq, a->events, i)) != NULL; i++) {
        if (e->type == SCTP_EVENT_WRITABLE && e->stream == stream) {
            return true;
        }
    }
    return false;
}

sctp_event_t *sctp_push_event(sctp_assoc_t *a, sctp_event_type_t type, uint16_t stream)
{
    if (type == SCTP_EVENT_WRITABLE && writable_queued(a, stream)) {
        return NULL;
    }
    sctp_event_t *e = ZQ_QUEUE_PUSH(&a->evq, a->events);
    if (e != NULL) {
        e->type = type;
        e->stream = stream;
    }
    return e;
}

bool sctp_poll_event(sctp_assoc_t *a, sctp_event_t *ev)
{
    const sctp_event_t *oldest = ZQ_QUEUE_POP(&a->evq, a->events);
    if (oldest == NULL) {
        return false;
    }
    *ev = *oldest;
    return true;
}

uint32_t sctp_events_refused(const sctp_assoc_t *a)
{
    return zq_queue_refused(&a->evq);
}

void sctp_fail(sctp_assoc_t *a, sctp_abort_reason_t reason, uint16_t cause)
{
    if (a->state == SCTP_STATE_CLOSED) {
        return;
    }
    a->state = SCTP_STATE_CLOSED;
    uint16_t keep = a->ctl & SCTP_CTL_ABORT;
    stop_timers(a);
    a->ctl = keep;
    sctp_event_t *e = sctp_push_event(a, SCTP_EVENT_ABORTED, 0);
    if (e != NULL) {
        e->reason = reason;
        e->cause = cause;
    }
}

void sctp_abort(sctp_assoc_t *a, uint64_t now)
{
    a->now = now > a->now ? now : a->now;
    if (a->state == SCTP_STATE_CLOSED) {
        return;
    }
    a->abort_cause = SCTP_CAUSE_USER_ABORT;
    a->ctl |= SCTP_CTL_ABORT;
    sctp_fail(a, SCTP_ABORT_BY_US, 0);
}

/* ---- Incoming packets ------------------------------------------------------------------- */

/* RFC 9260 §8.5: the tag must be ours, except where §8.5.1 says otherwise. */
static bool vtag_ok(const sctp_assoc_t *a, const sctp_common_header_t *h, const sctp_chunk_t *c)
{
    switch (c->type) {
    case SCTP_CHUNK_INIT:
        return h->vtag == 0;
    case SCTP_CHUNK_ABORT:
    case SCTP_CHUNK_SHUTDOWN_COMPLETE:
        return (c->flags & SCTP_FLAG_T) ? h->vtag == a->peer_vtag : h->vtag == a->my_vtag;
    case SCTP_CHUNK_COOKIE_ECHO:
        return true; /* the cookie itself is checked (§5.2.4) */
    default:
        return a->my_vtag != 0 && h->vtag == a->my_vtag;
    }
}

static void handle_abort(sctp_assoc_t *a, const sctp_chunk_t *c)
{
    zq_reader_t r = zq_reader(c->value, c->value_len);
    sctp_tlv_t cause = {0};
    (void)sctp_tlv_next(&r, &cause);
    ZQ_LOGI("sctp", "peer aborted (cause %u)", (unsigned)cause.type);
    a->ctl = 0;
    sctp_fail(a, SCTP_ABORT_BY_PEER, cause.type);
}

/* §3.2: the top two bits of an unknown type say what to do with the rest of the packet. */
static bool handle_unknown_chunk(sctp_assoc_t *a, const sctp_chunk_t *c)
{
    a->stats.rx_unknown_chunks++;
    if ((c->type & 0x40u) && !(a->ctl & SCTP_CTL_ERROR)) {
        a->error_cause = SCTP_CAUSE_UNRECOGNIZED_CHUNK;
        a->error_info = (uint32_t)c->type << 24 | (uint32_t)c->flags << 16 | c->length;
        a->ctl |= SCTP_CTL_ERROR;
    }
    return (c->type & 0x80u) != 0; /* 1x: skip it and go on; 0x: stop here */
}

/* Handles one chunk; false stops processing the packet. */
static bool dispatch(sctp_assoc_t *a, const sctp_common_header_t *h, const sctp_chunk_t *c,
                     bool *immediate_sack)
{
    if (!vtag_ok(a, h, c)) {
        a->stats.rx_bad_vtag++;
        return false;
    }
    bool established = a->state >= SCTP_STATE_ESTABLISHED;
    switch (c->type) {
    case SCTP_CHUNK_INIT:
        sctp_handle_init(a, h, c);
        return false; /* INIT must be alone in its packet (§6.10) */
    case SCTP_CHUNK_INIT_ACK:
        sctp_handle_init_ack(a, c);
        return false;
    case SCTP_CHUNK_COOKIE_ECHO:
        sctp_handle_cookie_echo(a, c);
        return true;
    case SCTP_CHUNK_COOKIE_ACK:
        sctp_handle_cookie_ack(a);
        return true;
    case SCTP_CHUNK_DATA:
        if (established) {
            sctp_handle_data(a, c, immediate_sack);
        }
        return true;
    case SCTP_CHUNK_SACK:
        if (established) {
            sctp_handle_sack(a, c);
        }
        return true;
    case SCTP_CHUNK_FORWARD_TSN:
        if (established) {
            sctp_handle_forward_tsn(a, c);
            *immediate_sack = true;
        }
        return true;
    case SCTP_CHUNK_RE_CONFIG:
        if (established) {
            sctp_handle_reconfig(a, c);
        }
        return true;
    case SCTP_CHUNK_HEARTBEAT:
        sctp_handle_heartbeat(a, c);
        return true;
    case SCTP_CHUNK_HEARTBEAT_ACK:
        sctp_handle_heartbeat_ack(a, c);
        return true;
    case SCTP_CHUNK_ABORT:
        handle_abort(a, c);
        return false;
    case SCTP_CHUNK_SHUTDOWN:
        sctp_handle_shutdown(a, c);
        return true;
    case SCTP_CHUNK_SHUTDOWN_ACK:
        sctp_handle_shutdown_ack(a);
        return true;
    case SCTP_CHUNK_SHUTDOWN_COMPLETE:
        sctp_handle_shutdown_complete(a);
        return false;
    case SCTP_CHUNK_ERROR:
        ZQ_LOGD("sctp", "peer reported an error");
        return true;
    default:
        return handle_unknown_chunk(a, c);
    }
}

zq_err_t sctp_handle_packet(sctp_assoc_t *a, uint64_t now, const uint8_t *packet, size_t len)
{
    a->now = now > a->now ? now : a->now;
    sctp_release_read(a);
    a->stats.rx_packets++;
    sctp_common_header_t h;
    zq_reader_t chunks;
    zq_err_t err = sctp_packet_parse(packet, len, true, &h, &chunks);
    if (err != ZQ_OK || h.dst_port != a->cfg.local_port || h.src_port != a->cfg.remote_port) {
        if (err == ZQ_ERR_INTEGRITY) {
            a->stats.rx_bad_crc++;
        } else {
            a->stats.rx_malformed++;
        }
        return err != ZQ_OK ? err : ZQ_ERR_NOT_FOUND;
    }
    bool immediate_sack = false;
    bool had_data = false;
    sctp_chunk_t c;
    while ((err = sctp_packet_next_chunk(&chunks, &c)) == ZQ_OK) {
        had_data |= c.type == SCTP_CHUNK_DATA;
        if (!dispatch(a, &h, &c, &immediate_sack)) {
            break;
        }
    }
    if (err == ZQ_ERR_MALFORMED) {
        a->stats.rx_malformed++;
    }
    if (had_data && a->state >= SCTP_STATE_ESTABLISHED) {
        /* §6.2: SACK at least every second packet with DATA, at once on gaps/duplicates,
         * when the window opened or when a small ring has no packet's room left
         * (rx/tracker.c). */
        a->packets_since_sack++;
        if (immediate_sack || a->packets_since_sack >= 2 || sctp_window_opened(a) ||
            sctp_window_nearly_shut(a)) {
            a->sack_now = true;
        } else if (a->sack_at == ZQ_TIME_NEVER) {
            a->sack_at = a->now + a->cfg.sack_delay_ms;
        }
        a->sack_due = true;
    } else if (immediate_sack) {
        a->sack_now = true;
        a->sack_due = true;
    }
    sctp_shutdown_progress(a);
    sctp_reconfig_progress(a);
    return ZQ_OK;
}

/* ---- Timers ------------------------------------------------------------------------------ */

uint64_t sctp_next_timeout(const sctp_assoc_t *a)
{
    uint64_t t = zq_time_min(a->t1_at, a->t2_at);
    t = zq_time_min(t, a->t3_at);
    t = zq_time_min(t, a->probe_at);
    t = zq_time_min(t, a->sack_at);
    t = zq_time_min(t, a->heartbeat_at);
    return zq_time_min(t, a->reconf_at);
}

static bool due(uint64_t *at, uint64_t now)
{
    if (*at == ZQ_TIME_NEVER || now < *at) {
        return false;
    }
    *at = ZQ_TIME_NEVER;
    return true;
}

void sctp_handle_timeout(sctp_assoc_t *a, uint64_t now)
{
    a->now = now > a->now ? now : a->now;
    sctp_release_read(a);
    if (due(&a->t1_at, now)) {
        sctp_handshake_timeout(a);
    }
    if (due(&a->t2_at, now)) {
        sctp_shutdown_timeout(a);
    }
    if (due(&a->t3_at, now)) {
        sctp_t3_expired(a);
    }
    if (due(&a->probe_at, now)) {
        sctp_probe_expired(a);
    }
    if (due(&a->sack_at, now)) {
        a->sack_now = true;
    }
    if (due(&a->heartbeat_at, now)) {
        sctp_heartbeat_timeout(a);
    }
    if (due(&a->reconf_at, now)) {
        sctp_reconfig_timeout(a);
    }
}

/* ---- Queries ----------------------------------------------------------------------------- */

sctp_state_t sctp_state(const sctp_assoc_t *a)
{
    return a->state;
}

const sctp_stats_t *sctp_stats(const sctp_assoc_t *a)
{
    return &a->stats;
}

size_t sctp_max_fragment(const sctp_assoc_t *a)
{
    /* One DATA chunk per packet at most: common header and DATA header, padded to 4. */
    return (size_t)((a->cfg.mtu - SCTP_COMMON_HEADER_LEN - SCTP_DATA_HEADER_LEN) & ~3u);
}
