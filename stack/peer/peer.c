/* The peer connection's lifecycle, its events, and the data channel calls it forwards. */
#include <string.h>

#include "stack/peer/peer_internal.h"

void peer_config_default(peer_config_t *cfg, const zq_rand_t *rand, dtls_context_t *dtls)
{
    memset(cfg, 0, sizeof *cfg);
    ice_config_default(&cfg->ice, ICE_MODE_LITE);
    cfg->ice.rand = *rand;
    sctp_config_default(&cfg->sctp);
    cfg->sctp.rand = *rand;
    cfg->dtls = dtls;
    cfg->max_message = ZQ_PEER_MAX_MESSAGE;
    uint8_t id[8];
    (void)zq_rand_bytes(rand, id, sizeof id);
    cfg->session_id = zq_load_be64(id) >> 2; /* RFC 8866 §5.2: fits a 63-bit NTP-like value */
}

zq_err_t peer_init(peer_t *p, const peer_config_t *cfg)
{
    if (cfg->dtls == NULL) {
        return ZQ_ERR_INVALID_ARG;
    }
    memset(p, 0, sizeof *p);
    p->cfg = *cfg;
    p->state = PEER_STATE_NEW;
    p->remote_max_message = 65536; /* RFC 8841 §6.1: when the peer says nothing */
    p->connect_deadline = ZQ_TIME_NEVER;
    zq_err_t err = ice_agent_init(&p->ice, &cfg->ice);
    if (err == ZQ_OK) {
        err = sctp_assoc_init(&p->sctp, &cfg->sctp, p->sctp_send_buf, sizeof p->sctp_send_buf,
                              p->sctp_recv_buf, sizeof p->sctp_recv_buf);
    }
    return err;
}

zq_err_t peer_add_host_candidate(peer_t *p, uint64_t now, const zq_addr_t *addr)
{
    zq_err_t err = ice_agent_add_host_candidate(&p->ice, now, addr);
    peer_pump(p, now);
    return err;
}

zq_err_t peer_add_relay_candidate(peer_t *p, uint64_t now, const ice_relay_t *relay,
                                  const zq_addr_t *host)
{
    zq_err_t err = ice_agent_add_relay_candidate(&p->ice, now, relay, host);
    peer_pump(p, now);
    return err;
}

void peer_expect_relay(peer_t *p, uint64_t now, bool expected)
{
    ice_agent_expect_relay(&p->ice, expected);
    peer_pump(p, now);
}

/* ---- Events ------------------------------------------------------------------------------ */

/* Sized for every channel and candidate at once (ZQ_PEER_EVENT_QUEUE), drained after each
 * call: a refusal means events were not drained (peer_events_refused()). */
peer_event_slot_t *peer_push_event(peer_t *p, peer_event_type_t type, uint16_t channel)
{
    peer_event_slot_t *e = ZQ_QUEUE_PUSH(&p->evq, p->events);
    if (e != NULL) {
        e->type = (uint8_t)type;
        e->channel = channel;
        e->failure = (uint8_t)p->failure;
        e->dtls_failure = (uint8_t)p->dtls_failure;
    }
    return e;
}

bool peer_poll_event(peer_t *p, peer_event_t *ev)
{
    const peer_event_slot_t *e = ZQ_QUEUE_POP(&p->evq, p->events);
    if (e == NULL) {
        return false;
    }
    memset(ev, 0, sizeof *ev);
    ev->type = (peer_event_type_t)e->type;
    ev->channel = e->channel;
    ev->failure = (peer_failure_t)e->failure;
    ev->dtls_failure = (dtls_failure_t)e->dtls_failure;
    if (ev->type == PEER_EVENT_LOCAL_CANDIDATE) {
        const ice_candidate_t *c = ice_agent_local_candidate(&p->ice, e->candidate);
        (void)ice_candidate_format(c, ev->candidate, sizeof ev->candidate);
    }
    return true;
}

uint32_t peer_events_refused(const peer_t *p)
{
    return zq_queue_refused(&p->evq);
}

const char *peer_failure_name(peer_failure_t failure)
{
    switch (failure) {
    case PEER_FAIL_NONE:
        return "no failure";
    case PEER_FAIL_ICE:
        return "no ICE candidate pair worked";
    case PEER_FAIL_CONSENT:
        return "the peer stopped answering ICE consent checks";
    case PEER_FAIL_DTLS:
        return "DTLS handshake failed";
    case PEER_FAIL_SCTP:
        return "the SCTP association failed or was aborted";
    case PEER_FAIL_DESCRIPTION:
        return "the peer's SDP was refused";
    case PEER_FAIL_TIMEOUT:
        return "no answer, or not connected in time";
    }
    return "unknown failure";
}

void peer_fail(peer_t *p, peer_failure_t why)
{
    if (p->state == PEER_STATE_FAILED || p->state == PEER_STATE_CLOSED) {
        return;
    }
    p->state = PEER_STATE_FAILED;
    p->failure = why;
    peer_push_event(p, PEER_EVENT_FAILED, 0);
}

/* ---- Data channels ------------------------------------------------------------------------ */

zq_err_t peer_open_channel(peer_t *p, uint64_t now, const char *label, const char *protocol,
                           dc_type_t type, uint32_t reliability, uint16_t *id)
{
    if (p->state != PEER_STATE_CONNECTED) {
        return ZQ_ERR_STATE;
    }
    return dc_open(&p->dc, now, label, protocol, type, reliability, id);
}

zq_err_t peer_send(peer_t *p, uint64_t now, uint16_t channel, const uint8_t *data, size_t len,
                   bool binary)
{
    if (p->state != PEER_STATE_CONNECTED) {
        return ZQ_ERR_STATE;
    }
    return dc_send(&p->dc, now, channel, data, len, binary);
}

zq_err_t peer_send_part(peer_t *p, uint64_t now, uint16_t channel, const uint8_t *data,
                        size_t len, bool binary, bool first, bool last, size_t *accepted)
{
    *accepted = 0;
    if (p->state != PEER_STATE_CONNECTED) {
        return ZQ_ERR_STATE;
    }
    return dc_send_part(&p->dc, now, channel, data, len, binary, first, last, accepted);
}

zq_err_t peer_send_part_abandon(peer_t *p, uint64_t now)
{
    return p->state == PEER_STATE_CONNECTED ? dc_send_part_abandon(&p->dc, now) : ZQ_ERR_STATE;
}

size_t peer_send_room(const peer_t *p)
{
    return p->state == PEER_STATE_CONNECTED ? sctp_out_room(&p->sctp) : 0;
}

zq_err_t peer_close_channel(peer_t *p, uint64_t now, uint16_t channel)
{
    if (p->state != PEER_STATE_CONNECTED) {
        return ZQ_ERR_STATE;
    }
    return dc_close(&p->dc, now, channel);
}

/* dc_read() handles any DCEP that came before the message: its events go out with it, so a
 * channel opened by an OPEN or ACK in the same read is known open when its message is seen. */
bool peer_read(peer_t *p, uint64_t now, dc_message_t *msg)
{
    bool got = p->state == PEER_STATE_CONNECTED && dc_read(&p->dc, now, msg);
    peer_pump_channel_events(p);
    return got;
}

const dc_channel_t *peer_channel(const peer_t *p, uint16_t channel)
{
    return dc_channel(&p->dc, channel);
}

void peer_close(peer_t *p, uint64_t now)
{
    if (p->state == PEER_STATE_CLOSED) {
        return;
    }
    if (p->sctp_started) {
        sctp_abort(&p->sctp, now);
    }
    p->state = PEER_STATE_CLOSED;
    peer_push_event(p, PEER_EVENT_CLOSED, 0);
    /* The ABORT still goes out (peer_poll_transmit), then close_notify. */
}

void peer_free(peer_t *p)
{
    if (p->dtls_started) {
        dtls_free(&p->dtls);
        p->dtls_started = false;
    }
    p->sctp_started = false;
    p->state = PEER_STATE_CLOSED;
}

peer_state_t peer_state(const peer_t *p)
{
    return p->state;
}

const char *peer_local_ufrag(const peer_t *p)
{
    return ice_agent_local_credentials(&p->ice)->ufrag;
}
