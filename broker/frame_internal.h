/* Shared by the frame codecs (frame_*.c); not part of the API.
 *
 * Member getters answer ZQ_OK, ZQ_ERR_NOT_FOUND (the member is absent) or ZQ_ERR_MALFORMED (it
 * is there with the wrong type or range), so that each reader decides in one place whether a
 * member is required (brk_codec_required) or optional (brk_codec_optional).
 *
 * A getter comes in up to two forms: brk_codec_get_X(obj, key) looks the member up, and
 * brk_codec_X(v) checks a member already found by json_object_pick(), whose {NULL, 0} for an
 * absent member reads as ZQ_ERR_NOT_FOUND. */
#ifndef ZQ_BRK_FRAME_INTERNAL_H
#define ZQ_BRK_FRAME_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "broker/frame.h"

/** The largest sequence number or count a frame carries: browsers hold JSON numbers as doubles,
 *  which count exactly only up to 2^53. */
#define BRK_CODEC_SEQ_MAX ((uint64_t)1 << 53)

/** An absent member is an error. */
static inline zq_err_t brk_codec_required(zq_err_t err)
{
    return err == ZQ_ERR_NOT_FOUND ? ZQ_ERR_MALFORMED : err;
}

/** An absent member is fine (the caller keeps its default). */
static inline zq_err_t brk_codec_optional(zq_err_t err)
{
    return err == ZQ_ERR_NOT_FOUND ? ZQ_OK : err;
}

/** Member @p key of @p obj; MALFORMED if @p obj is not an object, so that an optional member
 *  of a non-object is never taken for an absent one. */
zq_err_t brk_codec_get(json_value_t obj, const char *key, json_value_t *out);

/** A string member; with @p non_empty, "" is MALFORMED. */
zq_err_t brk_codec_string(json_value_t v, bool non_empty, json_value_t *out);
zq_err_t brk_codec_get_string(json_value_t obj, const char *key, bool non_empty,
                              json_value_t *out);

/** A whole-number member within [@p min, @p max] (fractions, negatives and overflow are
 *  MALFORMED). */
zq_err_t brk_codec_whole(json_value_t v, uint64_t min, uint64_t max, uint64_t *out);
zq_err_t brk_codec_get_whole(json_value_t obj, const char *key, uint64_t min, uint64_t max,
                             uint64_t *out);

/** A true/false member. */
zq_err_t brk_codec_get_bool(json_value_t obj, const char *key, bool *out);

/** Decodes the string @p v, exactly 2 * @p n hex digits of either case, into @p out[0..n). */
bool brk_codec_hex(json_value_t v, uint8_t *out, size_t n);

/** An epoch member: a string of BRK_EPOCH_HEX hex digits, big-endian. */
zq_err_t brk_codec_epoch(json_value_t v, uint32_t *out);
zq_err_t brk_codec_get_epoch(json_value_t obj, const char *key, uint32_t *out);

/** Clears a reader's output when it failed: a refused frame leaves nothing half-filled. */
zq_err_t brk_codec_result(zq_err_t err, void *out, size_t size);

/** Opens a typed frame: '{' and its "type" member. */
void brk_codec_begin(json_writer_t *w, brk_frame_type_t type);

/** Writes @p n bytes as 2 * @p n lowercase hex digits in a JSON string. */
void brk_codec_put_hex(json_writer_t *w, const uint8_t *b, size_t n);

/** Writes an epoch as BRK_EPOCH_HEX lowercase hex digits. */
void brk_codec_put_epoch(json_writer_t *w, uint32_t epoch);

/** Writes a borrowed JSON string value verbatim (already escaped); anything but a string, or
 *  "" with @p non_empty, fails the writer (ZQ_ERR_INVALID_ARG): the frame would otherwise go
 *  out with a member its reader refuses. */
void brk_codec_put_string_value(json_writer_t *w, json_value_t v, bool non_empty);

/** Fails the writer (ZQ_ERR_INVALID_ARG): for arguments that would make a frame its reader
 *  refuses. */
void brk_codec_fail(json_writer_t *w);

#endif /* ZQ_BRK_FRAME_INTERNAL_H */
