#include "ice_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void harness_init(harness_t *h, uint64_t seed, simnet_impairment_t impair)
{
    memset(h, 0, sizeof *h);
    simnet_init(&h->net, seed, impair);
    h->now = 1000;
}

int harness_add_agent(harness_t *h, const ice_config_t *cfg, zq_addr_t host, uint64_t seed)
{
    harness_endpoint_t *e = &h->ep[h->n];
    ice_config_t c = *cfg;
    c.rand = test_rand(&e->rand, seed);
    e->host = host;
    if (ice_agent_init(&e->agent, &c) != ZQ_OK ||
        ice_agent_add_host_candidate(&e->agent, h->now, &host) != ZQ_OK) {
        return -1;
    }
    return h->n++;
}

int harness_add_stun_server(harness_t *h, zq_addr_t addr, zq_addr_t reflexive)
{
    harness_endpoint_t *e = &h->ep[h->n];
    e->is_stun_server = true;
    e->host = addr;
    e->reflexive = reflexive;
    return h->n++;
}

void harness_signal(harness_t *h, int from, int to, bool with_candidates)
{
    const ice_credentials_t *cred = ice_agent_local_credentials(&h->ep[from].agent);
    ice_agent_t *dst = &h->ep[to].agent;
    (void)ice_agent_set_remote_credentials(dst, cred->ufrag, strlen(cred->ufrag), cred->pwd,
                                           strlen(cred->pwd));
    if (!with_candidates) {
        return;
    }
    /* Through the text form, as signalling would carry it. */
    for (size_t i = 0; i < ice_agent_local_candidate_count(&h->ep[from].agent); i++) {
        char line[ICE_CANDIDATE_TEXT_MAX];
        size_t n = ice_candidate_format(ice_agent_local_candidate(&h->ep[from].agent, i), line,
                                        sizeof line);
        (void)ice_agent_add_remote_candidate_line(dst, h->now, line, n);
    }
}

static void collect(harness_t *h, harness_endpoint_t *e)
{
    ice_transmit_t tx;
    while (ice_agent_poll_transmit(&e->agent, &tx)) {
        if (!e->mute) {
            simnet_send(&h->net, h->now, &tx.local, &tx.remote, tx.data, tx.len);
        }
    }
    ice_event_t ev;
    while (ice_agent_poll_event(&e->agent, &ev)) {
        switch (ev.type) {
        case ICE_EVENT_LOCAL_CANDIDATE:
            if (e->n_local_cands < ZQ_ICE_MAX_LOCAL_CANDIDATES) {
                e->local_cands[e->n_local_cands++] = ev.candidate;
            }
            break;
        case ICE_EVENT_GATHERING_DONE:
            e->gathering_done = true;
            break;
        case ICE_EVENT_SELECTED_PAIR:
            e->selected_events++;
            e->sel_local = ev.local;
            e->sel_remote = ev.remote;
            e->selected_at = h->now;
            break;
        case ICE_EVENT_ROLE_CHANGED:
            e->role_changes++;
            break;
        case ICE_EVENT_DISCONNECTED:
            e->disconnected = true;
            e->ended_at = h->now;
            break;
        case ICE_EVENT_FAILED:
            e->failed = true;
            e->ended_at = h->now;
            break;
        }
    }
}

void harness_start(harness_t *h, int i)
{
    (void)ice_agent_start(&h->ep[i].agent, h->now);
    collect(h, &h->ep[i]);
}

/* A STUN server: answers a Binding request with the configured mapped address. */
static void serve_stun(harness_t *h, harness_endpoint_t *e, const simnet_packet_t *p)
{
    stun_msg_t req;
    if (stun_parse(&req, p->data, p->len) != ZQ_OK || req.type != STUN_BINDING_REQUEST) {
        return;
    }
    uint8_t buf[128];
    stun_builder_t b;
    stun_build_start(&b, buf, sizeof buf, STUN_BINDING_SUCCESS, req.tid);
    stun_put_xor_address(&b, STUN_ATTR_XOR_MAPPED_ADDRESS, &e->reflexive);
    stun_put_fingerprint(&b);
    simnet_send(&h->net, h->now, &e->host, &p->from, buf, stun_build_finish(&b));
}

static harness_endpoint_t *endpoint_at(harness_t *h, const zq_addr_t *addr)
{
    for (int i = 0; i < h->n; i++) {
        if (zq_addr_equal(&h->ep[i].host, addr)) {
            return &h->ep[i];
        }
    }
    return NULL;
}

static void deliver(harness_t *h, const simnet_packet_t *p)
{
    harness_endpoint_t *e = endpoint_at(h, &p->to);
    if (e == NULL || e->deaf) {
        return;
    }
    if (e->is_stun_server) {
        serve_stun(h, e, p);
        return;
    }
    (void)ice_agent_handle_datagram(&e->agent, h->now, &p->to, &p->from, p->data, p->len);
    collect(h, e);
}

static uint64_t next_event_time(harness_t *h)
{
    uint64_t t = simnet_next_delivery(&h->net);
    for (int i = 0; i < h->n; i++) {
        if (!h->ep[i].is_stun_server) {
            t = zq_time_min(t, ice_agent_next_timeout(&h->ep[i].agent));
        }
    }
    return t;
}

bool harness_run(harness_t *h, uint64_t until, bool (*done)(harness_t *h))
{
    unsigned spins = 0; /* rounds without the clock moving: a stuck deadline is a bug */
    while (!(done != NULL && done(h))) {
        uint64_t t = next_event_time(h);
        if (t > until) {
            h->now = until;
            return done != NULL && done(h);
        }
        if (t > h->now) {
            h->now = t; /* time only moves forward */
            spins = 0;
        } else if (++spins > 100000) {
            fprintf(stderr, "harness: a deadline stays due at %llu ms\n",
                    (unsigned long long)h->now);
            abort();
        }
        simnet_packet_t p;
        while (simnet_receive(&h->net, h->now, &p)) {
            deliver(h, &p);
        }
        for (int i = 0; i < h->n; i++) {
            harness_endpoint_t *e = &h->ep[i];
            if (!e->is_stun_server && ice_agent_next_timeout(&e->agent) <= h->now) {
                ice_agent_handle_timeout(&e->agent, h->now);
                collect(h, e);
            }
        }
    }
    return true;
}

bool harness_all_selected(harness_t *h)
{
    for (int i = 0; i < h->n; i++) {
        if (!h->ep[i].is_stun_server && h->ep[i].selected_events == 0) {
            return false;
        }
    }
    return true;
}
