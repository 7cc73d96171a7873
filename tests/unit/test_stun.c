/* STUN codec: RFC 5769's vectors byte for byte, and every structural rule of RFC 8489. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "psa/crypto.h"
#include "stack/ice/stun.h"

/* ---- RFC 5769 §2 test vectors ------------------------------------------------------------ */

static const char vector_password[] = "VOkJxbRl1RmTxUk/WvJxBt";

static const uint8_t tid_5769[STUN_TID_LEN] = {0xb7, 0xe7, 0xa7, 0x01, 0xbc, 0x34,
                                               0xd6, 0x86, 0xfa, 0x87, 0xdf, 0xae};

/* §2.1 Sample Request */
static const uint8_t sample_request[] = {
    0x00, 0x01, 0x00, 0x58, 0x21, 0x12, 0xa4, 0x42, 0xb7, 0xe7, 0xa7, 0x01, 0xbc, 0x34,
    0xd6, 0x86, 0xfa, 0x87, 0xdf, 0xae, 0x80, 0x22, 0x00, 0x10, 0x53, 0x54, 0x55, 0x4e,
    0x20, 0x74, 0x65, 0x73, 0x74, 0x20, 0x63, 0x6c, 0x69, 0x65, 0x6e, 0x74, 0x00, 0x24,
    0x00, 0x04, 0x6e, 0x00, 0x01, 0xff, 0x80, 0x29, 0x00, 0x08, 0x93, 0x2f, 0xf9, 0xb1,
    0x51, 0x26, 0x3b, 0x36, 0x00, 0x06, 0x00, 0x09, 0x65, 0x76, 0x74, 0x6a, 0x3a, 0x68,
    0x36, 0x76, 0x59, 0x20, 0x20, 0x20, 0x00, 0x08, 0x00, 0x14, 0x9a, 0xea, 0xa7, 0x0c,
    0xbf, 0xd8, 0xcb, 0x56, 0x78, 0x1e, 0xf2, 0xb5, 0xb2, 0xd3, 0xf2, 0x49, 0xc1, 0xb5,
    0x71, 0xa2, 0x80, 0x28, 0x00, 0x04, 0xe5, 0x7a, 0x3b, 0xcf};

/* §2.2 Sample IPv4 Response */
static const uint8_t sample_ipv4_response[] = {
    0x01, 0x01, 0x00, 0x3c, 0x21, 0x12, 0xa4, 0x42, 0xb7, 0xe7, 0xa7, 0x01, 0xbc, 0x34,
    0xd6, 0x86, 0xfa, 0x87, 0xdf, 0xae, 0x80, 0x22, 0x00, 0x0b, 0x74, 0x65, 0x73, 0x74,
    0x20, 0x76, 0x65, 0x63, 0x74, 0x6f, 0x72, 0x20, 0x00, 0x20, 0x00, 0x08, 0x00, 0x01,
    0xa1, 0x47, 0xe1, 0x12, 0xa6, 0x43, 0x00, 0x08, 0x00, 0x14, 0x2b, 0x91, 0xf5, 0x99,
    0xfd, 0x9e, 0x90, 0xc3, 0x8c, 0x74, 0x89, 0xf9, 0x2a, 0xf9, 0xba, 0x53, 0xf0, 0x6b,
    0xe7, 0xd7, 0x80, 0x28, 0x00, 0x04, 0xc0, 0x7d, 0x4c, 0x96};

/* §2.3 Sample IPv6 Response */
static const uint8_t sample_ipv6_response[] = {
    0x01, 0x01, 0x00, 0x48, 0x21, 0x12, 0xa4, 0x42, 0xb7, 0xe7, 0xa7, 0x01, 0xbc, 0x34,
    0xd6, 0x86, 0xfa, 0x87, 0xdf, 0xae, 0x80, 0x22, 0x00, 0x0b, 0x74, 0x65, 0x73, 0x74,
    0x20, 0x76, 0x65, 0x63, 0x74, 0x6f, 0x72, 0x20, 0x00, 0x20, 0x00, 0x14, 0x00, 0x02,
    0xa1, 0x47, 0x01, 0x13, 0xa9, 0xfa, 0xa5, 0xd3, 0xf1, 0x79, 0xbc, 0x25, 0xf4, 0xb5,
    0xbe, 0xd2, 0xb9, 0xd9, 0x00, 0x08, 0x00, 0x14, 0xa3, 0x82, 0x95, 0x4e, 0x4b, 0xe6,
    0x7b, 0xf1, 0x17, 0x84, 0xc9, 0x7c, 0x82, 0x92, 0xc2, 0x75, 0xbf, 0xe3, 0xed, 0x41,
    0x80, 0x28, 0x00, 0x04, 0xc8, 0xfb, 0x0b, 0x4c};

/* §2.4 Sample Request with Long-Term Authentication */
static const uint8_t sample_long_term_request[] = {
    0x00, 0x01, 0x00, 0x60, 0x21, 0x12, 0xa4, 0x42, 0x78, 0xad, 0x34, 0x33, 0xc6, 0xad,
    0x72, 0xc0, 0x29, 0xda, 0x41, 0x2e, 0x00, 0x06, 0x00, 0x12, 0xe3, 0x83, 0x9e, 0xe3,
    0x83, 0x88, 0xe3, 0x83, 0xaa, 0xe3, 0x83, 0x83, 0xe3, 0x82, 0xaf, 0xe3, 0x82, 0xb9,
    0x00, 0x00, 0x00, 0x15, 0x00, 0x1c, 0x66, 0x2f, 0x2f, 0x34, 0x39, 0x39, 0x6b, 0x39,
    0x35, 0x34, 0x64, 0x36, 0x4f, 0x4c, 0x33, 0x34, 0x6f, 0x4c, 0x39, 0x46, 0x53, 0x54,
    0x76, 0x79, 0x36, 0x34, 0x73, 0x41, 0x00, 0x14, 0x00, 0x0b, 0x65, 0x78, 0x61, 0x6d,
    0x70, 0x6c, 0x65, 0x2e, 0x6f, 0x72, 0x67, 0x00, 0x00, 0x08, 0x00, 0x14, 0xf6, 0x70,
    0x24, 0x65, 0x6d, 0xd6, 0x4a, 0x3e, 0x02, 0xb8, 0xe0, 0x71, 0x2e, 0x85, 0xc9, 0xa2,
    0x8c, 0xa8, 0x96, 0x66};

static const uint8_t *key_of(const char *s)
{
    return (const uint8_t *)s;
}

static void rfc5769_request_parses_and_authenticates(void **state)
{
    (void)state;
    stun_msg_t m;
    assert_int_equal(stun_parse(&m, sample_request, sizeof sample_request), ZQ_OK);
    assert_int_equal(m.type, STUN_BINDING_REQUEST);
    assert_memory_equal(m.tid, tid_5769, STUN_TID_LEN);
    assert_int_equal(m.username.len, 9);
    assert_memory_equal(m.username.data, "evtj:h6vY", 9);
    assert_int_equal(m.priority, 0x6e0001ff);
    assert_true(m.present & STUN_HAS_ICE_CONTROLLED);
    assert_true(m.tie_breaker == 0x932ff9b151263b36ULL);
    assert_true(m.present & STUN_HAS_FINGERPRINT);
    assert_int_equal(m.unknown_required_count, 0);
    assert_int_equal(stun_verify_integrity(&m, key_of(vector_password), strlen(vector_password)),
                     ZQ_OK);
    assert_int_equal(stun_verify_integrity(&m, key_of("wrong"), 5), ZQ_ERR_INTEGRITY);
}

static void rfc5769_request_builds_byte_for_byte(void **state)
{
    (void)state;
    uint8_t buf[256];
    stun_builder_t b;
    stun_build_start(&b, buf, sizeof buf, STUN_BINDING_REQUEST, tid_5769);
    b.pad = 0x20; /* the vectors pad with spaces */
    stun_put_attr(&b, STUN_ATTR_SOFTWARE, "STUN test client", 16);
    stun_put_u32(&b, STUN_ATTR_PRIORITY, 0x6e0001ff);
    stun_put_u64(&b, STUN_ATTR_ICE_CONTROLLED, 0x932ff9b151263b36ULL);
    stun_put_attr(&b, STUN_ATTR_USERNAME, "evtj:h6vY", 9);
    stun_put_integrity(&b, key_of(vector_password), strlen(vector_password));
    stun_put_fingerprint(&b);
    assert_int_equal(stun_build_finish(&b), sizeof sample_request);
    assert_memory_equal(buf, sample_request, sizeof sample_request);
}

static size_t build_vector_response(uint8_t *buf, size_t cap, const zq_addr_t *mapped)
{
    stun_builder_t b;
    stun_build_start(&b, buf, cap, STUN_BINDING_SUCCESS, tid_5769);
    b.pad = 0x20;
    stun_put_attr(&b, STUN_ATTR_SOFTWARE, "test vector", 11);
    stun_put_xor_address(&b, STUN_ATTR_XOR_MAPPED_ADDRESS, mapped);
    stun_put_integrity(&b, key_of(vector_password), strlen(vector_password));
    stun_put_fingerprint(&b);
    return stun_build_finish(&b);
}

static void rfc5769_ipv4_response_round_trips(void **state)
{
    (void)state;
    stun_msg_t m;
    assert_int_equal(stun_parse(&m, sample_ipv4_response, sizeof sample_ipv4_response), ZQ_OK);
    assert_int_equal(m.type, STUN_BINDING_SUCCESS);
    zq_addr_t want = zq_addr_v4(192, 0, 2, 1, 32853);
    assert_true(zq_addr_equal(&m.xor_mapped, &want));
    assert_int_equal(stun_verify_integrity(&m, key_of(vector_password), strlen(vector_password)),
                     ZQ_OK);
    uint8_t buf[256];
    assert_int_equal(build_vector_response(buf, sizeof buf, &want), sizeof sample_ipv4_response);
    assert_memory_equal(buf, sample_ipv4_response, sizeof sample_ipv4_response);
}

static void rfc5769_ipv6_response_round_trips(void **state)
{
    (void)state;
    stun_msg_t m;
    assert_int_equal(stun_parse(&m, sample_ipv6_response, sizeof sample_ipv6_response), ZQ_OK);
    zq_addr_t want;
    const char *ip = "2001:db8:1234:5678:11:2233:4455:6677";
    assert_int_equal(zq_addr_parse_ip(ip, strlen(ip), &want), ZQ_OK);
    want.port = 32853;
    assert_true(zq_addr_equal(&m.xor_mapped, &want));
    assert_int_equal(stun_verify_integrity(&m, key_of(vector_password), strlen(vector_password)),
                     ZQ_OK);
    uint8_t buf[256];
    assert_int_equal(build_vector_response(buf, sizeof buf, &want), sizeof sample_ipv6_response);
    assert_memory_equal(buf, sample_ipv6_response, sizeof sample_ipv6_response);
}

static void rfc5769_long_term_request_authenticates(void **state)
{
    (void)state;
    stun_msg_t m;
    assert_int_equal(stun_parse(&m, sample_long_term_request, sizeof sample_long_term_request),
                     ZQ_OK);
    assert_true(m.present & STUN_HAS_REALM);
    assert_true(m.present & STUN_HAS_NONCE);
    assert_false(m.present & STUN_HAS_FINGERPRINT);
    assert_int_equal(m.realm.len, 11);
    /* RFC 8489 §9.2.2: key = MD5(username ":" realm ":" SASLprep(password)); SASLprep removes
     * the soft hyphen of "TheMatr\u00ADIX". */
    uint8_t input[64];
    size_t n = 0;
    memcpy(input + n, m.username.data, m.username.len);
    n += m.username.len;
    memcpy(input + n, ":example.org:TheMatrIX", 22);
    n += 22;
    uint8_t key[16];
    size_t key_len;
    assert_int_equal(psa_hash_compute(PSA_ALG_MD5, input, n, key, sizeof key, &key_len), 0);
    assert_int_equal(stun_verify_integrity(&m, key, sizeof key), ZQ_OK);
}

/* ---- Header rules (RFC 8489 §5, §6.3) ------------------------------------------------------ */

static uint8_t scratch[sizeof sample_request + 16];

static uint8_t *copy_request(void)
{
    memcpy(scratch, sample_request, sizeof sample_request);
    return scratch;
}

static void parse_rejects_datagram_shorter_than_header(void **state)
{
    (void)state;
    stun_msg_t m;
    for (size_t len = 0; len < STUN_HEADER_LEN; len++) {
        assert_int_equal(stun_parse(&m, sample_request, len), ZQ_ERR_TRUNCATED);
    }
}

static void parse_rejects_length_beyond_datagram(void **state)
{
    (void)state;
    stun_msg_t m;
    assert_int_equal(stun_parse(&m, sample_request, sizeof sample_request - 4), ZQ_ERR_TRUNCATED);
}

static void parse_rejects_trailing_bytes_after_message(void **state)
{
    (void)state;
    stun_msg_t m;
    uint8_t *msg = copy_request();
    memset(msg + sizeof sample_request, 0, 4);
    assert_int_equal(stun_parse(&m, msg, sizeof sample_request + 4), ZQ_ERR_MALFORMED);
}

static void parse_rejects_length_not_multiple_of_four(void **state)
{
    (void)state;
    stun_msg_t m;
    uint8_t *msg = copy_request();
    zq_store_be16(msg + 2, 0x57);
    assert_int_equal(stun_parse(&m, msg, sizeof sample_request - 1), ZQ_ERR_MALFORMED);
}

static void parse_rejects_top_bits_and_wrong_cookie(void **state)
{
    (void)state;
    stun_msg_t m;
    uint8_t *msg = copy_request();
    msg[0] |= 0x40;
    assert_int_equal(stun_parse(&m, msg, sizeof sample_request), ZQ_ERR_MALFORMED);
    msg = copy_request();
    msg[5] ^= 1;
    assert_int_equal(stun_parse(&m, msg, sizeof sample_request), ZQ_ERR_MALFORMED);
    assert_false(stun_looks_like(msg, sizeof sample_request));
    assert_true(stun_looks_like(sample_request, sizeof sample_request));
}

static void class_bits_decode_each_class(void **state)
{
    (void)state;
    assert_int_equal(stun_class_of(STUN_BINDING_REQUEST), 0);
    assert_int_equal(stun_class_of(STUN_BINDING_INDICATION), 1);
    assert_int_equal(stun_class_of(STUN_BINDING_SUCCESS), 2);
    assert_int_equal(stun_class_of(STUN_BINDING_ERROR), 3);
}

/* ---- Attribute rules (RFC 8489 §14) -------------------------------------------------------- */

static void attribute_claiming_more_than_message_is_malformed(void **state)
{
    (void)state;
    stun_msg_t m;
    uint8_t *msg = copy_request();
    zq_store_be16(msg + 22, 0x0100); /* SOFTWARE claims 256 bytes */
    assert_int_equal(stun_parse(&m, msg, sizeof sample_request), ZQ_ERR_MALFORMED);
}

static void fingerprint_mismatch_is_detected(void **state)
{
    (void)state;
    stun_msg_t m;
    uint8_t *msg = copy_request();
    msg[sizeof sample_request - 1] ^= 0x01;
    assert_int_equal(stun_parse(&m, msg, sizeof sample_request), ZQ_ERR_FINGERPRINT);
    msg = copy_request();
    msg[30] ^= 0x01; /* a body byte: the CRC no longer matches */
    assert_int_equal(stun_parse(&m, msg, sizeof sample_request), ZQ_ERR_FINGERPRINT);
}

static void integrity_mismatch_is_detected(void **state)
{
    (void)state;
    uint8_t buf[128];
    stun_builder_t b;
    stun_build_start(&b, buf, sizeof buf, STUN_BINDING_REQUEST, tid_5769);
    stun_put_attr(&b, STUN_ATTR_USERNAME, "a:b", 3);
    stun_put_integrity(&b, key_of("secret"), 6);
    size_t len = stun_build_finish(&b);
    buf[25] ^= 0x01; /* inside USERNAME: no FINGERPRINT, so only integrity catches it */
    stun_msg_t m;
    assert_int_equal(stun_parse(&m, buf, len), ZQ_OK);
    assert_int_equal(stun_verify_integrity(&m, key_of("secret"), 6), ZQ_ERR_INTEGRITY);
}

static void message_without_integrity_reports_not_found(void **state)
{
    (void)state;
    uint8_t buf[64];
    stun_builder_t b;
    stun_build_start(&b, buf, sizeof buf, STUN_BINDING_REQUEST, tid_5769);
    size_t len = stun_build_finish(&b);
    stun_msg_t m;
    assert_int_equal(stun_parse(&m, buf, len), ZQ_OK);
    assert_int_equal(stun_verify_integrity(&m, key_of("x"), 1), ZQ_ERR_NOT_FOUND);
}

static void fingerprint_must_be_last(void **state)
{
    (void)state;
    uint8_t buf[128];
    stun_builder_t b;
    stun_build_start(&b, buf, sizeof buf, STUN_BINDING_REQUEST, tid_5769);
    stun_put_fingerprint(&b);
    stun_put_u32(&b, STUN_ATTR_PRIORITY, 1);
    size_t len = stun_build_finish(&b);
    stun_msg_t m;
    assert_int_equal(stun_parse(&m, buf, len), ZQ_ERR_MALFORMED);
}

static void attributes_after_integrity_are_ignored(void **state)
{
    (void)state;
    uint8_t buf[128];
    stun_builder_t b;
    stun_build_start(&b, buf, sizeof buf, STUN_BINDING_REQUEST, tid_5769);
    stun_put_integrity(&b, key_of("k"), 1);
    stun_put_u32(&b, STUN_ATTR_PRIORITY, 7);
    stun_put_attr(&b, 0x0042, "x", 1); /* unknown, comprehension-required */
    stun_put_fingerprint(&b);
    size_t len = stun_build_finish(&b);
    stun_msg_t m;
    assert_int_equal(stun_parse(&m, buf, len), ZQ_OK);
    assert_false(m.present & STUN_HAS_PRIORITY);
    assert_int_equal(m.unknown_required_count, 0);
    assert_true(m.present & STUN_HAS_FINGERPRINT);
    /* The HMAC covers only what precedes it, so the key still verifies. */
    assert_int_equal(stun_verify_integrity(&m, key_of("k"), 1), ZQ_OK);
}

static void unknown_comprehension_required_attributes_are_listed(void **state)
{
    (void)state;
    uint8_t buf[256];
    stun_builder_t b;
    stun_build_start(&b, buf, sizeof buf, STUN_BINDING_REQUEST, tid_5769);
    stun_put_attr(&b, 0x0042, "abc", 3);
    stun_put_attr(&b, 0xC057, "opt", 3); /* comprehension-optional: silently ignored */
    stun_put_attr(&b, 0x7FFF, NULL, 0);
    size_t len = stun_build_finish(&b);
    stun_msg_t m;
    assert_int_equal(stun_parse(&m, buf, len), ZQ_OK);
    assert_int_equal(m.unknown_required_count, 2);
    assert_int_equal(m.unknown_required[0], 0x0042);
    assert_int_equal(m.unknown_required[1], 0x7FFF);
    assert_false(m.unknown_required_overflow);
}

static void too_many_unknown_attributes_sets_overflow(void **state)
{
    (void)state;
    uint8_t buf[256];
    stun_builder_t b;
    stun_build_start(&b, buf, sizeof buf, STUN_BINDING_REQUEST, tid_5769);
    for (uint16_t t = 0x0100; t < 0x0100 + ZQ_STUN_MAX_UNKNOWN_ATTRS + 2; t++) {
        stun_put_attr(&b, t, NULL, 0);
    }
    size_t len = stun_build_finish(&b);
    stun_msg_t m;
    assert_int_equal(stun_parse(&m, buf, len), ZQ_OK);
    assert_int_equal(m.unknown_required_count, ZQ_STUN_MAX_UNKNOWN_ATTRS);
    assert_true(m.unknown_required_overflow);
}

static void first_occurrence_of_an_attribute_wins(void **state)
{
    (void)state;
    uint8_t buf[128];
    stun_builder_t b;
    stun_build_start(&b, buf, sizeof buf, STUN_BINDING_REQUEST, tid_5769);
    stun_put_u32(&b, STUN_ATTR_PRIORITY, 1);
    stun_put_u32(&b, STUN_ATTR_PRIORITY, 2);
    size_t len = stun_build_finish(&b);
    stun_msg_t m;
    assert_int_equal(stun_parse(&m, buf, len), ZQ_OK);
    assert_int_equal(m.priority, 1);
}

static void oversized_username_is_malformed(void **state)
{
    (void)state;
    static uint8_t buf[700];
    static uint8_t name[STUN_USERNAME_MAX + 1];
    memset(name, 'u', sizeof name);
    stun_builder_t b;
    stun_build_start(&b, buf, sizeof buf, STUN_BINDING_REQUEST, tid_5769);
    stun_put_attr(&b, STUN_ATTR_USERNAME, name, sizeof name);
    size_t len = stun_build_finish(&b);
    stun_msg_t m;
    assert_int_equal(stun_parse(&m, buf, len), ZQ_ERR_MALFORMED);
}

static void wrong_fixed_lengths_are_malformed(void **state)
{
    (void)state;
    static const uint16_t types[] = {STUN_ATTR_PRIORITY, STUN_ATTR_USE_CANDIDATE,
                                     STUN_ATTR_ICE_CONTROLLING, STUN_ATTR_ICE_CONTROLLED,
                                     STUN_ATTR_XOR_MAPPED_ADDRESS, STUN_ATTR_ERROR_CODE};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        uint8_t buf[64];
        stun_builder_t b;
        stun_build_start(&b, buf, sizeof buf, STUN_BINDING_REQUEST, tid_5769);
        stun_put_attr(&b, types[i], "\x00\x00\x00", 3);
        size_t len = stun_build_finish(&b);
        stun_msg_t m;
        assert_int_equal(stun_parse(&m, buf, len), ZQ_ERR_MALFORMED);
    }
}

static void error_code_and_unknown_attributes_round_trip(void **state)
{
    (void)state;
    uint8_t buf[128];
    uint16_t unknown[] = {0x0042, 0x7FFF};
    stun_builder_t b;
    stun_build_start(&b, buf, sizeof buf, STUN_BINDING_ERROR, tid_5769);
    stun_put_error_code(&b, STUN_ERROR_UNKNOWN_ATTRIBUTE, "Unknown Attribute");
    stun_put_unknown_attributes(&b, unknown, 2);
    stun_put_fingerprint(&b);
    size_t len = stun_build_finish(&b);
    stun_msg_t m;
    assert_int_equal(stun_parse(&m, buf, len), ZQ_OK);
    assert_int_equal(m.error_code, 420);
    assert_int_equal(m.error_reason.len, 17);
    assert_memory_equal(m.error_reason.data, "Unknown Attribute", 17);
    assert_int_equal(m.unknown_listed_count, 2);
    assert_int_equal(m.unknown_listed[1], 0x7FFF);
}

static void error_code_with_bad_class_is_malformed(void **state)
{
    (void)state;
    uint8_t buf[64];
    stun_builder_t b;
    stun_build_start(&b, buf, sizeof buf, STUN_BINDING_ERROR, tid_5769);
    stun_put_attr(&b, STUN_ATTR_ERROR_CODE, "\x00\x00\x07\x01", 4); /* class 7 */
    size_t len = stun_build_finish(&b);
    stun_msg_t m;
    assert_int_equal(stun_parse(&m, buf, len), ZQ_ERR_MALFORMED);
}

static void builder_never_writes_past_its_buffer(void **state)
{
    (void)state;
    /* Guard bytes around the output catch any overrun. */
    for (size_t cap = 0; cap < sizeof sample_request; cap++) {
        uint8_t buf[sizeof sample_request + 8];
        memset(buf, 0xA5, sizeof buf);
        stun_builder_t b;
        stun_build_start(&b, buf + 4, cap, STUN_BINDING_REQUEST, tid_5769);
        stun_put_attr(&b, STUN_ATTR_SOFTWARE, "STUN test client", 16);
        stun_put_u32(&b, STUN_ATTR_PRIORITY, 0x6e0001ff);
        stun_put_integrity(&b, key_of("k"), 1);
        stun_put_fingerprint(&b);
        size_t want = 20 + 20 + 8 + 24 + 8;
        assert_int_equal(stun_build_finish(&b), cap >= want ? want : 0);
        for (size_t i = 0; i < 4; i++) {
            assert_int_equal(buf[i], 0xA5);
        }
        for (size_t i = 4 + cap; i < sizeof buf; i++) {
            assert_int_equal(buf[i], 0xA5);
        }
    }
}

/* RFC 8489 §6.2.1 with its defaults (RTO 500 ms, Rc 7, Rm 16): requests at 0, 500, 1500,
 * 3500, 7500, 15500 and 31500 ms, and the transaction fails at 39500. */
static void a_client_transaction_resends_at_doubling_rtos_and_fails_rm_rtos_after_the_last(
    void **state)
{
    (void)state;
    static const uint64_t sends_at[] = {0, 500, 1500, 3500, 7500, 15500, 31500};
    uint32_t rto = 500;
    uint64_t now = 0;
    for (uint8_t n = 1; n <= 7; n++) {
        assert_int_equal(now, sends_at[n - 1]);
        now = stun_next_retransmit(now, n, 7, 500, 16, &rto);
    }
    assert_int_equal(now, 39500);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rfc5769_request_parses_and_authenticates),
        cmocka_unit_test(rfc5769_request_builds_byte_for_byte),
        cmocka_unit_test(rfc5769_ipv4_response_round_trips),
        cmocka_unit_test(rfc5769_ipv6_response_round_trips),
        cmocka_unit_test(rfc5769_long_term_request_authenticates),
        cmocka_unit_test(parse_rejects_datagram_shorter_than_header),
        cmocka_unit_test(parse_rejects_length_beyond_datagram),
        cmocka_unit_test(parse_rejects_trailing_bytes_after_message),
        cmocka_unit_test(parse_rejects_length_not_multiple_of_four),
        cmocka_unit_test(parse_rejects_top_bits_and_wrong_cookie),
        cmocka_unit_test(class_bits_decode_each_class),
        cmocka_unit_test(attribute_claiming_more_than_message_is_malformed),
        cmocka_unit_test(fingerprint_mismatch_is_detected),
        cmocka_unit_test(integrity_mismatch_is_detected),
        cmocka_unit_test(message_without_integrity_reports_not_found),
        cmocka_unit_test(fingerprint_must_be_last),
        cmocka_unit_test(attributes_after_integrity_are_ignored),
        cmocka_unit_test(unknown_comprehension_required_attributes_are_listed),
        cmocka_unit_test(too_many_unknown_attributes_sets_overflow),
        cmocka_unit_test(first_occurrence_of_an_attribute_wins),
        cmocka_unit_test(oversized_username_is_malformed),
        cmocka_unit_test(wrong_fixed_lengths_are_malformed),
        cmocka_unit_test(error_code_and_unknown_attributes_round_trip),
        cmocka_unit_test(error_code_with_bad_class_is_malformed),
        cmocka_unit_test(builder_never_writes_past_its_buffer),
        cmocka_unit_test(a_client_transaction_resends_at_doubling_rtos_and_fails_rm_rtos_after_the_last),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
