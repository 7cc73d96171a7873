/* MAPPED-ADDRESS and XOR-MAPPED-ADDRESS (RFC 8489 §14.1, §14.2):
 *
 *      0                   1                   2                   3
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |0 0 0 0 0 0 0 0|    Family     |         X-Port                |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |                X-Address (32 bits or 128 bits)                |
 *
 * Family 0x01 is IPv4, 0x02 IPv6. The XOR form masks the port with the cookie's top 16 bits and
 * the address with the cookie (IPv4) or the cookie and transaction id (IPv6), so that NATs that
 * rewrite addresses they see in payloads leave it alone. */
#include <string.h>

#include "stack/ice/stun.h"

enum { FAMILY_IPV4 = 0x01, FAMILY_IPV6 = 0x02 };

/* The 16-byte mask: cookie then transaction id. IPv4 uses the first 4 bytes. */
static void xor_mask(const uint8_t tid[STUN_TID_LEN], uint8_t mask[16])
{
    zq_store_be32(mask, STUN_MAGIC_COOKIE);
    memcpy(mask + 4, tid, STUN_TID_LEN);
}

zq_err_t stun_decode_address(const uint8_t *value, size_t len, bool xored,
                             const uint8_t tid[STUN_TID_LEN], zq_addr_t *out)
{
    zq_reader_t r = zq_reader(value, len);
    (void)zq_read_u8(&r);
    uint8_t family = zq_read_u8(&r);
    uint16_t port = zq_read_be16(&r);
    size_t ip_len = family == FAMILY_IPV4 ? 4 : family == FAMILY_IPV6 ? 16 : 0;
    const uint8_t *ip = zq_read_bytes(&r, ip_len);
    if (ip_len == 0 || ip == NULL || zq_reader_left(&r) != 0) {
        return ZQ_ERR_MALFORMED;
    }
    uint8_t mask[16];
    xor_mask(tid, mask);
    zq_addr_t a = {.family = family == FAMILY_IPV4 ? ZQ_AF_INET4 : ZQ_AF_INET6};
    a.port = xored ? (uint16_t)(port ^ (STUN_MAGIC_COOKIE >> 16)) : port;
    for (size_t i = 0; i < ip_len; i++) {
        a.ip[i] = xored ? (uint8_t)(ip[i] ^ mask[i]) : ip[i];
    }
    *out = a;
    return ZQ_OK;
}

void stun_put_xor_address(stun_builder_t *b, uint16_t type, const zq_addr_t *addr)
{
    const uint8_t *tid = b->w.data + 8;
    size_t ip_len = addr->family == ZQ_AF_INET6 ? 16 : 4;
    uint8_t value[20];
    uint8_t mask[16];
    if (b->w.len < STUN_HEADER_LEN || addr->family == ZQ_AF_NONE) {
        b->w.failed = true;
        return;
    }
    xor_mask(tid, mask);
    value[0] = 0;
    value[1] = addr->family == ZQ_AF_INET6 ? FAMILY_IPV6 : FAMILY_IPV4;
    zq_store_be16(value + 2, (uint16_t)(addr->port ^ (STUN_MAGIC_COOKIE >> 16)));
    for (size_t i = 0; i < ip_len; i++) {
        value[4 + i] = (uint8_t)(addr->ip[i] ^ mask[i]);
    }
    stun_put_attr(b, type, value, 4 + ip_len);
}
