/* MESSAGE-INTEGRITY (RFC 8489 §14.5) and FINGERPRINT (§14.7). */
#include <string.h>

#include "stack/ice/stun.h"
#include "zq/crypto.h"

#define FINGERPRINT_XOR 0x5354554Eu

void stun_compute_integrity(const uint8_t *msg, size_t integrity_offset, const uint8_t *key,
                            size_t key_len, uint8_t out[STUN_INTEGRITY_LEN])
{
    /* The HMAC covers the message up to the attribute, with the length field counting
     * through the end of MESSAGE-INTEGRITY, whatever actually follows it. */
    uint8_t header[STUN_HEADER_LEN];
    memcpy(header, msg, STUN_HEADER_LEN);
    zq_store_be16(header + 2, (uint16_t)(integrity_offset - STUN_HEADER_LEN + 4 +
                                         STUN_INTEGRITY_LEN));
    zq_hmac_sha1_t h;
    zq_hmac_sha1_start(&h, key, key_len);
    zq_hmac_sha1_update(&h, header, sizeof header);
    zq_hmac_sha1_update(&h, msg + STUN_HEADER_LEN, integrity_offset - STUN_HEADER_LEN);
    zq_hmac_sha1_finish(&h, out);
}

zq_err_t stun_verify_integrity(const stun_msg_t *msg, const uint8_t *key, size_t key_len)
{
    if (!(msg->present & STUN_HAS_MESSAGE_INTEGRITY)) {
        return ZQ_ERR_NOT_FOUND;
    }
    uint8_t expected[STUN_INTEGRITY_LEN];
    stun_compute_integrity(msg->raw, msg->integrity_offset, key, key_len, expected);
    const uint8_t *received = msg->raw + msg->integrity_offset + 4;
    return zq_consttime_equal(expected, received, STUN_INTEGRITY_LEN) ? ZQ_OK
                                                                       : ZQ_ERR_INTEGRITY;
}

uint32_t stun_compute_fingerprint(const uint8_t *msg, size_t fingerprint_offset)
{
    /* The header's length already counts the FINGERPRINT attribute, which must be last. */
    return zq_crc32_update(0, msg, fingerprint_offset) ^ FINGERPRINT_XOR;
}
