/* Base64 (RFC 4648): the §10 test vectors both ways, and the strict decoder's refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "zq/base64.h"

static const char *const plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
static const char *const encoded[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=",
                                      "Zm9vYmFy"};

static void rfc4648_vectors_encode(void **state)
{
    (void)state;
    for (size_t i = 0; i < 7; i++) {
        char out[16];
        size_t len;
        assert_int_equal(zq_base64_encode((const uint8_t *)plain[i], strlen(plain[i]), out,
                                          sizeof out, &len),
                         ZQ_OK);
        assert_int_equal(len, ZQ_BASE64_ENCODED_LEN(strlen(plain[i])));
        assert_string_equal(out, encoded[i]);
    }
}

static void rfc4648_vectors_decode(void **state)
{
    (void)state;
    for (size_t i = 0; i < 7; i++) {
        uint8_t out[8];
        size_t len;
        assert_int_equal(zq_base64_decode(encoded[i], strlen(encoded[i]), out, sizeof out, &len),
                         ZQ_OK);
        assert_int_equal(len, strlen(plain[i]));
        assert_memory_equal(out, plain[i], len);
    }
}

static void every_byte_value_round_trips(void **state)
{
    (void)state;
    uint8_t bytes[256], back[256];
    char text[ZQ_BASE64_ENCODED_LEN(256) + 1];
    for (size_t i = 0; i < 256; i++) {
        bytes[i] = (uint8_t)(255 - i);
    }
    for (size_t n = 0; n <= 256; n += 17) {
        size_t tlen, blen;
        assert_int_equal(zq_base64_encode(bytes, n, text, sizeof text, &tlen), ZQ_OK);
        assert_int_equal(zq_base64_decode(text, tlen, back, sizeof back, &blen), ZQ_OK);
        assert_int_equal(blen, n);
        assert_memory_equal(back, bytes, n);
    }
}

static void decoder_refuses_non_canonical_input(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "Zg=",      /* length not a multiple of 4 */
        "Zg",       /* padding missing (§3.2) */
        "Zh==",     /* nonzero unused bits (§3.5) */
        "Zm9=",     /* nonzero unused bits */
        "Z===",     /* too much padding */
        "====",
        "Zg==Zg==", /* padding in the middle */
        "Zm 9v",    /* whitespace (§3.3) */
        "Zm9v\n",
        "Zm-_",     /* the URL alphabet (§5) is a different encoding */
        "=Zm9",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint8_t out[16];
        size_t len;
        assert_int_equal(zq_base64_decode(bad[i], strlen(bad[i]), out, sizeof out, &len),
                         ZQ_ERR_MALFORMED);
    }
}

static void both_directions_report_no_space(void **state)
{
    (void)state;
    char text[9];
    memset(text, 0xA5, sizeof text);
    assert_int_equal(zq_base64_encode((const uint8_t *)"foobar", 6, text, 8, NULL),
                     ZQ_ERR_NO_SPACE); /* 8 characters need 9 with the NUL */
    assert_int_equal((uint8_t)text[0], 0xA5);
    assert_int_equal(zq_base64_encode((const uint8_t *)"foobar", 6, text, 9, NULL), ZQ_OK);
    uint8_t out[6];
    size_t len;
    assert_int_equal(zq_base64_decode("Zm9vYmFy", 8, out, 5, &len), ZQ_ERR_NO_SPACE);
    assert_int_equal(zq_base64_decode("Zm9vYmFy", 8, out, 6, &len), ZQ_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rfc4648_vectors_encode),
        cmocka_unit_test(rfc4648_vectors_decode),
        cmocka_unit_test(every_byte_value_round_trips),
        cmocka_unit_test(decoder_refuses_non_canonical_input),
        cmocka_unit_test(both_directions_report_no_space),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
