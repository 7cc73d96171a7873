/* The STUN builder: a header, then attributes appended in order, each padded to 4 bytes, with
 * the header's length kept current so MESSAGE-INTEGRITY and FINGERPRINT can be computed in
 * place (RFC 8489 §5, §14). */
#include <string.h>

#include "stack/ice/stun.h"

static void set_body_length(stun_builder_t *b)
{
    if (!b->w.failed) {
        zq_store_be16(b->w.data + 2, (uint16_t)(b->w.len - STUN_HEADER_LEN));
    }
}

void stun_build_start(stun_builder_t *b, uint8_t *buf, size_t cap, uint16_t type,
                      const uint8_t tid[STUN_TID_LEN])
{
    b->w = zq_writer(buf, cap);
    b->pad = 0;
    zq_write_be16(&b->w, type);
    zq_write_be16(&b->w, 0);
    zq_write_be32(&b->w, STUN_MAGIC_COOKIE);
    zq_write_bytes(&b->w, tid, STUN_TID_LEN);
}

void stun_put_attr(stun_builder_t *b, uint16_t type, const void *value, size_t len)
{
    if (len > 0xFFFFu - 3u) {
        b->w.failed = true;
        return;
    }
    zq_write_be16(&b->w, type);
    zq_write_be16(&b->w, (uint16_t)len);
    zq_write_bytes(&b->w, value, len);
    zq_write_fill(&b->w, b->pad, (4u - len % 4u) % 4u);
    set_body_length(b);
}

void stun_put_u32(stun_builder_t *b, uint16_t type, uint32_t value)
{
    uint8_t v[4];
    zq_store_be32(v, value);
    stun_put_attr(b, type, v, sizeof v);
}

void stun_put_u64(stun_builder_t *b, uint16_t type, uint64_t value)
{
    uint8_t v[8];
    zq_store_be64(v, value);
    stun_put_attr(b, type, v, sizeof v);
}

void stun_put_error_code(stun_builder_t *b, uint16_t code, const char *reason)
{
    size_t reason_len = strlen(reason);
    uint8_t value[4 + 128];
    if (code < 300 || code > 699 || reason_len > sizeof value - 4) {
        b->w.failed = true;
        return;
    }
    value[0] = 0;
    value[1] = 0;
    value[2] = (uint8_t)(code / 100);
    value[3] = (uint8_t)(code % 100);
    memcpy(value + 4, reason, reason_len);
    stun_put_attr(b, STUN_ATTR_ERROR_CODE, value, 4 + reason_len);
}

void stun_put_unknown_attributes(stun_builder_t *b, const uint16_t *types, size_t count)
{
    uint8_t value[2 * ZQ_STUN_MAX_UNKNOWN_ATTRS];
    if (count > ZQ_STUN_MAX_UNKNOWN_ATTRS) {
        count = ZQ_STUN_MAX_UNKNOWN_ATTRS;
    }
    for (size_t i = 0; i < count; i++) {
        zq_store_be16(value + 2 * i, types[i]);
    }
    stun_put_attr(b, STUN_ATTR_UNKNOWN_ATTRIBUTES, value, 2 * count);
}

void stun_put_integrity(stun_builder_t *b, const uint8_t *key, size_t key_len)
{
    size_t offset = b->w.len;
    uint8_t placeholder[STUN_INTEGRITY_LEN] = {0};
    stun_put_attr(b, STUN_ATTR_MESSAGE_INTEGRITY, placeholder, sizeof placeholder);
    if (!b->w.failed) {
        stun_compute_integrity(b->w.data, offset, key, key_len, b->w.data + offset + 4);
    }
}

void stun_put_fingerprint(stun_builder_t *b)
{
    size_t offset = b->w.len;
    stun_put_u32(b, STUN_ATTR_FINGERPRINT, 0);
    if (!b->w.failed) {
        zq_store_be32(b->w.data + offset + 4, stun_compute_fingerprint(b->w.data, offset));
    }
}

size_t stun_build_finish(const stun_builder_t *b)
{
    return b->w.failed ? 0 : b->w.len;
}
