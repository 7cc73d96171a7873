/* TURN's attributes (RFC 8656 §18) from a message stun_parse() has checked: a walk over its
 * attributes, each already within the message's bounds, reading only TURN's types. */
#include <string.h>

#include "stack/turn/turn.h"
#include "zq/bytes.h"

/* STUN's own comprehension-required types, which stun_parse() reads (RFC 8489 §18.3). */
static bool stun_knows(uint16_t type)
{
    switch (type) {
    case STUN_ATTR_MAPPED_ADDRESS:
    case STUN_ATTR_USERNAME:
    case STUN_ATTR_MESSAGE_INTEGRITY:
    case STUN_ATTR_ERROR_CODE:
    case STUN_ATTR_UNKNOWN_ATTRIBUTES:
    case STUN_ATTR_REALM:
    case STUN_ATTR_NONCE:
    case STUN_ATTR_XOR_MAPPED_ADDRESS:
    case STUN_ATTR_PRIORITY:
    case STUN_ATTR_USE_CANDIDATE:
        return true;
    default:
        return false;
    }
}

static zq_err_t take_u32(const uint8_t *v, uint16_t len, uint32_t *out)
{
    if (len != 4) {
        return ZQ_ERR_MALFORMED;
    }
    *out = zq_load_be32(v);
    return ZQ_OK;
}

/* The first of each address counts (RFC 8656 §18.3: several XOR-PEER-ADDRESS are for
 * CreatePermission requests, which a client does not receive). */
static zq_err_t take_address(const stun_msg_t *msg, const uint8_t *v, uint16_t len,
                             uint32_t bit, turn_attrs_t *out, zq_addr_t *addr)
{
    if (out->present & bit) {
        return ZQ_OK;
    }
    out->present |= bit;
    return stun_decode_address(v, len, true, msg->tid, addr);
}

static zq_err_t take_attr(const stun_msg_t *msg, uint16_t type, const uint8_t *v, uint16_t len,
                          turn_attrs_t *out)
{
    uint32_t channel;
    switch (type) {
    case TURN_ATTR_CHANNEL_NUMBER: /* §18.1: the number, then 16 RFFU bits */
        if (take_u32(v, len, &channel) != ZQ_OK || (channel >> 16) < TURN_CHANNEL_MIN ||
            (channel >> 16) > TURN_CHANNEL_MAX) {
            return ZQ_ERR_MALFORMED;
        }
        out->channel = (uint16_t)(channel >> 16);
        out->present |= TURN_HAS_CHANNEL_NUMBER;
        return ZQ_OK;
    case TURN_ATTR_LIFETIME:
        out->present |= TURN_HAS_LIFETIME;
        return take_u32(v, len, &out->lifetime_s);
    case TURN_ATTR_XOR_PEER_ADDRESS:
        return take_address(msg, v, len, TURN_HAS_XOR_PEER_ADDRESS, out, &out->peer);
    case TURN_ATTR_XOR_RELAYED_ADDRESS:
        return take_address(msg, v, len, TURN_HAS_XOR_RELAYED_ADDRESS, out, &out->relayed);
    case TURN_ATTR_DATA:
        out->data = v;
        out->data_len = len;
        out->present |= TURN_HAS_DATA;
        return ZQ_OK;
    case TURN_ATTR_REQUESTED_ADDRESS_FAMILY:
    case TURN_ATTR_EVEN_PORT:
    case TURN_ATTR_REQUESTED_TRANSPORT:
    case TURN_ATTR_DONT_FRAGMENT:
    case TURN_ATTR_RESERVATION_TOKEN:
        return ZQ_OK; /* known, of no use to a client that never asks for them */
    default:
        if (type < 0x8000 && !stun_knows(type) && out->unknown_required < UINT8_MAX) {
            out->unknown_required++;
        }
        return ZQ_OK;
    }
}

zq_err_t turn_parse_attrs(const stun_msg_t *msg, turn_attrs_t *out)
{
    memset(out, 0, sizeof *out);
    size_t at = STUN_HEADER_LEN;
    while (at + 4 <= msg->raw_len) {
        uint16_t type = zq_load_be16(msg->raw + at);
        uint16_t len = zq_load_be16(msg->raw + at + 2);
        if (len > msg->raw_len - at - 4) {
            return ZQ_ERR_MALFORMED; /* stun_parse() refused this already */
        }
        zq_err_t err = take_attr(msg, type, msg->raw + at + 4, len, out);
        if (err != ZQ_OK) {
            return err;
        }
        at += 4 + (size_t)((len + 3u) & ~3u);
    }
    return ZQ_OK;
}
