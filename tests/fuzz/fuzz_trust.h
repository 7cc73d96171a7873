/* What the targets of TLS-facing glue share (fuzz_tls, fuzz_node_relay_stream): mbedTLS on a
 * static arena whose bytes in use they check, a trust store that no chain verifies against,
 * and a server identity. Header only, as fuzz_support.h: each target is one binary. */
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

/* A server identity for the server-side sessions: a self-signed P-256 certificate (made with
 * OpenSSL 3.0 for this file, valid for a century) and its key. */
static const char fuzz_server_cert[] =
    "-----BEGIN CERTIFICATE-----\n"
    "MIIBfzCCASWgAwIBAgIUYS+nYHWD8ryGf/fg02mB7/HW39owCgYIKoZIzj0EAwIw\n"
    "FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTIwNDIyMTUxNFoYDzIxMjYxMTEw\n"
    "MjIxNTE0WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO\n"
    "PQMBBwNCAASrivQB2Vhr6Dwv6jrY3TpIzE+sFN3fTrShdg/CQ632sx3bTPam6rhQ\n"
    "XfvyMmUSE0+eGNpoxK3eRIRSeGVCBDJlo1MwUTAdBgNVHQ4EFgQUxixskQaJwiuy\n"
    "hjaRW/8CRBoYtbMwHwYDVR0jBBgwFoAUxixskQaJwiuyhjaRW/8CRBoYtbMwDwYD\n"
    "VR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNIADBFAiB7VgrzToDWZGXhu15IHYJI\n"
    "Yk+Xw3Xhi1XzAXszXiOHiAIhAIAjaQ3gBP/HuABleiETHxjy6FS5GADSq1AQMKXm\n"
    "kVuB\n"
    "-----END CERTIFICATE-----\n";
static const char fuzz_server_key[] =
    "-----BEGIN PRIVATE KEY-----\n"
    "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgE2IoEJr6chKvDdtD\n"
    "K+BHKblg1pzPRNP0AcJ1lcXgnVChRANCAASrivQB2Vhr6Dwv6jrY3TpIzE+sFN3f\n"
    "TrShdg/CQ632sx3bTPam6rhQXfvyMmUSE0+eGNpoxK3eRIRSeGVCBDJl\n"
    "-----END PRIVATE KEY-----\n";

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
