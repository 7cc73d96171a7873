/**
 * @file json.h
 * @brief JSON (RFC 8259): a strict validator, a cursor API over spans, and a writer.
 *
 * No allocation and no token array. json_parse() walks the whole text once (iteratively, with
 * a bit per nesting level) and accepts it only if it is exactly one valid JSON value; after
 * that, a value is just a span of the caller's text (json_value_t), and every accessor re-scans
 * the span it is given. Objects are looked up by a linear walk, which for signalling frames of
 * a handful of keys costs less than building an index would.
 *
 * @code
 * json_value_t doc, type, sdp;
 * if (json_parse(frame, frame_len, &doc) != ZQ_OK) return;            // drop invalid frames
 * if (json_object_get(doc, "type", &type) == ZQ_OK && json_string_equals(type, "offer") &&
 *     json_object_get(doc, "sdp", &sdp) == ZQ_OK && json_type(sdp) == JSON_OBJECT) { ... }
 * @endcode
 *
 * Lifetime: a json_value_t borrows the text passed to json_parse(); it is valid as long as that
 * text is. The accessors assume their span came from a json_parse()d document (they do not
 * re-validate it), but whatever span they are handed they never read outside it: on garbage
 * they fail or stop early.
 *
 * Strictness (RFC 8259, and JSONTestSuite's "n_" cases): no trailing commas, no comments, no
 * single quotes, no leading zeros, no "+1", ".5", "1.", NaN or Infinity; control characters in
 * strings must be escaped (§7); strings must be valid UTF-8 (§8.1); a byte order mark is
 * rejected (§8.1 lets a parser ignore it; zq's peers never send one). Lone UTF-16 surrogates in
 * \\u escapes are rejected (§8.2 leaves their meaning unpredictable), so every accepted string
 * unescapes to valid UTF-8. Duplicate object keys are accepted; lookups see the first (§4).
 */
#ifndef ZQ_JSON_H
#define ZQ_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zq/bytes.h"
#include "zq/config.h"
#include "zq/err.h"

/** 32-bit words of a one-bit-per-level nesting stack. */
#define JSON_NEST_WORDS ((ZQ_JSON_MAX_DEPTH + 31) / 32)

typedef enum {
    JSON_NULL,
    JSON_FALSE,
    JSON_TRUE,
    JSON_NUMBER,
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT,
    JSON_INVALID /**< an empty span, or one that starts with no JSON value */
} json_type_t;

/** Exactly one JSON value, without surrounding whitespace, borrowed from the parsed text. */
typedef struct {
    const char *p;
    size_t len;
} json_value_t;

/* ---- Reading ------------------------------------------------------------------------------ */

/**
 * Validates that @p text[0..len) is one JSON value with optional whitespace around it.
 * @param out the value, without the surrounding whitespace.
 * @return ZQ_OK; ZQ_ERR_MALFORMED for any syntax error; ZQ_ERR_TOO_LONG if arrays and objects
 *         nest deeper than ZQ_JSON_MAX_DEPTH; ZQ_ERR_INVALID_ARG if @p text is NULL.
 */
zq_err_t json_parse(const char *text, size_t len, json_value_t *out);

/** The type of @p v, from its first byte. */
json_type_t json_type(json_value_t v);

/**
 * Finds @p key (a NUL-terminated UTF-8 string) among the members of the object @p obj,
 * comparing with each key unescaped ("a\u0062" matches "ab"). The first match wins.
 * @return ZQ_OK, ZQ_ERR_NOT_FOUND, or ZQ_ERR_INVALID_ARG if @p obj is not an object.
 */
zq_err_t json_object_get(json_value_t obj, const char *key, json_value_t *out);

/**
 * Finds several keys in one walk of @p obj: out[i] is the value of @p keys[i] (NUL-terminated
 * UTF-8, compared unescaped), or {NULL, 0} when absent; the first match of each wins, as with
 * json_object_get(). For a reader that wants many members of a large object (an envelope and
 * its payload), where a json_object_get() per key would skip the same values again each time.
 * @return ZQ_OK, or ZQ_ERR_INVALID_ARG if @p obj is not an object (then every out[i] is empty).
 */
zq_err_t json_object_pick(json_value_t obj, const char *const *keys, size_t n,
                          json_value_t *out);

/** A cursor over the elements of an array or the members of an object. Plain data. */
typedef struct {
    const char *p;   /**< next byte to look at */
    const char *end; /**< the container's closing bracket */
    bool object;
    bool done;
} json_iter_t;

/** Starts a walk over @p container; a non-container gives an empty walk. */
void json_iter_init(json_iter_t *it, json_value_t container);

/**
 * The next element. For an object, @p key (may be NULL) is the member's name as a string
 * value (still quoted and escaped: use json_string_equals() or json_get_string() on it); for
 * an array @p key is set to an empty span (type JSON_INVALID). Returns false at the end (or on
 * garbage).
 */
bool json_iter_next(json_iter_t *it, json_value_t *key, json_value_t *value);

/**
 * Unescapes the string @p v (including \\uXXXX and surrogate pairs) into UTF-8 in @p out and
 * NUL-terminates it. The result may contain NUL bytes (from \\u0000): use @p len.
 * @param len the byte count without the NUL, also on ZQ_ERR_NO_SPACE (then the size needed,
 *        and @p out holds ""); may be NULL.
 * @return ZQ_ERR_INVALID_ARG if @p v is not a string, ZQ_ERR_NO_SPACE if @p cap < len + 1,
 *         ZQ_ERR_MALFORMED if the span is not a valid string.
 */
zq_err_t json_get_string(json_value_t v, char *out, size_t cap, size_t *len);

/** True if @p v is a string whose unescaped value is exactly @p s (NUL-terminated); no copy. */
bool json_string_equals(json_value_t v, const char *s);

/** As json_string_equals(), against the @p n bytes at @p s (which may contain NUL). */
bool json_string_equals_n(json_value_t v, const char *s, size_t n);

/**
 * The integer value of the number @p v. A fraction or exponent is accepted only when the
 * value is still a whole number ("1e3", "2.50e1", "-0.0").
 * @return ZQ_ERR_INVALID_ARG if @p v is not a number or not a whole number, ZQ_ERR_TOO_LONG if
 *         it does not fit int64_t.
 */
zq_err_t json_get_int64(json_value_t v, int64_t *out);

/**
 * The number @p v as a count: floored (a fraction counts its whole part) and held at
 * UINT32_MAX, in integers only, so a device reading counts links no floating point.
 * @return ZQ_ERR_INVALID_ARG if @p v is not a number or is below 0 (-0 is 0), ZQ_ERR_TOO_LONG
 *         if it is beyond a double's range (Infinity to JavaScript: see json_read.c).
 */
zq_err_t json_get_count(json_value_t v, uint32_t *out);

/**
 * The value of the number @p v as a double. Exact (correctly rounded) when the number has at
 * most 15 significant digits and a decimal exponent within ±22 (every value a signalling frame
 * carries); otherwise within a few units in the last place.
 * @return ZQ_ERR_INVALID_ARG if @p v is not a number, ZQ_ERR_TOO_LONG if its magnitude
 *         exceeds DBL_MAX. Values too small for a double become 0.
 */
zq_err_t json_get_double(json_value_t v, double *out);

/** Sets @p out and returns true if @p v is `true` or `false`. */
bool json_get_bool(json_value_t v, bool *out);

/* ---- Writing ------------------------------------------------------------------------------ */

/**
 * Writes one JSON value into a caller buffer. Every call appends; the first error (no room,
 * a key outside an object, a value where a key is due, unbalanced ends, a string that is not
 * valid UTF-8, a non-finite double) is sticky and makes json_finish() return 0.
 *
 * @code
 * json_writer_t w;
 * json_writer_init(&w, buf, sizeof buf);
 * json_object_begin(&w);
 * json_key(&w, "type");   json_string(&w, "join", 4);
 * json_key(&w, "topicId"); json_string(&w, room, strlen(room));
 * json_object_end(&w);
 * size_t n = json_finish(&w);   // 0 on any error
 * @endcode
 */
typedef struct {
    zq_writer_t out;                     /**< borrows the caller's buffer */
    uint32_t is_object[JSON_NEST_WORDS]; /**< per open level: object (1) or array (0) */
    uint32_t has_items[JSON_NEST_WORDS]; /**< per open level: needs a comma before the next */
    uint16_t depth;                      /**< open containers */
    bool want_value;                     /**< a key was written; its value is due */
    bool root_done;                      /**< the one top-level value has begun */
    zq_err_t err;                        /**< sticky first error */
} json_writer_t;

void json_writer_init(json_writer_t *w, void *buf, size_t cap);
void json_object_begin(json_writer_t *w);
void json_object_end(json_writer_t *w);
void json_array_begin(json_writer_t *w);
void json_array_end(json_writer_t *w);
/** A member name (NUL-terminated UTF-8), escaped as a string. */
void json_key(json_writer_t *w, const char *name);
/** A member name of @p len bytes. */
void json_key_n(json_writer_t *w, const char *name, size_t len);
/** A string of @p len bytes of UTF-8: '"', '\\' and control characters are escaped, the rest
 *  passes through. Invalid UTF-8 fails the writer (ZQ_ERR_MALFORMED). */
void json_string(json_writer_t *w, const char *s, size_t len);
void json_int64(json_writer_t *w, int64_t v);
void json_uint64(json_writer_t *w, uint64_t v);
/** Whole numbers below 2^64 exactly ("3", "9007199254740992"); others with up to 15
 *  significant digits ("21.5", "1e-7", "1.5e300"), which read back to within one part in
 *  10^15 (not always the identical double). NaN and infinities fail the writer
 *  (ZQ_ERR_INVALID_ARG): JSON has neither (§6). */
void json_double(json_writer_t *w, double v);
void json_bool(json_writer_t *w, bool v);
void json_null(json_writer_t *w);
/** Inserts @p v as a value verbatim (e.g. a payload passed through). @p v must be a valid
 *  value, such as one from json_parse(); it is not checked again. */
void json_raw(json_writer_t *w, json_value_t v);
/** Length of the document, or 0 if any call failed or the value is incomplete. */
size_t json_finish(const json_writer_t *w);
/** The sticky error (ZQ_OK if none): ZQ_ERR_NO_SPACE, ZQ_ERR_STATE (misuse: unbalanced,
 *  key/value order), ZQ_ERR_TOO_LONG (depth), ZQ_ERR_MALFORMED, ZQ_ERR_INVALID_ARG. */
zq_err_t json_writer_error(const json_writer_t *w);

#endif /* ZQ_JSON_H */
