/* The chunk frame (broker/frame_chunk.c, PROTOCOL.md §8) against the table both codecs are
 * tested with, tests/web/fixtures/chunks.json: tests/web/chunk.test.mjs reads it too, so
 * broker/frame_chunk.c and web/zq/chunk.js agree byte for byte. Each test named after a rule
 * runs the rows of that rule, and one checks that every rule of the table has its test. Then
 * what the table cannot say (cuts, guard bytes, nothing half-filled), and the reassembler of
 * broker/peer.c that joins the chunks of one frame. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "broker/brk_internal.h"
#include "broker/frame.h"
#include "zq/hex.h"
#include "fixture_table.h"
#include "zq/json.h"

#ifndef ZQ_CHUNK_TABLE
#error "ZQ_CHUNK_TABLE: the path of tests/web/fixtures/chunks.json (tests/CMakeLists.txt)"
#endif

/* ---- The table ------------------------------------------------------------------------------- */

static char table_text[1 << 15];
static json_value_t table;

static int load_table(void **state)
{
    (void)state;
    return fixture_table_load(ZQ_CHUNK_TABLE, table_text, sizeof table_text, &table);
}


/* A hex member of a row as bytes. */
static size_t bytes_of(json_value_t row, const char *key, uint8_t *out, size_t cap)
{
    char hex[256];
    size_t n = 0;
    assert_int_equal(json_get_string(fixture_member(row, key), hex, sizeof hex, &n), ZQ_OK);
    assert_true(n % 2 == 0 && n / 2 <= cap);
    for (size_t i = 0; i < n / 2; i++) {
        int hi = zq_hex_digit(hex[2 * i]), lo = zq_hex_digit(hex[2 * i + 1]);
        assert_true(hi >= 0 && lo >= 0);
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return n / 2;
}

static uint32_t number_of(json_value_t row, const char *key)
{
    int64_t v = 0;
    assert_int_equal(json_get_int64(fixture_member(row, key), &v), ZQ_OK);
    assert_true(v >= 0 && v <= UINT32_MAX);
    return (uint32_t)v;
}

/* A row's fields as a chunk, its piece in @p piece. */
static brk_chunk_t fields_of(json_value_t row, uint8_t *piece, size_t cap)
{
    brk_chunk_t c;
    memset(&c, 0, sizeof c);
    c.id = number_of(row, "id");
    c.index = (uint16_t)number_of(row, "index");
    c.count = (uint16_t)number_of(row, "count");
    c.piece_len = bytes_of(row, "piece", piece, cap);
    c.piece = piece;
    return c;
}

static bool rule_is(json_value_t row, const char *rule)
{
    json_value_t r;
    return json_object_get(row, "rule", &r) == ZQ_OK && json_string_equals(r, rule);
}

/* ---- One row of each kind -------------------------------------------------------------------- */

static void assert_same_chunk(const brk_chunk_t *got, const brk_chunk_t *want)
{
    assert_int_equal(got->id, want->id);
    assert_int_equal(got->index, want->index);
    assert_int_equal(got->count, want->count);
    assert_int_equal(got->piece_len, want->piece_len);
    if (want->piece_len != 0) {
        assert_memory_equal(got->piece, want->piece, want->piece_len);
    }
}

/* The writer writes "hex" for the fields; the reader reads "hex" back as them, its piece
 * pointing into the message (nothing copied). */
static void round_trip_row(json_value_t row)
{
    uint8_t piece[64], want[128], msg[128];
    brk_chunk_t c = fields_of(row, piece, sizeof piece);
    size_t len = bytes_of(row, "hex", want, sizeof want);
    assert_int_equal(brk_chunk_write(msg, sizeof msg, &c), len);
    assert_memory_equal(msg, want, len);
    brk_chunk_t back;
    assert_int_equal(brk_chunk_read(want, len, &back), ZQ_OK);
    assert_same_chunk(&back, &c);
    assert_ptr_equal(back.piece, want + BRK_CHUNK_HEADER);
}

static void refusal_row(json_value_t row)
{
    uint8_t msg[128];
    char error[32] = "ZQ_ERR_";
    size_t n = 0;
    assert_int_equal(json_get_string(fixture_member(row, "error"), error + 7, sizeof error - 7, &n), ZQ_OK);
    size_t len = bytes_of(row, "hex", msg, sizeof msg);
    brk_chunk_t c;
    assert_string_equal(zq_errname(brk_chunk_read(msg, len, &c)), error);
}

static void writer_refusal_row(json_value_t row)
{
    uint8_t piece[64], msg[128];
    brk_chunk_t c = fields_of(row, piece, sizeof piece);
    memset(msg, 0xA5, sizeof msg);
    assert_int_equal(brk_chunk_write(msg, sizeof msg, &c), 0);
}

/* Runs the rows of @p rule in each of the table's lists; there must be one at least. */
static void run_rule(const char *rule)
{
    static const struct {
        const char *list;
        void (*run)(json_value_t row);
    } lists[] = {{"roundTrips", round_trip_row},
                 {"refusals", refusal_row},
                 {"writerRefusals", writer_refusal_row}};
    size_t rows = 0;
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++) {
        json_iter_t it;
        json_value_t row;
        json_iter_init(&it, fixture_member(table, lists[l].list));
        while (json_iter_next(&it, NULL, &row)) {
            if (rule_is(row, rule)) {
                lists[l].run(row);
                rows++;
            }
        }
    }
    if (rows == 0) {
        fail_msg("the table has no row of rule %s", rule);
    }
}

/* ---- The table's rules, one test each -------------------------------------------------------- */

#define TABLE_RULES(X)                                                                          \
    X(a_chunk_is_magic_id_index_count_then_its_piece)                                         \
    X(the_last_piece_may_be_shorter)                                                          \
    X(numbers_are_big_endian_up_to_their_widths)                                              \
    X(id_zero_is_an_id)                                                                       \
    X(a_piece_may_be_empty)                                                                   \
    X(a_piece_is_any_bytes_the_whole_frame_is_checked_once)                                   \
    X(a_message_shorter_than_the_header_is_truncated)                                         \
    X(a_bad_magic_with_a_short_header_is_truncated_first)                                     \
    X(another_magic_is_malformed)                                                             \
    X(a_count_below_two_is_malformed)                                                         \
    X(an_index_not_below_the_count_is_malformed)                                              \
    X(the_writer_refuses_numbers_the_reader_refuses)

#define RULE_TEST(name)                                                                        \
    static void name(void **state)                                                             \
    {                                                                                          \
        (void)state;                                                                           \
        run_rule(#name);                                                                       \
    }
TABLE_RULES(RULE_TEST)
#undef RULE_TEST

static void every_rule_of_the_table_has_its_test(void **state)
{
    (void)state;
#define RULE_NAME(name) #name,
    static const char *const known[] = {TABLE_RULES(RULE_NAME)};
#undef RULE_NAME
    static const char *const lists[] = {"roundTrips", "refusals", "writerRefusals"};
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++) {
        json_iter_t it;
        json_value_t row;
        json_iter_init(&it, fixture_member(table, lists[l]));
        while (json_iter_next(&it, NULL, &row)) {
            bool found = false;
            for (size_t k = 0; k < sizeof known / sizeof known[0] && !found; k++) {
                found = rule_is(row, known[k]);
            }
            if (!found) {
                char rule[96];
                size_t n = 0;
                (void)json_get_string(fixture_member(row, "rule"), rule, sizeof rule, &n);
                fail_msg("rule %s of %s has no test here", rule, lists[l]);
            }
        }
    }
}

/* ---- What the table does not say ------------------------------------------------------------- */

static const uint8_t good[] = {'Z', 'C', 0, 0, 0, 9, 0, 1, 0, 2, 'a', 'b', 'c'};

/* Each cut of a whole chunk: within the header truncated, past it a shorter piece. */
static void every_cut_of_a_chunk_is_truncated_or_a_shorter_piece(void **state)
{
    (void)state;
    for (size_t n = 0; n <= sizeof good; n++) {
        static uint8_t exact[sizeof good]; /* the cut's end is the end of what may be read */
        uint8_t *msg = exact + sizeof exact - n;
        memcpy(msg, good, n);
        brk_chunk_t c;
        zq_err_t err = brk_chunk_read(msg, n, &c);
        if (n < BRK_CHUNK_HEADER) {
            assert_int_equal(err, ZQ_ERR_TRUNCATED);
        } else {
            assert_int_equal(err, ZQ_OK);
            assert_int_equal(c.piece_len, n - BRK_CHUNK_HEADER);
        }
    }
}

static void a_refused_chunk_leaves_nothing_half_filled(void **state)
{
    (void)state;
    uint8_t bad[sizeof good];
    memcpy(bad, good, sizeof bad);
    bad[9] = 1; /* count 1 */
    brk_chunk_t c;
    memset(&c, 0x5A, sizeof c);
    assert_int_equal(brk_chunk_read(bad, sizeof bad, &c), ZQ_ERR_MALFORMED);
    brk_chunk_t zero;
    memset(&zero, 0, sizeof zero);
    assert_memory_equal(&c, &zero, sizeof c);
}

/* Every buffer too small by any amount: nothing written (0) and nothing past the buffer. */
static void a_writer_out_of_room_writes_nothing_past_its_buffer(void **state)
{
    (void)state;
    brk_chunk_t c = {9, 1, 2, (const uint8_t *)"abc", 3};
    uint8_t buf[sizeof good + 8];
    for (size_t cap = 0; cap < sizeof good; cap++) {
        memset(buf, 0xA5, sizeof buf);
        assert_int_equal(brk_chunk_write(buf, cap, &c), 0);
        for (size_t i = cap; i < sizeof buf; i++) {
            assert_int_equal(buf[i], 0xA5);
        }
    }
    assert_int_equal(brk_chunk_write(buf, sizeof good, &c), sizeof good);
    assert_memory_equal(buf, good, sizeof good);
}

/* ---- The reassembler (broker/peer.c): the chunks of one frame, in turn ----------------------- */

static brk_t b;

static void reset(void)
{
    memset(&b, 0, sizeof b);
}

/* Hands one whole binary (or text) message to peer 0's reassembler. */
static bool take(const uint8_t *data, size_t len, bool binary)
{
    dc_message_t m = {0, binary, true, true, false, data, len};
    return brk_peer_take_piece(&b, 0, &m);
}

/* Chunk @p index of @p count of frame @p id, its piece @p text. */
static bool take_chunk(uint32_t id, uint16_t index, uint16_t count, const char *text)
{
    uint8_t msg[BRK_CHUNK_HEADER + 64];
    brk_chunk_t c = {id, index, count, (const uint8_t *)text, strlen(text)};
    size_t len = brk_chunk_write(msg, sizeof msg, &c);
    assert_int_not_equal(len, 0);
    return take(msg, len, true);
}

static void assert_frame(const char *text)
{
    assert_int_equal(b.peers[0].frame_len, strlen(text));
    assert_memory_equal(b.peers[0].frame, text, strlen(text));
}

static void chunks_in_turn_make_one_frame(void **state)
{
    (void)state;
    reset();
    assert_false(take_chunk(7, 0, 3, "{\"id\":"));
    assert_false(take_chunk(7, 1, 3, "\"a\",\"topic\""));
    assert_true(take_chunk(7, 2, 3, ":\"t\"}"));
    assert_frame("{\"id\":\"a\",\"topic\":\"t\"}");
    assert_int_equal(b.stats.rx_malformed, 0);
}

static void a_chunk_out_of_turn_drops_its_sequence_counted_once(void **state)
{
    (void)state;
    reset();
    assert_false(take_chunk(7, 0, 3, "ab"));
    assert_false(take_chunk(7, 2, 3, "cd")); /* index 1 was due */
    assert_int_equal(b.stats.rx_malformed, 1);
    assert_false(take_chunk(8, 0, 2, "ef"));
    assert_false(take_chunk(9, 1, 2, "gh")); /* another frame's id */
    assert_int_equal(b.stats.rx_malformed, 2);
    assert_false(take_chunk(9, 1, 2, "gh")); /* not index 0: no start either */
    assert_int_equal(b.stats.rx_malformed, 3);
    assert_false(take_chunk(3, 0, 2, "{}"));
    assert_false(take_chunk(3, 1, 3, "{}")); /* another count */
    assert_int_equal(b.stats.rx_malformed, 4);
}

static void a_bad_chunk_is_dropped_and_counted(void **state)
{
    (void)state;
    reset();
    static const uint8_t short_one[] = {'Z', 'C', 0, 0, 0, 1, 0, 0, 0};
    assert_false(take(short_one, sizeof short_one, true));
    assert_int_equal(b.stats.rx_malformed, 1);
    assert_false(take_chunk(1, 0, 2, "ab"));
    assert_false(take(short_one, sizeof short_one, true)); /* and the sequence it broke */
    assert_int_equal(b.stats.rx_malformed, 2);
    assert_false(b.peers[0].chunking);
}

static void a_text_frame_inside_a_sequence_breaks_it_and_is_read(void **state)
{
    (void)state;
    reset();
    assert_false(take_chunk(1, 0, 2, "{\"a\":"));
    assert_true(take((const uint8_t *)"{\"type\":\"__ping__\"}", 19, false));
    assert_frame("{\"type\":\"__ping__\"}");
    assert_int_equal(b.stats.rx_malformed, 1);
    assert_false(take_chunk(1, 1, 2, "1}")); /* the rest of the broken sequence */
    assert_int_equal(b.stats.rx_malformed, 2);
}

static void chunks_over_the_frame_buffer_are_dropped_whole(void **state)
{
    (void)state;
    reset();
    static uint8_t piece[ZQ_BRK_FRAME_MAX / 2 + 1]; /* two of them: one byte too many */
    static uint8_t msg[BRK_CHUNK_HEADER + sizeof piece];
    memset(piece, 'x', sizeof piece);
    for (uint16_t i = 0; i < 2; i++) {
        brk_chunk_t c = {5, i, 3, piece, sizeof piece};
        assert_int_equal(brk_chunk_write(msg, sizeof msg, &c), sizeof msg);
        assert_false(take(msg, sizeof msg, true));
    }
    assert_int_equal(b.stats.rx_too_long, 1);
    assert_int_equal(b.stats.rx_malformed, 1); /* the sequence it broke */
    assert_false(take_chunk(6, 0, 2, "{}"));
    assert_true(take_chunk(6, 1, 2, "[]"));
    assert_frame("{}[]");
}

int main(void)
{
#define RULE_ENTRY(name) cmocka_unit_test(name),
    const struct CMUnitTest tests[] = {
        TABLE_RULES(RULE_ENTRY)
        cmocka_unit_test(every_rule_of_the_table_has_its_test),
        cmocka_unit_test(every_cut_of_a_chunk_is_truncated_or_a_shorter_piece),
        cmocka_unit_test(a_refused_chunk_leaves_nothing_half_filled),
        cmocka_unit_test(a_writer_out_of_room_writes_nothing_past_its_buffer),
#if ZQ_BRK_CHUNKING /* the broker's reassembly; the codec above is built in every profile */
        cmocka_unit_test(chunks_in_turn_make_one_frame),
        cmocka_unit_test(a_chunk_out_of_turn_drops_its_sequence_counted_once),
        cmocka_unit_test(a_bad_chunk_is_dropped_and_counted),
        cmocka_unit_test(a_text_frame_inside_a_sequence_breaks_it_and_is_read),
        cmocka_unit_test(chunks_over_the_frame_buffer_are_dropped_whole),
#endif
    };
#undef RULE_ENTRY
    return cmocka_run_group_tests(tests, load_table, NULL);
}
