/* zq's TLS server (stack/tls/tls_server.h) against zq's own client (tls_client.h), both
 * sans-IO and in memory: the identity's checks at start, a handshake whose records cross by
 * hand, what each side may write (tls_session_write_room), and every byte of the arena back
 * after the close, and a trust store that attaches itself (ESP-IDF's bundle's way). Browsers, curl and OpenSSL meet the server in tests/interop/wss/ and
 * tests/web/tls.sh; fuzz_tls feeds it junk. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "stack/dtls/dtls.h"
#include "stack/tls/tls_client.h"
#include "stack/tls/tls_server.h"

/* A self-signed P-256 certificate for localhost (OpenSSL 3.0, valid for a century), its key,
 * and a key of another. */
static const char leaf_pem[] =
    "-----BEGIN CERTIFICATE-----\n"
    "MIIBljCCATugAwIBAgIUYnFv21zWAvyCGu0mQJRD6Kr13xcwCgYIKoZIzj0EAwIw\n"
    "FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTIwNDIyNDQ1NVoYDzIxMjYxMTEw\n"
    "MjI0NDU1WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO\n"
    "PQMBBwNCAATZsjKWlrS0CckQXuVtXbfL+KbzVnfMuMb9iUaPvLA/rvbvMxaLf59a\n"
    "7b2a2FdwqA20lCOC41jPJJlIt0tBdMc+o2kwZzAdBgNVHQ4EFgQUwbEt2RA65j82\n"
    "COWVkXA+E4tM5vAwHwYDVR0jBBgwFoAUwbEt2RA65j82COWVkXA+E4tM5vAwDwYD\n"
    "VR0TAQH/BAUwAwEB/zAUBgNVHREEDTALgglsb2NhbGhvc3QwCgYIKoZIzj0EAwID\n"
    "SQAwRgIhANpJQ4ZqUwEhe74gINvIBdzQl4FNKFO/gxOtowafVhqcAiEAqSKKVk0M\n"
    "ikox6uqmAJzfVHMoc5zrz8ChppO6a2Ugpp0=\n"
    "-----END CERTIFICATE-----\n";
static const char leaf_key[] =
    "-----BEGIN PRIVATE KEY-----\n"
    "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgGcp0arNY4q3SADbs\n"
    "RvCTSxi6nt85P7qFcUiMiHfidGyhRANCAATZsjKWlrS0CckQXuVtXbfL+KbzVnfM\n"
    "uMb9iUaPvLA/rvbvMxaLf59a7b2a2FdwqA20lCOC41jPJJlIt0tBdMc+\n"
    "-----END PRIVATE KEY-----\n";
static const char other_key[] =
    "-----BEGIN PRIVATE KEY-----\n"
    "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgP/6lUHBpSdQIRhGa\n"
    "WUcqMV9e+2/uj5AYcCfvectI01mhRANCAARfzrKilctKv+ERvFCj8DnNN0KKJvn4\n"
    "lCgv7e5tJosU/neUS2Hyhnlisj9lB0MxUWmrrbpvGd4XMeG45pu+WWA4\n"
    "-----END PRIVATE KEY-----\n";

static uint8_t arena[512 * 1024];
static uint32_t counter;
static zq_rand_t rand_src;
static tls_server_config_t server;
static tls_client_config_t client;
static tls_session_t s, c;

static int counter_fill(void *ctx, unsigned char *out, size_t len)
{
    uint32_t *x = ctx;
    for (size_t i = 0; i < len; i++) {
        *x = *x * 1103515245u + 12345u;
        out[i] = (unsigned char)(*x >> 16);
    }
    return 0;
}

static size_t arena_in_use(void)
{
    dtls_arena_stats_t st;
    assert_int_equal(dtls_arena_stats(&st), ZQ_OK);
    return st.in_use;
}

static int setup(void **state)
{
    (void)state;
    static bool ready;
    if (!ready) {
        dtls_arena_init(arena, sizeof arena);
        rand_src = (zq_rand_t){counter_fill, &counter};
        ready = true;
    }
    return 0;
}

/* Moves what one side wrote to the other, both ways, until neither has anything to say. */
static void cross(void)
{
    const uint8_t *out;
    size_t len;
    for (int round = 0; round < 64; round++) {
        bool moved = false;
        tls_session_t *from[2] = {&c, &s};
        tls_session_t *to[2] = {&s, &c};
        for (int k = 0; k < 2; k++) {
            (void)tls_session_handshake(from[k], NULL);
            if (tls_session_output(from[k], &out, &len)) {
                size_t took = tls_session_feed(to[k], out, len);
                tls_session_output_consumed(from[k], took);
                moved = moved || took > 0;
            }
        }
        if (!moved) {
            return;
        }
    }
}

static void a_key_that_is_not_the_certificates_is_refused_at_start(void **state)
{
    (void)state;
    size_t before = arena_in_use();
    assert_int_equal(tls_server_config_init(&server, &rand_src, leaf_pem, sizeof leaf_pem - 1,
                                            other_key, sizeof other_key - 1),
                     ZQ_ERR_INVALID_ARG);
    assert_non_null(strstr(server.why, "the key is not the first certificate's"));
    assert_int_equal(arena_in_use(), before);
}

static void a_chain_over_one_record_is_refused_at_start_with_its_size(void **state)
{
    (void)state;
    static char chain[sizeof leaf_pem * 12];
    size_t len = 0;
    for (int i = 0; i < 11; i++) { /* 11 x 413 bytes: over any build's output record */
        memcpy(chain + len, leaf_pem, sizeof leaf_pem - 1);
        len += sizeof leaf_pem - 1;
    }
    chain[len] = '\0';
    size_t before = arena_in_use();
    assert_int_equal(tls_server_config_init(&server, &rand_src, chain, len, leaf_key,
                                            sizeof leaf_key - 1),
                     ZQ_ERR_INVALID_ARG);
    assert_non_null(strstr(server.why, "Certificate message"));
    assert_int_equal(arena_in_use(), before);
}

static void text_without_its_final_nul_is_refused(void **state)
{
    (void)state;
    static char copy[sizeof leaf_pem];
    memcpy(copy, leaf_pem, sizeof leaf_pem);
    copy[sizeof leaf_pem - 1] = '-'; /* the byte after the text is no NUL */
    assert_int_equal(tls_server_config_init(&server, &rand_src, copy, sizeof copy - 1, leaf_key,
                                            sizeof leaf_key - 1),
                     ZQ_ERR_INVALID_ARG);
}

static void zqs_client_and_server_handshake_and_carry_bytes_both_ways(void **state)
{
    (void)state;
    size_t before = arena_in_use();
    assert_int_equal(tls_server_config_init(&server, &rand_src, leaf_pem, sizeof leaf_pem - 1,
                                            leaf_key, sizeof leaf_key - 1),
                     ZQ_OK);
    assert_int_equal(tls_client_config_init(&client, &rand_src, leaf_pem, sizeof leaf_pem - 1,
                                            NULL),
                     ZQ_OK);
    assert_int_equal(tls_server_start(&s, &server), ZQ_OK);
    assert_int_equal(tls_client_start(&c, &client, "localhost"), ZQ_OK);
    cross();
    assert_int_equal(tls_session_handshake(&c, NULL), ZQ_OK);
    assert_int_equal(tls_session_handshake(&s, NULL), ZQ_OK);

    /* The client asked for 1 KiB records (RFC 6066 §4) and the server agreed: neither side
     * writes more in one go, and a write takes no more than write_room says. */
    static uint8_t big[3000];
    for (size_t i = 0; i < sizeof big; i++) {
        big[i] = (uint8_t)(i * 7);
    }
    assert_true(tls_session_write_room(&s) <= 1024);
    size_t taken = 0;
    assert_int_equal(tls_session_write(&s, big, sizeof big, &taken), ZQ_OK);
    assert_true(taken > 0 && taken <= 1024);
    cross();
    uint8_t got[4096];
    size_t n = 0;
    assert_int_equal(tls_session_read(&c, got, sizeof got, &n), ZQ_OK);
    assert_int_equal(n, taken);
    assert_memory_equal(got, big, n);

    static const char hello[] = "GET / HTTP/1.1\r\n\r\n";
    assert_int_equal(tls_session_write(&c, (const uint8_t *)hello, sizeof hello - 1, &taken),
                     ZQ_OK);
    cross();
    assert_int_equal(tls_session_read(&s, got, sizeof got, &n), ZQ_OK);
    assert_int_equal(n, sizeof hello - 1);
    assert_memory_equal(got, hello, n);

    /* close_notify ends the peer's reads (RFC 5246 §7.2.1). */
    tls_session_close_notify(&c);
    cross();
    assert_int_equal(tls_session_read(&s, got, sizeof got, &n), ZQ_ERR_CLOSED);
    tls_session_free(&s);
    tls_session_free(&c);
    tls_client_config_free(&client);
    tls_server_config_free(&server);
    assert_int_equal(arena_in_use(), before);
}

/* ---- An attached trust store (tls_client_config_init_attached: ESP-IDF's certificate bundle
 * on the ESP32): its CA source and verification callback set on the configuration, as
 * esp_crt_bundle_attach() sets them; the session's own checks run after it. */

static mbedtls_x509_crt attached_ca;
static unsigned attached_calls;
static bool attached_refuses;

static int attached_verify(void *ctx, mbedtls_x509_crt *crt, int depth, uint32_t *flags)
{
    (void)ctx;
    (void)crt;
    (void)depth;
    attached_calls++;
    if (attached_refuses) {
        *flags |= MBEDTLS_X509_BADCERT_NOT_TRUSTED;
    }
    return 0;
}

static int attach(void *conf)
{
    mbedtls_ssl_conf_ca_chain(conf, &attached_ca, NULL);
    mbedtls_ssl_conf_verify(conf, attached_verify, NULL);
    return 0;
}

/* A handshake against the leaf's server with an attached store (and @p pin); its result. */
static zq_err_t attached_handshake(const uint8_t *pin, const char **why)
{
    attached_calls = 0;
    assert_int_equal(tls_server_config_init(&server, &rand_src, leaf_pem, sizeof leaf_pem - 1,
                                            leaf_key, sizeof leaf_key - 1),
                     ZQ_OK);
    assert_int_equal(tls_client_config_init_attached(&client, &rand_src, attach, pin), ZQ_OK);
    assert_int_equal(tls_server_start(&s, &server), ZQ_OK);
    assert_int_equal(tls_client_start(&c, &client, "localhost"), ZQ_OK);
    cross(); /* a refusal fails the client's session there: its state and reason say how */
    static char reason[sizeof c.why];
    (void)snprintf(reason, sizeof reason, "%s", c.why);
    *why = reason;
    zq_err_t err = c.state == TLS_OPEN                       ? ZQ_OK
                   : c.verify_flags != 0 || c.pin_failed ? ZQ_ERR_INTEGRITY
                                                           : ZQ_ERR_CRYPTO;
    tls_session_free(&s);
    tls_session_free(&c);
    tls_client_config_free(&client);
    tls_server_config_free(&server);
    return err;
}

static void an_attached_trust_store_checks_the_chain_first_and_the_pin_still_holds(void **state)
{
    (void)state;
    size_t before = arena_in_use();
    mbedtls_x509_crt_init(&attached_ca);
    assert_int_equal(mbedtls_x509_crt_parse(&attached_ca, (const unsigned char *)leaf_pem,
                                            sizeof leaf_pem),
                     0);
    const char *why = NULL;
    attached_refuses = false;
    assert_int_equal(attached_handshake(NULL, &why), ZQ_OK);
    assert_true(attached_calls > 0); /* the store's own callback ran */
    attached_refuses = true;
    assert_int_equal(attached_handshake(NULL, &why), ZQ_ERR_INTEGRITY);
    assert_non_null(strstr(why, "no CA of the bundle vouches for it"));
    attached_refuses = false;
    static const uint8_t wrong_pin[TLS_PIN_LEN] = {1};
    assert_int_equal(attached_handshake(wrong_pin, &why), ZQ_ERR_INTEGRITY);
    assert_non_null(strstr(why, "its key is not the pinned one"));
    assert_true(attached_calls > 0);
    mbedtls_x509_crt_free(&attached_ca);
    assert_int_equal(arena_in_use(), before);
}

/* ---- A client certificate (tls_client_config_identity): shown to a server that asks
 * (RFC 5246 §7.4.4, §7.4.6), as nats-server's verify and mosquitto's require_certificate do.
 * zq's own server asks for none, so the test makes its configuration ask, trusting the leaf. */

static tls_identity_t client_identity;

/* A handshake with a server that requires a client certificate, the client showing the leaf
 * when @p show; the client's session state after it, and its reason in @p why. */
static tls_state_t handshake_asking_for_a_certificate(bool show, char *why, size_t cap)
{
    assert_int_equal(tls_server_config_init(&server, &rand_src, leaf_pem, sizeof leaf_pem - 1,
                                            leaf_key, sizeof leaf_key - 1),
                     ZQ_OK);
    mbedtls_ssl_conf_authmode(&server.conf, MBEDTLS_SSL_VERIFY_REQUIRED);
    mbedtls_ssl_conf_ca_chain(&server.conf, &server.identity.chain, NULL);
    assert_int_equal(tls_client_config_init(&client, &rand_src, leaf_pem, sizeof leaf_pem - 1,
                                            NULL),
                     ZQ_OK);
    if (show) {
        assert_int_equal(tls_identity_load(&client_identity, &rand_src, leaf_pem,
                                           sizeof leaf_pem - 1, leaf_key, sizeof leaf_key - 1),
                         ZQ_OK);
        assert_int_equal(tls_client_config_identity(&client, &client_identity), ZQ_OK);
    }
    assert_int_equal(tls_server_start(&s, &server), ZQ_OK);
    assert_int_equal(tls_client_start(&c, &client, "localhost"), ZQ_OK);
    cross();
    (void)tls_session_handshake(&c, NULL); /* the server's last word, if any */
    (void)tls_session_handshake(&s, NULL);
    if (!show) {
        /* mbedTLS's server fails without a word; nats-server's (Go) says bad_certificate */
        assert_int_equal(s.error, MBEDTLS_ERR_SSL_NO_CLIENT_CERTIFICATE);
        assert_int_equal(mbedtls_ssl_send_alert_message(&s.ssl, MBEDTLS_SSL_ALERT_LEVEL_FATAL,
                                                        MBEDTLS_SSL_ALERT_MSG_BAD_CERT),
                         0);
        cross();
        (void)tls_session_handshake(&c, NULL);
    }
    tls_state_t state = c.state;
    if (state == TLS_OPEN) {
        /* the server required one: it is open only with a certificate that passed */
        assert_int_equal(s.state, TLS_OPEN);
        assert_int_equal(mbedtls_ssl_get_verify_result(&s.ssl), 0);
    }
    (void)snprintf(why, cap, "%s", c.why);
    tls_session_free(&s);
    tls_session_free(&c);
    tls_client_config_free(&client);
    tls_server_config_free(&server);
    tls_identity_free(&client_identity);
    return state;
}

static void a_client_shows_its_certificate_when_asked_and_names_the_alert_without_one(void **state)
{
    (void)state;
    size_t before = arena_in_use();
    char why[sizeof c.why];
    assert_int_equal(handshake_asking_for_a_certificate(true, why, sizeof why), TLS_OPEN);
    /* Without one the server refuses the handshake, and the client names the alert. */
    assert_int_equal(handshake_asking_for_a_certificate(false, why, sizeof why), TLS_FAILED);
    assert_non_null(strstr(why, "the peer ended the handshake with alert 42 (bad_certificate)"));
    assert_int_equal(arena_in_use(), before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(a_key_that_is_not_the_certificates_is_refused_at_start, setup),
        cmocka_unit_test_setup(a_chain_over_one_record_is_refused_at_start_with_its_size, setup),
        cmocka_unit_test_setup(text_without_its_final_nul_is_refused, setup),
        cmocka_unit_test_setup(zqs_client_and_server_handshake_and_carry_bytes_both_ways, setup),
        cmocka_unit_test_setup(
            an_attached_trust_store_checks_the_chain_first_and_the_pin_still_holds, setup),
        cmocka_unit_test_setup(a_client_shows_its_certificate_when_asked_and_names_the_alert_without_one, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
