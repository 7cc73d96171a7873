/* RE-CONFIG (RFC 6525 §3.1, §4): stream reset requests and responses, one or two per chunk,
 * byte for byte both ways, with their padding (§3.2 of RFC 9260) and their malformed forms. */
#include "sctp_packet_test.h"

static void write_reconfig(zq_writer_t *w, const void *arg)
{
    sctp_reconfig_write(w, arg);
}

static sctp_reconfig_chunk_t parse_reconfig(const uint8_t *bytes, size_t len)
{
    sctp_chunk_t c = chunk_of(bytes, len);
    assert_int_equal(c.type, SCTP_CHUNK_RE_CONFIG);
    sctp_reconfig_chunk_t r;
    assert_int_equal(sctp_reconfig_parse(&c, &r), ZQ_OK);
    return r;
}

static zq_err_t parse_result(const uint8_t *bytes, size_t len)
{
    sctp_chunk_t c = chunk_of(bytes, len);
    sctp_reconfig_chunk_t r;
    return sctp_reconfig_parse(&c, &r);
}

/* ---- Byte for byte --------------------------------------------------------------------------- */

static const uint8_t outgoing_reset[] = {
    0x82, 0x00, 0x00, 0x16, /* RE-CONFIG, length 22: the parameter's padding not counted */
    0x00, 0x0d, 0x00, 0x12, /*   Outgoing SSN Reset Request, length 18 */
    0x00, 0x00, 0x00, 0x05, /*     request sequence number 5 */
    0x00, 0x00, 0x00, 0x04, /*     response sequence number 4 */
    0x00, 0x00, 0x00, 0x63, /*     sender's last assigned TSN 99 */
    0x00, 0x03, 0x00, 0x00, /*     stream 3, 2 bytes of padding */
};

static void outgoing_reset_round_trips(void **state)
{
    (void)state;
    sctp_reconfig_chunk_t r = parse_reconfig(outgoing_reset, sizeof outgoing_reset);
    assert_int_equal(r.n_params, 1);
    const sctp_reconfig_param_t *p = &r.params[0];
    assert_int_equal(p->kind, SCTP_RECONFIG_OUTGOING_RESET);
    assert_int_equal(p->type, SCTP_PARAM_OUTGOING_RESET_REQUEST);
    assert_int_equal(p->request_seq, 5);
    assert_int_equal(p->response_seq, 4);
    assert_int_equal(p->last_tsn, 99);
    assert_int_equal(p->n_streams, 1);
    assert_int_equal(p->streams[0], 3);
    assert_false(p->truncated);
    expect_written(write_reconfig, &r, outgoing_reset, sizeof outgoing_reset);
}

static const uint8_t outgoing_and_incoming_reset[] = {
    0x82, 0x00, 0x00, 0x22, /* RE-CONFIG, length 34 */
    0x00, 0x0d, 0x00, 0x12, /*   Outgoing SSN Reset Request, length 18 */
    0x00, 0x00, 0x00, 0x10, /*     request sequence number 16 */
    0x00, 0x00, 0x00, 0x0f, /*     response sequence number 15 */
    0x00, 0x00, 0x12, 0x34, /*     sender's last assigned TSN */
    0x00, 0x01, 0x00, 0x00, /*     stream 1, 2 bytes of padding (counted: not the last) */
    0x00, 0x0e, 0x00, 0x0a, /*   Incoming SSN Reset Request, length 10 */
    0x00, 0x00, 0x00, 0x11, /*     request sequence number 17 */
    0x00, 0x01, 0x00, 0x00, /*     stream 1, 2 bytes of padding (not counted) */
};

static void outgoing_and_incoming_reset_round_trip(void **state)
{
    (void)state;
    sctp_reconfig_chunk_t r =
        parse_reconfig(outgoing_and_incoming_reset, sizeof outgoing_and_incoming_reset);
    assert_int_equal(r.n_params, 2);
    assert_int_equal(r.params[0].kind, SCTP_RECONFIG_OUTGOING_RESET);
    assert_int_equal(r.params[0].request_seq, 16);
    assert_int_equal(r.params[0].response_seq, 15);
    assert_int_equal(r.params[0].last_tsn, 0x1234);
    assert_int_equal(r.params[0].n_streams, 1);
    assert_int_equal(r.params[0].streams[0], 1);
    assert_int_equal(r.params[1].kind, SCTP_RECONFIG_INCOMING_RESET);
    assert_int_equal(r.params[1].type, SCTP_PARAM_INCOMING_RESET_REQUEST);
    assert_int_equal(r.params[1].request_seq, 17);
    assert_int_equal(r.params[1].n_streams, 1);
    assert_int_equal(r.params[1].streams[0], 1);
    expect_written(write_reconfig, &r, outgoing_and_incoming_reset,
                   sizeof outgoing_and_incoming_reset);
}

static const uint8_t response[] = {
    0x82, 0x00, 0x00, 0x10, /* RE-CONFIG, length 16 */
    0x00, 0x10, 0x00, 0x0c, /*   Re-configuration Response, length 12 */
    0x00, 0x00, 0x00, 0x05, /*     response sequence number 5 */
    0x00, 0x00, 0x00, 0x01, /*     result: success, performed */
};

static void response_round_trips(void **state)
{
    (void)state;
    sctp_reconfig_chunk_t r = parse_reconfig(response, sizeof response);
    assert_int_equal(r.n_params, 1);
    assert_int_equal(r.params[0].kind, SCTP_RECONFIG_RESPONSE);
    assert_int_equal(r.params[0].type, SCTP_PARAM_RECONFIG_RESPONSE);
    assert_int_equal(r.params[0].response_seq, 5);
    assert_int_equal(r.params[0].result, SCTP_RECONFIG_SUCCESS_PERFORMED);
    expect_written(write_reconfig, &r, response, sizeof response);
}

static void response_with_next_tsns_parses_and_is_written_without(void **state)
{
    (void)state;
    static const uint8_t with_tsns[] = {
        0x82, 0x00, 0x00, 0x18, /* RE-CONFIG, length 24 */
        0x00, 0x10, 0x00, 0x14, /*   Re-configuration Response, length 20 */
        0x00, 0x00, 0x00, 0x05, /*     response sequence number 5 */
        0x00, 0x00, 0x00, 0x01, /*     result: success, performed */
        0x00, 0x00, 0x20, 0x00, /*     sender's next TSN */
        0x00, 0x00, 0x30, 0x00, /*     receiver's next TSN */
    };
    sctp_reconfig_chunk_t r = parse_reconfig(with_tsns, sizeof with_tsns);
    assert_int_equal(r.n_params, 1);
    assert_int_equal(r.params[0].kind, SCTP_RECONFIG_RESPONSE);
    assert_int_equal(r.params[0].response_seq, 5);
    assert_int_equal(r.params[0].result, SCTP_RECONFIG_SUCCESS_PERFORMED);
    expect_written(write_reconfig, &r, response, sizeof response);
}

/* What a WebRTC peer answers when a data channel closes: the response to the peer's request,
 * and a reset of its own outgoing side (here: all streams). */
static const uint8_t response_and_outgoing_reset[] = {
    0x82, 0x00, 0x00, 0x20, /* RE-CONFIG, length 32 */
    0x00, 0x10, 0x00, 0x0c, /*   Re-configuration Response, length 12 */
    0x00, 0x00, 0x00, 0x2a, /*     response sequence number 42 */
    0x00, 0x00, 0x00, 0x06, /*     result: in progress */
    0x00, 0x0d, 0x00, 0x10, /*   Outgoing SSN Reset Request, length 16: all streams */
    0x00, 0x00, 0x00, 0x64, /*     request sequence number 100 */
    0x00, 0x00, 0x00, 0x2a, /*     response sequence number 42 */
    0x00, 0x00, 0x01, 0x00, /*     sender's last assigned TSN 256 */
};

static void response_and_outgoing_reset_round_trip(void **state)
{
    (void)state;
    sctp_reconfig_chunk_t r =
        parse_reconfig(response_and_outgoing_reset, sizeof response_and_outgoing_reset);
    assert_int_equal(r.n_params, 2);
    assert_int_equal(r.params[0].kind, SCTP_RECONFIG_RESPONSE);
    assert_int_equal(r.params[0].result, SCTP_RECONFIG_IN_PROGRESS);
    assert_int_equal(r.params[1].kind, SCTP_RECONFIG_OUTGOING_RESET);
    assert_int_equal(r.params[1].request_seq, 100);
    assert_int_equal(r.params[1].n_streams, 0);
    expect_written(write_reconfig, &r, response_and_outgoing_reset,
                   sizeof response_and_outgoing_reset);
}

static void requests_zq_does_not_make_parse_as_other(void **state)
{
    (void)state;
    static const uint8_t add_streams[] = {
        0x82, 0x00, 0x00, 0x1c, /* RE-CONFIG, length 28 */
        0x00, 0x11, 0x00, 0x0c, /*   Add Outgoing Streams Request, length 12 */
        0x00, 0x00, 0x00, 0x09, /*     request sequence number 9 */
        0x00, 0x02, 0x00, 0x00, /*     2 new streams, reserved */
        0x00, 0x12, 0x00, 0x0c, /*   Add Incoming Streams Request, length 12 */
        0x00, 0x00, 0x00, 0x0a, /*     request sequence number 10 */
        0x00, 0x02, 0x00, 0x00, /*     2 new streams, reserved */
    };
    sctp_reconfig_chunk_t r = parse_reconfig(add_streams, sizeof add_streams);
    assert_int_equal(r.n_params, 2);
    assert_int_equal(r.params[0].kind, SCTP_RECONFIG_OTHER);
    assert_int_equal(r.params[0].type, SCTP_PARAM_ADD_OUTGOING_STREAMS);
    assert_int_equal(r.params[0].request_seq, 9);
    assert_int_equal(r.params[1].kind, SCTP_RECONFIG_OTHER);
    assert_int_equal(r.params[1].type, SCTP_PARAM_ADD_INCOMING_STREAMS);
    assert_int_equal(r.params[1].request_seq, 10);
    expect_write_fails(write_reconfig, &r);
    static const uint8_t ssn_tsn_reset[] = {
        0x82, 0x00, 0x00, 0x0c, /* RE-CONFIG, length 12 */
        0x00, 0x0f, 0x00, 0x08, /*   SSN/TSN Reset Request, length 8 */
        0x00, 0x00, 0x00, 0x0b, /*     request sequence number 11 */
    };
    r = parse_reconfig(ssn_tsn_reset, sizeof ssn_tsn_reset);
    assert_int_equal(r.params[0].kind, SCTP_RECONFIG_OTHER);
    assert_int_equal(r.params[0].type, SCTP_PARAM_SSN_TSN_RESET_REQUEST);
    assert_int_equal(r.params[0].request_seq, 11);
}

static void stream_list_longer_than_kept_is_truncated(void **state)
{
    (void)state;
    enum { STREAMS = ZQ_SCTP_MAX_RESET_STREAMS + 2 };
    static uint8_t chunk[(4 + 8 + 2 * STREAMS + 3) / 4 * 4]; /* padded */
    zq_store_be16(chunk, 0x8200);
    zq_store_be16(chunk + 2, 4 + 8 + 2 * STREAMS);
    zq_store_be16(chunk + 4, SCTP_PARAM_INCOMING_RESET_REQUEST);
    zq_store_be16(chunk + 6, 8 + 2 * STREAMS);
    zq_store_be32(chunk + 8, 3);
    for (uint16_t i = 0; i < STREAMS; i++) {
        zq_store_be16(chunk + 12 + 2 * i, (uint16_t)(i * 2));
    }
    sctp_reconfig_chunk_t r = parse_reconfig(chunk, sizeof chunk);
    assert_true(r.params[0].truncated);
    assert_int_equal(r.params[0].n_streams, ZQ_SCTP_MAX_RESET_STREAMS);
    assert_int_equal(r.params[0].streams[ZQ_SCTP_MAX_RESET_STREAMS - 1],
                     2 * (ZQ_SCTP_MAX_RESET_STREAMS - 1));
}

/* ---- Malformed input ------------------------------------------------------------------------- */

static void reconfig_without_parameters_is_malformed(void **state)
{
    (void)state;
    static const uint8_t empty[] = {0x82, 0x00, 0x00, 0x04};
    assert_int_equal(parse_result(empty, sizeof empty), ZQ_ERR_MALFORMED);
}

static void reconfig_with_three_parameters_is_malformed(void **state)
{
    (void)state;
    static const uint8_t three[] = {
        0x82, 0x00, 0x00, 0x28, /* RE-CONFIG, length 40 */
        0x00, 0x10, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, /* response */
        0x00, 0x10, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, /* response */
        0x00, 0x10, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, /* response */
    };
    assert_int_equal(parse_result(three, sizeof three), ZQ_ERR_MALFORMED);
}

static void unknown_reconfig_parameter_is_malformed(void **state)
{
    (void)state;
    uint8_t chunk[sizeof response];
    memcpy(chunk, response, sizeof chunk);
    chunk[5] = 0x13; /* type 19: not a RE-CONFIG parameter */
    assert_int_equal(parse_result(chunk, sizeof chunk), ZQ_ERR_MALFORMED);
    chunk[5] = 0x07; /* a State Cookie has no business here either */
    assert_int_equal(parse_result(chunk, sizeof chunk), ZQ_ERR_MALFORMED);
}

static void parameter_too_short_for_its_fields_is_malformed(void **state)
{
    (void)state;
    static const uint8_t short_outgoing[] = {
        0x82, 0x00, 0x00, 0x10, /* RE-CONFIG, length 16 */
        0x00, 0x0d, 0x00, 0x0c, /*   Outgoing SSN Reset Request, length 12: 4 bytes short */
        0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x04,
    };
    assert_int_equal(parse_result(short_outgoing, sizeof short_outgoing), ZQ_ERR_MALFORMED);
    static const uint8_t short_incoming[] = {
        0x82, 0x00, 0x00, 0x0a, /* RE-CONFIG, length 10 */
        0x00, 0x0e, 0x00, 0x06, /*   Incoming SSN Reset Request, length 6 */
        0x00, 0x00, 0x00, 0x00, /*     half a request sequence number, 2 bytes of padding */
    };
    assert_int_equal(parse_result(short_incoming, sizeof short_incoming), ZQ_ERR_MALFORMED);
    static const uint8_t short_other[] = {
        0x82, 0x00, 0x00, 0x08, /* RE-CONFIG, length 8 */
        0x00, 0x0f, 0x00, 0x04, /*   SSN/TSN Reset Request without its sequence number */
    };
    assert_int_equal(parse_result(short_other, sizeof short_other), ZQ_ERR_MALFORMED);
}

static void response_of_odd_size_is_malformed(void **state)
{
    (void)state;
    static const uint8_t three_words[] = {
        0x82, 0x00, 0x00, 0x14, /* RE-CONFIG, length 20 */
        0x00, 0x10, 0x00, 0x10, /*   Re-configuration Response, length 16: one TSN only */
        0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x20, 0x00,
    };
    assert_int_equal(parse_result(three_words, sizeof three_words), ZQ_ERR_MALFORMED);
    static const uint8_t one_word[] = {
        0x82, 0x00, 0x00, 0x0c, /* RE-CONFIG, length 12 */
        0x00, 0x10, 0x00, 0x08, /*   Re-configuration Response, length 8: no result */
        0x00, 0x00, 0x00, 0x05,
    };
    assert_int_equal(parse_result(one_word, sizeof one_word), ZQ_ERR_MALFORMED);
}

static void stream_list_with_an_odd_byte_is_malformed(void **state)
{
    (void)state;
    uint8_t chunk[sizeof outgoing_reset];
    memcpy(chunk, outgoing_reset, sizeof chunk);
    chunk[3] = 0x15; /* chunk length 21 */
    chunk[7] = 0x11; /* parameter length 17: one and a half stream numbers */
    assert_int_equal(parse_result(chunk, sizeof chunk), ZQ_ERR_MALFORMED);
}

static void parameter_past_the_chunk_is_malformed(void **state)
{
    (void)state;
    uint8_t chunk[sizeof outgoing_reset];
    memcpy(chunk, outgoing_reset, sizeof chunk);
    chunk[7] = 0x16; /* parameter length 22, chunk length 22 */
    assert_int_equal(parse_result(chunk, sizeof chunk), ZQ_ERR_MALFORMED);
}

/* ---- Writer refusals ------------------------------------------------------------------------- */

static void writer_refuses_what_it_cannot_write(void **state)
{
    (void)state;
    sctp_reconfig_chunk_t r = {.n_params = 0};
    expect_write_fails(write_reconfig, &r);
    r = (sctp_reconfig_chunk_t){.n_params = 3};
    expect_write_fails(write_reconfig, &r);
    r = (sctp_reconfig_chunk_t){.n_params = 1, .params = {{.kind = SCTP_RECONFIG_NONE}}};
    expect_write_fails(write_reconfig, &r);
    r = (sctp_reconfig_chunk_t){.n_params = 1, .params = {{.kind = SCTP_RECONFIG_OTHER}}};
    expect_write_fails(write_reconfig, &r);
    r = (sctp_reconfig_chunk_t){
        .n_params = 2,
        .params = {{.kind = SCTP_RECONFIG_RESPONSE},
                   {.kind = SCTP_RECONFIG_INCOMING_RESET,
                    .n_streams = ZQ_SCTP_MAX_RESET_STREAMS + 1}},
    };
    expect_write_fails(write_reconfig, &r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(outgoing_reset_round_trips),
        cmocka_unit_test(outgoing_and_incoming_reset_round_trip),
        cmocka_unit_test(response_round_trips),
        cmocka_unit_test(response_with_next_tsns_parses_and_is_written_without),
        cmocka_unit_test(response_and_outgoing_reset_round_trip),
        cmocka_unit_test(requests_zq_does_not_make_parse_as_other),
        cmocka_unit_test(stream_list_longer_than_kept_is_truncated),
        cmocka_unit_test(reconfig_without_parameters_is_malformed),
        cmocka_unit_test(reconfig_with_three_parameters_is_malformed),
        cmocka_unit_test(unknown_reconfig_parameter_is_malformed),
        cmocka_unit_test(parameter_too_short_for_its_fields_is_malformed),
        cmocka_unit_test(response_of_odd_size_is_malformed),
        cmocka_unit_test(stream_list_with_an_odd_byte_is_malformed),
        cmocka_unit_test(parameter_past_the_chunk_is_malformed),
        cmocka_unit_test(writer_refuses_what_it_cannot_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
