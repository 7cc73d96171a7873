/* The data-transfer chunks: DATA (RFC 9260 §3.3.1), SACK (§3.3.4) and FORWARD TSN (RFC 3758
 * §3.2), byte for byte both ways, with their flags, their lists and their malformed forms. */
#include "sctp_packet_test.h"

/* ---- DATA ------------------------------------------------------------------------------------ */

static void write_data(zq_writer_t *w, const void *arg)
{
    sctp_data_write(w, arg);
}

static const uint8_t data_chunk[] = {
    0x00, 0x03, 0x00, 0x15, /* DATA, flags B|E, length 21 */
    0x89, 0xab, 0xcd, 0xef, /*   TSN */
    0x00, 0x07, 0x01, 0x02, /*   stream 7, SSN 258 */
    0x00, 0x00, 0x00, 0x35, /*   PPID 53 (WebRTC binary) */
    0x68, 0x65, 0x6c, 0x6c, /*   "hello" */
    0x6f, 0x00, 0x00, 0x00, /*   3 bytes of padding */
};

static void data_chunk_round_trips(void **state)
{
    (void)state;
    sctp_chunk_t c = chunk_of(data_chunk, sizeof data_chunk);
    assert_int_equal(c.type, SCTP_CHUNK_DATA);
    sctp_data_chunk_t d;
    assert_int_equal(sctp_data_parse(&c, &d), ZQ_OK);
    assert_int_equal(d.flags, SCTP_DATA_BEGIN | SCTP_DATA_END);
    assert_int_equal(d.tsn, 0x89abcdefu);
    assert_int_equal(d.stream, 7);
    assert_int_equal(d.ssn, 258);
    assert_int_equal(d.ppid, 53);
    assert_int_equal(d.len, 5);
    assert_ptr_equal(d.data, data_chunk + 16);
    expect_written(write_data, &d, data_chunk, sizeof data_chunk);
    assert_int_equal(sctp_data_size(5), sizeof data_chunk);
}

/* Every combination of E, B, U and I (RFC 7053), and a reserved bit, kept as they came. */
static void data_flags_round_trip_in_every_combination(void **state)
{
    (void)state;
    for (unsigned flags = 0; flags < 32; flags++) {
        uint8_t chunk[sizeof data_chunk];
        memcpy(chunk, data_chunk, sizeof chunk);
        chunk[1] = (uint8_t)((flags & 15u) | (flags & 16u) << 3); /* bit 4 -> reserved 0x80 */
        sctp_chunk_t c = chunk_of(chunk, sizeof chunk);
        sctp_data_chunk_t d;
        assert_int_equal(sctp_data_parse(&c, &d), ZQ_OK);
        assert_int_equal(d.flags, chunk[1]);
        assert_int_equal((d.flags & SCTP_DATA_END) != 0, (flags & 1u) != 0);
        assert_int_equal((d.flags & SCTP_DATA_BEGIN) != 0, (flags & 2u) != 0);
        assert_int_equal((d.flags & SCTP_DATA_UNORDERED) != 0, (flags & 4u) != 0);
        assert_int_equal((d.flags & SCTP_DATA_IMMEDIATE) != 0, (flags & 8u) != 0);
        expect_written(write_data, &d, chunk, sizeof chunk);
    }
}

static const uint8_t empty_data_chunk[] = {
    0x00, 0x07, 0x00, 0x10, /* DATA, flags U|B|E, length 16: no user data */
    0x00, 0x00, 0x00, 0x01, /*   TSN 1 */
    0xff, 0xff, 0x00, 0x00, /*   stream 65535, SSN 0 */
    0x00, 0x00, 0x00, 0x33, /*   PPID 51 */
};

static void data_without_user_data_parses_for_the_no_user_data_abort(void **state)
{
    (void)state;
    sctp_chunk_t c = chunk_of(empty_data_chunk, sizeof empty_data_chunk);
    sctp_data_chunk_t d;
    assert_int_equal(sctp_data_parse(&c, &d), ZQ_OK);
    assert_int_equal(d.flags, SCTP_DATA_UNORDERED | SCTP_DATA_BEGIN | SCTP_DATA_END);
    assert_int_equal(d.tsn, 1);
    assert_int_equal(d.stream, 65535);
    assert_int_equal(d.len, 0);
    expect_written(write_data, &d, empty_data_chunk, sizeof empty_data_chunk);
    assert_int_equal(sctp_data_size(0), 16);
}

static void data_shorter_than_its_header_is_malformed(void **state)
{
    (void)state;
    for (size_t value_len = 0; value_len < 12; value_len++) {
        sctp_chunk_t c = {.type = SCTP_CHUNK_DATA, .length = (uint16_t)(4 + value_len),
                          .value = data_chunk + 4, .value_len = value_len};
        sctp_data_chunk_t d;
        assert_int_equal(sctp_data_parse(&c, &d), ZQ_ERR_MALFORMED);
    }
}

static void data_size_counts_header_and_padding(void **state)
{
    (void)state;
    assert_int_equal(sctp_data_size(1), 20);
    assert_int_equal(sctp_data_size(4), 20);
    assert_int_equal(sctp_data_size(1184), 1200);
    assert_int_equal(sctp_data_size(1185), 1204);
}

static void data_beyond_the_16_bit_length_fails_the_writer(void **state)
{
    (void)state;
    static uint8_t payload[65536];
    static uint8_t buf[70000];
    sctp_data_chunk_t d = {.data = payload, .len = 65520}; /* 16 + 65520 > 65535 */
    zq_writer_t w = zq_writer(buf, sizeof buf);
    sctp_data_write(&w, &d);
    assert_true(w.failed);
    d.len = 65519;
    w = zq_writer(buf, sizeof buf);
    sctp_data_write(&w, &d);
    assert_false(w.failed);
    assert_int_equal(w.len, 65536);
}

/* ---- SACK ------------------------------------------------------------------------------------ */

static void write_sack(zq_writer_t *w, const void *arg)
{
    sctp_sack_write(w, arg);
}

static const uint8_t sack_chunk[] = {
    0x03, 0x00, 0x00, 0x24, /* SACK, length 36 */
    0x00, 0x00, 0x03, 0xe8, /*   cumulative TSN ack 1000 */
    0x00, 0x01, 0x80, 0x00, /*   a_rwnd 98304 */
    0x00, 0x02, 0x00, 0x03, /*   2 gap blocks, 3 duplicate TSNs */
    0x00, 0x02, 0x00, 0x03, /*   gap block: 1002-1003 */
    0x00, 0x05, 0x00, 0x05, /*   gap block: 1005 */
    0x00, 0x00, 0x03, 0xe5, /*   duplicate TSN 997 */
    0x00, 0x00, 0x03, 0xe6, /*   duplicate TSN 998 */
    0x00, 0x00, 0x03, 0xe6, /*   duplicate TSN 998 again */
};

static void sack_with_gap_blocks_and_duplicates_round_trips(void **state)
{
    (void)state;
    sctp_chunk_t c = chunk_of(sack_chunk, sizeof sack_chunk);
    sctp_sack_chunk_t s;
    assert_int_equal(sctp_sack_parse(&c, &s), ZQ_OK);
    assert_int_equal(s.cum_tsn, 1000);
    assert_int_equal(s.a_rwnd, 98304);
    assert_int_equal(s.n_gaps, 2);
    assert_int_equal(s.gaps[0].start, 2);
    assert_int_equal(s.gaps[0].end, 3);
    assert_int_equal(s.gaps[1].start, 5);
    assert_int_equal(s.gaps[1].end, 5);
    assert_int_equal(s.n_dups, 3);
    assert_int_equal(s.dups[0], 997);
    assert_int_equal(s.dups[1], 998);
    assert_int_equal(s.dups[2], 998);
    assert_false(s.truncated);
    expect_written(write_sack, &s, sack_chunk, sizeof sack_chunk);
}

static const uint8_t plain_sack_chunk[] = {
    0x03, 0x00, 0x00, 0x10, /* SACK, length 16 */
    0xff, 0xff, 0xff, 0xff, /*   cumulative TSN ack 2^32 - 1 */
    0x00, 0x00, 0x00, 0x00, /*   a_rwnd 0 */
    0x00, 0x00, 0x00, 0x00, /*   no gap blocks, no duplicates */
};

static void sack_without_lists_round_trips(void **state)
{
    (void)state;
    sctp_chunk_t c = chunk_of(plain_sack_chunk, sizeof plain_sack_chunk);
    sctp_sack_chunk_t s;
    assert_int_equal(sctp_sack_parse(&c, &s), ZQ_OK);
    assert_int_equal(s.cum_tsn, 0xFFFFFFFFu);
    assert_int_equal(s.a_rwnd, 0);
    assert_int_equal(s.n_gaps, 0);
    assert_int_equal(s.n_dups, 0);
    expect_written(write_sack, &s, plain_sack_chunk, sizeof plain_sack_chunk);
}

/* More blocks and dups than kept: the first ones are kept, the dups read past the skipped
 * blocks, and the chunk is flagged. */
static void sack_with_more_blocks_than_kept_is_truncated(void **state)
{
    (void)state;
    enum { GAPS = ZQ_SCTP_MAX_GAP_BLOCKS + 3, DUPS = ZQ_SCTP_MAX_DUP_TSNS + 1 };
    static uint8_t chunk[16 + 4 * (GAPS + DUPS)];
    zq_store_be16(chunk, 0x0300);                       /* SACK */
    zq_store_be16(chunk + 2, sizeof chunk);             /* length */
    zq_store_be32(chunk + 4, 500);                      /* cumulative TSN ack */
    zq_store_be32(chunk + 8, 1000);                     /* a_rwnd */
    zq_store_be16(chunk + 12, GAPS);
    zq_store_be16(chunk + 14, DUPS);
    for (uint16_t i = 0; i < GAPS; i++) {
        zq_store_be16(chunk + 16 + 4 * i, (uint16_t)(2 + 3 * i)); /* start */
        zq_store_be16(chunk + 18 + 4 * i, (uint16_t)(3 + 3 * i)); /* end */
    }
    for (uint32_t i = 0; i < DUPS; i++) {
        zq_store_be32(chunk + 16 + 4 * GAPS + 4 * i, 400 + i);
    }
    sctp_chunk_t c = chunk_of(chunk, sizeof chunk);
    sctp_sack_chunk_t s;
    assert_int_equal(sctp_sack_parse(&c, &s), ZQ_OK);
    assert_true(s.truncated);
    assert_int_equal(s.n_gaps, ZQ_SCTP_MAX_GAP_BLOCKS);
    assert_int_equal(s.n_dups, ZQ_SCTP_MAX_DUP_TSNS);
    assert_int_equal(s.gaps[ZQ_SCTP_MAX_GAP_BLOCKS - 1].start,
                     2 + 3 * (ZQ_SCTP_MAX_GAP_BLOCKS - 1));
    assert_int_equal(s.dups[0], 400);
    assert_int_equal(s.dups[ZQ_SCTP_MAX_DUP_TSNS - 1], 400 + ZQ_SCTP_MAX_DUP_TSNS - 1);
    /* Only the dups overflowing truncates too. */
    zq_store_be16(chunk + 12, 0);
    zq_store_be16(chunk + 14, (uint16_t)(GAPS + DUPS));
    c = chunk_of(chunk, sizeof chunk);
    assert_int_equal(sctp_sack_parse(&c, &s), ZQ_OK);
    assert_true(s.truncated);
    assert_int_equal(s.n_gaps, 0);
}

static void sack_whose_counts_lie_is_malformed(void **state)
{
    (void)state;
    uint8_t chunk[sizeof sack_chunk];
    sctp_sack_chunk_t s;
    memcpy(chunk, sack_chunk, sizeof chunk);
    chunk[13] = 3; /* 3 gap blocks: one more than there is room for */
    sctp_chunk_t c = chunk_of(chunk, sizeof chunk);
    assert_int_equal(sctp_sack_parse(&c, &s), ZQ_ERR_MALFORMED);
    memcpy(chunk, sack_chunk, sizeof chunk);
    chunk[15] = 2; /* 2 dups: 4 bytes left over */
    c = chunk_of(chunk, sizeof chunk);
    assert_int_equal(sctp_sack_parse(&c, &s), ZQ_ERR_MALFORMED);
    memcpy(chunk, sack_chunk, sizeof chunk);
    chunk[12] = 0xff; /* 65282 gap blocks */
    c = chunk_of(chunk, sizeof chunk);
    assert_int_equal(sctp_sack_parse(&c, &s), ZQ_ERR_MALFORMED);
    for (size_t value_len = 0; value_len < 12; value_len++) {
        c = (sctp_chunk_t){.type = SCTP_CHUNK_SACK, .length = (uint16_t)(4 + value_len),
                           .value = plain_sack_chunk + 4, .value_len = value_len};
        assert_int_equal(sctp_sack_parse(&c, &s), ZQ_ERR_MALFORMED);
    }
    /* An odd length: 2 bytes of a gap block. */
    c = (sctp_chunk_t){.type = SCTP_CHUNK_SACK, .length = 18, .value = sack_chunk + 4,
                       .value_len = 14};
    assert_int_equal(sctp_sack_parse(&c, &s), ZQ_ERR_MALFORMED);
}

static void sack_with_more_entries_than_the_arrays_fails_the_writer(void **state)
{
    (void)state;
    sctp_sack_chunk_t s = {.n_gaps = ZQ_SCTP_MAX_GAP_BLOCKS + 1};
    expect_write_fails(write_sack, &s);
    s = (sctp_sack_chunk_t){.n_dups = ZQ_SCTP_MAX_DUP_TSNS + 1};
    expect_write_fails(write_sack, &s);
}

/* ---- FORWARD TSN ----------------------------------------------------------------------------- */

static void write_forward_tsn(zq_writer_t *w, const void *arg)
{
    sctp_forward_tsn_write(w, arg);
}

static const uint8_t forward_tsn_chunk[] = {
    0xc0, 0x00, 0x00, 0x10, /* FORWARD TSN, length 16 */
    0x00, 0x00, 0x10, 0x00, /*   new cumulative TSN 4096 */
    0x00, 0x01, 0x00, 0x05, /*   stream 1, SSN 5 */
    0x00, 0x09, 0xff, 0xff, /*   stream 9, SSN 65535 */
};

static void forward_tsn_with_streams_round_trips(void **state)
{
    (void)state;
    sctp_chunk_t c = chunk_of(forward_tsn_chunk, sizeof forward_tsn_chunk);
    assert_int_equal(c.type, SCTP_CHUNK_FORWARD_TSN);
    sctp_forward_tsn_chunk_t f;
    assert_int_equal(sctp_forward_tsn_parse(&c, &f), ZQ_OK);
    assert_int_equal(f.new_cum_tsn, 4096);
    assert_int_equal(f.n_streams, 2);
    assert_int_equal(f.streams[0].stream, 1);
    assert_int_equal(f.streams[0].ssn, 5);
    assert_int_equal(f.streams[1].stream, 9);
    assert_int_equal(f.streams[1].ssn, 65535);
    assert_false(f.truncated);
    expect_written(write_forward_tsn, &f, forward_tsn_chunk, sizeof forward_tsn_chunk);
}

static void forward_tsn_without_streams_round_trips(void **state)
{
    (void)state;
    static const uint8_t chunk[] = {
        0xc0, 0x00, 0x00, 0x08, /* FORWARD TSN, length 8 */
        0x00, 0x00, 0x00, 0x2a, /*   new cumulative TSN 42 */
    };
    sctp_chunk_t c = chunk_of(chunk, sizeof chunk);
    sctp_forward_tsn_chunk_t f;
    assert_int_equal(sctp_forward_tsn_parse(&c, &f), ZQ_OK);
    assert_int_equal(f.new_cum_tsn, 42);
    assert_int_equal(f.n_streams, 0);
    expect_written(write_forward_tsn, &f, chunk, sizeof chunk);
}

static void forward_tsn_with_more_streams_than_kept_is_truncated(void **state)
{
    (void)state;
    enum { PAIRS = ZQ_SCTP_MAX_FWD_STREAMS + 2 };
    static uint8_t chunk[8 + 4 * PAIRS];
    zq_store_be16(chunk, 0xc000);
    zq_store_be16(chunk + 2, sizeof chunk);
    zq_store_be32(chunk + 4, 77);
    for (uint16_t i = 0; i < PAIRS; i++) {
        zq_store_be16(chunk + 8 + 4 * i, i);
        zq_store_be16(chunk + 10 + 4 * i, (uint16_t)(100 + i));
    }
    sctp_chunk_t c = chunk_of(chunk, sizeof chunk);
    sctp_forward_tsn_chunk_t f;
    assert_int_equal(sctp_forward_tsn_parse(&c, &f), ZQ_OK);
    assert_true(f.truncated);
    assert_int_equal(f.new_cum_tsn, 77);
    assert_int_equal(f.n_streams, ZQ_SCTP_MAX_FWD_STREAMS);
    assert_int_equal(f.streams[ZQ_SCTP_MAX_FWD_STREAMS - 1].ssn,
                     100 + ZQ_SCTP_MAX_FWD_STREAMS - 1);
}

static void forward_tsn_with_partial_pair_is_malformed(void **state)
{
    (void)state;
    sctp_forward_tsn_chunk_t f;
    for (size_t value_len = 0; value_len < sizeof forward_tsn_chunk - 4; value_len++) {
        sctp_chunk_t c = {.type = SCTP_CHUNK_FORWARD_TSN, .length = (uint16_t)(4 + value_len),
                          .value = forward_tsn_chunk + 4, .value_len = value_len};
        zq_err_t want = value_len >= 4 && value_len % 4 == 0 ? ZQ_OK : ZQ_ERR_MALFORMED;
        assert_int_equal(sctp_forward_tsn_parse(&c, &f), want);
    }
}

static void forward_tsn_with_too_many_streams_fails_the_writer(void **state)
{
    (void)state;
    sctp_forward_tsn_chunk_t f = {.n_streams = ZQ_SCTP_MAX_FWD_STREAMS + 1};
    expect_write_fails(write_forward_tsn, &f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(data_chunk_round_trips),
        cmocka_unit_test(data_flags_round_trip_in_every_combination),
        cmocka_unit_test(data_without_user_data_parses_for_the_no_user_data_abort),
        cmocka_unit_test(data_shorter_than_its_header_is_malformed),
        cmocka_unit_test(data_size_counts_header_and_padding),
        cmocka_unit_test(data_beyond_the_16_bit_length_fails_the_writer),
        cmocka_unit_test(sack_with_gap_blocks_and_duplicates_round_trips),
        cmocka_unit_test(sack_without_lists_round_trips),
        cmocka_unit_test(sack_with_more_blocks_than_kept_is_truncated),
        cmocka_unit_test(sack_whose_counts_lie_is_malformed),
        cmocka_unit_test(sack_with_more_entries_than_the_arrays_fails_the_writer),
        cmocka_unit_test(forward_tsn_with_streams_round_trips),
        cmocka_unit_test(forward_tsn_without_streams_round_trips),
        cmocka_unit_test(forward_tsn_with_more_streams_than_kept_is_truncated),
        cmocka_unit_test(forward_tsn_with_partial_pair_is_malformed),
        cmocka_unit_test(forward_tsn_with_too_many_streams_fails_the_writer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
