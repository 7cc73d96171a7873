/* The ESP32 port's mbedTLS arena (port/arena/arena.c, what mbedtls_arena.c installs with
 * CONFIG_MBEDTLS_CUSTOM_MEM_ALLOC) under real DTLS handshakes on the host: mbedTLS's calloc and
 * free are the arena's alone, sized as menuconfig's default (and what the host's larger records
 * add, ARENA_SIZE), and four pairs handshake at once,
 * eight handshake sides, twice what a 4-peer device holds. Nothing reaches another allocator,
 * no request is refused, and every byte comes back. This binary never calls
 * dtls_fixture_setup(), which would install mbedTLS's own arena instead. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "dtls_pair.h"
#include "mbedtls/platform.h"
#include "port/arena/arena.h"

/* Kconfig's default for CONFIG_ZQ_ESP32_MBEDTLS_ARENA. */
#define ESP32_ARENA_DEFAULT 57344
#define PAIRS 4
/* The ESP32's records are examples/esp32-sensor's sdkconfig.defaults: 1,536 in, 1,280 out. A
 * host build with larger ones (ZQ_TLS_FULL_RECORDS) gives each handshake side what its own
 * buffers add, so the rest of the budget is the device's. */
#define ESP32_RECORD_BUFFERS (1536 + 1280)
#define HOST_RECORD_EXCESS \
    (MBEDTLS_SSL_IN_CONTENT_LEN + MBEDTLS_SSL_OUT_CONTENT_LEN - ESP32_RECORD_BUFFERS)
#define ARENA_SIZE (ESP32_ARENA_DEFAULT + 2 * PAIRS * HOST_RECORD_EXCESS)
/* Simulated time the handshakes get, far beyond what a lossless network needs. */
#define HANDSHAKE_BUDGET_MS 30000

static _Alignas(ZQ_ARENA_ALIGN) uint8_t arena_buf[ARENA_SIZE];
static zq_arena_t arena;
static unsigned long foreign_frees;
static dtls_pair_t pairs[PAIRS];

static void *arena_calloc(size_t n, size_t size)
{
    return zq_arena_calloc(&arena, n, size);
}

static void arena_free(void *p)
{
    if (p != NULL && !zq_arena_owns(&arena, p)) {
        foreign_frees++;
        return;
    }
    zq_arena_free(&arena, p);
}

static bool connected_or_failed(dtls_pair_t *p)
{
    return dtls_pair_both_connected(p) || dtls_pair_any_failed(p);
}

static int setup(void **state)
{
    (void)state;
    zq_arena_init(&arena, arena_buf, sizeof arena_buf);
    (void)mbedtls_platform_set_calloc_free(arena_calloc, arena_free);
    fx.rand = test_rand(&fx.rand_state, 0x5eed);
    dtls_config_t cfg;
    dtls_config_default(&cfg);
    cfg.rand = fx.rand;
    if (dtls_identity_generate(&fx.id_a, &fx.rand) != ZQ_OK ||
        dtls_identity_generate(&fx.id_b, &fx.rand) != ZQ_OK ||
        dtls_context_init(&fx.ctx_a, &cfg, &fx.id_a) != ZQ_OK ||
        dtls_context_init(&fx.ctx_b, &cfg, &fx.id_b) != ZQ_OK) {
        return -1;
    }
    return 0;
}

/* Steps every pair a millisecond at a time, so their handshakes overlap. */
static void run_all(void)
{
    for (uint64_t t = 1; t <= HANDSHAKE_BUDGET_MS; t++) {
        bool all_done = true;
        for (size_t i = 0; i < PAIRS; i++) {
            if (!connected_or_failed(&pairs[i])) {
                (void)dtls_pair_run(&pairs[i], t, connected_or_failed);
                all_done = false;
            }
        }
        if (all_done) {
            return;
        }
    }
}

static void the_default_arena_holds_eight_handshakes_at_once_and_gets_every_byte_back(void **state)
{
    (void)state;
    size_t baseline = arena.stats.in_use; /* two identities, two contexts */
    for (size_t i = 0; i < PAIRS; i++) {
        dtls_pair_init(&pairs[i], 1 + i, (simnet_impairment_t){0});
        dtls_pair_start(&pairs[i], &fx.ctx_a, &fx.ctx_b, &fx.id_b.fingerprint,
                        &fx.id_a.fingerprint);
    }
    run_all();
    for (size_t i = 0; i < PAIRS; i++) {
        assert_true(dtls_pair_both_connected(&pairs[i]));
    }
    print_message("arena: baseline %zu, peak %zu of %zu, established %zu in %zu blocks\n",
                  baseline, arena.stats.peak, arena.stats.capacity, arena.stats.in_use,
                  arena.stats.blocks);
    assert_int_equal(arena.stats.failures, 0);
    assert_true(arena.stats.peak <= arena.stats.capacity);
    for (size_t i = 0; i < PAIRS; i++) {
        dtls_pair_free(&pairs[i]);
    }
    assert_int_equal(arena.stats.in_use, baseline);
    assert_int_equal(foreign_frees, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(
            the_default_arena_holds_eight_handshakes_at_once_and_gets_every_byte_back),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
