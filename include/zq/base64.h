/**
 * @file base64.h
 * @brief Base64 (RFC 4648 §4, the standard alphabet with padding), no allocation.
 *
 * zq's own because the device mbedTLS configuration leaves MBEDTLS_BASE64_C out. Used for the
 * WebSocket handshake keys (RFC 6455 §4.1, §4.2.2) and for zmqcat's `body` field.
 */
#ifndef ZQ_BASE64_H
#define ZQ_BASE64_H

#include <stddef.h>
#include <stdint.h>

#include "zq/err.h"

/** Characters of the encoding of @p n bytes, without the terminating NUL. */
#define ZQ_BASE64_ENCODED_LEN(n) ((((n) + 2) / 3) * 4)

/** Most bytes the decoding of @p n characters can hold. */
#define ZQ_BASE64_DECODED_MAX(n) (((n) / 4) * 3)

/**
 * Encodes @p len bytes into @p out and NUL-terminates it.
 * @param out_len set to the number of characters (without the NUL); may be NULL.
 * @return ZQ_ERR_NO_SPACE if @p cap < ZQ_BASE64_ENCODED_LEN(len) + 1 (nothing is written).
 */
zq_err_t zq_base64_encode(const uint8_t *in, size_t len, char *out, size_t cap, size_t *out_len);

/**
 * Decodes @p len characters strictly: length a multiple of 4, only the alphabet, '=' only as
 * final padding, and the unused bits of the last group zero (RFC 4648 §3.5 canonical form).
 * Whitespace is not skipped (§3.3).
 * @return ZQ_ERR_MALFORMED, or ZQ_ERR_NO_SPACE if the bytes do not fit @p cap.
 */
zq_err_t zq_base64_decode(const char *in, size_t len, uint8_t *out, size_t cap, size_t *out_len);

#endif /* ZQ_BASE64_H */
