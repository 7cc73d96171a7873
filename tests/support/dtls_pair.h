/* Two DTLS connections over a simulated network with a manual clock, and the identities and
 * contexts the tests share. */
#ifndef ZQ_DTLS_PAIR_H
#define ZQ_DTLS_PAIR_H

#include <stdbool.h>
#include <stdint.h>

#include "simnet.h"
#include "stack/dtls/dtls.h"
#include "test_rand.h"

/* ---- Fixture: one arena, two identities, two contexts (node A and node B) ---------------- */

typedef struct {
    test_rand_t rand_state;
    zq_rand_t rand;
    dtls_identity_t id_a, id_b;
    dtls_context_t ctx_a, ctx_b;
} dtls_fixture_t;

extern dtls_fixture_t fx;

/** Initialises the arena (once per process) and the fixture; @p cfg_b may differ from A's. */
void dtls_fixture_setup(const dtls_config_t *cfg_a, const dtls_config_t *cfg_b);
void dtls_fixture_teardown(void);
/** As a cmocka group setup and teardown: the fixture with default configurations both sides. */
int dtls_fixture_group_setup(void **state);
int dtls_fixture_group_teardown(void **state);

/* ---- A pair of connections ---------------------------------------------------------------- */

typedef struct {
    dtls_t conn;
    zq_addr_t addr;
    bool mute;   /* drop what it sends */
    bool not_polling; /* the application does not call dtls_poll_event() */
    bool deaf;   /* drop what is sent to it */
    bool connected;
    bool closed;
    bool failed;
    dtls_failure_t failure;
    unsigned long messages; /* application records received */
    unsigned long bytes;
    uint32_t crc;           /* CRC-32 over everything received, in order */
    /* Optional: sees every datagram this end sends before the network does; returns false to
     * drop it (the tap may also rewrite it in place, within @p cap). */
    bool (*tap)(void *ctx, uint8_t *data, size_t *len, size_t cap);
    void *tap_ctx;
} dtls_end_t;

typedef struct {
    simnet_t net;
    uint64_t now;
    dtls_end_t end[2]; /* [0] client, [1] server */
} dtls_pair_t;

void dtls_pair_init(dtls_pair_t *p, uint64_t seed, simnet_impairment_t impair);

/** Starts end[0] as client (of @p client_ctx) and end[1] as server (of @p server_ctx); each
 *  expects the other's fingerprint unless given another one. */
void dtls_pair_start(dtls_pair_t *p, const dtls_context_t *client_ctx,
                     const dtls_context_t *server_ctx, const dtls_fingerprint_t *server_fp,
                     const dtls_fingerprint_t *client_fp);

/** Runs until @p done or the clock passes @p until. */
bool dtls_pair_run(dtls_pair_t *p, uint64_t until, bool (*done)(dtls_pair_t *p));

bool dtls_pair_both_connected(dtls_pair_t *p);
bool dtls_pair_any_failed(dtls_pair_t *p);

/** Writes one record from end @p side and hands its datagram to the network. */
zq_err_t dtls_pair_send(dtls_pair_t *p, int side, const uint8_t *data, size_t len);

/** Both connections' memory back to the arena. */
void dtls_pair_free(dtls_pair_t *p);

#endif
