/* NATS nkeys and .creds files (see nats_nkey.h). */
#include "stack/nats/nats_nkey.h"

#include <stdbool.h>
#include <string.h>

#include "zq/base64.h"

#define PREFIX_SEED (18u << 3)
#define PREFIX_USER (20u << 3)

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"; /* RFC 4648 §6 */

/* CRC-16/XMODEM, bit by bit: what NATS's nkeys append. */
static uint16_t crc16(const uint8_t *p, size_t n)
{
    uint16_t crc = 0;
    for (size_t i = 0; i < n; i++) {
        crc ^= (uint16_t)(p[i] << 8);
        for (int b = 0; b < 8; b++) {
            crc = (uint16_t)((unsigned)crc << 1 ^ ((crc & 0x8000u) != 0 ? 0x1021u : 0u));
        }
    }
    return crc;
}

/* @p n bytes as unpadded base32 into @p out (8 characters per 5 bytes, rounded up). */
static void base32_encode(const uint8_t *in, size_t n, char *out)
{
    uint32_t acc = 0;
    int bits = 0;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        acc = (acc << 8) | in[i];
        bits += 8;
        while (bits >= 5) {
            out[o++] = alphabet[(acc >> (bits - 5)) & 31];
            bits -= 5;
        }
    }
    if (bits > 0) {
        out[o++] = alphabet[(acc << (5 - bits)) & 31];
    }
    out[o] = '\0';
}

/* Unpadded base32 of exactly @p n bytes. @return false for another length or character. */
static bool base32_decode(const char *in, size_t len, uint8_t *out, size_t n)
{
    if (len != (8 * n + 4) / 5) {
        return false;
    }
    uint32_t acc = 0;
    int bits = 0;
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        const char *at = in[i] != '\0' ? strchr(alphabet, in[i]) : NULL;
        if (at == NULL) {
            return false;
        }
        acc = (acc << 5) | (uint32_t)(at - alphabet);
        bits += 5;
        if (bits >= 8) {
            out[o++] = (uint8_t)(acc >> (bits - 8));
            bits -= 8;
        }
    }
    return o == n;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

zq_err_t nats_nkey_from_seed(nats_nkey_t *k, const char *text, size_t len)
{
    while (len > 0 && is_space(text[0])) {
        text++;
        len--;
    }
    while (len > 0 && is_space(text[len - 1])) {
        len--;
    }
    uint8_t raw[2 + ZQ_ED25519_SEED_LEN + 2];
    if (!base32_decode(text, len, raw, sizeof raw)) {
        return ZQ_ERR_MALFORMED;
    }
    uint16_t crc = (uint16_t)(raw[34] | raw[35] << 8);
    if (crc16(raw, 34) != crc) {
        return ZQ_ERR_MALFORMED;
    }
    if ((raw[0] & 0xf8) != PREFIX_SEED ||
        (uint8_t)((raw[0] & 7) << 5 | raw[1] >> 3) != PREFIX_USER) {
        return ZQ_ERR_INVALID_ARG;
    }
    memcpy(k->seed, raw + 2, sizeof k->seed);
    memset(raw, 0, sizeof raw);
    uint8_t pub[1 + ZQ_ED25519_PUBLIC_LEN + 2];
    pub[0] = PREFIX_USER;
    zq_err_t err = zq_ed25519_public(k->seed, pub + 1);
    if (err != ZQ_OK) {
        return err;
    }
    crc = crc16(pub, 33);
    pub[33] = (uint8_t)crc;
    pub[34] = (uint8_t)(crc >> 8);
    base32_encode(pub, sizeof pub, k->public_key);
    return ZQ_OK;
}

zq_err_t nats_nkey_sign(const nats_nkey_t *k, const char *nonce, size_t len,
                        char sig[NATS_NKEY_SIG_LEN + 1])
{
    uint8_t raw[ZQ_ED25519_SIG_LEN];
    zq_err_t err = zq_ed25519_sign(k->seed, (const uint8_t *)nonce, len, raw);
    if (err != ZQ_OK) {
        return err;
    }
    char text[NATS_NKEY_SIG_LEN + 3]; /* with its "==" */
    size_t n = 0;
    (void)zq_base64_encode(raw, sizeof raw, text, sizeof text, &n);
    for (size_t i = 0; i < NATS_NKEY_SIG_LEN; i++) { /* RFC 4648 §5: the URL alphabet */
        sig[i] = text[i] == '+' ? '-' : text[i] == '/' ? '_' : text[i];
    }
    sig[NATS_NKEY_SIG_LEN] = '\0';
    return ZQ_OK;
}

/* The text between the line @p begin and the next line that starts with dashes (a JWT may
 * hold dashes itself, never at a line's start), trimmed. @return false if none. */
static bool block(const char *text, size_t len, const char *begin, const char **out,
                  size_t *out_len)
{
    size_t blen = strlen(begin);
    const char *end = text + len;
    for (const char *at = text; at + blen <= end; at++) {
        if (memcmp(at, begin, blen) != 0) {
            continue;
        }
        const char *p = at + blen;
        for (const char *line = p; line < end;) {
            const char *nl = memchr(line, '\n', (size_t)(end - line));
            const char *next = nl != NULL ? nl + 1 : end;
            if (end - line >= 3 && memcmp(line, "---", 3) == 0) {
                while (p < line && is_space(*p)) {
                    p++;
                }
                while (line > p && is_space(line[-1])) {
                    line--;
                }
                *out = p;
                *out_len = (size_t)(line - p);
                return true;
            }
            line = next;
        }
        return false;
    }
    return false;
}

/* RFC 7519 §3: three base64url parts joined by dots. */
static bool jwt_shaped(const char *p, size_t n)
{
    size_t dots = 0;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        bool url = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                   c == '-' || c == '_';
        dots += c == '.';
        if (!url && c != '.') {
            return false;
        }
    }
    return dots == 2;
}

zq_err_t nats_creds_parse(const char *text, size_t len, char *jwt, size_t jwt_cap,
                          nats_nkey_t *k)
{
    const char *p;
    size_t n;
    if (!block(text, len, "-----BEGIN NATS USER JWT-----", &p, &n) || !jwt_shaped(p, n)) {
        return ZQ_ERR_MALFORMED;
    }
    if (n + 1 > jwt_cap) {
        return ZQ_ERR_TOO_LONG;
    }
    memcpy(jwt, p, n);
    jwt[n] = '\0';
    if (!block(text, len, "-----BEGIN USER NKEY SEED-----", &p, &n)) {
        return ZQ_ERR_MALFORMED;
    }
    return nats_nkey_from_seed(k, p, n);
}
