/* Base64, RFC 4648 §4: each 3 bytes become 4 characters of 6 bits; a final group of 1 or 2
 * bytes is padded with "==" or "=". */
#include <stdbool.h>

#include "zq/base64.h"

static const char alphabet[65] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

zq_err_t zq_base64_encode(const uint8_t *in, size_t len, char *out, size_t cap, size_t *out_len)
{
    size_t need = ZQ_BASE64_ENCODED_LEN(len);
    if (len > (SIZE_MAX - 1) / 4 * 3 - 2 || cap < need + 1) {
        return ZQ_ERR_NO_SPACE;
    }
    size_t o = 0;
    for (size_t i = 0; i < len; i += 3) {
        size_t left = len - i;
        uint32_t v = (uint32_t)in[i] << 16;
        v |= left > 1 ? (uint32_t)in[i + 1] << 8 : 0;
        v |= left > 2 ? in[i + 2] : 0;
        out[o++] = alphabet[v >> 18 & 0x3F];
        out[o++] = alphabet[v >> 12 & 0x3F];
        out[o++] = left > 1 ? alphabet[v >> 6 & 0x3F] : '=';
        out[o++] = left > 2 ? alphabet[v & 0x3F] : '=';
    }
    out[o] = '\0';
    if (out_len != NULL) {
        *out_len = o;
    }
    return ZQ_OK;
}

/* The 6-bit value of @p c, or -1 if it is not in the alphabet. */
static int sextet(char c)
{
    if (c >= 'A' && c <= 'Z') {
        return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
        return c - 'a' + 26;
    }
    if (c >= '0' && c <= '9') {
        return c - '0' + 52;
    }
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Decodes one 4-character group; @p last says whether padding may appear. Returns the number
 * of bytes (1..3) or 0 if the group is invalid. */
static size_t decode_group(const char *g, bool last, uint8_t bytes[3])
{
    size_t pad = 0;
    if (last && g[3] == '=') {
        pad = g[2] == '=' ? 2 : 1;
    }
    uint32_t v = 0;
    for (size_t i = 0; i < 4; i++) {
        int s = i < 4 - pad ? sextet(g[i]) : 0;
        if (s < 0) {
            return 0;
        }
        v = v << 6 | (uint32_t)s;
    }
    /* §3.5: the bits beyond the last whole byte must be zero. */
    if ((pad == 1 && (v & 0xFFu) != 0) || (pad == 2 && (v & 0xFFFFu) != 0)) {
        return 0;
    }
    bytes[0] = (uint8_t)(v >> 16);
    bytes[1] = (uint8_t)(v >> 8);
    bytes[2] = (uint8_t)v;
    return 3 - pad;
}

zq_err_t zq_base64_decode(const char *in, size_t len, uint8_t *out, size_t cap, size_t *out_len)
{
    if (len % 4 != 0) {
        return ZQ_ERR_MALFORMED;
    }
    size_t o = 0;
    for (size_t i = 0; i < len; i += 4) {
        uint8_t bytes[3];
        size_t n = decode_group(in + i, i + 4 == len, bytes);
        if (n == 0) {
            return ZQ_ERR_MALFORMED;
        }
        if (n > cap - o) {
            return ZQ_ERR_NO_SPACE;
        }
        for (size_t k = 0; k < n; k++) {
            out[o++] = bytes[k];
        }
    }
    if (out_len != NULL) {
        *out_len = o;
    }
    return ZQ_OK;
}
