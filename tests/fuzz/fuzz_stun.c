/* libFuzzer target for the STUN parser (RFC 8489 §5, §14): arbitrary datagrams must be either
 * rejected or parsed into a message whose every borrowed slice lies inside the datagram. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stack/ice/stun.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The RFC 5769 §2 password, so the seed vectors reach the successful comparison too. */
static const uint8_t fuzz_key[] = "VOkJxbRl1RmTxUk/WvJxBt";

static void require(bool ok)
{
    if (!ok) {
        __builtin_trap();
    }
}

static bool inside(const stun_msg_t *m, stun_bytes_t b)
{
    if (b.len == 0) {
        return true;
    }
    return b.data >= m->raw && (size_t)(b.data - m->raw) <= m->raw_len &&
           b.len <= m->raw_len - (size_t)(b.data - m->raw);
}

static bool is_family(uint8_t family)
{
    return family == ZQ_AF_INET4 || family == ZQ_AF_INET6;
}

/* §14.5: MESSAGE-INTEGRITY is a whole 24-byte attribute inside the message. */
static void check_integrity_offset(const stun_msg_t *m)
{
    size_t off = m->integrity_offset;
    require(off >= STUN_HEADER_LEN && off % 4 == 0);
    require(off + 4 + STUN_INTEGRITY_LEN <= m->raw_len);
    require(zq_load_be16(m->raw + off) == STUN_ATTR_MESSAGE_INTEGRITY);
    require(zq_load_be16(m->raw + off + 2) == STUN_INTEGRITY_LEN);
}

static void check_message(const stun_msg_t *m, const uint8_t *data, size_t size)
{
    require(m->raw == data && m->raw_len == size);
    /* §5: zero top bits and the cookie. (Not stun_looks_like(): RFC 7983's first-byte range
     * 0..3 is the demux's rule, while a 14-bit type may start with any byte up to 0x3F.) */
    require(size >= STUN_HEADER_LEN && size % 4 == 0 && (data[0] & 0xC0) == 0 &&
            zq_load_be32(data + 4) == STUN_MAGIC_COOKIE);
    require(zq_load_be16(data + 2) == size - STUN_HEADER_LEN);
    require(m->username.len <= STUN_USERNAME_MAX && inside(m, m->username));
    require(m->realm.len <= STUN_REASON_MAX && inside(m, m->realm));
    require(m->nonce.len <= STUN_REASON_MAX && inside(m, m->nonce));
    require(m->software.len <= STUN_REASON_MAX && inside(m, m->software));
    require(m->error_reason.len <= STUN_REASON_MAX && inside(m, m->error_reason));
    require(m->unknown_required_count <= ZQ_STUN_MAX_UNKNOWN_ATTRS);
    require(m->unknown_listed_count <= ZQ_STUN_MAX_UNKNOWN_ATTRS);
    if (m->present & STUN_HAS_XOR_MAPPED_ADDRESS) {
        require(is_family(m->xor_mapped.family));
    }
    if (m->present & STUN_HAS_MAPPED_ADDRESS) {
        require(is_family(m->mapped.family));
    }
    if (m->present & STUN_HAS_ERROR_CODE) {
        require(m->error_code >= 300 && m->error_code <= 699);
    }
    if (m->present & STUN_HAS_FINGERPRINT) {
        /* §14.7: FINGERPRINT is last. */
        require(zq_load_be16(data + size - 8) == STUN_ATTR_FINGERPRINT);
    }
    if (m->present & STUN_HAS_MESSAGE_INTEGRITY) {
        check_integrity_offset(m);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)stun_looks_like(data, size);
    stun_msg_t m;
    zq_err_t err = stun_parse(&m, data, size);
    require(err == ZQ_OK || err == ZQ_ERR_TRUNCATED || err == ZQ_ERR_MALFORMED ||
            err == ZQ_ERR_FINGERPRINT);
    if (err != ZQ_OK) {
        return 0;
    }
    check_message(&m, data, size);
    err = stun_verify_integrity(&m, fuzz_key, sizeof fuzz_key - 1);
    if (m.present & STUN_HAS_MESSAGE_INTEGRITY) {
        require(err == ZQ_OK || err == ZQ_ERR_INTEGRITY);
    } else {
        require(err == ZQ_ERR_NOT_FOUND);
    }
    return 0;
}
