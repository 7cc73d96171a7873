/* The data representations of MQTT (3.1.1 §1.5, 5.0 §1.5) and the framing of what is written.
 *
 * Variable Byte Integer (5.0 §1.5.5, 3.1.1 §2.2.3 "Remaining Length"): 7 bits per byte, least
 * significant group first, bit 7 set when another byte follows; at most 4 bytes, so at most
 * 268,435,455, and the encoding MUST use the fewest bytes:
 *
 *     +---+-----------+   +---+-----------+       +---+-----------+
 *     | 1 | bits 0-6  |   | 1 | bits 7-13 |  ...  | 0 | last bits |
 *     +---+-----------+   +---+-----------+       +---+-----------+
 *
 * UTF-8 Encoded String (5.0 §1.5.4) and Binary Data (§1.5.6): a Two Byte Integer length, then
 * that many bytes:
 *
 *     +----------------+----------------+--------------------------+
 *     | length MSB     | length LSB     | bytes ...                |
 *     +----------------+----------------+--------------------------+
 *
 * A string must be well-formed UTF-8 without U+0000 (MQTT-1.5.4-1, MQTT-1.5.4-2).
 */
#include <string.h>

#include "stack/mqtt/mqtt_internal.h"
#include "zq/utf8.h"

size_t mqtt_varint_size(uint32_t v)
{
    return v < 128u ? 1 : v < 16384u ? 2 : v < 2097152u ? 3 : 4;
}

void mqtt_write_varint(zq_writer_t *w, uint32_t v)
{
    if (v > MQTT_VARINT_MAX) {
        w->failed = true;
        return;
    }
    do {
        uint8_t b = (uint8_t)(v & 0x7F);
        v >>= 7;
        zq_write_u8(w, v != 0 ? (uint8_t)(b | 0x80) : b);
    } while (v != 0);
}

bool mqtt_read_varint(zq_reader_t *r, uint32_t *v)
{
    uint32_t value = 0;
    for (unsigned i = 0; i < 4; i++) {
        uint8_t b = zq_read_u8(r);
        if (r->failed) {
            return false;
        }
        value |= (uint32_t)(b & 0x7F) << (7 * i);
        if ((b & 0x80) == 0) {
            if (i > 0 && b == 0) {
                break; /* a last byte of 0 adds nothing: not the fewest bytes */
            }
            *v = value;
            return true;
        }
    }
    r->failed = true;
    return false;
}

bool mqtt_utf8_ok(const uint8_t *p, size_t n)
{
    return memchr(p, 0, n) == NULL && zq_utf8_valid(p, n);
}

bool mqtt_read_binary(zq_reader_t *r, mqtt_bytes_t *out)
{
    uint16_t len = zq_read_be16(r);
    const uint8_t *p = zq_read_bytes(r, len);
    if (r->failed) {
        return false;
    }
    out->data = p != NULL ? p : (const uint8_t *)"";
    out->len = len;
    return true;
}

bool mqtt_read_string(zq_reader_t *r, mqtt_bytes_t *out)
{
    if (!mqtt_read_binary(r, out) || !mqtt_utf8_ok(out->data, out->len)) {
        r->failed = true;
        return false;
    }
    return true;
}

void mqtt_write_binary(zq_writer_t *w, const void *data, size_t len)
{
    if (len > 0xFFFF) {
        w->failed = true;
        return;
    }
    zq_write_be16(w, (uint16_t)len);
    zq_write_bytes(w, data, len);
}

void mqtt_write_cstr(zq_writer_t *w, const char *s)
{
    mqtt_write_binary(w, s, strlen(s));
}

/* Reserves @p gap bytes for a length written later, returns where they start. */
static size_t reserve(zq_writer_t *w, size_t gap)
{
    size_t mark = w->len;
    (void)zq_write_reserve(w, gap);
    return mark;
}

/* Writes @p prefix (already encoded, @p n bytes) just before the body that follows the gap of
 * @p gap bytes at @p mark, then moves the body down to close what remains of the gap. */
static void close_gap(zq_writer_t *w, size_t mark, size_t gap, const uint8_t *prefix, size_t n)
{
    if (w->failed) {
        return;
    }
    size_t body = w->len - mark - gap;
    memcpy(w->data + mark, prefix, n);
    memmove(w->data + mark + n, w->data + mark + gap, body);
    w->len = mark + n + body;
}

size_t mqtt_packet_begin(zq_writer_t *w)
{
    return reserve(w, MQTT_FIXED_HEADER_MAX);
}

void mqtt_packet_end(zq_writer_t *w, size_t mark, uint8_t first_byte)
{
    if (w->failed) {
        return;
    }
    uint8_t hdr[MQTT_FIXED_HEADER_MAX];
    zq_writer_t h = zq_writer(hdr, sizeof hdr);
    zq_write_u8(&h, first_byte);
    mqtt_write_varint(&h, (uint32_t)(w->len - mark - MQTT_FIXED_HEADER_MAX));
    w->failed = h.failed;
    close_gap(w, mark, MQTT_FIXED_HEADER_MAX, hdr, h.len);
}

size_t mqtt_props_begin(zq_writer_t *w)
{
    return reserve(w, 4);
}

void mqtt_props_end(zq_writer_t *w, size_t mark)
{
    if (w->failed) {
        return;
    }
    uint8_t len[4];
    zq_writer_t h = zq_writer(len, sizeof len);
    mqtt_write_varint(&h, (uint32_t)(w->len - mark - 4));
    w->failed = h.failed;
    close_gap(w, mark, 4, len, h.len);
}
