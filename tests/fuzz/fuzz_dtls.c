/* Feeds arbitrary datagrams to zq's DTLS: to a server from its first ClientHello on, to a client
 * mid-handshake, and to either side of an established session. To get past the record layer,
 * one mode also mutates the real flights of an honest peer (XOR with the fuzz input) before they
 * arrive. After every input both connections are freed and the arena must be back at its
 * baseline: a leak is a crash here. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stack/dtls/dtls.h"
#include "zq/bytes.h"
#include "fuzz_support.h"

static uint8_t arena[128 * 1024];
static uint32_t rand_state;
static dtls_identity_t id_a, id_b;
static dtls_context_t ctx_a, ctx_b;
static size_t baseline;

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    dtls_arena_init(arena, sizeof arena);
    zq_rand_t rand = {fuzz_counter_rand, &rand_state};
    dtls_config_t cfg;
    dtls_config_default(&cfg);
    cfg.rand = rand;
    check(dtls_identity_generate(&id_a, &rand) == ZQ_OK);
    check(dtls_identity_generate(&id_b, &rand) == ZQ_OK);
    check(dtls_context_init(&ctx_a, &cfg, &id_a) == ZQ_OK);
    check(dtls_context_init(&ctx_b, &cfg, &id_b) == ZQ_OK);
    dtls_arena_stats_t st;
    check(dtls_arena_stats(&st) == ZQ_OK);
    baseline = st.in_use;
    return 0;
}

static dtls_t client, server;
static uint64_t now;

static void drain_events(dtls_t *d)
{
    dtls_event_t ev;
    while (dtls_poll_event(d, &ev)) {
        check(ev.type <= DTLS_EVENT_FAILED);
    }
}

static void feed(dtls_t *d, const uint8_t *data, size_t len)
{
    static uint8_t plain[2048];
    (void)dtls_handle_datagram(d, now, data, len);
    int n;
    while ((n = dtls_read(d, plain, sizeof plain)) > 0) {
        check((size_t)n <= sizeof plain);
    }
    drain_events(d);
}

/* Delivers what @p from sends to @p to, XOR-ing it with fuzz bytes when @p mutate. */
static void relay(dtls_t *from, dtls_t *to, zq_reader_t *in, bool mutate)
{
    const uint8_t *data;
    size_t len;
    while (dtls_poll_transmit(from, &data, &len)) {
        static uint8_t copy[ZQ_UDP_MAX_DATAGRAM];
        check(len <= ZQ_DTLS_MTU);
        memcpy(copy, data, len);
        for (size_t i = 0; mutate && i < len && zq_reader_left(in) > 0; i++) {
            copy[i] ^= zq_read_u8(in);
        }
        feed(to, copy, len);
    }
}

/* Lets the two talk honestly for a few rounds (to reach a mid-handshake or connected state). */
static void converse(int rounds)
{
    for (int i = 0; i < rounds; i++) {
        relay(&client, &server, NULL, false);
        relay(&server, &client, NULL, false);
    }
}

static void feed_raw(dtls_t *target, zq_reader_t *in)
{
    while (zq_reader_left(in) > 0) {
        size_t len = zq_read_u8(in) * 8u + 1u;
        size_t left = zq_reader_left(in);
        const uint8_t *data = zq_read_bytes(in, len < left ? len : left);
        now += 50;
        feed(target, data, len < left ? len : left);
        if (dtls_next_timeout(target) <= now) {
            dtls_handle_timeout(target, now);
        }
        const uint8_t *out;
        size_t out_len;
        while (dtls_poll_transmit(target, &out, &out_len)) {
            check(out_len > 0 && out_len <= ZQ_DTLS_MTU);
        }
        drain_events(target);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zq_reader_t in = zq_reader(data, size);
    uint8_t mode = zq_read_u8(&in);
    rand_state = 1;
    now = 1000;
    static const uint8_t peer_id[4] = {10, 0, 0, 1};
    check(dtls_start(&server, &ctx_b, DTLS_ROLE_SERVER, &id_a.fingerprint, peer_id, 4, now) ==
          ZQ_OK);
    check(dtls_start(&client, &ctx_a, DTLS_ROLE_CLIENT, &id_b.fingerprint, NULL, 0, now) ==
          ZQ_OK);
    switch (mode % 5) {
    case 0: /* a server from the first datagram on */
        feed_raw(&server, &in);
        break;
    case 1: /* a client mid-handshake: after ClientHello, HelloVerifyRequest, ClientHello */
        converse(1);
        feed_raw(&client, &in);
        break;
    case 2: /* an honest handshake whose flights arrive mutated, both ways */
        for (int i = 0; i < 6 && zq_reader_left(&in) > 0; i++) {
            relay(&client, &server, &in, (mode & 0x10) != 0);
            relay(&server, &client, &in, (mode & 0x20) != 0);
        }
        break;
    case 3: /* an established session, garbage to the server */
        converse(6);
        feed_raw(&server, &in);
        break;
    default: /* an established session, garbage to the client */
        converse(6);
        feed_raw(&client, &in);
        break;
    }
    dtls_free(&client);
    dtls_free(&server);
    dtls_arena_stats_t st;
    check(dtls_arena_stats(&st) == ZQ_OK);
    check(st.in_use == baseline); /* nothing leaked, whatever the input did */
    return 0;
}
