/* The control chunks: HEARTBEAT and its ACK (RFC 9260 §3.3.5, §3.3.6), ABORT and ERROR with
 * their causes (§3.3.7, §3.3.10), the SHUTDOWN family (§3.3.8, §3.3.9, §3.3.13) and COOKIE
 * ECHO / COOKIE ACK (§3.3.11, §3.3.12), byte for byte both ways. */
#include "sctp_packet_test.h"

/* ---- HEARTBEAT, HEARTBEAT ACK ---------------------------------------------------------------- */

typedef struct {
    uint8_t type;
    const uint8_t *info;
    size_t len;
} heartbeat_args_t;

static void write_heartbeat(zq_writer_t *w, const void *arg)
{
    const heartbeat_args_t *a = arg;
    sctp_heartbeat_write(w, a->type, a->info, a->len);
}

static const uint8_t heartbeat_chunk[] = {
    0x04, 0x00, 0x00, 0x0e, /* HEARTBEAT, length 14: the parameter's padding not counted */
    0x00, 0x01, 0x00, 0x0a, /*   Heartbeat Info, length 10 */
    0x00, 0x00, 0x01, 0x8b, /*     sender-specific: a timestamp, */
    0x2a, 0x07, 0x00, 0x00, /*     a nonce; 2 bytes of padding */
};

static void heartbeat_round_trips(void **state)
{
    (void)state;
    sctp_chunk_t c = chunk_of(heartbeat_chunk, sizeof heartbeat_chunk);
    assert_int_equal(c.type, SCTP_CHUNK_HEARTBEAT);
    const uint8_t *info;
    size_t len;
    assert_int_equal(sctp_heartbeat_parse(&c, &info, &len), ZQ_OK);
    assert_int_equal(len, 6);
    assert_ptr_equal(info, heartbeat_chunk + 8);
    heartbeat_args_t a = {SCTP_CHUNK_HEARTBEAT, info, len};
    expect_written(write_heartbeat, &a, heartbeat_chunk, sizeof heartbeat_chunk);
}

static void heartbeat_ack_echoes_the_info(void **state)
{
    (void)state;
    static const uint8_t ack[] = {
        0x05, 0x00, 0x00, 0x0e, /* HEARTBEAT ACK, length 14 */
        0x00, 0x01, 0x00, 0x0a, /*   Heartbeat Info, length 10 */
        0x00, 0x00, 0x01, 0x8b, /*     the HEARTBEAT's info, untouched */
        0x2a, 0x07, 0x00, 0x00, /*     2 bytes of padding */
    };
    sctp_chunk_t c = chunk_of(heartbeat_chunk, sizeof heartbeat_chunk);
    const uint8_t *info;
    size_t len;
    assert_int_equal(sctp_heartbeat_parse(&c, &info, &len), ZQ_OK);
    heartbeat_args_t a = {SCTP_CHUNK_HEARTBEAT_ACK, info, len};
    expect_written(write_heartbeat, &a, ack, sizeof ack);
    c = chunk_of(ack, sizeof ack);
    assert_int_equal(c.type, SCTP_CHUNK_HEARTBEAT_ACK);
    assert_int_equal(sctp_heartbeat_parse(&c, &info, &len), ZQ_OK);
    assert_int_equal(len, 6);
    assert_memory_equal(info, heartbeat_chunk + 8, 6);
}

static void heartbeat_length_may_count_the_parameter_padding(void **state)
{
    (void)state;
    uint8_t chunk[sizeof heartbeat_chunk];
    memcpy(chunk, heartbeat_chunk, sizeof chunk);
    chunk[3] = 0x10;
    sctp_chunk_t c = chunk_of(chunk, sizeof chunk);
    const uint8_t *info;
    size_t len;
    assert_int_equal(sctp_heartbeat_parse(&c, &info, &len), ZQ_OK);
    assert_int_equal(len, 6);
}

static void heartbeat_without_heartbeat_info_is_malformed(void **state)
{
    (void)state;
    const uint8_t *info;
    size_t len;
    uint8_t chunk[sizeof heartbeat_chunk];
    memcpy(chunk, heartbeat_chunk, sizeof chunk);
    chunk[5] = 0x02; /* a parameter, but not Heartbeat Info */
    sctp_chunk_t c = chunk_of(chunk, sizeof chunk);
    assert_int_equal(sctp_heartbeat_parse(&c, &info, &len), ZQ_ERR_MALFORMED);
    memcpy(chunk, heartbeat_chunk, sizeof chunk);
    chunk[7] = 0x0b; /* Heartbeat Info claiming 7 bytes, 6 in the chunk */
    c = chunk_of(chunk, sizeof chunk);
    assert_int_equal(sctp_heartbeat_parse(&c, &info, &len), ZQ_ERR_MALFORMED);
    for (size_t value_len = 0; value_len < 4; value_len++) {
        c = (sctp_chunk_t){.type = SCTP_CHUNK_HEARTBEAT, .length = (uint16_t)(4 + value_len),
                           .value = heartbeat_chunk + 4, .value_len = value_len};
        assert_int_equal(sctp_heartbeat_parse(&c, &info, &len), ZQ_ERR_MALFORMED);
    }
}

/* ---- ABORT and ERROR ------------------------------------------------------------------------- */

static void write_abort(zq_writer_t *w, const void *arg)
{
    (void)arg;
    static const uint8_t violation[] = {0x00, 0x00, 0x00, 0x07};
    sctp_abort_write_header(w, true, sctp_cause_size(3) + sctp_cause_size(4));
    sctp_cause_write(w, SCTP_CAUSE_USER_ABORT, "bye", 3);
    sctp_cause_write(w, SCTP_CAUSE_PROTOCOL_VIOLATION, violation, sizeof violation);
}

static const uint8_t abort_chunk[] = {
    0x06, 0x01, 0x00, 0x14, /* ABORT, T bit, length 20 */
    0x00, 0x0c, 0x00, 0x07, /*   User-Initiated Abort, length 7 */
    0x62, 0x79, 0x65, 0x00, /*     "bye", 1 byte of padding */
    0x00, 0x0d, 0x00, 0x08, /*   Protocol Violation, length 8 */
    0x00, 0x00, 0x00, 0x07, /*     additional information */
};

static void abort_with_t_flag_and_causes_round_trips(void **state)
{
    (void)state;
    expect_written(write_abort, NULL, abort_chunk, sizeof abort_chunk);
    sctp_chunk_t c = chunk_of(abort_chunk, sizeof abort_chunk);
    assert_int_equal(c.type, SCTP_CHUNK_ABORT);
    assert_int_equal(c.flags & SCTP_FLAG_T, SCTP_FLAG_T);
    zq_reader_t r = zq_reader(c.value, c.value_len);
    sctp_tlv_t cause;
    assert_int_equal(sctp_tlv_next(&r, &cause), ZQ_OK);
    assert_int_equal(cause.type, SCTP_CAUSE_USER_ABORT);
    assert_int_equal(cause.len, 3);
    assert_memory_equal(cause.value, "bye", 3);
    assert_int_equal(sctp_tlv_next(&r, &cause), ZQ_OK);
    assert_int_equal(cause.type, SCTP_CAUSE_PROTOCOL_VIOLATION);
    assert_int_equal(cause.len, 4);
    assert_int_equal(sctp_tlv_next(&r, &cause), ZQ_ERR_NOT_FOUND);
}

static void write_bare_abort(zq_writer_t *w, const void *arg)
{
    (void)arg;
    sctp_abort_write_header(w, false, 0);
}

static void abort_without_causes_round_trips(void **state)
{
    (void)state;
    static const uint8_t bare[] = {0x06, 0x00, 0x00, 0x04}; /* ABORT, no T bit, no causes */
    expect_written(write_bare_abort, NULL, bare, sizeof bare);
    sctp_chunk_t c = chunk_of(bare, sizeof bare);
    assert_int_equal(c.flags, 0);
    zq_reader_t r = zq_reader(c.value, c.value_len);
    sctp_tlv_t cause;
    assert_int_equal(sctp_tlv_next(&r, &cause), ZQ_ERR_NOT_FOUND);
}

static const uint8_t unknown_chunk_header[] = {0xc5, 0x00, 0x00, 0x04};

static void write_error(zq_writer_t *w, const void *arg)
{
    (void)arg;
    static const uint8_t stream[] = {0x00, 0x2a, 0x00, 0x00};
    sctp_error_write_header(w, sctp_cause_size(4) + sctp_cause_size(4));
    sctp_cause_write(w, SCTP_CAUSE_UNRECOGNIZED_CHUNK, unknown_chunk_header, 4);
    sctp_cause_write(w, SCTP_CAUSE_INVALID_STREAM, stream, sizeof stream);
}

static const uint8_t error_chunk[] = {
    0x09, 0x00, 0x00, 0x14, /* ERROR, length 20 */
    0x00, 0x06, 0x00, 0x08, /*   Unrecognized Chunk Type, length 8 */
    0xc5, 0x00, 0x00, 0x04, /*     the chunk's header */
    0x00, 0x01, 0x00, 0x08, /*   Invalid Stream Identifier, length 8 */
    0x00, 0x2a, 0x00, 0x00, /*     stream 42, reserved */
};

static void error_with_causes_round_trips(void **state)
{
    (void)state;
    expect_written(write_error, NULL, error_chunk, sizeof error_chunk);
    sctp_chunk_t c = chunk_of(error_chunk, sizeof error_chunk);
    assert_int_equal(c.type, SCTP_CHUNK_ERROR);
    zq_reader_t r = zq_reader(c.value, c.value_len);
    sctp_tlv_t cause;
    assert_int_equal(sctp_tlv_next(&r, &cause), ZQ_OK);
    assert_int_equal(cause.type, SCTP_CAUSE_UNRECOGNIZED_CHUNK);
    assert_memory_equal(cause.value, unknown_chunk_header, 4);
    assert_int_equal(sctp_tlv_next(&r, &cause), ZQ_OK);
    assert_int_equal(cause.type, SCTP_CAUSE_INVALID_STREAM);
    assert_int_equal(zq_load_be16(cause.value), 42);
    assert_int_equal(sctp_tlv_next(&r, &cause), ZQ_ERR_NOT_FOUND);
}

static void cause_with_bad_length_is_malformed(void **state)
{
    (void)state;
    uint8_t chunk[sizeof error_chunk];
    memcpy(chunk, error_chunk, sizeof chunk);
    chunk[15] = 0x02; /* the second cause too short for its own header */
    sctp_chunk_t c = chunk_of(chunk, sizeof chunk);
    zq_reader_t r = zq_reader(c.value, c.value_len);
    sctp_tlv_t cause;
    assert_int_equal(sctp_tlv_next(&r, &cause), ZQ_OK);
    assert_int_equal(sctp_tlv_next(&r, &cause), ZQ_ERR_MALFORMED);
    memcpy(chunk, error_chunk, sizeof chunk);
    chunk[7] = 0x20; /* the first cause runs past the chunk */
    c = chunk_of(chunk, sizeof chunk);
    r = zq_reader(c.value, c.value_len);
    assert_int_equal(sctp_tlv_next(&r, &cause), ZQ_ERR_MALFORMED);
}

static void cause_size_counts_header_and_padding(void **state)
{
    (void)state;
    assert_int_equal(sctp_cause_size(0), 4);
    assert_int_equal(sctp_cause_size(1), 8);
    assert_int_equal(sctp_cause_size(4), 8);
    assert_int_equal(sctp_cause_size(7), 12);
}

/* ---- SHUTDOWN family and COOKIE ECHO / COOKIE ACK -------------------------------------------- */

static void write_shutdown(zq_writer_t *w, const void *arg)
{
    sctp_shutdown_write(w, *(const uint32_t *)arg);
}

static const uint8_t shutdown_chunk[] = {
    0x07, 0x00, 0x00, 0x08, /* SHUTDOWN, length 8 */
    0xfe, 0xdc, 0xba, 0x98, /*   cumulative TSN ack */
};

static void shutdown_round_trips(void **state)
{
    (void)state;
    sctp_chunk_t c = chunk_of(shutdown_chunk, sizeof shutdown_chunk);
    uint32_t cum_tsn = 0;
    assert_int_equal(sctp_shutdown_parse(&c, &cum_tsn), ZQ_OK);
    assert_int_equal(cum_tsn, 0xfedcba98u);
    expect_written(write_shutdown, &cum_tsn, shutdown_chunk, sizeof shutdown_chunk);
}

static void shutdown_of_the_wrong_length_is_malformed(void **state)
{
    (void)state;
    static const uint8_t value[8] = {0};
    for (size_t value_len = 0; value_len <= 8; value_len++) {
        sctp_chunk_t c = {.type = SCTP_CHUNK_SHUTDOWN, .length = (uint16_t)(4 + value_len),
                          .value = value, .value_len = value_len};
        uint32_t cum_tsn;
        assert_int_equal(sctp_shutdown_parse(&c, &cum_tsn),
                         value_len == 4 ? ZQ_OK : ZQ_ERR_MALFORMED);
    }
}

typedef struct {
    uint8_t type;
    uint8_t flags;
} empty_args_t;

static void write_empty(zq_writer_t *w, const void *arg)
{
    const empty_args_t *a = arg;
    sctp_empty_chunk_write(w, a->type, a->flags);
}

static void empty_chunks_round_trip(void **state)
{
    (void)state;
    static const uint8_t shutdown_ack[] = {0x08, 0x00, 0x00, 0x04};      /* SHUTDOWN ACK */
    static const uint8_t shutdown_complete[] = {0x0e, 0x01, 0x00, 0x04}; /* ... COMPLETE, T */
    static const uint8_t cookie_ack[] = {0x0b, 0x00, 0x00, 0x04};        /* COOKIE ACK */
    empty_args_t a = {SCTP_CHUNK_SHUTDOWN_ACK, 0};
    expect_written(write_empty, &a, shutdown_ack, sizeof shutdown_ack);
    a = (empty_args_t){SCTP_CHUNK_SHUTDOWN_COMPLETE, SCTP_FLAG_T};
    expect_written(write_empty, &a, shutdown_complete, sizeof shutdown_complete);
    a = (empty_args_t){SCTP_CHUNK_COOKIE_ACK, 0};
    expect_written(write_empty, &a, cookie_ack, sizeof cookie_ack);
    sctp_chunk_t c = chunk_of(shutdown_complete, sizeof shutdown_complete);
    assert_int_equal(c.type, SCTP_CHUNK_SHUTDOWN_COMPLETE);
    assert_int_equal(c.flags, SCTP_FLAG_T);
    assert_int_equal(c.value_len, 0);
}

typedef struct {
    const uint8_t *cookie;
    size_t len;
} cookie_args_t;

static void write_cookie_echo(zq_writer_t *w, const void *arg)
{
    const cookie_args_t *a = arg;
    sctp_cookie_echo_write(w, a->cookie, a->len);
}

static const uint8_t cookie_echo_chunk[] = {
    0x0a, 0x00, 0x00, 0x0b, /* COOKIE ECHO, length 11 */
    0x63, 0x6f, 0x6f, 0x6b, /*   the cookie, as the INIT ACK gave it: "cookie!" */
    0x69, 0x65, 0x21, 0x00, /*   1 byte of padding */
};

static void cookie_echo_round_trips(void **state)
{
    (void)state;
    sctp_chunk_t c = chunk_of(cookie_echo_chunk, sizeof cookie_echo_chunk);
    assert_int_equal(c.type, SCTP_CHUNK_COOKIE_ECHO);
    assert_int_equal(c.value_len, 7);
    assert_memory_equal(c.value, "cookie!", 7);
    cookie_args_t a = {c.value, c.value_len};
    expect_written(write_cookie_echo, &a, cookie_echo_chunk, sizeof cookie_echo_chunk);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(heartbeat_round_trips),
        cmocka_unit_test(heartbeat_ack_echoes_the_info),
        cmocka_unit_test(heartbeat_length_may_count_the_parameter_padding),
        cmocka_unit_test(heartbeat_without_heartbeat_info_is_malformed),
        cmocka_unit_test(abort_with_t_flag_and_causes_round_trips),
        cmocka_unit_test(abort_without_causes_round_trips),
        cmocka_unit_test(error_with_causes_round_trips),
        cmocka_unit_test(cause_with_bad_length_is_malformed),
        cmocka_unit_test(cause_size_counts_header_and_padding),
        cmocka_unit_test(shutdown_round_trips),
        cmocka_unit_test(shutdown_of_the_wrong_length_is_malformed),
        cmocka_unit_test(empty_chunks_round_trip),
        cmocka_unit_test(cookie_echo_round_trips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
