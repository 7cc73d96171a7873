/* INIT and INIT ACK (RFC 9260 §3.3.2, §3.3.3): real chunks from usrsctp and a dcSCTP-like
 * INIT, zq's own INIT and INIT ACK byte for byte, and the four ways of handling an unknown
 * parameter (§3.2.1). */
#include "sctp_packet_test.h"

static const uint8_t *u8(const char *s)
{
    return (const uint8_t *)s;
}

static void write_init(zq_writer_t *w, const void *arg)
{
    sctp_init_write(w, SCTP_CHUNK_INIT, arg);
}

static void write_init_ack(zq_writer_t *w, const void *arg)
{
    sctp_init_write(w, SCTP_CHUNK_INIT_ACK, arg);
}

/* zq's INIT: what sctp_init_write() makes of the fixed part and both extensions. */
static const uint8_t zq_init[] = {
    0x01, 0x00, 0x00, 0x20, /* INIT, length 32 */
    0x98, 0xdb, 0xae, 0x9a, /*   initiate tag */
    0x00, 0x02, 0x00, 0x00, /*   a_rwnd 131072 */
    0x00, 0x0a, 0x08, 0x00, /*   10 outbound, 2048 inbound streams */
    0xc5, 0xff, 0x93, 0x54, /*   initial TSN */
    0x80, 0x08, 0x00, 0x06, /*   Supported Extensions, length 6 */
    0xc0, 0x82, 0x00, 0x00, /*     FORWARD-TSN, RE-CONFIG, 2 bytes of padding */
    0xc0, 0x00, 0x00, 0x04, /*   Forward-TSN-Supported */
};

/* ---- Real and realistic peers ---------------------------------------------------------------- */

/* usrsctp 0.9.5 over IPv4 (captured from the library; the CRC in test_sctp_packet.c). */
static const uint8_t usrsctp_init[] = {
    0x01, 0x00, 0x00, 0x7c, /* INIT, length 124 */
    0x98, 0xdb, 0xae, 0x9a, /*   initiate tag */
    0x00, 0x02, 0x00, 0x00, /*   a_rwnd 131072 */
    0x00, 0x0a, 0x08, 0x00, /*   10 outbound, 2048 inbound streams */
    0xc5, 0xff, 0x93, 0x54, /*   initial TSN */
    0xc0, 0x06, 0x00, 0x08, /*   Adaptation Layer Indication (RFC 5061) */
    0x01, 0x02, 0x03, 0x04, /*     indication */
    0x80, 0x00, 0x00, 0x04, /*   ECN Capable */
    0xc0, 0x00, 0x00, 0x04, /*   Forward-TSN-Supported */
    0x80, 0x08, 0x00, 0x09, /*   Supported Extensions, length 9: */
    0xc0, 0x0f, 0xc1, 0x80, /*     FORWARD-TSN, AUTH, ASCONF, ASCONF-ACK */
    0x82, 0x00, 0x00, 0x00, /*     RE-CONFIG, 3 bytes of padding */
    0x80, 0x02, 0x00, 0x24, /*   Random (RFC 4895), 32 bytes */
    0x75, 0x88, 0x68, 0xb0, 0x7c, 0x1d, 0x70, 0x63, 0xef, 0x01, 0x35, 0x46, 0xbc, 0x5d, 0x54, 0x7e,
    0x7f, 0xcd, 0xa3, 0xdb, 0xc1, 0xd6, 0xbf, 0x90, 0x0a, 0x80, 0x1e, 0x42, 0x0a, 0xf5, 0xec, 0x65,
    0x80, 0x04, 0x00, 0x06, /*   HMAC Algorithm, length 6 */
    0x00, 0x01, 0x00, 0x00, /*     SHA-1, 2 bytes of padding */
    0x80, 0x03, 0x00, 0x06, /*   Chunk List, length 6 */
    0x80, 0xc1, 0x00, 0x00, /*     ASCONF-ACK, ASCONF, 2 bytes of padding */
    0x00, 0x0c, 0x00, 0x06, /*   Supported Address Types, length 6 */
    0x00, 0x05, 0x00, 0x00, /*     IPv4, 2 bytes of padding */
    0x00, 0x05, 0x00, 0x08, /*   IPv4 Address */
    0xc0, 0x00, 0x02, 0x02, /*     192.0.2.2 */
    0x00, 0x05, 0x00, 0x08, /*   IPv4 Address */
    0x7f, 0x00, 0x00, 0x01, /*     127.0.0.1 */
};

static void usrsctp_init_parses(void **state)
{
    (void)state;
    sctp_chunk_t c = chunk_of(usrsctp_init, sizeof usrsctp_init);
    assert_int_equal(c.type, SCTP_CHUNK_INIT);
    sctp_init_chunk_t init;
    assert_int_equal(sctp_init_parse(&c, &init), ZQ_OK);
    assert_int_equal(init.initiate_tag, 0x98dbae9au);
    assert_int_equal(init.a_rwnd, 131072);
    assert_int_equal(init.outbound_streams, 10);
    assert_int_equal(init.inbound_streams, 2048);
    assert_int_equal(init.initial_tsn, 0xc5ff9354u);
    assert_true(init.forward_tsn);
    assert_true(init.reconfig);
    assert_null(init.cookie);
    assert_int_equal(init.cookie_len, 0);
    assert_null(init.unrecognized); /* every parameter of usrsctp's is known to zq */
    assert_int_equal(init.unrecognized_len, 0);
}

static void usrsctp_init_rewrites_in_zq_form(void **state)
{
    (void)state;
    sctp_chunk_t c = chunk_of(usrsctp_init, sizeof usrsctp_init);
    sctp_init_chunk_t init;
    assert_int_equal(sctp_init_parse(&c, &init), ZQ_OK);
    expect_written(write_init, &init, zq_init, sizeof zq_init);
}

/* Like Chromium's dcSCTP: a_rwnd 5 MiB, 65535 streams each way, Zero Checksum Acceptable, and
 * I-DATA among the extensions. The CRC32c was computed independently (bitwise, in Python). */
static const uint8_t dcsctp_init_packet[] = {
    0x13, 0x88, 0x13, 0x88, /* ports 5000 -> 5000 */
    0x00, 0x00, 0x00, 0x00, /* verification tag 0 (INIT) */
    0x67, 0xd7, 0xf9, 0xef, /* CRC32c 0xEFF9D767 */
    0x01, 0x00, 0x00, 0x27, /* INIT, length 39: the last parameter's padding not counted */
    0x9a, 0x3b, 0x5c, 0x7d, /*   initiate tag */
    0x00, 0x50, 0x00, 0x00, /*   a_rwnd 5242880 */
    0xff, 0xff, 0xff, 0xff, /*   65535 outbound, 65535 inbound streams */
    0x1f, 0x2e, 0x3d, 0x4c, /*   initial TSN */
    0xc0, 0x00, 0x00, 0x04, /*   Forward-TSN-Supported */
    0x80, 0x01, 0x00, 0x08, /*   Zero Checksum Acceptable (RFC 9653) */
    0x00, 0x00, 0x00, 0x01, /*     error detection method 1: DTLS */
    0x80, 0x08, 0x00, 0x07, /*   Supported Extensions, length 7: */
    0x82, 0xc0, 0x40, 0x00, /*     RE-CONFIG, FORWARD-TSN, I-DATA, 1 byte of padding */
};

static const uint8_t zq_form_of_dcsctp_init[] = {
    0x01, 0x00, 0x00, 0x20, /* INIT, length 32 */
    0x9a, 0x3b, 0x5c, 0x7d, /*   initiate tag */
    0x00, 0x50, 0x00, 0x00, /*   a_rwnd 5242880 */
    0xff, 0xff, 0xff, 0xff, /*   65535 outbound, 65535 inbound streams */
    0x1f, 0x2e, 0x3d, 0x4c, /*   initial TSN */
    0x80, 0x08, 0x00, 0x06, /*   Supported Extensions, length 6 */
    0xc0, 0x82, 0x00, 0x00, /*     FORWARD-TSN, RE-CONFIG, 2 bytes of padding */
    0xc0, 0x00, 0x00, 0x04, /*   Forward-TSN-Supported */
};

static void dcsctp_like_init_parses(void **state)
{
    (void)state;
    sctp_common_header_t h;
    zq_reader_t chunks;
    assert_int_equal(sctp_packet_parse(dcsctp_init_packet, sizeof dcsctp_init_packet, true, &h,
                                       &chunks),
                     ZQ_OK);
    assert_int_equal(h.vtag, 0);
    sctp_chunk_t c;
    assert_int_equal(sctp_packet_next_chunk(&chunks, &c), ZQ_OK);
    assert_int_equal(c.type, SCTP_CHUNK_INIT);
    assert_int_equal(c.length, 39);
    sctp_init_chunk_t init;
    assert_int_equal(sctp_init_parse(&c, &init), ZQ_OK);
    assert_int_equal(init.initiate_tag, 0x9a3b5c7du);
    assert_int_equal(init.a_rwnd, 5242880);
    assert_int_equal(init.outbound_streams, 65535);
    assert_int_equal(init.inbound_streams, 65535);
    assert_int_equal(init.initial_tsn, 0x1f2e3d4cu);
    assert_true(init.forward_tsn);
    assert_true(init.reconfig);
    assert_null(init.unrecognized);
    assert_int_equal(sctp_packet_next_chunk(&chunks, &c), ZQ_ERR_NOT_FOUND);
    expect_written(write_init, &init, zq_form_of_dcsctp_init, sizeof zq_form_of_dcsctp_init);
}

static void init_length_may_count_the_last_parameter_padding(void **state)
{
    (void)state;
    /* §3.2: a robust receiver accepts the final padding inside the Length too. */
    uint8_t chunk[sizeof dcsctp_init_packet - 12];
    memcpy(chunk, dcsctp_init_packet + 12, sizeof chunk);
    chunk[3] = 0x28;
    sctp_chunk_t c = chunk_of(chunk, sizeof chunk);
    sctp_init_chunk_t init;
    assert_int_equal(sctp_init_parse(&c, &init), ZQ_OK);
    assert_true(init.reconfig);
}

/* usrsctp's INIT ACK answering zq's INIT (captured; the cookie holds both INITs, whole). */
static const uint8_t usrsctp_init_ack_packet[] = {
    0x13, 0x88, 0x13, 0x89, /* ports 5000 -> 5001 */
    0x01, 0x02, 0x03, 0x04, /* verification tag: zq's initiate tag */
    0x48, 0x8a, 0xb5, 0x30, /* CRC32c 0x30B58A48 */
    0x02, 0x00, 0x01, 0x60, /* INIT ACK, length 352 */
    0xe0, 0xb0, 0xcd, 0xe3, /*   initiate tag */
    0x00, 0x02, 0x00, 0x00, /*   a_rwnd 131072 */
    0x00, 0x0a, 0x08, 0x00, /*   10 outbound, 2048 inbound streams */
    0x79, 0x6b, 0xa7, 0x3c, /*   initial TSN */
    0x80, 0x00, 0x00, 0x04, /*   ECN Capable */
    0xc0, 0x00, 0x00, 0x04, /*   Forward-TSN-Supported */
    0x80, 0x08, 0x00, 0x09, /*   Supported Extensions, length 9: */
    0xc0, 0x0f, 0xc1, 0x80, /*     FORWARD-TSN, AUTH, ASCONF, ASCONF-ACK */
    0x82, 0x00, 0x00, 0x00, /*     RE-CONFIG, 3 bytes of padding */
    0x80, 0x02, 0x00, 0x24, /*   Random, 32 bytes */
    0xc3, 0x83, 0x43, 0x5b, 0xd5, 0x95, 0x6e, 0x9f, 0xfd, 0xaf, 0x3a, 0x54, 0x51, 0x48, 0xa6, 0x27,
    0x49, 0x0f, 0xae, 0x4e, 0xbc, 0x25, 0xf6, 0xa1, 0x11, 0x26, 0x26, 0xec, 0xe1, 0xe8, 0x77, 0xd6,
    0x80, 0x04, 0x00, 0x06, 0x00, 0x01, 0x00, 0x00, /*   HMAC Algorithm: SHA-1 */
    0x80, 0x03, 0x00, 0x06, 0x80, 0xc1, 0x00, 0x00, /*   Chunk List: ASCONF-ACK, ASCONF */
    0x00, 0x07, 0x01, 0x04, /*   State Cookie, 256 bytes (opaque to zq) */
    0x4b, 0x41, 0x4d, 0x45, 0x2d, 0x42, 0x53, 0x44, 0x20, 0x31, 0x2e, 0x31, 0x00, 0x00, 0x00, 0x00,
    0x99, 0xfb, 0x0c, 0x6b, 0x00, 0x00, 0x00, 0x00, 0x49, 0x5e, 0x0b, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x60, 0xea, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x03, 0x02, 0x01,
    0xe0, 0xb0, 0xcd, 0xe3, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x13, 0x89, 0x13, 0x88, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x20, 0x01, 0x02, 0x03, 0x04, 0x00, 0x02, 0x00, 0x00, 0x00, 0x10, 0x00, 0x10,
    0x00, 0x00, 0x03, 0xe8, 0x80, 0x08, 0x00, 0x06, 0xc0, 0x82, 0x00, 0x00, 0xc0, 0x00, 0x00, 0x04,
    0x02, 0x00, 0x01, 0x60, 0xe0, 0xb0, 0xcd, 0xe3, 0x00, 0x02, 0x00, 0x00, 0x00, 0x0a, 0x08, 0x00,
    0x79, 0x6b, 0xa7, 0x3c, 0x80, 0x00, 0x00, 0x04, 0xc0, 0x00, 0x00, 0x04, 0x80, 0x08, 0x00, 0x09,
    0xc0, 0x0f, 0xc1, 0x80, 0x82, 0x00, 0x00, 0x00, 0x80, 0x02, 0x00, 0x24, 0xc3, 0x83, 0x43, 0x5b,
    0xd5, 0x95, 0x6e, 0x9f, 0xfd, 0xaf, 0x3a, 0x54, 0x51, 0x48, 0xa6, 0x27, 0x49, 0x0f, 0xae, 0x4e,
    0xbc, 0x25, 0xf6, 0xa1, 0x11, 0x26, 0x26, 0xec, 0xe1, 0xe8, 0x77, 0xd6, 0x80, 0x04, 0x00, 0x06,
    0x00, 0x01, 0x00, 0x00, 0x80, 0x03, 0x00, 0x06, 0x80, 0xc1, 0x00, 0x00, 0x28, 0x38, 0x7b, 0x41,
    0xe9, 0x7b, 0xfa, 0x12, 0x0a, 0x25, 0xf2, 0xe4, 0x07, 0x76, 0xa2, 0x5d, 0x86, 0x4e, 0x39, 0x21,
};

static void usrsctp_init_ack_parses_with_its_cookie(void **state)
{
    (void)state;
    sctp_common_header_t h;
    zq_reader_t chunks;
    assert_int_equal(sctp_packet_parse(usrsctp_init_ack_packet, sizeof usrsctp_init_ack_packet,
                                       true, &h, &chunks),
                     ZQ_OK);
    assert_int_equal(h.vtag, 0x01020304u);
    sctp_chunk_t c;
    assert_int_equal(sctp_packet_next_chunk(&chunks, &c), ZQ_OK);
    assert_int_equal(c.type, SCTP_CHUNK_INIT_ACK);
    sctp_init_chunk_t ack;
    assert_int_equal(sctp_init_parse(&c, &ack), ZQ_OK);
    assert_int_equal(ack.initiate_tag, 0xe0b0cde3u);
    assert_int_equal(ack.a_rwnd, 131072);
    assert_int_equal(ack.outbound_streams, 10);
    assert_int_equal(ack.inbound_streams, 2048);
    assert_int_equal(ack.initial_tsn, 0x796ba73cu);
    assert_true(ack.forward_tsn);
    assert_true(ack.reconfig);
    assert_ptr_equal(ack.cookie, usrsctp_init_ack_packet + 108);
    assert_int_equal(ack.cookie_len, 256);
    /* zq's own INIT, inside the cookie, byte for byte as zq wrote it. */
    sctp_init_chunk_t mine = {.initiate_tag = 0x01020304, .a_rwnd = 131072,
                              .outbound_streams = 16, .inbound_streams = 16,
                              .initial_tsn = 1000, .forward_tsn = true, .reconfig = true};
    uint8_t buf[32];
    zq_writer_t w = zq_writer(buf, sizeof buf);
    sctp_init_write(&w, SCTP_CHUNK_INIT, &mine);
    assert_false(w.failed);
    assert_memory_equal(ack.cookie + 112, buf, sizeof buf);
    assert_int_equal(sctp_packet_next_chunk(&chunks, &c), ZQ_ERR_NOT_FOUND);
}

/* ---- Unknown parameters (§3.2.1) ------------------------------------------------------------- */

/* An INIT with one unknown parameter, then Forward-TSN-Supported; byte 20 takes the action
 * bits under test. */
static const uint8_t init_with_unknown[] = {
    0x01, 0x00, 0x00, 0x20, /* INIT, length 32 */
    0x00, 0x00, 0x00, 0x01, /*   initiate tag 1 */
    0x00, 0x01, 0x00, 0x00, /*   a_rwnd 65536 */
    0x00, 0x10, 0x00, 0x10, /*   16 outbound, 16 inbound streams */
    0x00, 0x00, 0x00, 0x64, /*   initial TSN 100 */
    0x00, 0x42, 0x00, 0x05, /*   unknown type 0x?042, length 5 */
    0xaa, 0x00, 0x00, 0x00, /*     one byte of value, 3 of padding */
    0xc0, 0x00, 0x00, 0x04, /*   Forward-TSN-Supported */
};

static sctp_init_chunk_t parse_with_action(uint8_t action_bits, uint8_t *copy)
{
    memcpy(copy, init_with_unknown, sizeof init_with_unknown);
    copy[20] = action_bits;
    zq_reader_t r = zq_reader(copy, sizeof init_with_unknown);
    sctp_chunk_t c;
    assert_int_equal(sctp_packet_next_chunk(&r, &c), ZQ_OK);
    sctp_init_chunk_t init;
    assert_int_equal(sctp_init_parse(&c, &init), ZQ_OK);
    assert_int_equal(init.initiate_tag, 1);
    assert_int_equal(init.initial_tsn, 100);
    return init;
}

static void unknown_parameter_00_stops_processing(void **state)
{
    (void)state;
    uint8_t copy[sizeof init_with_unknown];
    sctp_init_chunk_t init = parse_with_action(0x00, copy);
    assert_false(init.forward_tsn); /* the parameter after it was not read */
    assert_null(init.unrecognized);
    assert_int_equal(init.unrecognized_len, 0);
}

static void unknown_parameter_01_stops_and_reports(void **state)
{
    (void)state;
    uint8_t copy[sizeof init_with_unknown];
    sctp_init_chunk_t init = parse_with_action(0x40, copy);
    assert_false(init.forward_tsn);
    assert_ptr_equal(init.unrecognized, copy + 20);
    assert_int_equal(init.unrecognized_len, 5); /* the parameter without its padding */
}

static void unknown_parameter_10_is_skipped(void **state)
{
    (void)state;
    uint8_t copy[sizeof init_with_unknown];
    sctp_init_chunk_t init = parse_with_action(0x80, copy);
    assert_true(init.forward_tsn);
    assert_null(init.unrecognized);
}

static void unknown_parameter_11_is_skipped_and_reported(void **state)
{
    (void)state;
    uint8_t copy[sizeof init_with_unknown];
    sctp_init_chunk_t init = parse_with_action(0xc0, copy);
    assert_true(init.forward_tsn);
    assert_ptr_equal(init.unrecognized, copy + 20);
    assert_int_equal(init.unrecognized_len, 5);
}

/* Two parameters to report, with a known and an unreported unknown one between them. */
static const uint8_t init_with_two_to_report[] = {
    0x01, 0x00, 0x00, 0x31, /* INIT, length 49 */
    0x00, 0x00, 0x00, 0x01, /*   initiate tag 1 */
    0x00, 0x01, 0x00, 0x00, /*   a_rwnd 65536 */
    0x00, 0x10, 0x00, 0x10, /*   16 outbound, 16 inbound streams */
    0x00, 0x00, 0x00, 0x64, /*   initial TSN 100 */
    0xc0, 0x42, 0x00, 0x06, /*   unknown 0xC042 (skip, report), length 6 */
    0x01, 0x02, 0x00, 0x00, /*     value, 2 bytes of padding */
    0xc0, 0x00, 0x00, 0x04, /*   Forward-TSN-Supported */
    0x80, 0x43, 0x00, 0x04, /*   unknown 0x8043 (skip, no report) */
    0xc0, 0x44, 0x00, 0x05, /*   unknown 0xC044 (skip, report), length 5 */
    0x03, 0x00, 0x00, 0x00, /*     value, 3 bytes of padding */
    0x80, 0x08, 0x00, 0x05, /*   Supported Extensions: */
    0x82,                   /*     RE-CONFIG (padding left out, last in the packet) */
};

/* zq's INIT ACK to it: a cookie, and each reported parameter echoed in its own Unrecognized
 * Parameter, as usrsctp does. */
static const uint8_t zq_init_ack_echoing_two[] = {
    0x02, 0x00, 0x00, 0x41, /* INIT ACK, length 65 */
    0x00, 0x00, 0x00, 0x02, /*   initiate tag 2 */
    0x00, 0x01, 0x00, 0x00, /*   a_rwnd 65536 */
    0x00, 0x10, 0x00, 0x10, /*   16 outbound, 16 inbound streams */
    0x00, 0x00, 0x00, 0xc8, /*   initial TSN 200 */
    0x80, 0x08, 0x00, 0x06, /*   Supported Extensions, length 6 */
    0xc0, 0x82, 0x00, 0x00, /*     FORWARD-TSN, RE-CONFIG, 2 bytes of padding */
    0xc0, 0x00, 0x00, 0x04, /*   Forward-TSN-Supported */
    0x00, 0x07, 0x00, 0x09, /*   State Cookie, length 9 */
    0x7a, 0x71, 0x63, 0x6b, /*     "zqck!" */
    0x21, 0x00, 0x00, 0x00, /*     3 bytes of padding */
    0x00, 0x08, 0x00, 0x0a, /*   Unrecognized Parameter, length 10 */
    0xc0, 0x42, 0x00, 0x06, /*     the first as received */
    0x01, 0x02, 0x00, 0x00, /*     2 bytes of padding */
    0x00, 0x08, 0x00, 0x09, /*   Unrecognized Parameter, length 9 */
    0xc0, 0x44, 0x00, 0x05, /*     the second as received */
    0x03, 0x00, 0x00, 0x00, /*     3 bytes of padding, not in the Length */
};

static void reported_parameters_are_taken_out_of_the_span(void **state)
{
    (void)state;
    sctp_chunk_t c = chunk_of(init_with_two_to_report, sizeof init_with_two_to_report);
    sctp_init_chunk_t init;
    assert_int_equal(sctp_init_parse(&c, &init), ZQ_OK);
    assert_true(init.forward_tsn);
    assert_true(init.reconfig);
    assert_ptr_equal(init.unrecognized, init_with_two_to_report + 20);
    assert_int_equal(init.unrecognized_len, 21);
    zq_reader_t r = zq_reader(init.unrecognized, init.unrecognized_len);
    const uint8_t *tlv;
    size_t tlv_len;
    assert_int_equal(sctp_init_next_unrecognized(&r, &tlv, &tlv_len), ZQ_OK);
    assert_ptr_equal(tlv, init_with_two_to_report + 20);
    assert_int_equal(tlv_len, 6);
    assert_int_equal(sctp_init_next_unrecognized(&r, &tlv, &tlv_len), ZQ_OK);
    assert_ptr_equal(tlv, init_with_two_to_report + 36);
    assert_int_equal(tlv_len, 5);
    assert_int_equal(sctp_init_next_unrecognized(&r, &tlv, &tlv_len), ZQ_ERR_NOT_FOUND);
}

static void init_ack_echoes_each_reported_parameter(void **state)
{
    (void)state;
    sctp_chunk_t c = chunk_of(init_with_two_to_report, sizeof init_with_two_to_report);
    sctp_init_chunk_t init;
    assert_int_equal(sctp_init_parse(&c, &init), ZQ_OK);
    sctp_init_chunk_t ack = {
        .initiate_tag = 2, .a_rwnd = 65536, .outbound_streams = 16, .inbound_streams = 16,
        .initial_tsn = 200, .forward_tsn = true, .reconfig = true,
        .cookie = u8("zqck!"), .cookie_len = 5,
        .unrecognized = init.unrecognized, .unrecognized_len = init.unrecognized_len,
    };
    expect_written(write_init_ack, &ack, zq_init_ack_echoing_two,
                   sizeof zq_init_ack_echoing_two);
}

static void init_ack_parses_cookie_and_ignores_unrecognized_parameter(void **state)
{
    (void)state;
    sctp_chunk_t c = chunk_of(zq_init_ack_echoing_two, sizeof zq_init_ack_echoing_two);
    assert_int_equal(c.type, SCTP_CHUNK_INIT_ACK);
    sctp_init_chunk_t ack;
    assert_int_equal(sctp_init_parse(&c, &ack), ZQ_OK);
    assert_int_equal(ack.initiate_tag, 2);
    assert_int_equal(ack.initial_tsn, 200);
    assert_true(ack.forward_tsn);
    assert_true(ack.reconfig);
    assert_int_equal(ack.cookie_len, 5);
    assert_memory_equal(ack.cookie, "zqck!", 5);
    assert_null(ack.unrecognized); /* type 8 is the peer reporting, known to zq */
}

static void init_without_extensions_has_no_parameters(void **state)
{
    (void)state;
    static const uint8_t plain[] = {
        0x01, 0x00, 0x00, 0x14, /* INIT, length 20 */
        0x00, 0x00, 0x00, 0x07, /*   initiate tag 7 */
        0x00, 0x00, 0x10, 0x00, /*   a_rwnd 4096 */
        0x00, 0x01, 0x00, 0x01, /*   1 outbound, 1 inbound stream */
        0xff, 0xff, 0xff, 0xff, /*   initial TSN */
    };
    sctp_init_chunk_t init = {.initiate_tag = 7, .a_rwnd = 4096, .outbound_streams = 1,
                              .inbound_streams = 1, .initial_tsn = 0xFFFFFFFFu};
    expect_written(write_init, &init, plain, sizeof plain);
    sctp_init_chunk_t back;
    sctp_chunk_t c = chunk_of(plain, sizeof plain);
    assert_int_equal(sctp_init_parse(&c, &back), ZQ_OK);
    assert_false(back.forward_tsn);
    assert_false(back.reconfig);
    assert_int_equal(back.initial_tsn, 0xFFFFFFFFu);
}

/* ---- Rules and malformed input --------------------------------------------------------------- */

static void zero_initiate_tag_is_malformed(void **state)
{
    (void)state;
    uint8_t chunk[sizeof zq_init];
    memcpy(chunk, zq_init, sizeof chunk);
    memset(chunk + 4, 0, 4);
    sctp_chunk_t c = chunk_of(chunk, sizeof chunk);
    sctp_init_chunk_t init;
    assert_int_equal(sctp_init_parse(&c, &init), ZQ_ERR_MALFORMED);
}

static void zero_stream_counts_parse_for_the_association_to_abort(void **state)
{
    (void)state;
    uint8_t chunk[sizeof zq_init];
    memcpy(chunk, zq_init, sizeof chunk);
    memset(chunk + 12, 0, 4);
    sctp_chunk_t c = chunk_of(chunk, sizeof chunk);
    sctp_init_chunk_t init;
    assert_int_equal(sctp_init_parse(&c, &init), ZQ_OK);
    assert_int_equal(init.outbound_streams, 0);
    assert_int_equal(init.inbound_streams, 0);
}

static void init_shorter_than_its_fixed_part_is_malformed(void **state)
{
    (void)state;
    for (size_t value_len = 0; value_len < 16; value_len++) {
        sctp_chunk_t c = {.type = SCTP_CHUNK_INIT, .length = (uint16_t)(4 + value_len),
                          .value = zq_init + 4, .value_len = value_len};
        sctp_init_chunk_t init;
        assert_int_equal(sctp_init_parse(&c, &init), ZQ_ERR_MALFORMED);
    }
}

static void parameter_with_bad_length_is_malformed(void **state)
{
    (void)state;
    uint8_t chunk[sizeof zq_init];
    sctp_init_chunk_t init;
    for (uint8_t length = 0; length < 4; length++) {
        memcpy(chunk, zq_init, sizeof chunk);
        chunk[23] = length; /* Supported Extensions too short for its header */
        sctp_chunk_t c = chunk_of(chunk, sizeof chunk);
        assert_int_equal(sctp_init_parse(&c, &init), ZQ_ERR_MALFORMED);
    }
    memcpy(chunk, zq_init, sizeof chunk);
    chunk[31] = 0x05; /* Forward-TSN-Supported claims a byte the chunk does not have */
    sctp_chunk_t c = chunk_of(chunk, sizeof chunk);
    assert_int_equal(sctp_init_parse(&c, &init), ZQ_ERR_MALFORMED);
    memcpy(chunk, zq_init, sizeof chunk);
    chunk[3] = 0x1e; /* the chunk ends 2 bytes into Forward-TSN-Supported */
    c = chunk_of(chunk, sizeof chunk);
    assert_int_equal(sctp_init_parse(&c, &init), ZQ_ERR_MALFORMED);
}

static void first_state_cookie_counts(void **state)
{
    (void)state;
    static const uint8_t two_cookies[] = {
        0x02, 0x00, 0x00, 0x20, /* INIT ACK, length 32 */
        0x00, 0x00, 0x00, 0x09, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01,
        0x00, 0x00, 0x00, 0x01, /*   fixed part */
        0x00, 0x07, 0x00, 0x06, /*   State Cookie, length 6 */
        0x61, 0x62, 0x00, 0x00, /*     "ab", 2 bytes of padding */
        0x00, 0x07, 0x00, 0x04, /*   another, empty State Cookie */
    };
    sctp_chunk_t c = chunk_of(two_cookies, sizeof two_cookies);
    sctp_init_chunk_t ack;
    assert_int_equal(sctp_init_parse(&c, &ack), ZQ_OK);
    assert_int_equal(ack.cookie_len, 2);
    assert_memory_equal(ack.cookie, "ab", 2);
}

static void unrecognized_span_that_is_not_tlvs_fails_the_writer(void **state)
{
    (void)state;
    sctp_init_chunk_t ack = {.initiate_tag = 2, .unrecognized = u8("\xc0\x42\x00"),
                             .unrecognized_len = 3};
    expect_write_fails(write_init_ack, &ack);
    zq_reader_t r = zq_reader(ack.unrecognized, ack.unrecognized_len);
    const uint8_t *tlv;
    size_t tlv_len;
    assert_int_equal(sctp_init_next_unrecognized(&r, &tlv, &tlv_len), ZQ_ERR_MALFORMED);
}

static void init_ack_beyond_the_16_bit_length_fails_the_writer(void **state)
{
    (void)state;
    static uint8_t cookie[65536];
    static uint8_t buf[70000];
    /* 16 fixed + 4 + 65511 = 65531 is the most a chunk value holds. */
    sctp_init_chunk_t ack = {.initiate_tag = 2, .cookie = cookie, .cookie_len = 65511};
    zq_writer_t w = zq_writer(buf, sizeof buf);
    sctp_init_write(&w, SCTP_CHUNK_INIT_ACK, &ack);
    assert_false(w.failed);
    assert_int_equal(zq_load_be16(buf + 2), 65535);
    ack.cookie_len = 65512;
    w = zq_writer(buf, sizeof buf);
    sctp_init_write(&w, SCTP_CHUNK_INIT_ACK, &ack);
    assert_true(w.failed);
    assert_int_equal(w.len, 0); /* refused before the first byte */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(usrsctp_init_parses),
        cmocka_unit_test(usrsctp_init_rewrites_in_zq_form),
        cmocka_unit_test(dcsctp_like_init_parses),
        cmocka_unit_test(init_length_may_count_the_last_parameter_padding),
        cmocka_unit_test(usrsctp_init_ack_parses_with_its_cookie),
        cmocka_unit_test(unknown_parameter_00_stops_processing),
        cmocka_unit_test(unknown_parameter_01_stops_and_reports),
        cmocka_unit_test(unknown_parameter_10_is_skipped),
        cmocka_unit_test(unknown_parameter_11_is_skipped_and_reported),
        cmocka_unit_test(reported_parameters_are_taken_out_of_the_span),
        cmocka_unit_test(init_ack_echoes_each_reported_parameter),
        cmocka_unit_test(init_ack_parses_cookie_and_ignores_unrecognized_parameter),
        cmocka_unit_test(init_without_extensions_has_no_parameters),
        cmocka_unit_test(zero_initiate_tag_is_malformed),
        cmocka_unit_test(zero_stream_counts_parse_for_the_association_to_abort),
        cmocka_unit_test(init_shorter_than_its_fixed_part_is_malformed),
        cmocka_unit_test(parameter_with_bad_length_is_malformed),
        cmocka_unit_test(first_state_cookie_counts),
        cmocka_unit_test(unrecognized_span_that_is_not_tlvs_fails_the_writer),
        cmocka_unit_test(init_ack_beyond_the_16_bit_length_fails_the_writer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
