/* SCTP packets: the CRC32c (RFC 3720 B.4 vectors, a real usrsctp packet), the common header,
 * the chunk walk with its padding rules (RFC 9260 §3.2), the builder and the TLV framing. */
#include "sctp_packet_test.h"

/* ---- CRC32c (RFC 9260 Appendix B) ------------------------------------------------------------ */

/* Bit at a time, straight from the polynomial: the reference the tables are checked against. */
static uint32_t crc32c_bitwise(const uint8_t *p, size_t len)
{
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < len; i++) {
        crc ^= p[i];
        for (int bit = 0; bit < 8; bit++) {
            crc = (crc & 1u) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
        }
    }
    return ~crc;
}

static void crc32c_matches_rfc3720_b4_vectors(void **state)
{
    (void)state;
    uint8_t buf[32];
    memset(buf, 0x00, sizeof buf);
    assert_int_equal(sctp_crc32c(buf, sizeof buf), 0x8A9136AAu);
    memset(buf, 0xFF, sizeof buf);
    assert_int_equal(sctp_crc32c(buf, sizeof buf), 0x62A8AB43u);
    for (size_t i = 0; i < sizeof buf; i++) {
        buf[i] = (uint8_t)i;
    }
    assert_int_equal(sctp_crc32c(buf, sizeof buf), 0x46DD794Eu);
    for (size_t i = 0; i < sizeof buf; i++) {
        buf[i] = (uint8_t)(31 - i);
    }
    assert_int_equal(sctp_crc32c(buf, sizeof buf), 0x113FDB5Cu);
    /* B.4's last vector: an iSCSI SCSI Read (10) command PDU, 48 bytes. */
    static const uint8_t read10[48] = {
        0x01, 0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
        0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    };
    assert_int_equal(sctp_crc32c(read10, sizeof read10), 0xD9963A56u);
}

static void crc32c_matches_check_value(void **state)
{
    (void)state;
    assert_int_equal(sctp_crc32c((const uint8_t *)"123456789", 9), 0xE3069283u);
    assert_int_equal(sctp_crc32c(NULL, 0), 0);
}

static void crc32c_slicing_matches_bitwise_at_every_length_and_alignment(void **state)
{
    (void)state;
    uint8_t buf[96];
    for (size_t i = 0; i < sizeof buf; i++) {
        buf[i] = (uint8_t)(i * 37 + 11);
    }
    for (size_t off = 0; off < 8; off++) {
        for (size_t len = 0; len + off <= sizeof buf; len++) {
            assert_int_equal(sctp_crc32c(buf + off, len), crc32c_bitwise(buf + off, len));
        }
    }
}

/* The CPU's CRC32c instruction (where sctp_crc32c() uses it) and the portable tables agree on
 * every length and alignment, continued from any register value; the table path also against
 * the bit-at-a-time definition. */
static void crc32c_instruction_and_tables_agree(void **state)
{
    (void)state;
    static uint8_t buf[1300];
    for (size_t i = 0; i < sizeof buf; i++) {
        buf[i] = (uint8_t)(i * 131 + (i >> 7) * 7 + 3);
    }
    static const uint32_t starts[] = {0, 0xFFFFFFFFu, 0x12345678u};
    for (size_t s = 0; s < sizeof starts / sizeof starts[0]; s++) {
        for (size_t off = 0; off < 8; off++) {
            for (size_t len = 0; len + off <= sizeof buf; len += len < 64 ? 1 : 61) {
                assert_int_equal(sctp_crc32c_update(starts[s], buf + off, len),
                                 sctp_crc32c_update_portable(starts[s], buf + off, len));
            }
        }
    }
    assert_int_equal(sctp_crc32c_update_portable(0, buf, sizeof buf),
                     crc32c_bitwise(buf, sizeof buf));
    print_message("    CRC32c on the CPU's instruction here: %s; portable path: %s\n",
                  sctp_crc32c_hardware() ? "yes" : "no",
                  ZQ_SCTP_CRC32C_SLICE8 ? "slicing-by-8" : "a byte at a time");
}

static void crc32c_update_continues_a_crc(void **state)
{
    (void)state;
    const uint8_t *msg = (const uint8_t *)"The quick brown fox jumps over the lazy dog";
    size_t len = strlen((const char *)msg);
    uint32_t whole = sctp_crc32c(msg, len);
    for (size_t cut = 0; cut <= len; cut++) {
        assert_int_equal(sctp_crc32c_update(sctp_crc32c(msg, cut), msg + cut, len - cut), whole);
    }
}

/* A real INIT from usrsctp 0.9.5 (IPv4 with UDP encapsulation, adaptation layer set), its
 * checksum computed by usrsctp itself: the proof that zq reads the CRC in the right order. */
static const uint8_t usrsctp_init_packet[] = {
    0xe1, 0x9c, 0x13, 0x88, /* ports 57756 -> 5000 */
    0x00, 0x00, 0x00, 0x00, /* verification tag 0 (INIT) */
    0x05, 0xf5, 0x45, 0x44, /* CRC32c 0x4445F505, least significant byte first */
    0x01, 0x00, 0x00, 0x7c, /* INIT, length 124 */
    0x98, 0xdb, 0xae, 0x9a, 0x00, 0x02, 0x00, 0x00, 0x00, 0x0a, 0x08, 0x00, 0xc5, 0xff, 0x93, 0x54,
    0xc0, 0x06, 0x00, 0x08, 0x01, 0x02, 0x03, 0x04, 0x80, 0x00, 0x00, 0x04, 0xc0, 0x00, 0x00, 0x04,
    0x80, 0x08, 0x00, 0x09, 0xc0, 0x0f, 0xc1, 0x80, 0x82, 0x00, 0x00, 0x00, 0x80, 0x02, 0x00, 0x24,
    0x75, 0x88, 0x68, 0xb0, 0x7c, 0x1d, 0x70, 0x63, 0xef, 0x01, 0x35, 0x46, 0xbc, 0x5d, 0x54, 0x7e,
    0x7f, 0xcd, 0xa3, 0xdb, 0xc1, 0xd6, 0xbf, 0x90, 0x0a, 0x80, 0x1e, 0x42, 0x0a, 0xf5, 0xec, 0x65,
    0x80, 0x04, 0x00, 0x06, 0x00, 0x01, 0x00, 0x00, 0x80, 0x03, 0x00, 0x06, 0x80, 0xc1, 0x00, 0x00,
    0x00, 0x0c, 0x00, 0x06, 0x00, 0x05, 0x00, 0x00, 0x00, 0x05, 0x00, 0x08, 0xc0, 0x00, 0x02, 0x02,
    0x00, 0x05, 0x00, 0x08, 0x7f, 0x00, 0x00, 0x01,
};

static void usrsctp_packet_checksum_verifies(void **state)
{
    (void)state;
    sctp_common_header_t h;
    zq_reader_t chunks;
    assert_int_equal(sctp_packet_parse(usrsctp_init_packet, sizeof usrsctp_init_packet, true, &h,
                                       &chunks),
                     ZQ_OK);
    assert_int_equal(h.src_port, 57756);
    assert_int_equal(h.dst_port, 5000);
    assert_int_equal(h.vtag, 0);
    assert_int_equal(h.checksum, 0x4445F505u);
    assert_int_equal(zq_reader_left(&chunks), sizeof usrsctp_init_packet - 12);
}

static void any_flipped_bit_fails_the_checksum(void **state)
{
    (void)state;
    uint8_t pkt[sizeof usrsctp_init_packet];
    sctp_common_header_t h;
    zq_reader_t chunks;
    for (size_t bit = 0; bit < 8 * sizeof pkt; bit++) {
        memcpy(pkt, usrsctp_init_packet, sizeof pkt);
        pkt[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        assert_int_equal(sctp_packet_parse(pkt, sizeof pkt, true, &h, &chunks), ZQ_ERR_INTEGRITY);
        assert_int_equal(zq_reader_left(&chunks), 0);
        /* Without the check the same packet parses: the caller chose not to verify. */
        assert_int_equal(sctp_packet_parse(pkt, sizeof pkt, false, &h, &chunks), ZQ_OK);
    }
}

/* ---- The common header (RFC 9260 §3.1) ------------------------------------------------------- */

/* A COOKIE ACK, its CRC32c computed independently (bitwise, in Python). */
static const uint8_t cookie_ack_packet[] = {
    0x13, 0x88,             /* source port 5000 */
    0x13, 0x88,             /* destination port 5000 */
    0x12, 0x34, 0x56, 0x78, /* verification tag */
    0x67, 0x42, 0xa8, 0x04, /* CRC32c 0x04A84267, least significant byte first */
    0x0b, 0x00, 0x00, 0x04, /* COOKIE ACK, no flags, length 4 */
};

static void parse_reads_the_common_header(void **state)
{
    (void)state;
    sctp_common_header_t h;
    zq_reader_t chunks;
    assert_int_equal(sctp_packet_parse(cookie_ack_packet, sizeof cookie_ack_packet, true, &h,
                                       &chunks),
                     ZQ_OK);
    assert_int_equal(h.src_port, 5000);
    assert_int_equal(h.dst_port, 5000);
    assert_int_equal(h.vtag, 0x12345678u);
    assert_int_equal(h.checksum, 0x04A84267u);
    sctp_chunk_t c;
    assert_int_equal(sctp_packet_next_chunk(&chunks, &c), ZQ_OK);
    assert_int_equal(c.type, SCTP_CHUNK_COOKIE_ACK);
    assert_int_equal(c.flags, 0);
    assert_int_equal(c.length, 4);
    assert_int_equal(c.value_len, 0);
    assert_int_equal(sctp_packet_next_chunk(&chunks, &c), ZQ_ERR_NOT_FOUND);
}

static void parse_rejects_packets_shorter_than_the_header(void **state)
{
    (void)state;
    sctp_common_header_t h;
    zq_reader_t chunks;
    for (size_t len = 0; len < SCTP_COMMON_HEADER_LEN; len++) {
        assert_int_equal(sctp_packet_parse(cookie_ack_packet, len, false, &h, &chunks),
                         ZQ_ERR_TRUNCATED);
    }
}

static void header_only_packet_has_no_chunks(void **state)
{
    (void)state;
    uint8_t pkt[SCTP_COMMON_HEADER_LEN];
    sctp_packet_builder_t b;
    sctp_packet_begin(&b, pkt, sizeof pkt, 1, 2, 3);
    assert_int_equal(sctp_packet_finish(&b), sizeof pkt);
    sctp_common_header_t h;
    zq_reader_t chunks;
    assert_int_equal(sctp_packet_parse(pkt, sizeof pkt, true, &h, &chunks), ZQ_OK);
    sctp_chunk_t c;
    assert_int_equal(sctp_packet_next_chunk(&chunks, &c), ZQ_ERR_NOT_FOUND);
}

/* ---- The chunk walk (§3.2) ------------------------------------------------------------------- */

/* SACK + DATA (3 bytes of user data, 1 byte of padding) + COOKIE ACK in one packet. */
static const uint8_t bundle_packet[] = {
    0x13, 0x88, 0x13, 0x88, /* ports 5000 -> 5000 */
    0xde, 0xad, 0xbe, 0xef, /* verification tag */
    0x74, 0x2d, 0x81, 0xfb, /* CRC32c 0xFB812D74 */
    0x03, 0x00, 0x00, 0x10, /* SACK, length 16 */
    0x00, 0x00, 0x00, 0x10, /*   cumulative TSN ack 16 */
    0x00, 0x01, 0x00, 0x00, /*   a_rwnd 65536 */
    0x00, 0x00, 0x00, 0x00, /*   no gap blocks, no duplicates */
    0x00, 0x03, 0x00, 0x13, /* DATA, flags B|E, length 19 */
    0x00, 0x00, 0x00, 0x11, /*   TSN 17 */
    0x00, 0x01, 0x00, 0x00, /*   stream 1, SSN 0 */
    0x00, 0x00, 0x00, 0x33, /*   PPID 51 (WebRTC string) */
    0x61, 0x62, 0x63, 0x00, /*   "abc" and one byte of padding */
    0x0b, 0x00, 0x00, 0x04, /* COOKIE ACK */
};

static void walk_takes_each_bundled_chunk_and_its_padding(void **state)
{
    (void)state;
    sctp_common_header_t h;
    zq_reader_t chunks;
    assert_int_equal(sctp_packet_parse(bundle_packet, sizeof bundle_packet, true, &h, &chunks),
                     ZQ_OK);
    assert_int_equal(h.vtag, 0xDEADBEEFu);
    sctp_chunk_t c;
    assert_int_equal(sctp_packet_next_chunk(&chunks, &c), ZQ_OK);
    assert_int_equal(c.type, SCTP_CHUNK_SACK);
    assert_int_equal(c.length, 16);
    assert_ptr_equal(c.value, bundle_packet + 16);
    assert_int_equal(c.value_len, 12);
    assert_int_equal(sctp_packet_next_chunk(&chunks, &c), ZQ_OK);
    assert_int_equal(c.type, SCTP_CHUNK_DATA);
    assert_int_equal(c.flags, SCTP_DATA_BEGIN | SCTP_DATA_END);
    assert_int_equal(c.length, 19);
    assert_ptr_equal(c.value, bundle_packet + 32);
    assert_int_equal(c.value_len, 15);
    assert_int_equal(sctp_packet_next_chunk(&chunks, &c), ZQ_OK);
    assert_int_equal(c.type, SCTP_CHUNK_COOKIE_ACK);
    assert_int_equal(sctp_packet_next_chunk(&chunks, &c), ZQ_ERR_NOT_FOUND);
    assert_int_equal(sctp_packet_next_chunk(&chunks, &c), ZQ_ERR_NOT_FOUND);
}

static void walk_accepts_a_final_chunk_without_its_padding(void **state)
{
    (void)state;
    /* Up to the DATA chunk's last value byte: its padding (and the COOKIE ACK) cut off. */
    sctp_common_header_t h;
    zq_reader_t chunks;
    assert_int_equal(sctp_packet_parse(bundle_packet, 47, false, &h, &chunks), ZQ_OK);
    sctp_chunk_t c;
    assert_int_equal(sctp_packet_next_chunk(&chunks, &c), ZQ_OK);
    assert_int_equal(sctp_packet_next_chunk(&chunks, &c), ZQ_OK);
    assert_int_equal(c.type, SCTP_CHUNK_DATA);
    assert_int_equal(c.value_len, 15);
    assert_int_equal(sctp_packet_next_chunk(&chunks, &c), ZQ_ERR_NOT_FOUND);
}

static void walk_ignores_the_value_of_padding_bytes(void **state)
{
    (void)state;
    uint8_t pkt[sizeof bundle_packet];
    memcpy(pkt, bundle_packet, sizeof pkt);
    pkt[47] = 0xFF; /* §3.2: the receiver MUST ignore the padding bytes */
    sctp_common_header_t h;
    zq_reader_t chunks;
    assert_int_equal(sctp_packet_parse(pkt, sizeof pkt, false, &h, &chunks), ZQ_OK);
    sctp_chunk_t c;
    assert_int_equal(sctp_packet_next_chunk(&chunks, &c), ZQ_OK);
    assert_int_equal(sctp_packet_next_chunk(&chunks, &c), ZQ_OK);
    assert_int_equal(sctp_packet_next_chunk(&chunks, &c), ZQ_OK);
    assert_int_equal(c.type, SCTP_CHUNK_COOKIE_ACK);
}

static void chunk_length_below_four_is_malformed_and_stops_the_walk(void **state)
{
    (void)state;
    for (uint8_t length = 0; length < 4; length++) {
        const uint8_t chunks_bytes[] = {
            0x0b, 0x00, 0x00, length, /* a chunk too short for its own header */
            0x0b, 0x00, 0x00, 0x04,   /* a good COOKIE ACK the walk must not reach */
        };
        zq_reader_t r = zq_reader(chunks_bytes, sizeof chunks_bytes);
        sctp_chunk_t c;
        assert_int_equal(sctp_packet_next_chunk(&r, &c), ZQ_ERR_MALFORMED);
        assert_int_equal(sctp_packet_next_chunk(&r, &c), ZQ_ERR_MALFORMED);
    }
}

static void chunk_running_past_the_packet_is_malformed(void **state)
{
    (void)state;
    const uint8_t chunks_bytes[] = {
        0x0a, 0x00, 0x00, 0x09, /* COOKIE ECHO claiming 5 bytes of cookie */
        0x01, 0x02, 0x03, 0x04, /* only 4 there */
    };
    zq_reader_t r = zq_reader(chunks_bytes, sizeof chunks_bytes);
    sctp_chunk_t c;
    assert_int_equal(sctp_packet_next_chunk(&r, &c), ZQ_ERR_MALFORMED);
    assert_int_equal(sctp_packet_next_chunk(&r, &c), ZQ_ERR_MALFORMED);
    /* A length of 0xFFFF in a small packet, and a header cut short. */
    const uint8_t huge[] = {0x00, 0x03, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01};
    r = zq_reader(huge, sizeof huge);
    assert_int_equal(sctp_packet_next_chunk(&r, &c), ZQ_ERR_MALFORMED);
    for (size_t len = 1; len < 4; len++) {
        r = zq_reader(huge, len);
        assert_int_equal(sctp_packet_next_chunk(&r, &c), ZQ_ERR_MALFORMED);
    }
}

static void stray_bytes_after_the_last_chunk_are_malformed(void **state)
{
    (void)state;
    for (size_t extra = 1; extra < 4; extra++) {
        uint8_t chunks_bytes[8 + 3] = {
            0x07, 0x00, 0x00, 0x08, /* SHUTDOWN */
            0x00, 0x00, 0x00, 0x01, /*   cumulative TSN ack 1: no padding due */
        };
        zq_reader_t r = zq_reader(chunks_bytes, 8 + extra); /* then 1-3 zero bytes */
        sctp_chunk_t c;
        assert_int_equal(sctp_packet_next_chunk(&r, &c), ZQ_OK);
        assert_int_equal(sctp_packet_next_chunk(&r, &c), ZQ_ERR_MALFORMED);
    }
    /* More padding than the chunk needs is not padding either. */
    const uint8_t over_padded[] = {
        0x0a, 0x00, 0x00, 0x05, 0xaa, 0x00, 0x00, 0x00, /* COOKIE ECHO, 1 byte + 3 padding */
        0x00, 0x00, 0x00, 0x00,                         /* 4 more zeros: a length-0 chunk */
    };
    zq_reader_t r = zq_reader(over_padded, sizeof over_padded);
    sctp_chunk_t c;
    assert_int_equal(sctp_packet_next_chunk(&r, &c), ZQ_OK);
    assert_int_equal(c.value_len, 1);
    assert_int_equal(sctp_packet_next_chunk(&r, &c), ZQ_ERR_MALFORMED);
}

/* ---- The builder ----------------------------------------------------------------------------- */

static void builder_stores_the_checksum_least_significant_byte_first(void **state)
{
    (void)state;
    uint8_t pkt[64];
    sctp_packet_builder_t b;
    sctp_packet_begin(&b, pkt, sizeof pkt, 5000, 5000, 0x12345678u);
    assert_int_equal(sctp_packet_space(&b), sizeof pkt - 12);
    sctp_empty_chunk_write(&b.w, SCTP_CHUNK_COOKIE_ACK, 0);
    assert_int_equal(sctp_packet_space(&b), sizeof pkt - 16);
    assert_int_equal(sctp_packet_finish(&b), sizeof cookie_ack_packet);
    assert_memory_equal(pkt, cookie_ack_packet, sizeof cookie_ack_packet);
    /* Finishing again (say after one more look) gives the same checksum. */
    assert_int_equal(sctp_packet_finish(&b), sizeof cookie_ack_packet);
    assert_memory_equal(pkt, cookie_ack_packet, sizeof cookie_ack_packet);
}

static void builder_reproduces_a_bundle_byte_for_byte(void **state)
{
    (void)state;
    uint8_t pkt[sizeof bundle_packet];
    sctp_packet_builder_t b;
    sctp_packet_begin(&b, pkt, sizeof pkt, 5000, 5000, 0xDEADBEEFu);
    sctp_sack_chunk_t sack = {.cum_tsn = 16, .a_rwnd = 65536};
    sctp_sack_write(&b.w, &sack);
    sctp_data_chunk_t data = {
        .flags = SCTP_DATA_BEGIN | SCTP_DATA_END, .tsn = 17, .stream = 1, .ppid = 51,
        .data = (const uint8_t *)"abc", .len = 3,
    };
    sctp_data_write(&b.w, &data);
    sctp_empty_chunk_write(&b.w, SCTP_CHUNK_COOKIE_ACK, 0);
    assert_int_equal(sctp_packet_finish(&b), sizeof bundle_packet);
    assert_memory_equal(pkt, bundle_packet, sizeof bundle_packet);
}

static void builder_never_writes_past_its_buffer(void **state)
{
    (void)state;
    for (size_t cap = 0; cap <= sizeof bundle_packet + 4; cap++) {
        uint8_t buf[GUARD_LEN + sizeof bundle_packet + 4 + GUARD_LEN];
        memset(buf, GUARD, sizeof buf);
        sctp_packet_builder_t b;
        sctp_packet_begin(&b, buf + GUARD_LEN, cap, 5000, 5000, 0xDEADBEEFu);
        sctp_sack_chunk_t sack = {.cum_tsn = 16, .a_rwnd = 65536};
        sctp_sack_write(&b.w, &sack);
        sctp_data_chunk_t data = {.flags = 3, .tsn = 17, .stream = 1, .ppid = 51,
                                  .data = (const uint8_t *)"abc", .len = 3};
        sctp_data_write(&b.w, &data);
        sctp_empty_chunk_write(&b.w, SCTP_CHUNK_COOKIE_ACK, 0);
        size_t len = sctp_packet_finish(&b);
        assert_int_equal(len, cap >= sizeof bundle_packet ? sizeof bundle_packet : 0);
        if (len == 0) {
            assert_int_equal(sctp_packet_space(&b), 0);
        }
        for (size_t i = 0; i < GUARD_LEN; i++) {
            assert_int_equal(buf[i], GUARD);
        }
        size_t end = GUARD_LEN + (len > 0 ? len : cap);
        for (size_t i = end; i < sizeof buf; i++) {
            assert_int_equal(buf[i], GUARD);
        }
    }
}

static void finish_pads_an_unpadded_last_chunk(void **state)
{
    (void)state;
    uint8_t pkt[32];
    memset(pkt, GUARD, sizeof pkt);
    sctp_packet_builder_t b;
    sctp_packet_begin(&b, pkt, sizeof pkt, 1, 2, 3);
    sctp_chunk_write_header(&b.w, SCTP_CHUNK_COOKIE_ECHO, 0, 1);
    zq_write_u8(&b.w, 0xAA); /* a hand-made chunk, padding left to finish */
    assert_int_equal(sctp_packet_finish(&b), 20);
    assert_int_equal(pkt[16], 0xAA);
    assert_int_equal(pkt[17], 0);
    assert_int_equal(pkt[18], 0);
    assert_int_equal(pkt[19], 0);
    assert_int_equal(pkt[20], GUARD);
    sctp_common_header_t h;
    zq_reader_t chunks;
    assert_int_equal(sctp_packet_parse(pkt, 20, true, &h, &chunks), ZQ_OK);
}

static void chunk_header_refuses_values_beyond_the_16_bit_length(void **state)
{
    (void)state;
    uint8_t buf[8];
    zq_writer_t w = zq_writer(buf, sizeof buf);
    sctp_chunk_write_header(&w, SCTP_CHUNK_DATA, 0, 65531);
    assert_false(w.failed);
    assert_int_equal(zq_load_be16(buf + 2), 65535);
    w = zq_writer(buf, sizeof buf);
    sctp_chunk_write_header(&w, SCTP_CHUNK_DATA, 0, 65532);
    assert_true(w.failed);
    assert_int_equal(w.len, 0);
    w = zq_writer(buf, sizeof buf);
    sctp_tlv_write_header(&w, 7, 65532);
    assert_true(w.failed);
}

/* ---- TLVs: parameters and error causes (§3.2.1) ---------------------------------------------- */

static const uint8_t tlv_run[] = {
    0x80, 0x08, 0x00, 0x06, /* type 0x8008, length 6 */
    0xc0, 0x82, 0x00, 0x00, /*   two bytes of value, two of padding */
    0xc0, 0x00, 0x00, 0x04, /* type 0xC000, no value */
    0x00, 0x07, 0x00, 0x05, /* type 7, length 5 */
    0x99,                   /*   one byte of value, its padding left out (§3.2) */
};

static void tlv_walk_reads_types_values_and_skips_padding(void **state)
{
    (void)state;
    zq_reader_t r = zq_reader(tlv_run, sizeof tlv_run);
    sctp_tlv_t t;
    assert_int_equal(sctp_tlv_next(&r, &t), ZQ_OK);
    assert_int_equal(t.type, 0x8008);
    assert_int_equal(t.len, 2);
    assert_ptr_equal(t.value, tlv_run + 4);
    assert_int_equal(sctp_tlv_next(&r, &t), ZQ_OK);
    assert_int_equal(t.type, 0xC000);
    assert_int_equal(t.len, 0);
    assert_int_equal(sctp_tlv_next(&r, &t), ZQ_OK);
    assert_int_equal(t.type, 7);
    assert_int_equal(t.len, 1);
    assert_int_equal(t.value[0], 0x99);
    assert_int_equal(sctp_tlv_next(&r, &t), ZQ_ERR_NOT_FOUND);
}

static void tlv_with_bad_length_is_malformed(void **state)
{
    (void)state;
    const uint8_t short_len[] = {0x00, 0x07, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00};
    zq_reader_t r = zq_reader(short_len, sizeof short_len);
    sctp_tlv_t t;
    assert_int_equal(sctp_tlv_next(&r, &t), ZQ_ERR_MALFORMED);
    assert_int_equal(sctp_tlv_next(&r, &t), ZQ_ERR_MALFORMED);
    const uint8_t past_end[] = {0x00, 0x07, 0x00, 0x09, 0x01, 0x02, 0x03, 0x04};
    r = zq_reader(past_end, sizeof past_end);
    assert_int_equal(sctp_tlv_next(&r, &t), ZQ_ERR_MALFORMED);
    for (size_t len = 1; len < 4; len++) {
        r = zq_reader(tlv_run, len); /* a header cut short */
        assert_int_equal(sctp_tlv_next(&r, &t), ZQ_ERR_MALFORMED);
    }
    r = zq_reader(tlv_run, sizeof tlv_run);
    r.failed = true; /* an already failed reader is not "the end" */
    assert_int_equal(sctp_tlv_next(&r, &t), ZQ_ERR_MALFORMED);
}

static void write_tlv_run(zq_writer_t *w, const void *arg)
{
    (void)arg;
    sctp_tlv_write(w, 0x8008, "\xc0\x82", 2);
    sctp_tlv_write(w, 0xC000, NULL, 0);
    sctp_tlv_write_header(w, 7, 1);
    zq_write_u8(w, 0x99);
}

static void tlv_write_pads_each_value(void **state)
{
    (void)state;
    expect_written(write_tlv_run, NULL, tlv_run, sizeof tlv_run);
    assert_int_equal(sctp_padding(0), 0);
    assert_int_equal(sctp_padding(1), 3);
    assert_int_equal(sctp_padding(2), 2);
    assert_int_equal(sctp_padding(3), 1);
    assert_int_equal(sctp_padding(4), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(crc32c_matches_rfc3720_b4_vectors),
        cmocka_unit_test(crc32c_matches_check_value),
        cmocka_unit_test(crc32c_slicing_matches_bitwise_at_every_length_and_alignment),
        cmocka_unit_test(crc32c_instruction_and_tables_agree),
        cmocka_unit_test(crc32c_update_continues_a_crc),
        cmocka_unit_test(usrsctp_packet_checksum_verifies),
        cmocka_unit_test(any_flipped_bit_fails_the_checksum),
        cmocka_unit_test(parse_reads_the_common_header),
        cmocka_unit_test(parse_rejects_packets_shorter_than_the_header),
        cmocka_unit_test(header_only_packet_has_no_chunks),
        cmocka_unit_test(walk_takes_each_bundled_chunk_and_its_padding),
        cmocka_unit_test(walk_accepts_a_final_chunk_without_its_padding),
        cmocka_unit_test(walk_ignores_the_value_of_padding_bytes),
        cmocka_unit_test(chunk_length_below_four_is_malformed_and_stops_the_walk),
        cmocka_unit_test(chunk_running_past_the_packet_is_malformed),
        cmocka_unit_test(stray_bytes_after_the_last_chunk_are_malformed),
        cmocka_unit_test(builder_stores_the_checksum_least_significant_byte_first),
        cmocka_unit_test(builder_reproduces_a_bundle_byte_for_byte),
        cmocka_unit_test(builder_never_writes_past_its_buffer),
        cmocka_unit_test(finish_pads_an_unpadded_last_chunk),
        cmocka_unit_test(chunk_header_refuses_values_beyond_the_16_bit_length),
        cmocka_unit_test(tlv_walk_reads_types_values_and_skips_padding),
        cmocka_unit_test(tlv_with_bad_length_is_malformed),
        cmocka_unit_test(tlv_write_pads_each_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
