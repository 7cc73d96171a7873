/* Trust anchors from a PEM bundle, found on demand (see tls_client.h): the bundle stays text,
 * and verifying a chain parses only the certificates whose subject matches an issuer in it.
 * A bundle of 140 roots costs the arena one certificate at a time, not 140. */
#include "stack/tls/tls_client.h"

#include "mbedtls/build_info.h"

#if defined(ZQ_MBEDTLS_TLS)

#include <stdio.h>
#include <string.h>

#include "mbedtls/base64.h"
#include "mbedtls/platform.h"
#include "stack/tls/tls_internal.h"

#define PEM_BEGIN "-----BEGIN CERTIFICATE-----"
#define PEM_END "-----END CERTIFICATE-----"
#define DER_MAX 4096 /* larger than any root in a public bundle (RSA-4096: ~1.9 KB) */

static const char *find(const char *from, const char *end, const char *what)
{
    size_t n = strlen(what);
    for (const char *p = from; p != NULL && (size_t)(end - p) >= n; p++) {
        p = memchr(p, what[0], (size_t)(end - p));
        if (p == NULL || (size_t)(end - p) < n) {
            return NULL;
        }
        if (memcmp(p, what, n) == 0) {
            return p;
        }
    }
    return NULL;
}

/* The next PEM certificate body at or after *at: its base64 text in [*body, *body_end). */
static bool next_block(const char **at, const char *end, const char **body,
                       const char **body_end)
{
    const char *b = find(*at, end, PEM_BEGIN);
    const char *e = b != NULL ? find(b, end, PEM_END) : NULL;
    if (e == NULL) {
        return false;
    }
    *body = b + strlen(PEM_BEGIN);
    *body_end = e;
    *at = e + strlen(PEM_END);
    return true;
}

bool tls_anchors_any(const char *bundle, size_t len)
{
    const char *at = bundle;
    const char *body;
    const char *body_end;
    return bundle != NULL && next_block(&at, bundle + len, &body, &body_end);
}

/* Parses one block; NULL when it is not a certificate mbedTLS reads (skipped, not fatal: a
 * bundle may carry an algorithm this build lacks). Its DER is decoded into the arena for the
 * moment mbedTLS takes its copy: no static buffer (4 KiB a device would keep for nothing). */
static mbedtls_x509_crt *parse_block(const char *body, const char *body_end)
{
    size_t text_len = (size_t)(body_end - body);
    size_t cap = text_len / 4 * 3 + 3; /* base64: 3 bytes per 4 characters, and a last group */
    if (cap > DER_MAX) {
        return NULL;
    }
    uint8_t *der = mbedtls_calloc(1, cap);
    mbedtls_x509_crt *crt = der != NULL ? mbedtls_calloc(1, sizeof *crt) : NULL;
    size_t der_len = 0;
    bool ok = crt != NULL && mbedtls_base64_decode(der, cap, &der_len,
                                                   (const unsigned char *)body, text_len) == 0;
    if (ok) {
        mbedtls_x509_crt_init(crt);
        ok = mbedtls_x509_crt_parse_der(crt, der, der_len) == 0;
        if (!ok) {
            mbedtls_x509_crt_free(crt);
        }
    }
    mbedtls_free(der);
    if (!ok) {
        mbedtls_free(crt);
        return NULL;
    }
    return crt;
}

int tls_anchors_find(void *ctx, const mbedtls_x509_crt *child, mbedtls_x509_crt **candidates)
{
    tls_client_config_t *cfg = ctx;
    const char *at = cfg->bundle;
    const char *end = cfg->bundle + cfg->bundle_len;
    const char *body;
    const char *body_end;
    mbedtls_x509_crt **tail = candidates;
    *candidates = NULL;
    while (next_block(&at, end, &body, &body_end)) {
        mbedtls_x509_crt *crt = parse_block(body, body_end);
        if (crt == NULL) {
            continue;
        }
        cfg->anchors_parsed++;
        bool issuer = crt->subject_raw.len == child->issuer_raw.len &&
                      memcmp(crt->subject_raw.p, child->issuer_raw.p, crt->subject_raw.len) == 0;
        if (!issuer) {
            mbedtls_x509_crt_free(crt);
            mbedtls_free(crt);
            continue;
        }
        *tail = crt; /* mbedTLS frees the list after the check */
        tail = &crt->next;
    }
    return 0;
}

void tls_explain_verify(uint32_t flags, bool pin_failed, char *out, size_t cap)
{
    const char *what = "it failed a check";
    if (pin_failed) {
        what = "its key is not the pinned one";
    } else if (flags & MBEDTLS_X509_BADCERT_CN_MISMATCH) {
        what = "it does not name the host in the URL";
    } else if (flags & (MBEDTLS_X509_BADCERT_NOT_TRUSTED | MBEDTLS_X509_BADCERT_MISSING)) {
        what = "no CA of the bundle vouches for it";
    } else if (flags & MBEDTLS_X509_BADCERT_EXPIRED) {
        what = "it has expired";
    } else if (flags & MBEDTLS_X509_BADCERT_FUTURE) {
        what = "it is not valid yet";
    } else if (flags & (MBEDTLS_X509_BADCERT_BAD_MD | MBEDTLS_X509_BADCERT_BAD_PK |
                        MBEDTLS_X509_BADCERT_BAD_KEY)) {
        what = "it uses an algorithm or key size this build refuses";
    }
    (void)snprintf(out, cap, "the server's certificate was refused: %s (flags 0x%05x)", what,
                   (unsigned)flags);
}

#endif /* ZQ_MBEDTLS_TLS */
