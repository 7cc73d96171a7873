/* Feeds arbitrary datagrams and timer ticks to an ICE agent (lite or full, either role).
 *
 * Raw bytes alone rarely get past MESSAGE-INTEGRITY, so the input also drives a builder:
 * each step is either a raw datagram, or a STUN message assembled from fuzzed attributes and
 * then signed with the right key (ours for requests, the peer's for responses) and given the
 * transaction id of a request the agent has in flight. That reaches role conflicts,
 * nomination, consent and every answer path. Invariants checked after each step: outputs
 * drain, deadlines never go backwards past `now` forever, the state stays in range. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stack/ice/ice.h"
#include "zq/bytes.h"
#include "fuzz_support.h"

static const char peer_ufrag[] = "peer";
static const char peer_pwd[] = "peerpasswordpeerpassword";

#include <stdio.h>

static void drain(ice_agent_t *a)
{
    ice_transmit_t tx;
    int n = 0;
    while (ice_agent_poll_transmit(a, &tx)) {
        check(tx.len > 0 && tx.len <= ZQ_STUN_MAX_MESSAGE);
        check(++n <= ZQ_ICE_TX_QUEUE);
    }
    ice_event_t ev;
    n = 0;
    while (ice_agent_poll_event(a, &ev)) {
        check(ev.type <= ICE_EVENT_FAILED);
        check(++n <= ZQ_ICE_EVENT_QUEUE);
    }
    check(ice_agent_state(a) <= ICE_STATE_FAILED);
}

/* The transaction id of some request in flight, or a fuzzed one. */
static void pick_tid(const ice_agent_t *a, zq_reader_t *in, uint8_t tid[STUN_TID_LEN])
{
    uint8_t which = zq_read_u8(in);
    const ice_txn_t *t = &a->txns[which % ZQ_ICE_MAX_TRANSACTIONS];
    if (t->kind != 0) {
        memcpy(tid, t->tid, STUN_TID_LEN);
        return;
    }
    const uint8_t *raw = zq_read_bytes(in, STUN_TID_LEN);
    if (raw != NULL) {
        memcpy(tid, raw, STUN_TID_LEN);
    } else {
        memset(tid, 0, STUN_TID_LEN);
    }
}

/* A message built from fuzzed attributes and signed so that the agent believes it. */
static size_t build_structured(const ice_agent_t *a, zq_reader_t *in, uint8_t *buf, size_t cap)
{
    static const uint16_t types[] = {STUN_BINDING_REQUEST, STUN_BINDING_SUCCESS,
                                     STUN_BINDING_ERROR, STUN_BINDING_INDICATION};
    uint16_t type = types[zq_read_u8(in) % 4];
    uint8_t tid[STUN_TID_LEN];
    pick_tid(a, in, tid);
    stun_builder_t b;
    stun_build_start(&b, buf, cap, type, tid);
    uint8_t n_attrs = zq_read_u8(in) % 8;
    for (uint8_t i = 0; i < n_attrs && !in->failed; i++) {
        uint16_t attr = zq_read_be16(in);
        uint8_t len = zq_read_u8(in) % 24;
        const uint8_t *value = zq_read_bytes(in, len);
        if (value != NULL) {
            stun_put_attr(&b, attr, value, len);
        }
    }
    if (type == STUN_BINDING_REQUEST) {
        char username[2 * ZQ_ICE_UFRAG_MAX + 2];
        size_t ours = strlen(a->local_cred.ufrag);
        memcpy(username, a->local_cred.ufrag, ours);
        username[ours] = ':';
        memcpy(username + ours + 1, peer_ufrag, sizeof peer_ufrag - 1);
        stun_put_attr(&b, STUN_ATTR_USERNAME, username, ours + sizeof peer_ufrag);
    }
    const char *key = type == STUN_BINDING_REQUEST ? a->local_cred.pwd : peer_pwd;
    stun_put_integrity(&b, (const uint8_t *)key, strlen(key));
    stun_put_fingerprint(&b);
    return stun_build_finish(&b);
}

static void setup(ice_agent_t *a, uint32_t *seed, uint8_t mode_byte)
{
    ice_config_t cfg;
    ice_config_default(&cfg, (mode_byte & 1) ? ICE_MODE_FULL : ICE_MODE_LITE);
    cfg.role = (mode_byte & 3) == 3 ? ICE_ROLE_CONTROLLING : ICE_ROLE_CONTROLLED;
    cfg.rand.fill = fuzz_counter_rand;
    cfg.rand.ctx = seed;
    if (mode_byte & 4) {
        cfg.stun_server = zq_addr_v4(192, 0, 2, 1, 3478);
    }
    check(ice_agent_init(a, &cfg) == ZQ_OK);
    zq_addr_t host = zq_addr_v4(10, 0, 0, 1, 5000);
    check(ice_agent_add_host_candidate(a, 0, &host) == ZQ_OK);
    check(ice_agent_set_remote_credentials(a, peer_ufrag, 4, peer_pwd, 24) == ZQ_OK);
    ice_candidate_t c = {.foundation = "1", .component = 1, .priority = 2130706431u,
                         .type = ICE_CAND_HOST, .addr = zq_addr_v4(10, 0, 0, 2, 6000)};
    (void)ice_agent_add_remote_candidate(a, 0, &c);
    check(ice_agent_start(a, 0) == ZQ_OK);
    drain(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ice_agent_t agent;
    uint32_t seed = 1;
    zq_reader_t in = zq_reader(data, size);
    setup(&agent, &seed, zq_read_u8(&in));
    uint64_t now = 0;
    zq_addr_t local = zq_addr_v4(10, 0, 0, 1, 5000);
    while (zq_reader_left(&in) > 0) {
        uint8_t op = zq_read_u8(&in);
        now += (uint64_t)zq_read_u8(&in) * 97u; /* time moves forward by up to ~25 s */
        zq_addr_t from = zq_addr_v4(10, 0, 0, (uint8_t)(2 + (op >> 6)), 6000);
        uint8_t buf[ZQ_UDP_MAX_DATAGRAM];
        size_t len = 0;
        if ((op & 3) == 0) {
            len = zq_read_u8(&in);
            const uint8_t *raw = zq_read_bytes(&in, len);
            if (raw == NULL) {
                break;
            }
            memcpy(buf, raw, len);
        } else if ((op & 3) == 1) {
            len = build_structured(&agent, &in, buf, sizeof buf);
        }
        if (len > 0) {
            (void)ice_agent_handle_datagram(&agent, now, &local, &from, buf, len);
        }
        if (ice_agent_next_timeout(&agent) <= now) {
            ice_agent_handle_timeout(&agent, now);
        }
        drain(&agent);
    }
    /* Run the clock out: every timer must settle without spinning. */
    for (int i = 0; i < 2000 && ice_agent_next_timeout(&agent) != ZQ_TIME_NEVER; i++) {
        uint64_t t = ice_agent_next_timeout(&agent);
        now = t > now ? t : now;
        ice_agent_handle_timeout(&agent, now);
        drain(&agent);
    }
    check(ice_agent_next_timeout(&agent) == ZQ_TIME_NEVER); /* consent or connect timed out */
    return 0;
}
