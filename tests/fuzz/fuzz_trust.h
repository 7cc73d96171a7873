/* What the targets of TLS-facing glue share (fuzz_tls, fuzz_node_relay_stream): mbedTLS on a
 * static arena whose bytes in use they check, and a trust store that no chain verifies
 * against. Header only, as fuzz_support.h: each target is one binary. */
#ifndef ZQ_FUZZ_TRUST_H
#define ZQ_FUZZ_TRUST_H

#include <stddef.h>
#include <stdint.h>

#include "stack/dtls/dtls.h"
#include "stack/tls/tls_client.h"
#include "fuzz_support.h"

/* A bundle whose one block is no certificate: a session can start, and no chain verifies. */
static const char fuzz_no_anchor[] =
    "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";

static inline size_t fuzz_arena_in_use(void)
{
    dtls_arena_stats_t st;
    check(dtls_arena_stats(&st) == ZQ_OK);
    return st.in_use;
}

/* mbedTLS's arena on @p arena, and @p trust over fuzz_no_anchor with @p rand (borrowed: it
 * must outlive @p trust). */
static inline void fuzz_trust_init(uint8_t *arena, size_t size, tls_client_config_t *trust,
                                   const zq_rand_t *rand)
{
    dtls_arena_init(arena, size);
    check(tls_client_config_init(trust, rand, fuzz_no_anchor, sizeof fuzz_no_anchor - 1, NULL) ==
          ZQ_OK);
}

#endif
