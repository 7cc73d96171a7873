/* Certificate fingerprints as SDP writes them (RFC 8122 §5, RFC 4572):
 *     a=fingerprint:sha-256 4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C:AB
 * zq makes and accepts SHA-256, the hash every browser uses (RFC 8827 §6.5). */
#include <string.h>

#include "stack/dtls/dtls.h"
#include "zq/hex.h"

static const char hash_name[] = "sha-256";

size_t dtls_fingerprint_format(const dtls_fingerprint_t *fp, char *out, size_t cap)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t len = sizeof hash_name - 1 + 1 + 3 * DTLS_FINGERPRINT_LEN - 1;
    if (cap < len + 1) {
        if (cap > 0) {
            out[0] = '\0';
        }
        return 0;
    }
    size_t at = 0;
    memcpy(out, hash_name, sizeof hash_name - 1);
    at += sizeof hash_name - 1;
    out[at++] = ' ';
    for (size_t i = 0; i < DTLS_FINGERPRINT_LEN; i++) {
        if (i > 0) {
            out[at++] = ':';
        }
        out[at++] = hex[fp->bytes[i] >> 4];
        out[at++] = hex[fp->bytes[i] & 0xF];
    }
    out[at] = '\0';
    return at;
}

static bool same_word_ignoring_case(const char *a, size_t len, const char *word)
{
    if (strlen(word) != len) {
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        if ((char)(a[i] | 0x20) != word[i]) {
            return false;
        }
    }
    return true;
}

/* RFC 8122 §5 hash names other than sha-256: known, but not what zq verifies against. */
static bool other_known_hash(const char *name, size_t len)
{
    static const char *const others[] = {"sha-1", "sha-224", "sha-384", "sha-512", "md5", "md2"};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        if (same_word_ignoring_case(name, len, others[i])) {
            return true;
        }
    }
    return false;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

zq_err_t dtls_fingerprint_parse(const char *text, size_t len, dtls_fingerprint_t *out)
{
    size_t i = 0;
    while (i < len && is_space(text[i])) {
        i++;
    }
    size_t name_start = i;
    while (i < len && !is_space(text[i])) {
        i++;
    }
    size_t name_len = i - name_start;
    if (!same_word_ignoring_case(text + name_start, name_len, hash_name)) {
        return other_known_hash(text + name_start, name_len) ? ZQ_ERR_UNSUPPORTED
                                                              : ZQ_ERR_MALFORMED;
    }
    while (i < len && text[i] == ' ') {
        i++;
    }
    dtls_fingerprint_t fp;
    for (size_t byte = 0; byte < DTLS_FINGERPRINT_LEN; byte++) {
        if (byte > 0 && (i >= len || text[i++] != ':')) {
            return ZQ_ERR_MALFORMED;
        }
        int hi = i < len ? zq_hex_digit(text[i]) : -1;
        int lo = i + 1 < len ? zq_hex_digit(text[i + 1]) : -1;
        if (hi < 0 || lo < 0) {
            return ZQ_ERR_MALFORMED;
        }
        fp.bytes[byte] = (uint8_t)(hi << 4 | lo);
        i += 2;
    }
    while (i < len && is_space(text[i])) {
        i++;
    }
    if (i != len) {
        return ZQ_ERR_MALFORMED;
    }
    *out = fp;
    return ZQ_OK;
}
