/* The node's DTLS identity and fingerprints: generation, export/import, SDP text forms, and the
 * arena running out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dtls_pair.h"
#include "mbedtls/platform.h"
#include "psa/crypto.h"
#include "zq/crypto.h"

static void identity_is_a_self_signed_p256_certificate_with_its_fingerprint(void **state)
{
    (void)state;
    const dtls_identity_t *id = &fx.id_a;
    psa_key_attributes_t attr = psa_key_attributes_init();
    assert_int_equal(mbedtls_pk_get_psa_attributes(&id->key, PSA_KEY_USAGE_SIGN_HASH, &attr), 0);
    assert_int_equal(psa_get_key_type(&attr), PSA_KEY_TYPE_ECC_KEY_PAIR(PSA_ECC_FAMILY_SECP_R1));
    assert_int_equal(psa_get_key_bits(&attr), 256);
    assert_int_equal(id->cert.MBEDTLS_PRIVATE(sig_md), MBEDTLS_MD_SHA256);
    assert_int_equal(id->cert.issuer_raw.len, id->cert.subject_raw.len); /* self-signed */
    assert_memory_equal(id->cert.issuer_raw.p, id->cert.subject_raw.p, id->cert.subject_raw.len);
    uint8_t digest[32];
    zq_sha256(id->cert.raw.p, id->cert.raw.len, digest);
    assert_memory_equal(digest, id->fingerprint.bytes, 32);
    assert_memory_not_equal(fx.id_a.fingerprint.bytes, fx.id_b.fingerprint.bytes, 32);
}

static void exported_identity_imports_with_the_same_fingerprint(void **state)
{
    (void)state;
    uint8_t key[256];
    uint8_t cert[600];
    size_t key_len;
    size_t cert_len;
    assert_int_equal(dtls_identity_export(&fx.id_a, key, sizeof key, &key_len, cert, sizeof cert,
                                          &cert_len),
                     ZQ_OK);
    dtls_identity_t copy;
    assert_int_equal(dtls_identity_import(&copy, key, key_len, cert, cert_len, &fx.rand), ZQ_OK);
    assert_memory_equal(copy.fingerprint.bytes, fx.id_a.fingerprint.bytes, 32);
    dtls_identity_free(&copy);
}

static void import_refuses_a_key_that_is_not_the_certificates(void **state)
{
    (void)state;
    uint8_t key_b[256];
    uint8_t cert_a[600];
    uint8_t unused[600];
    size_t key_len;
    size_t cert_len;
    size_t unused_len;
    assert_int_equal(dtls_identity_export(&fx.id_b, key_b, sizeof key_b, &key_len, unused,
                                          sizeof unused, &unused_len),
                     ZQ_OK);
    assert_int_equal(dtls_identity_export(&fx.id_a, unused, sizeof unused, &unused_len, cert_a,
                                          sizeof cert_a, &cert_len),
                     ZQ_OK);
    dtls_identity_t mixed;
    assert_int_equal(dtls_identity_import(&mixed, key_b, key_len, cert_a, cert_len, &fx.rand),
                     ZQ_ERR_MALFORMED);
    uint8_t garbage[100];
    memset(garbage, 0x30, sizeof garbage);
    assert_int_equal(dtls_identity_import(&mixed, garbage, sizeof garbage, cert_a, cert_len,
                                          &fx.rand),
                     ZQ_ERR_MALFORMED);
}

static void export_into_too_small_buffers_is_refused(void **state)
{
    (void)state;
    uint8_t key[16];
    uint8_t cert[600];
    size_t key_len;
    size_t cert_len;
    assert_int_equal(dtls_identity_export(&fx.id_a, key, sizeof key, &key_len, cert, sizeof cert,
                                          &cert_len),
                     ZQ_ERR_NO_SPACE);
    uint8_t big_key[256];
    assert_int_equal(dtls_identity_export(&fx.id_a, big_key, sizeof big_key, &key_len, cert, 10,
                                          &cert_len),
                     ZQ_ERR_NO_SPACE);
}

static void fingerprint_text_is_sdp_form_and_parses_back(void **state)
{
    (void)state;
    char text[DTLS_FINGERPRINT_TEXT_MAX];
    size_t n = dtls_fingerprint_format(&fx.id_a.fingerprint, text, sizeof text);
    assert_int_equal(n, 8 + 32 * 3 - 1);
    assert_memory_equal(text, "sha-256 ", 8);
    assert_int_equal(text[10], ':');
    dtls_fingerprint_t back;
    assert_int_equal(dtls_fingerprint_parse(text, n, &back), ZQ_OK);
    assert_memory_equal(back.bytes, fx.id_a.fingerprint.bytes, 32);
    assert_int_equal(dtls_fingerprint_format(&fx.id_a.fingerprint, text, n), 0);
}

static void fingerprint_parse_accepts_either_case_and_line_endings(void **state)
{
    (void)state;
    const char *text = "SHA-256 4a:ad:b9:b1:3f:82:18:3b:54:02:12:df:3e:5d:49:6b:19:e5:7c:ab:"
                       "4a:ad:b9:b1:3f:82:18:3b:54:02:12:df\r\n";
    dtls_fingerprint_t fp;
    assert_int_equal(dtls_fingerprint_parse(text, strlen(text), &fp), ZQ_OK);
    assert_int_equal(fp.bytes[0], 0x4a);
    assert_int_equal(fp.bytes[31], 0xdf);
}

static void fingerprint_of_another_hash_is_unsupported(void **state)
{
    (void)state;
    const char *sha1 = "sha-1 4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C:AB";
    dtls_fingerprint_t fp;
    assert_int_equal(dtls_fingerprint_parse(sha1, strlen(sha1), &fp), ZQ_ERR_UNSUPPORTED);
}

static void malformed_fingerprints_are_rejected(void **state)
{
    (void)state;
    static const char *bad[] = {
        "",
        "sha-256",
        "sha256 4A:AD",
        "sha-256 4A:AD:B9", /* too short */
        "sha-256 4A-AD-B9-B1-3F-82-18-3B-54-02-12-DF-3E-5D-49-6B-19-E5-7C-AB-4A-AD-B9-B1-3F-82-"
        "18-3B-54-02-12-DF",
        "sha-256 4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C:AB:4A:AD:B9:B1:3F:82:"
        "18:3B:54:02:12:DF:00", /* one byte too many */
        "sha-256 4G:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C:AB:4A:AD:B9:B1:3F:82:"
        "18:3B:54:02:12:DF",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        dtls_fingerprint_t fp;
        assert_int_equal(dtls_fingerprint_parse(bad[i], strlen(bad[i]), &fp), ZQ_ERR_MALFORMED);
    }
}

static void connection_start_fails_cleanly_when_the_arena_is_exhausted(void **state)
{
    (void)state;
    static void *hog[4096];
    size_t n = 0;
    dtls_arena_stats_t before;
    assert_int_equal(dtls_arena_stats(&before), ZQ_OK);
    while (n < sizeof hog / sizeof hog[0] && (hog[n] = mbedtls_calloc(1, 256)) != NULL) {
        n++;
    }
    static dtls_t conn;
    assert_int_equal(dtls_start(&conn, &fx.ctx_a, DTLS_ROLE_CLIENT, &fx.id_b.fingerprint, NULL,
                                0, 0),
                     ZQ_ERR_CAPACITY);
    while (n > 0) {
        mbedtls_free(hog[--n]);
    }
    dtls_arena_stats_t after;
    assert_int_equal(dtls_arena_stats(&after), ZQ_OK);
    assert_int_equal(after.in_use, before.in_use);
    /* And with room again, the same call succeeds. */
    assert_int_equal(dtls_start(&conn, &fx.ctx_a, DTLS_ROLE_CLIENT, &fx.id_b.fingerprint, NULL,
                                0, 0),
                     ZQ_OK);
    dtls_free(&conn);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(identity_is_a_self_signed_p256_certificate_with_its_fingerprint),
        cmocka_unit_test(exported_identity_imports_with_the_same_fingerprint),
        cmocka_unit_test(import_refuses_a_key_that_is_not_the_certificates),
        cmocka_unit_test(export_into_too_small_buffers_is_refused),
        cmocka_unit_test(fingerprint_text_is_sdp_form_and_parses_back),
        cmocka_unit_test(fingerprint_parse_accepts_either_case_and_line_endings),
        cmocka_unit_test(fingerprint_of_another_hash_is_unsupported),
        cmocka_unit_test(malformed_fingerprints_are_rejected),
        cmocka_unit_test(connection_start_fails_cleanly_when_the_arena_is_exhausted),
    };
    return cmocka_run_group_tests(tests, dtls_fixture_group_setup, dtls_fixture_group_teardown);
}
