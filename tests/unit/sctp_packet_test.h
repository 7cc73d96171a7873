/* Helpers shared by the SCTP packet tests (tests/unit/test_sctp_*.c): read a literal chunk,
 * and check a writer byte for byte with 0xA5 guard bytes around its buffer. */
#ifndef ZQ_TEST_SCTP_PACKET_TEST_H
#define ZQ_TEST_SCTP_PACKET_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "stack/sctp/packet/sctp_packet.h"

#define GUARD 0xA5
#define GUARD_LEN 8
#define WRITE_MAX 1024

/* The one chunk in @p bytes, which start at its header (padding included or not). */
static inline sctp_chunk_t chunk_of(const uint8_t *bytes, size_t len)
{
    zq_reader_t r = zq_reader(bytes, len);
    sctp_chunk_t c;
    sctp_chunk_t rest;
    assert_int_equal(sctp_packet_next_chunk(&r, &c), ZQ_OK);
    assert_int_equal(sctp_packet_next_chunk(&r, &rest), ZQ_ERR_NOT_FOUND);
    return c;
}

typedef void (*write_fn)(zq_writer_t *w, const void *arg);

static inline void expect_guards(const uint8_t *buf, size_t from)
{
    for (size_t i = 0; i < GUARD_LEN; i++) {
        assert_int_equal(buf[i], GUARD);
    }
    for (size_t i = GUARD_LEN + from; i < GUARD_LEN + WRITE_MAX + GUARD_LEN; i++) {
        assert_int_equal(buf[i], GUARD);
    }
}

/* Runs @p write with room for exactly @p want_len bytes, with more, and with every smaller
 * capacity: the output must be @p want byte for byte, and a buffer too small must fail the
 * writer (sticky) without a byte written past its end. */
static inline void expect_written(write_fn write, const void *arg, const uint8_t *want,
                                  size_t want_len)
{
    static uint8_t buf[GUARD_LEN + WRITE_MAX + GUARD_LEN];
    assert_true(want_len + 8 <= WRITE_MAX);
    for (size_t cap = 0; cap <= want_len + 8; cap++) {
        memset(buf, GUARD, sizeof buf);
        zq_writer_t w = zq_writer(buf + GUARD_LEN, cap);
        write(&w, arg);
        if (cap >= want_len) {
            assert_false(w.failed);
            assert_int_equal(w.len, want_len);
            assert_memory_equal(buf + GUARD_LEN, want, want_len);
            expect_guards(buf, want_len);
        } else {
            assert_true(w.failed);
            expect_guards(buf, cap);
        }
    }
}

/* Runs @p write with plenty of room and expects it to refuse (an invalid input). */
static inline void expect_write_fails(write_fn write, const void *arg)
{
    static uint8_t buf[GUARD_LEN + WRITE_MAX + GUARD_LEN];
    memset(buf, GUARD, sizeof buf);
    zq_writer_t w = zq_writer(buf + GUARD_LEN, WRITE_MAX);
    write(&w, arg);
    assert_true(w.failed);
}

#endif /* ZQ_TEST_SCTP_PACKET_TEST_H */
