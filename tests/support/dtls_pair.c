#include "dtls_pair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zq/crypto.h"

dtls_fixture_t fx;

/* Big enough for the identities, both contexts and a few connections in handshake, or the 24
 * sessions of test_node_sim's six members, each ~6 KiB with the device's records and ~24 KiB
 * with the host's (ZQ_TLS_FULL_RECORDS). */
static uint8_t arena[1024 * 1024];

void dtls_fixture_setup(const dtls_config_t *cfg_a, const dtls_config_t *cfg_b)
{
    static bool arena_ready;
    if (!arena_ready) {
        dtls_arena_init(arena, sizeof arena);
        arena_ready = true;
    }
    fx.rand = test_rand(&fx.rand_state, 0x5eed);
    dtls_config_t a = *cfg_a;
    dtls_config_t b = *cfg_b;
    a.rand = fx.rand;
    b.rand = fx.rand;
    if (dtls_identity_generate(&fx.id_a, &fx.rand) != ZQ_OK ||
        dtls_identity_generate(&fx.id_b, &fx.rand) != ZQ_OK ||
        dtls_context_init(&fx.ctx_a, &a, &fx.id_a) != ZQ_OK ||
        dtls_context_init(&fx.ctx_b, &b, &fx.id_b) != ZQ_OK) {
        fprintf(stderr, "dtls fixture: setup failed\n");
        abort();
    }
}

void dtls_fixture_teardown(void)
{
    dtls_context_free(&fx.ctx_a);
    dtls_context_free(&fx.ctx_b);
    dtls_identity_free(&fx.id_a);
    dtls_identity_free(&fx.id_b);
}

int dtls_fixture_group_setup(void **state)
{
    (void)state;
    dtls_config_t cfg;
    dtls_config_default(&cfg);
    dtls_fixture_setup(&cfg, &cfg);
    return 0;
}

int dtls_fixture_group_teardown(void **state)
{
    (void)state;
    dtls_fixture_teardown();
    return 0;
}

void dtls_pair_init(dtls_pair_t *p, uint64_t seed, simnet_impairment_t impair)
{
    memset(p, 0, sizeof *p);
    simnet_init(&p->net, seed, impair);
    p->now = 1000;
    p->end[0].addr = zq_addr_v4(10, 0, 0, 1, 5000);
    p->end[1].addr = zq_addr_v4(10, 0, 0, 2, 6000);
}

static void flush(dtls_pair_t *p, int side)
{
    dtls_end_t *e = &p->end[side];
    const uint8_t *data;
    size_t len;
    while (dtls_poll_transmit(&e->conn, &data, &len)) {
        uint8_t copy[ZQ_UDP_MAX_DATAGRAM];
        memcpy(copy, data, len);
        bool keep = e->tap == NULL || e->tap(e->tap_ctx, copy, &len, sizeof copy);
        if (keep && !e->mute) {
            simnet_send(&p->net, p->now, &e->addr, &p->end[1 - side].addr, copy, len);
        }
    }
    dtls_event_t ev;
    while (!e->not_polling && dtls_poll_event(&e->conn, &ev)) {
        if (ev.type == DTLS_EVENT_CONNECTED) {
            e->connected = true;
        } else if (ev.type == DTLS_EVENT_CLOSED) {
            e->closed = true;
        } else {
            e->failed = true;
            e->failure = ev.failure;
        }
    }
}

void dtls_pair_start(dtls_pair_t *p, const dtls_context_t *client_ctx,
                     const dtls_context_t *server_ctx, const dtls_fingerprint_t *server_fp,
                     const dtls_fingerprint_t *client_fp)
{
    const zq_addr_t *client_addr = &p->end[0].addr;
    if (dtls_start(&p->end[1].conn, server_ctx, DTLS_ROLE_SERVER, client_fp, client_addr->ip, 4,
                   p->now) != ZQ_OK ||
        dtls_start(&p->end[0].conn, client_ctx, DTLS_ROLE_CLIENT, server_fp, NULL, 0, p->now) !=
            ZQ_OK) {
        fprintf(stderr, "dtls pair: start failed\n");
        abort();
    }
    flush(p, 0);
    flush(p, 1);
}

static void deliver(dtls_pair_t *p, const simnet_packet_t *pkt)
{
    int side = zq_addr_equal(&pkt->to, &p->end[0].addr) ? 0 : 1;
    dtls_end_t *e = &p->end[side];
    if (e->deaf) {
        return;
    }
    (void)dtls_handle_datagram(&e->conn, p->now, pkt->data, pkt->len);
    uint8_t plain[MBEDTLS_SSL_IN_CONTENT_LEN]; /* what dtls_read() may ask for */
    int n;
    while ((n = dtls_read(&e->conn, plain, sizeof plain)) > 0) {
        e->messages++;
        e->bytes += (unsigned long)n;
        e->crc = zq_crc32_update(e->crc, plain, (size_t)n);
    }
    flush(p, side);
}

bool dtls_pair_run(dtls_pair_t *p, uint64_t until, bool (*done)(dtls_pair_t *p))
{
    while (!(done != NULL && done(p))) {
        uint64_t t = simnet_next_delivery(&p->net);
        for (int i = 0; i < 2; i++) {
            t = zq_time_min(t, dtls_next_timeout(&p->end[i].conn));
        }
        if (t > until) {
            p->now = until;
            return done != NULL && done(p);
        }
        p->now = t > p->now ? t : p->now;
        simnet_packet_t pkt;
        while (simnet_receive(&p->net, p->now, &pkt)) {
            deliver(p, &pkt);
        }
        for (int i = 0; i < 2; i++) {
            if (dtls_next_timeout(&p->end[i].conn) <= p->now) {
                dtls_handle_timeout(&p->end[i].conn, p->now);
                flush(p, i);
            }
        }
    }
    return true;
}

bool dtls_pair_both_connected(dtls_pair_t *p)
{
    return p->end[0].connected && p->end[1].connected;
}

bool dtls_pair_any_failed(dtls_pair_t *p)
{
    return p->end[0].failed || p->end[1].failed;
}

zq_err_t dtls_pair_send(dtls_pair_t *p, int side, const uint8_t *data, size_t len)
{
    zq_err_t err = dtls_write(&p->end[side].conn, p->now, data, len);
    flush(p, side);
    return err;
}

void dtls_pair_free(dtls_pair_t *p)
{
    dtls_free(&p->end[0].conn);
    dtls_free(&p->end[1].conn);
}
