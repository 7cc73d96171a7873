/* libFuzzer target for the TLS-facing glue of wss:// (stack/tls): the CA bundle scanner that
 * finds trust anchors in PEM text, and the sans-IO client fed arbitrary bytes as a server's.
 *
 * Byte 0 even: the rest is split into an issuer name (its first byte gives the length) and a
 * bundle; the anchor search must walk the bundle to its end and return only certificates
 * whose subject is that issuer, and leave the arena as it found it once they are freed.
 * Byte 0 odd, bit 1 clear: a session to "localhost" sends its ClientHello, then the rest
 * arrives as the server's bytes in pieces (byte 1 gives their size); the handshake must never
 * succeed (no input can forge a chain to the bundle's root) and the session, freed, must give
 * back every byte of the arena.
 * Byte 0 odd, bit 1 set: the rest arrives as a client's bytes at a server session (stack/tls's
 * tls_server.c, what `zq signal --tls-cert` runs), in pieces likewise; whatever it answers,
 * the session, freed, gives back every byte. The handshake cannot finish (no input knows the
 * ECDHE secret to forge the client's Finished), and a session never open reads nothing. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mbedtls/platform.h"
#include "mbedtls/x509_crt.h"
#include "stack/dtls/dtls.h"
#include "stack/tls/tls_client.h"
#include "stack/tls/tls_internal.h"
#include "stack/tls/tls_server.h"
#include "fuzz_trust.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t arena[256 * 1024];
static uint32_t rand_state;
static tls_client_config_t trust;
static tls_session_t session;
static char bundle[64 * 1024];
static tls_server_config_t server;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    static zq_rand_t rand;
    rand = (zq_rand_t){fuzz_counter_rand, &rand_state};
    fuzz_trust_init(arena, sizeof arena, &trust, &rand);
    check(tls_server_config_init(&server, &rand, fuzz_server_cert, sizeof fuzz_server_cert - 1,
                                 fuzz_server_key, sizeof fuzz_server_key - 1) == ZQ_OK);
    return 0;
}

static void fuzz_anchors(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return;
    }
    size_t name_len = data[0] < size - 1 ? data[0] : size - 1;
    size_t len = size - 1 - name_len < sizeof bundle ? size - 1 - name_len : sizeof bundle;
    memcpy(bundle, data + 1 + name_len, len);
    tls_client_config_t cfg = trust;
    cfg.bundle = bundle;
    cfg.bundle_len = len;
    mbedtls_x509_crt child;
    memset(&child, 0, sizeof child);
    child.issuer_raw.p = (unsigned char *)(uintptr_t)(data + 1);
    child.issuer_raw.len = name_len;
    size_t before = fuzz_arena_in_use();
    mbedtls_x509_crt *found = NULL;
    check(tls_anchors_find(&cfg, &child, &found) == 0);
    for (mbedtls_x509_crt *c = found; c != NULL; c = c->next) {
        check(c->subject_raw.len == name_len &&
              memcmp(c->subject_raw.p, child.issuer_raw.p, name_len) == 0);
    }
    mbedtls_x509_crt_free(found);
    mbedtls_free(found);
    check(fuzz_arena_in_use() == before);
}

/* The peer's bytes into the session in pieces of data[0] + 1, the handshake advanced after each
 * and its output dropped. @return the handshake's last result. */
static zq_err_t handshake_with(const uint8_t *data, size_t size)
{
    size_t piece = size > 0 ? (size_t)data[0] + 1 : 1;
    size_t at = size > 0 ? 1 : 0;
    const char *why;
    const uint8_t *out;
    size_t n;
    zq_err_t err = ZQ_ERR_WOULD_BLOCK;
    while (at < size && err == ZQ_ERR_WOULD_BLOCK) {
        size_t take = piece < size - at ? piece : size - at;
        at += tls_session_feed(&session, data + at, take);
        err = tls_session_handshake(&session, &why);
        if (tls_session_output(&session, &out, &n)) {
            tls_session_output_consumed(&session, n);
        }
    }
    return err;
}

static void fuzz_session(const uint8_t *data, size_t size)
{
    size_t before = fuzz_arena_in_use();
    check(tls_client_start(&session, &trust, "localhost") == ZQ_OK);
    const char *why;
    check(tls_session_handshake(&session, &why) == ZQ_ERR_WOULD_BLOCK);
    const uint8_t *out;
    size_t n;
    check(tls_session_output(&session, &out, &n)); /* the ClientHello */
    tls_session_output_consumed(&session, n);
    check(handshake_with(data, size) != ZQ_OK);
    tls_session_free(&session);
    check(fuzz_arena_in_use() == before);
}

static void fuzz_server_session(const uint8_t *data, size_t size)
{
    size_t before = fuzz_arena_in_use();
    check(tls_server_start(&session, &server) == ZQ_OK);
    check(handshake_with(data, size) != ZQ_OK);
    uint8_t plain[64];
    size_t got;
    check(tls_session_read(&session, plain, sizeof plain, &got) != ZQ_OK && got == 0);
    tls_session_free(&session);
    check(fuzz_arena_in_use() == before);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    if ((data[0] & 1) == 0) {
        fuzz_anchors(data + 1, size - 1);
    } else if ((data[0] & 2) == 0) {
        fuzz_session(data + 1, size - 1);
    } else {
        fuzz_server_session(data + 1, size - 1);
    }
    return 0;
}
