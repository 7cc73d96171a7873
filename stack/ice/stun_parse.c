/* The STUN parser: a bounded walk over the header and the attributes (RFC 8489 §5, §6.3, §14).
 * Values are decoded here but not believed: authentication is the caller's next step. */
#include <string.h>

#include "stack/ice/stun.h"
#include "zq/crypto.h"

bool stun_looks_like(const uint8_t *buf, size_t len)
{
    /* RFC 7983 §7: a first byte of 0..3 is STUN; the cookie tells it from old STUN and noise. */
    return len >= STUN_HEADER_LEN && buf[0] < 4 && zq_load_be32(buf + 4) == STUN_MAGIC_COOKIE;
}

static zq_err_t parse_header(stun_msg_t *msg, const uint8_t *buf, size_t len)
{
    if (len < STUN_HEADER_LEN) {
        return ZQ_ERR_TRUNCATED;
    }
    uint16_t type = zq_load_be16(buf);
    uint16_t body_len = zq_load_be16(buf + 2);
    /* §5: the top two bits are zero, the length counts the body in 4-byte units. */
    if ((type & 0xC000u) != 0 || zq_load_be32(buf + 4) != STUN_MAGIC_COOKIE ||
        body_len % 4 != 0) {
        return ZQ_ERR_MALFORMED;
    }
    if ((size_t)body_len + STUN_HEADER_LEN > len) {
        return ZQ_ERR_TRUNCATED;
    }
    if ((size_t)body_len + STUN_HEADER_LEN < len) {
        return ZQ_ERR_MALFORMED; /* a datagram holds exactly one message */
    }
    memset(msg, 0, sizeof *msg);
    msg->type = type;
    memcpy(msg->tid, buf + 8, STUN_TID_LEN);
    msg->raw = buf;
    msg->raw_len = len;
    return ZQ_OK;
}

static void note_unknown_required(stun_msg_t *msg, uint16_t type)
{
    if (msg->unknown_required_count < ZQ_STUN_MAX_UNKNOWN_ATTRS) {
        msg->unknown_required[msg->unknown_required_count++] = type;
    } else {
        msg->unknown_required_overflow = true;
    }
}

static zq_err_t take_bytes(stun_bytes_t *dst, const uint8_t *value, uint16_t len, size_t max)
{
    if (len > max) {
        return ZQ_ERR_MALFORMED;
    }
    dst->data = value;
    dst->len = len;
    return ZQ_OK;
}

/* ERROR-CODE (§14.8): 21 reserved bits, a 3-bit class (3..6), an 8-bit number (0..99). */
static zq_err_t take_error_code(stun_msg_t *msg, const uint8_t *value, uint16_t len)
{
    if (len < 4) {
        return ZQ_ERR_MALFORMED;
    }
    unsigned cls = value[2] & 0x7u;
    unsigned number = value[3];
    if (cls < 3 || cls > 6 || number > 99) {
        return ZQ_ERR_MALFORMED;
    }
    msg->error_code = (uint16_t)(cls * 100 + number);
    return take_bytes(&msg->error_reason, value + 4, (uint16_t)(len - 4), STUN_REASON_MAX);
}

/* UNKNOWN-ATTRIBUTES (§14.9): a list of 16-bit types. */
static zq_err_t take_unknown_list(stun_msg_t *msg, const uint8_t *value, uint16_t len)
{
    if (len % 2 != 0) {
        return ZQ_ERR_MALFORMED;
    }
    for (uint16_t i = 0; i < len && msg->unknown_listed_count < ZQ_STUN_MAX_UNKNOWN_ATTRS;
         i += 2) {
        msg->unknown_listed[msg->unknown_listed_count++] = zq_load_be16(value + i);
    }
    return ZQ_OK;
}

static zq_err_t expect_len(uint16_t len, uint16_t want)
{
    return len == want ? ZQ_OK : ZQ_ERR_MALFORMED;
}

/* The STUN_HAS_* bit of a known attribute type, 0 for an unknown one. */
static uint32_t attr_bit(uint16_t type)
{
    switch (type) {
    case STUN_ATTR_USERNAME:
        return STUN_HAS_USERNAME;
    case STUN_ATTR_REALM:
        return STUN_HAS_REALM;
    case STUN_ATTR_NONCE:
        return STUN_HAS_NONCE;
    case STUN_ATTR_SOFTWARE:
        return STUN_HAS_SOFTWARE;
    case STUN_ATTR_XOR_MAPPED_ADDRESS:
        return STUN_HAS_XOR_MAPPED_ADDRESS;
    case STUN_ATTR_MAPPED_ADDRESS:
        return STUN_HAS_MAPPED_ADDRESS;
    case STUN_ATTR_PRIORITY:
        return STUN_HAS_PRIORITY;
    case STUN_ATTR_USE_CANDIDATE:
        return STUN_HAS_USE_CANDIDATE;
    case STUN_ATTR_ICE_CONTROLLING:
        return STUN_HAS_ICE_CONTROLLING;
    case STUN_ATTR_ICE_CONTROLLED:
        return STUN_HAS_ICE_CONTROLLED;
    case STUN_ATTR_ERROR_CODE:
        return STUN_HAS_ERROR_CODE;
    case STUN_ATTR_UNKNOWN_ATTRIBUTES:
        return STUN_HAS_UNKNOWN_ATTRIBUTES;
    default:
        return 0;
    }
}

/* Decodes one attribute that comes before MESSAGE-INTEGRITY. */
static zq_err_t take_attribute(stun_msg_t *msg, uint16_t type, const uint8_t *value,
                               uint16_t len)
{
    switch (type) {
    case STUN_ATTR_USERNAME:
        return take_bytes(&msg->username, value, len, STUN_USERNAME_MAX);
    case STUN_ATTR_REALM:
        return take_bytes(&msg->realm, value, len, STUN_REASON_MAX);
    case STUN_ATTR_NONCE:
        return take_bytes(&msg->nonce, value, len, STUN_REASON_MAX);
    case STUN_ATTR_SOFTWARE:
        return take_bytes(&msg->software, value, len, STUN_REASON_MAX);
    case STUN_ATTR_XOR_MAPPED_ADDRESS:
        return stun_decode_address(value, len, true, msg->tid, &msg->xor_mapped);
    case STUN_ATTR_MAPPED_ADDRESS:
        return stun_decode_address(value, len, false, msg->tid, &msg->mapped);
    case STUN_ATTR_PRIORITY:
        msg->priority = len == 4 ? zq_load_be32(value) : 0;
        return expect_len(len, 4);
    case STUN_ATTR_USE_CANDIDATE:
        return expect_len(len, 0);
    case STUN_ATTR_ICE_CONTROLLING:
    case STUN_ATTR_ICE_CONTROLLED:
        msg->tie_breaker = len == 8 ? zq_load_be64(value) : 0;
        return expect_len(len, 8);
    case STUN_ATTR_ERROR_CODE:
        return take_error_code(msg, value, len);
    case STUN_ATTR_UNKNOWN_ATTRIBUTES:
        return take_unknown_list(msg, value, len);
    default:
        /* §14: an unknown comprehension-optional attribute (0x8000-0xFFFF) is ignored. */
        if (type < 0x8000u) {
            note_unknown_required(msg, type);
        }
        return ZQ_OK;
    }
}

/* §14.7: FINGERPRINT is the last attribute; its value must match the CRC. */
static zq_err_t check_fingerprint(const stun_msg_t *msg, size_t offset, const uint8_t *value,
                                  uint16_t len)
{
    if (len != 4 || offset + 8 != msg->raw_len) {
        return ZQ_ERR_MALFORMED;
    }
    return zq_load_be32(value) == stun_compute_fingerprint(msg->raw, offset)
               ? ZQ_OK
               : ZQ_ERR_FINGERPRINT;
}

zq_err_t stun_parse(stun_msg_t *msg, const uint8_t *buf, size_t len)
{
    zq_err_t err = parse_header(msg, buf, len);
    if (err != ZQ_OK) {
        return err;
    }
    zq_reader_t r = zq_reader(buf, len);
    (void)zq_read_bytes(&r, STUN_HEADER_LEN);
    while (zq_reader_left(&r) > 0) {
        size_t offset = r.off;
        uint16_t type = zq_read_be16(&r);
        uint16_t attr_len = zq_read_be16(&r);
        const uint8_t *value = zq_read_bytes(&r, attr_len);
        (void)zq_read_bytes(&r, (4u - attr_len % 4u) % 4u); /* padding */
        if (r.failed) {
            return ZQ_ERR_MALFORMED; /* an attribute claims more than the message holds */
        }
        if (type == STUN_ATTR_FINGERPRINT) {
            err = check_fingerprint(msg, offset, value, attr_len);
            msg->present |= err == ZQ_OK ? STUN_HAS_FINGERPRINT : 0;
            return err;
        }
        if (msg->present & STUN_HAS_MESSAGE_INTEGRITY) {
            continue; /* §14.5: after MESSAGE-INTEGRITY, all but FINGERPRINT is ignored */
        }
        if (type == STUN_ATTR_MESSAGE_INTEGRITY) {
            if (attr_len != STUN_INTEGRITY_LEN) {
                return ZQ_ERR_MALFORMED;
            }
            msg->integrity_offset = offset;
            msg->present |= STUN_HAS_MESSAGE_INTEGRITY;
            continue;
        }
        uint32_t bit = attr_bit(type);
        if (msg->present & bit) {
            continue; /* §14: only the first occurrence of an attribute counts */
        }
        err = take_attribute(msg, type, value, attr_len);
        if (err != ZQ_OK) {
            return err;
        }
        msg->present |= bit;
    }
    return ZQ_OK;
}
