/* The moving parts: one demultiplexer (RFC 7983 §7), the layers started in order as each
 * becomes possible (ICE, then DTLS on a valid pair, then SCTP inside DTLS, RFC 8261),
 * one earliest deadline, and one transmit path that drains ICE, then DTLS, then SCTP. */
#include <string.h>

#include "stack/peer/peer_internal.h"

/* ---- Starting layers -------------------------------------------------------------------- */

static void start_dtls(peer_t *p, uint64_t now)
{
    /* The server binds HelloVerifyRequest cookies to the peer's transport address. */
    uint8_t id[18];
    memcpy(id, p->path_remote.ip, 16);
    zq_store_be16(id + 16, p->path_remote.port);
    if (dtls_start(&p->dtls, p->cfg.dtls, p->dtls_role, &p->remote_fingerprint, id, sizeof id,
                   now) != ZQ_OK) {
        p->dtls_failure = DTLS_FAIL_MEMORY;
        peer_fail(p, PEER_FAIL_DTLS);
        return;
    }
    p->dtls_started = true;
}

static void start_sctp(peer_t *p, uint64_t now)
{
    /* One SCTP packet per DTLS record (RFC 8261 §5): the MTU is what a record carries. */
    size_t mtu = dtls_max_payload(&p->dtls) & ~(size_t)3;
    p->sctp.cfg.mtu = (uint16_t)(mtu < p->sctp.cfg.mtu ? mtu : p->sctp.cfg.mtu);
    p->sctp.cfg.remote_port = p->remote_sctp_port;
    dc_init(&p->dc, &p->sctp, p->dtls_role == DTLS_ROLE_CLIENT, p->cfg.max_message,
            p->remote_max_message);
    (void)sctp_connect(&p->sctp, now); /* both sides connect (RFC 8841 §10.2) */
    p->sctp_started = true;
}

void peer_advance(peer_t *p, uint64_t now)
{
    if (p->state == PEER_STATE_NEW && p->have_local && p->have_remote) {
        p->state = PEER_STATE_CONNECTING;
        (void)ice_agent_start(&p->ice, now);
    }
    peer_pump(p, now);
}

/* ---- The layers' events ------------------------------------------------------------------ */

/* DTLS goes on the selected pair; the client need not wait for it. RFC 8445 §12.1: a full
 * agent "MAY send data on any valid pair before selected pairs have been produced", so its
 * ClientHello leaves on the first pair its own check validated instead of after nomination,
 * one Ta or more later (§8.1.1: the nomination is a check paced like any other). A lite
 * agent has no such pair before it is nominated (ice_agent_usable_pair()). The server waits
 * for a ClientHello (maybe_start_dtls_early) or the selected pair. */
static void maybe_start_dtls(peer_t *p, uint64_t now)
{
    if (p->dtls_started || p->state != PEER_STATE_CONNECTING) {
        return;
    }
    if (!p->have_path && p->dtls_role == DTLS_ROLE_CLIENT) {
        p->have_path = ice_agent_usable_pair(&p->ice, &p->path_local, &p->path_remote);
    }
    if (p->have_path) {
        start_dtls(p, now);
    }
}

static void pump_ice(peer_t *p, uint64_t now)
{
    ice_event_t ev;
    while (ice_agent_poll_event(&p->ice, &ev)) {
        switch (ev.type) {
        case ICE_EVENT_LOCAL_CANDIDATE: {
            peer_event_slot_t *e = peer_push_event(p, PEER_EVENT_LOCAL_CANDIDATE, 0);
            if (e != NULL) {
                e->candidate = ev.candidate_index;
            }
            break;
        }
        case ICE_EVENT_GATHERING_DONE:
            peer_push_event(p, PEER_EVENT_GATHERING_DONE, 0);
            break;
        case ICE_EVENT_SELECTED_PAIR:
            /* §12.1: "Once selected pairs have been produced ... MUST send data on those pairs
             * only": DTLS moves here if it started on another valid pair. */
            p->path_local = ev.local;
            p->path_remote = ev.remote;
            p->have_path = true;
            break;
        case ICE_EVENT_DISCONNECTED:
            peer_fail(p, PEER_FAIL_CONSENT);
            break;
        case ICE_EVENT_FAILED:
            peer_fail(p, PEER_FAIL_ICE);
            break;
        default:
            break;
        }
    }
    maybe_start_dtls(p, now);
}

/* The peer ended the connection on purpose: close_notify, SCTP's SHUTDOWN, or the ABORT a
 * browser sends on pc.close(). An ending, not a failure. */
static void closed_by_peer(peer_t *p)
{
    if (p->state != PEER_STATE_CLOSED && p->state != PEER_STATE_FAILED) {
        p->state = PEER_STATE_CLOSED;
        peer_push_event(p, PEER_EVENT_CLOSED, 0);
    }
}

static void pump_dtls(peer_t *p, uint64_t now)
{
    dtls_event_t ev;
    while (p->dtls_started && dtls_poll_event(&p->dtls, &ev)) {
        if (ev.type == DTLS_EVENT_CONNECTED) {
            start_sctp(p, now);
        } else if (ev.type == DTLS_EVENT_CLOSED) {
            closed_by_peer(p);
        } else {
            p->dtls_failure = ev.failure;
            peer_fail(p, PEER_FAIL_DTLS);
        }
    }
}

static void pump_sctp(peer_t *p, uint64_t now)
{
    sctp_event_t ev;
    while (p->sctp_started && sctp_poll_event(&p->sctp, &ev)) {
        if (!dc_handle_sctp_event(&p->dc, now, &ev)) {
            continue; /* a channel matter: reported below as a channel event */
        }
        switch (ev.type) {
        case SCTP_EVENT_CONNECTED:
            if (p->state == PEER_STATE_CONNECTING) {
                p->state = PEER_STATE_CONNECTED;
                p->connect_deadline = ZQ_TIME_NEVER;
                peer_push_event(p, PEER_EVENT_CONNECTED, 0);
            }
            break;
        case SCTP_EVENT_WRITABLE:
            peer_push_event(p, PEER_EVENT_WRITABLE, 0);
            break;
        case SCTP_EVENT_CLOSED:
            closed_by_peer(p);
            break;
        case SCTP_EVENT_ABORTED:
            if (ev.reason == SCTP_ABORT_BY_PEER) {
                closed_by_peer(p);
            } else {
                peer_fail(p, PEER_FAIL_SCTP);
            }
            break;
        default:
            break; /* RESTARTED: the channels closed; the association goes on */
        }
    }
    if (p->sctp_started) {
        dc_pump(&p->dc, now); /* DCEP as it arrives: a channel is open before its data is read */
    }
    peer_pump_channel_events(p);
}

void peer_pump_channel_events(peer_t *p)
{
    dc_event_t dev;
    while (p->sctp_started && dc_poll_event(&p->dc, &dev)) {
        peer_event_type_t type = dev.type == DC_EVENT_OPEN     ? PEER_EVENT_CHANNEL_OPEN
                                 : dev.type == DC_EVENT_CLOSED ? PEER_EVENT_CHANNEL_CLOSED
                                                               : PEER_EVENT_BUFFERED_LOW;
        peer_push_event(p, type, dev.id);
    }
}

void peer_pump(peer_t *p, uint64_t now)
{
    pump_ice(p, now);
    pump_dtls(p, now);
    pump_sctp(p, now);
}

/* ---- Inputs ------------------------------------------------------------------------------ */

bool peer_owns_address(const peer_t *p, const zq_addr_t *remote)
{
    return (p->have_path && zq_addr_equal(&p->path_remote, remote)) ||
           ice_agent_knows_remote(&p->ice, remote);
}

/* DTLS application data is SCTP (RFC 8261): every record goes to the association. */
static void deliver_dtls_records(peer_t *p, uint64_t now)
{
    uint8_t plain[MBEDTLS_SSL_IN_CONTENT_LEN];
    int n;
    while ((n = dtls_read(&p->dtls, plain, sizeof plain)) > 0) {
        if (p->sctp_started) {
            (void)sctp_handle_packet(&p->sctp, now, plain, (size_t)n);
        }
    }
}

/* RFC 8445 §12.2: be ready for data on any pair before nomination. A browser that is DTLS
 * client sends its ClientHello as soon as one of its checks succeeds, one Ta or more before
 * it nominates; dropping it costs a retransmission (50 ms or more). So the DTLS server starts
 * on the first record from an address ICE knows, and takes the selected pair when it comes.
 * HelloVerifyRequest (RFC 6347 §4.2.1) and the pinned fingerprint guard this as before. */
static void maybe_start_dtls_early(peer_t *p, uint64_t now, const zq_addr_t *local,
                                   const zq_addr_t *remote, const uint8_t *data, size_t len)
{
    if (p->dtls_started || p->state != PEER_STATE_CONNECTING ||
        p->dtls_role != DTLS_ROLE_SERVER || !peer_owns_address(p, remote) ||
        !dtls_is_client_hello(data, len)) {
        return; /* a stale record from an earlier connection starts nothing */
    }
    p->path_local = *local;
    p->path_remote = *remote;
    p->have_path = true;
    start_dtls(p, now);
}

void peer_demux(peer_datagram_t *d, const uint8_t *data, size_t len)
{
    d->data = data;
    d->len = len;
    uint8_t first = len > 0 ? data[0] : 0;
    d->kind = len == 0                     ? PEER_RX_EMPTY
              : first <= 3                 ? PEER_RX_STUN
              : first >= 20 && first <= 63 ? PEER_RX_DTLS
                                           : PEER_RX_OTHER;
    if (d->kind == PEER_RX_STUN) {
        /* RFC 8489 §6.3: without the magic cookie it is not STUN either, only noise. */
        d->stun_parsed =
            stun_looks_like(data, len) ? stun_parse(&d->stun, data, len) : ZQ_ERR_MALFORMED;
    }
}

bool peer_is_addressed(const peer_t *p, const peer_datagram_t *d)
{
    return d->kind == PEER_RX_STUN && d->stun_parsed == ZQ_OK &&
           ice_agent_is_addressed(&p->ice, &d->stun);
}

static zq_err_t handle_dtls(peer_t *p, uint64_t now, const zq_addr_t *local,
                            const zq_addr_t *remote, const uint8_t *data, size_t len)
{
    maybe_start_dtls_early(p, now, local, remote, data, len);
    if (!p->dtls_started || !peer_owns_address(p, remote)) {
        p->stats.rx_dtls_dropped++; /* DTLS before ICE, or from an unchecked address */
        return ZQ_ERR_STATE;
    }
    zq_err_t err = dtls_handle_datagram(&p->dtls, now, data, len);
    deliver_dtls_records(p, now);
    return err;
}

zq_err_t peer_handle_demuxed(peer_t *p, uint64_t now, const zq_addr_t *local,
                             const zq_addr_t *remote, const peer_datagram_t *d)
{
    p->stats.rx_datagrams++;
    zq_err_t err;
    switch (d->kind) {
    case PEER_RX_STUN:
        err = ice_agent_handle_stun(&p->ice, now, local, remote, &d->stun, d->stun_parsed);
        break;
    case PEER_RX_DTLS:
        err = handle_dtls(p, now, local, remote, d->data, d->len);
        break;
    case PEER_RX_EMPTY:
        p->stats.rx_demux_dropped++;
        return ZQ_ERR_MALFORMED;
    default:
        p->stats.rx_demux_dropped++; /* TURN channels, RTP: not ours */
        err = ZQ_ERR_UNSUPPORTED;
        break;
    }
    peer_pump(p, now);
    return err;
}

zq_err_t peer_handle_datagram(peer_t *p, uint64_t now, const zq_addr_t *local,
                              const zq_addr_t *remote, const uint8_t *data, size_t len)
{
    peer_datagram_t d;
    peer_demux(&d, data, len);
    return peer_handle_demuxed(p, now, local, remote, &d);
}

void peer_handle_timeout(peer_t *p, uint64_t now)
{
    if (p->connect_deadline <= now) {
        p->connect_deadline = ZQ_TIME_NEVER;
        peer_fail(p, PEER_FAIL_TIMEOUT);
    }
    if (ice_agent_next_timeout(&p->ice) <= now) {
        ice_agent_handle_timeout(&p->ice, now);
    }
    if (p->dtls_started && dtls_next_timeout(&p->dtls) <= now) {
        dtls_handle_timeout(&p->dtls, now);
    }
    if (p->sctp_started && sctp_next_timeout(&p->sctp) <= now) {
        sctp_handle_timeout(&p->sctp, now);
    }
    peer_pump(p, now);
}

uint64_t peer_next_timeout(const peer_t *p)
{
    uint64_t t = zq_time_min(p->connect_deadline, ice_agent_next_timeout(&p->ice));
    if (p->dtls_started) {
        t = zq_time_min(t, dtls_next_timeout(&p->dtls));
    }
    if (p->sctp_started) {
        t = zq_time_min(t, sctp_next_timeout(&p->sctp));
    }
    return t;
}

/* ---- Output ------------------------------------------------------------------------------ */

static bool lend(peer_transmit_t *tx, const zq_addr_t *local, const zq_addr_t *remote,
                 const uint8_t *data, size_t len)
{
    tx->local = *local;
    tx->remote = *remote;
    tx->data = data;
    tx->len = len;
    return true;
}

/* Encrypts the association's next packet, if DTLS has room for it. */
static bool next_sctp_record(peer_t *p, uint64_t now)
{
    if (!p->sctp_started) {
        return false;
    }
    size_t n = sctp_poll_transmit(&p->sctp, now, p->out, sizeof p->out);
    return n > 0 && dtls_write(&p->dtls, now, p->out, n) == ZQ_OK;
}

bool peer_poll_transmit(peer_t *p, uint64_t now, peer_transmit_t *tx)
{
    ice_transmit_t itx;
    if (ice_agent_poll_transmit(&p->ice, &itx)) {
        return lend(tx, &itx.local, &itx.remote, itx.data, itx.len);
    }
    if (!p->dtls_started || !p->have_path) {
        return false;
    }
    const uint8_t *data;
    size_t len;
    if (dtls_poll_transmit(&p->dtls, &data, &len) ||
        (next_sctp_record(p, now) && dtls_poll_transmit(&p->dtls, &data, &len))) {
        return lend(tx, &p->path_local, &p->path_remote, data, len);
    }
    if (p->state == PEER_STATE_CLOSED && dtls_state(&p->dtls) == DTLS_STATE_CONNECTED) {
        dtls_close(&p->dtls, now); /* after SCTP's ABORT: close_notify (RFC 5246 §7.2.1) */
        if (dtls_poll_transmit(&p->dtls, &data, &len)) {
            return lend(tx, &p->path_local, &p->path_remote, data, len);
        }
    }
    return false;
}
