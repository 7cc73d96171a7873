/**
 * @file text.h
 * @brief The one way zq writes and reads protocol text (SDP, ICE candidates, HTTP heads, JSON,
 *        addresses, URLs): numbers and strings appended to a zq_writer_t (bytes.h), and
 *        bounded readers of decimal numbers with a range.
 *
 * Writers follow zq_writer_t's rules: nothing is written past the buffer, and a write that
 * does not fit writes nothing and fails the writer (sticky), so a builder writes a run of
 * pieces and checks @c failed once. A number goes in whole or not at all: never a cut-off
 * "6553" for 65535. No NUL is written, except by zq_text_end().
 *
 * No printf: the digits come from a loop, so a firmware that writes a candidate line or an
 * HTTP head does not link the C library's printf machinery for it.
 *
 * @code
 * char line[64];
 * zq_writer_t w = zq_text_writer(line, sizeof line);  // keeps a byte for the NUL
 * zq_write_str(&w, "rport ");
 * zq_write_udec(&w, port);
 * size_t n = zq_text_end(&w);                         // 0 and "" if anything did not fit
 * @endcode
 */
#ifndef ZQ_TEXT_H
#define ZQ_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "zq/bytes.h"
#include "zq/err.h"

/* ---- Writing ------------------------------------------------------------------------------ */

/** Appends one character. */
void zq_write_char(zq_writer_t *w, char c);

/** Appends a NUL-terminated string, without its NUL. A span with a length is zq_write_bytes(). */
void zq_write_str(zq_writer_t *w, const char *s);

/** Appends @p v in decimal: "0" to "18446744073709551615", no leading zeros. */
void zq_write_udec(zq_writer_t *w, uint64_t v);

/** Appends @p v in decimal, with a '-' when negative: INT64_MIN included. */
void zq_write_sdec(zq_writer_t *w, int64_t v);

/** Appends @p v in lower-case hexadecimal, no prefix and no leading zeros ("0" for 0). */
void zq_write_hex(zq_writer_t *w, uint32_t v);

/**
 * A writer for a C string in @p buf[@p cap]: it keeps the last byte for the NUL that
 * zq_text_end() stores. A @p cap of 0 gives a writer that has already failed.
 */
zq_writer_t zq_text_writer(char *buf, size_t cap);

/**
 * Ends the C string of a zq_text_writer(): stores the NUL after what was written and returns
 * its length, or, if any write failed, leaves an empty string and returns 0: never a partial
 * text.
 */
size_t zq_text_end(zq_writer_t *w);

/* ---- Reading ------------------------------------------------------------------------------ */

/**
 * Reads @p s[0..@p len) as a whole as 1*DIGIT (RFC 5234 B.1): no sign, no spaces, no "0x";
 * leading zeros are allowed. The span needs no NUL.
 *
 * @return ZQ_OK with @p *out set; ZQ_ERR_MALFORMED if the span is empty or holds anything but
 *         digits; ZQ_ERR_TOO_LONG if it is all digits but its value is above @p max. @p *out
 *         is left alone on any error.
 */
zq_err_t zq_parse_udec(const char *s, size_t len, uint64_t max, uint64_t *out);

/**
 * Reads a port: one to five digits, up to 65535, as URIs (RFC 3986 §3.2.3), ICE candidates
 * (RFC 8839 §5.1) and "host:port" write it. 0 is a port here; a caller that needs one it can
 * connect to checks for it. @return ZQ_OK, or ZQ_ERR_MALFORMED (then @p *out is left alone).
 */
zq_err_t zq_parse_port(const char *s, size_t len, uint16_t *out);

#endif /* ZQ_TEXT_H */
