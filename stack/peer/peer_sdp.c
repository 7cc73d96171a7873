/* Offer and answer (RFC 8829's model, RFC 8841 for data channels): writing ours from the
 * layers' parameters, and applying the peer's to them: ICE credentials and candidates, the
 * certificate fingerprint DTLS must pin, the DTLS role (a=setup), SCTP port and
 * max-message-size. */
#include <string.h>

#include "stack/peer/peer_internal.h"
#include "stack/sdp/sdp.h"

#define PEER_MID "0"

/* Our side of a description: what the agents and the node's identity say. */
static void describe_local(const peer_t *p, sdp_t *s, sdp_setup_t setup)
{
    sdp_init(s);
    const ice_credentials_t *cred = ice_agent_local_credentials(&p->ice);
    memcpy(s->ice_ufrag, cred->ufrag, sizeof s->ice_ufrag);
    memcpy(s->ice_pwd, cred->pwd, sizeof s->ice_pwd);
    s->ice_lite = p->cfg.ice.mode == ICE_MODE_LITE;
    s->ice_trickle = true;
    s->has_fingerprint = true;
    s->fingerprint = p->cfg.dtls->identity->fingerprint;
    s->setup = setup;
    memcpy(s->mid, PEER_MID, sizeof PEER_MID);
    s->bundle = true;
    s->sctp_port = p->cfg.sctp.local_port;
    s->max_message_size = p->cfg.max_message;
    s->legacy_sctpmap = p->legacy_sctpmap;
    s->session_id = p->cfg.session_id;
    s->session_version = 2;
    /* ZeroQ answerers drop trickled candidates (zeroq-wire.md §2): put all we have here. */
    size_t n = ice_agent_local_candidate_count(&p->ice);
    for (size_t i = 0; i < n && s->n_candidates < ZQ_SDP_MAX_CANDIDATES; i++) {
        s->candidates[s->n_candidates++] = *ice_agent_local_candidate(&p->ice, i);
    }
    s->end_of_candidates = ice_agent_gathering_done(&p->ice);
}

static zq_err_t write_description(peer_t *p, sdp_kind_t kind, sdp_setup_t setup, char *out,
                                  size_t cap, size_t *len)
{
    sdp_t *s = (sdp_t *)(void *)p->out; /* scratch: the SCTP staging buffer is free here */
    _Static_assert(sizeof p->out >= sizeof(sdp_t) && _Alignof(sdp_t) <= 8,
                   "the staging buffer (8-byte aligned) holds an sdp_t");
    describe_local(p, s, setup);
    *len = sdp_write(s, kind, out, cap);
    p->have_local = *len > 0;
    return *len > 0 ? ZQ_OK : ZQ_ERR_NO_SPACE;
}

zq_err_t peer_create_offer(peer_t *p, uint64_t now, char *sdp, size_t cap, size_t *len)
{
    if (p->have_remote || p->state != PEER_STATE_NEW) {
        return ZQ_ERR_STATE;
    }
    p->offerer = true;
    /* RFC 8445 §6.1.1: the offering full agent controls; a lite agent never does. */
    if (p->cfg.ice.mode == ICE_MODE_FULL) {
        (void)ice_agent_set_role(&p->ice, ICE_ROLE_CONTROLLING);
    }
    zq_err_t err = write_description(p, SDP_OFFER, SDP_SETUP_ACTPASS, sdp, cap, len);
    p->connect_deadline = now + ZQ_PEER_CONNECT_TIMEOUT_MS;
    peer_advance(p, now);
    return err;
}

zq_err_t peer_create_answer(peer_t *p, uint64_t now, char *sdp, size_t cap, size_t *len)
{
    if (p->offerer || !p->have_remote) {
        return ZQ_ERR_STATE;
    }
    sdp_setup_t setup = p->dtls_role == DTLS_ROLE_SERVER ? SDP_SETUP_PASSIVE : SDP_SETUP_ACTIVE;
    zq_err_t err = write_description(p, SDP_ANSWER, setup, sdp, cap, len);
    peer_advance(p, now);
    return err;
}

/* RFC 5763 §5 / RFC 8842: who is the DTLS client. An answerer takes active, as JSEP
 * recommends (RFC 8829 §5.3.1) and browsers do (see peer.h). */
static zq_err_t choose_dtls_role(peer_t *p, sdp_setup_t remote)
{
    switch (remote) {
    case SDP_SETUP_ACTPASS:
        if (p->offerer) {
            return ZQ_ERR_MALFORMED; /* an answer cannot leave the choice open */
        }
        p->dtls_role = DTLS_ROLE_CLIENT;
        return ZQ_OK;
    case SDP_SETUP_ACTIVE:
        p->dtls_role = DTLS_ROLE_SERVER;
        return ZQ_OK;
    case SDP_SETUP_PASSIVE:
        p->dtls_role = DTLS_ROLE_CLIENT;
        return ZQ_OK;
    default:
        /* RFC 4145 §4: no a=setup means active; an offerer then has nothing to decide. */
        p->dtls_role = DTLS_ROLE_SERVER;
        return ZQ_OK;
    }
}

static void apply_ice(peer_t *p, uint64_t now, const sdp_t *s)
{
    (void)ice_agent_set_remote_credentials(&p->ice, s->ice_ufrag, strlen(s->ice_ufrag),
                                           s->ice_pwd, strlen(s->ice_pwd));
    p->remote_lite = s->ice_lite;
    if (p->cfg.ice.mode == ICE_MODE_FULL) {
        /* RFC 8445 §6.1.1: against a lite peer the full agent controls; otherwise the
         * offerer does. */
        bool control = s->ice_lite || p->offerer;
        (void)ice_agent_set_role(&p->ice, control ? ICE_ROLE_CONTROLLING : ICE_ROLE_CONTROLLED);
    }
    for (uint8_t i = 0; i < s->n_candidates; i++) {
        (void)ice_agent_add_remote_candidate(&p->ice, now, &s->candidates[i]);
    }
    if (s->end_of_candidates) {
        ice_agent_remote_gathering_done(&p->ice);
    }
}

zq_err_t peer_set_remote_description(peer_t *p, uint64_t now, const char *sdp, size_t len,
                                     const char **reason)
{
    static const char *const answer_first = "an answer needs our offer first";
    if (p->have_remote || (p->offerer && !p->have_local)) {
        *reason = answer_first;
        return ZQ_ERR_STATE;
    }
    sdp_t *s = (sdp_t *)(void *)p->out;
    zq_err_t err = sdp_parse(sdp, len, s, reason);
    if (err == ZQ_OK && choose_dtls_role(p, s->setup) != ZQ_OK) {
        static const char *const bad_setup = "an answer must choose a=setup active or passive";
        *reason = bad_setup;
        err = ZQ_ERR_MALFORMED;
    }
    if (err != ZQ_OK) {
        return err;
    }
    p->remote_fingerprint = s->fingerprint;
    p->remote_sctp_port = s->sctp_port;
    p->remote_max_message = s->max_message_size;
    p->legacy_sctpmap = s->legacy_sctpmap;
    p->cfg.sctp.remote_port = s->sctp_port; /* RFC 8841 §5: each side names its own port */
    p->have_remote = true;
    if (!p->offerer) {
        p->connect_deadline = now + ZQ_PEER_CONNECT_TIMEOUT_MS;
    }
    apply_ice(p, now, s);
    peer_advance(p, now);
    return ZQ_OK;
}

zq_err_t peer_add_remote_candidate(peer_t *p, uint64_t now, const char *line, size_t len)
{
    zq_err_t err = ice_agent_add_remote_candidate_line(&p->ice, now, line, len);
    peer_pump(p, now);
    return err;
}
