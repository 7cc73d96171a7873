/* The sans-IO TLS 1.2 client (see tls_client.h). Built where the mbedTLS configuration has the
 * TLS client's algorithms (config/zq_mbedtls_tls.h); elsewhere only what a plain link asks. */
#include "stack/tls/tls_client.h"

#include "mbedtls/build_info.h"

#if defined(ZQ_MBEDTLS_TLS_CLIENT)

#include <stdio.h>
#include <string.h>

#include "mbedtls/error.h"
#include "mbedtls/x509_crt.h"
#include "stack/tls/tls_internal.h"
#include "zq/addr.h"
#include "zq/crypto.h"

/* ECDHE only (forward secrecy), AEAD only: what RFC 9325 §4.2 recommends for TLS 1.2, and what
 * every browser-facing server offers. */
static const int cipher_suites[] = {
    MBEDTLS_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
    MBEDTLS_TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
    MBEDTLS_TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
    MBEDTLS_TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
    MBEDTLS_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
    MBEDTLS_TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
    0,
};

static const uint16_t groups[] = {MBEDTLS_SSL_IANA_TLS_GROUP_SECP256R1,
                                  MBEDTLS_SSL_IANA_TLS_GROUP_SECP384R1,
                                  MBEDTLS_SSL_IANA_TLS_GROUP_NONE};

/* ---- The shared configuration ------------------------------------------------------------ */

/* An IP literal in the URL: RFC 6066 §3 keeps it out of SNI, and RFC 6125 §6.2.1 matches it
 * against the certificate's iPAddress names, byte for byte. mbedTLS would send it as SNI, so
 * the session has no host name and this check stands in for mbedTLS's. */
static bool names_ip(const mbedtls_x509_crt *crt, const zq_addr_t *ip)
{
    size_t len = ip->family == ZQ_AF_INET4 ? 4 : 16;
    for (const mbedtls_x509_sequence *san = &crt->subject_alt_names; san != NULL;
         san = san->next) {
        if (san->buf.tag == (MBEDTLS_ASN1_CONTEXT_SPECIFIC | MBEDTLS_X509_SAN_IP_ADDRESS) &&
            san->buf.len == len && memcmp(san->buf.p, ip->ip, len) == 0) {
            return true;
        }
    }
    return false;
}

/* Depth 0 is the server's own certificate: its IP when the URL names one, and with a pin its
 * key must be the pinned one. */
static int verify_leaf(void *ctx, mbedtls_x509_crt *crt, int depth, uint32_t *flags)
{
    tls_client_t *t = ctx;
    if (depth != 0) {
        return 0;
    }
    if (t->ip.family != ZQ_AF_NONE && !names_ip(crt, &t->ip)) {
        *flags |= MBEDTLS_X509_BADCERT_CN_MISMATCH;
    }
    if (!t->cfg->has_pin) {
        return 0;
    }
    uint8_t digest[ZQ_SHA256_LEN];
    zq_sha256(crt->pk_raw.p, crt->pk_raw.len, digest);
    if (!zq_consttime_equal(digest, t->cfg->pin, sizeof digest)) {
        t->pin_failed = true;
        *flags |= MBEDTLS_X509_BADCERT_OTHER;
    }
    return 0;
}

zq_err_t tls_client_config_init(tls_client_config_t *cfg, const zq_rand_t *rand,
                                const char *bundle, size_t bundle_len,
                                const uint8_t pin[TLS_PIN_LEN])
{
    memset(cfg, 0, sizeof *cfg);
    if (!tls_anchors_any(bundle, bundle_len)) {
        return ZQ_ERR_INVALID_ARG;
    }
    cfg->bundle = bundle;
    cfg->bundle_len = bundle_len;
    if (pin != NULL) {
        cfg->has_pin = true;
        memcpy(cfg->pin, pin, TLS_PIN_LEN);
    }
    mbedtls_ssl_config_init(&cfg->conf);
    if (mbedtls_ssl_config_defaults(&cfg->conf, MBEDTLS_SSL_IS_CLIENT,
                                    MBEDTLS_SSL_TRANSPORT_STREAM,
                                    MBEDTLS_SSL_PRESET_DEFAULT) != 0) {
        mbedtls_ssl_config_free(&cfg->conf);
        return ZQ_ERR_CRYPTO;
    }
    mbedtls_ssl_conf_rng(&cfg->conf, rand->fill, rand->ctx);
    mbedtls_ssl_conf_min_tls_version(&cfg->conf, MBEDTLS_SSL_VERSION_TLS1_2);
    mbedtls_ssl_conf_max_tls_version(&cfg->conf, MBEDTLS_SSL_VERSION_TLS1_2);
    mbedtls_ssl_conf_ciphersuites(&cfg->conf, cipher_suites);
    mbedtls_ssl_conf_groups(&cfg->conf, groups);
    mbedtls_ssl_conf_authmode(&cfg->conf, MBEDTLS_SSL_VERIFY_REQUIRED);
    mbedtls_ssl_conf_ca_cb(&cfg->conf, tls_anchors_find, cfg);
    /* RFC 6066 §4: 1 KiB records, the largest mbedTLS may ask for with its 1,280-byte output
     * buffer (config/zq_mbedtls_dtls.h). A server that agrees sends nothing larger. */
    if (mbedtls_ssl_conf_max_frag_len(&cfg->conf, MBEDTLS_SSL_MAX_FRAG_LEN_1024) != 0) {
        mbedtls_ssl_config_free(&cfg->conf);
        return ZQ_ERR_CRYPTO;
    }
    cfg->ready = true;
    return ZQ_OK;
}

void tls_client_config_free(tls_client_config_t *cfg)
{
    if (cfg->ready) {
        mbedtls_ssl_config_free(&cfg->conf);
    }
    memset(cfg, 0, sizeof *cfg);
}

/* ---- mbedTLS's BIO: the two buffers -------------------------------------------------------- */

static int bio_send(void *ctx, const unsigned char *buf, size_t len)
{
    tls_client_t *t = ctx;
    size_t room = sizeof t->tx - t->tx_len;
    if (room == 0) {
        return MBEDTLS_ERR_SSL_WANT_WRITE;
    }
    size_t n = len < room ? len : room;
    memcpy(t->tx + t->tx_len, buf, n);
    t->tx_len += n;
    return (int)n;
}

static int bio_recv(void *ctx, unsigned char *buf, size_t len)
{
    tls_client_t *t = ctx;
    size_t have = t->rx_len - t->rx_off;
    if (have == 0) {
        return MBEDTLS_ERR_SSL_WANT_READ;
    }
    size_t n = len < have ? len : have;
    memcpy(buf, t->rx + t->rx_off, n);
    t->rx_off += n;
    if (t->rx_off == t->rx_len) {
        t->rx_off = t->rx_len = 0;
    }
    return (int)n;
}

/* ---- A session ------------------------------------------------------------------------------ */

zq_err_t tls_client_start(tls_client_t *t, tls_client_config_t *cfg, const char *host)
{
    tls_client_free(t);
    t->cfg = cfg;
    mbedtls_ssl_init(&t->ssl);
    t->ssl_ready = true;
    if (zq_addr_parse_ip(host, strlen(host), &t->ip) != ZQ_OK) {
        t->ip.family = ZQ_AF_NONE;
    }
    /* A name: mbedTLS checks it (RFC 6125 §6.4) and sends it as SNI. An IP: verify_leaf. */
    if (mbedtls_ssl_setup(&t->ssl, &cfg->conf) != 0 ||
        mbedtls_ssl_set_hostname(&t->ssl, t->ip.family == ZQ_AF_NONE ? host : NULL) != 0) {
        tls_client_free(t);
        return ZQ_ERR_CRYPTO;
    }
    mbedtls_ssl_set_verify(&t->ssl, verify_leaf, t);
    mbedtls_ssl_set_bio(&t->ssl, t, bio_send, bio_recv, NULL);
    t->state = TLS_CLIENT_HANDSHAKE;
    return ZQ_OK;
}

size_t tls_client_feed(tls_client_t *t, const uint8_t *data, size_t len)
{
    if (t->rx_off > 0) { /* keep the unread bytes at the front */
        memmove(t->rx, t->rx + t->rx_off, t->rx_len - t->rx_off);
        t->rx_len -= t->rx_off;
        t->rx_off = 0;
    }
    size_t room = sizeof t->rx - t->rx_len;
    size_t n = len < room ? len : room;
    memcpy(t->rx + t->rx_len, data, n);
    t->rx_len += n;
    return n;
}

size_t tls_client_input_room(const tls_client_t *t)
{
    return sizeof t->rx - (t->rx_len - t->rx_off); /* feed() moves the unread to the front */
}

bool tls_client_output(const tls_client_t *t, const uint8_t **out, size_t *len)
{
    *out = t->tx;
    *len = t->tx_len;
    return t->tx_len > 0;
}

void tls_client_output_consumed(tls_client_t *t, size_t n)
{
    n = n < t->tx_len ? n : t->tx_len;
    memmove(t->tx, t->tx + n, t->tx_len - n);
    t->tx_len -= n;
}

static zq_err_t failed(tls_client_t *t, int ret, const char **why)
{
    t->state = TLS_CLIENT_FAILED;
    t->error = ret;
    if (ret == MBEDTLS_ERR_X509_CERT_VERIFY_FAILED) {
        t->verify_flags = mbedtls_ssl_get_verify_result(&t->ssl);
        tls_explain_verify(t->verify_flags, t->pin_failed, t->why, sizeof t->why);
        *why = t->why;
        return ZQ_ERR_INTEGRITY;
    }
    char text[96];
    mbedtls_strerror(ret, text, sizeof text);
    /* A record larger than the input buffer: the server ignored max_fragment_length. */
    const char *hint = ret == MBEDTLS_ERR_SSL_INVALID_RECORD && MBEDTLS_SSL_IN_CONTENT_LEN < 16384
                           ? "; if the server ignores the request for 1 KiB records, build "
                             "with ZQ_TLS_FULL_RECORDS"
                           : "";
    (void)snprintf(t->why, sizeof t->why, "TLS failed: %s (-0x%04x)%s", text, (unsigned)-ret,
                   hint);
    *why = t->why;
    return ZQ_ERR_CRYPTO;
}

zq_err_t tls_client_handshake(tls_client_t *t, const char **why)
{
    static const char *ignored;
    why = why != NULL ? why : &ignored;
    if (t->state == TLS_CLIENT_OPEN) {
        return ZQ_OK;
    }
    if (t->state != TLS_CLIENT_HANDSHAKE) {
        *why = t->why[0] != '\0' ? t->why : "no TLS session";
        return ZQ_ERR_STATE;
    }
    int ret = mbedtls_ssl_handshake(&t->ssl);
    if (ret == 0) {
        t->state = TLS_CLIENT_OPEN;
        return ZQ_OK;
    }
    if (ret == MBEDTLS_ERR_SSL_WANT_READ || ret == MBEDTLS_ERR_SSL_WANT_WRITE) {
        return ZQ_ERR_WOULD_BLOCK;
    }
    return failed(t, ret, why);
}

zq_err_t tls_client_write(tls_client_t *t, const uint8_t *data, size_t len, size_t *taken)
{
    *taken = 0;
    if (t->state != TLS_CLIENT_OPEN) {
        return ZQ_ERR_CLOSED;
    }
    /* Only with room for a whole record: mbedTLS then never meets WANT_WRITE halfway through
     * one, after which it must be called again with the very same bytes (ssl_write_real). */
    int expansion = mbedtls_ssl_get_record_expansion(&t->ssl);
    int payload = mbedtls_ssl_get_max_out_record_payload(&t->ssl);
    if (expansion < 0 || payload < 0 ||
        sizeof t->tx - t->tx_len < (size_t)expansion + (size_t)payload) {
        return ZQ_ERR_WOULD_BLOCK;
    }
    int ret = mbedtls_ssl_write(&t->ssl, data, len);
    if (ret == MBEDTLS_ERR_SSL_WANT_WRITE || ret == MBEDTLS_ERR_SSL_WANT_READ) {
        return ZQ_ERR_WOULD_BLOCK;
    }
    if (ret < 0) {
        const char *why;
        (void)failed(t, ret, &why);
        return ZQ_ERR_CRYPTO;
    }
    *taken = (size_t)ret;
    return ZQ_OK;
}

zq_err_t tls_client_read(tls_client_t *t, uint8_t *buf, size_t cap, size_t *got)
{
    *got = 0;
    if (t->state == TLS_CLIENT_CLOSED) {
        return ZQ_ERR_CLOSED;
    }
    if (t->state != TLS_CLIENT_OPEN) {
        return t->state == TLS_CLIENT_FAILED ? ZQ_ERR_CRYPTO : ZQ_ERR_STATE;
    }
    int ret = mbedtls_ssl_read(&t->ssl, buf, cap);
    if (ret > 0) {
        *got = (size_t)ret;
        return ZQ_OK;
    }
    if (ret == MBEDTLS_ERR_SSL_WANT_READ || ret == MBEDTLS_ERR_SSL_WANT_WRITE) {
        return ZQ_ERR_WOULD_BLOCK;
    }
    if (ret == 0 || ret == MBEDTLS_ERR_SSL_PEER_CLOSE_NOTIFY) {
        t->state = TLS_CLIENT_CLOSED;
        return ZQ_ERR_CLOSED;
    }
    const char *why;
    (void)failed(t, ret, &why);
    return ZQ_ERR_CRYPTO;
}

bool tls_client_has_plaintext(const tls_client_t *t)
{
    return t->state == TLS_CLIENT_OPEN && mbedtls_ssl_get_bytes_avail(&t->ssl) > 0;
}

void tls_client_close_notify(tls_client_t *t)
{
    if (t->state == TLS_CLIENT_OPEN) {
        (void)mbedtls_ssl_close_notify(&t->ssl);
        t->state = TLS_CLIENT_CLOSED;
    }
}

void tls_client_free(tls_client_t *t)
{
    if (t->ssl_ready) {
        mbedtls_ssl_free(&t->ssl);
    }
    memset(t, 0, sizeof *t);
}

#else /* !ZQ_MBEDTLS_TLS_CLIENT */

/* A configuration without the TLS client's algorithms (the devices', mbedTLS 4's for now): no
 * trust store sets up and no session starts (both say so), and the calls a plain link makes
 * on the way (port/ws/ws_link.c) find none. */
zq_err_t tls_client_config_init(tls_client_config_t *cfg, const zq_rand_t *rand,
                                const char *bundle, size_t bundle_len,
                                const uint8_t pin[TLS_PIN_LEN])
{
    (void)cfg;
    (void)rand;
    (void)bundle;
    (void)bundle_len;
    (void)pin;
    return ZQ_ERR_UNSUPPORTED;
}

void tls_client_config_free(tls_client_config_t *cfg)
{
    (void)cfg;
}

zq_err_t tls_client_start(tls_client_t *t, tls_client_config_t *cfg, const char *host)
{
    (void)t;
    (void)cfg;
    (void)host;
    return ZQ_ERR_UNSUPPORTED;
}

zq_err_t tls_client_handshake(tls_client_t *t, const char **why)
{
    (void)t;
    if (why != NULL) {
        *why = "this build has no TLS client";
    }
    return ZQ_ERR_UNSUPPORTED;
}

size_t tls_client_feed(tls_client_t *t, const uint8_t *data, size_t len)
{
    (void)t;
    (void)data;
    (void)len;
    return 0;
}

size_t tls_client_input_room(const tls_client_t *t)
{
    (void)t;
    return 0;
}

bool tls_client_output(const tls_client_t *t, const uint8_t **out, size_t *len)
{
    (void)t;
    *out = NULL;
    *len = 0;
    return false;
}

void tls_client_output_consumed(tls_client_t *t, size_t n)
{
    (void)t;
    (void)n;
}

zq_err_t tls_client_write(tls_client_t *t, const uint8_t *data, size_t len, size_t *taken)
{
    (void)t;
    (void)data;
    (void)len;
    *taken = 0;
    return ZQ_ERR_CLOSED;
}

zq_err_t tls_client_read(tls_client_t *t, uint8_t *buf, size_t cap, size_t *got)
{
    (void)t;
    (void)buf;
    (void)cap;
    *got = 0;
    return ZQ_ERR_CLOSED;
}

bool tls_client_has_plaintext(const tls_client_t *t)
{
    (void)t;
    return false;
}

void tls_client_close_notify(tls_client_t *t)
{
    (void)t;
}

void tls_client_free(tls_client_t *t)
{
    (void)t;
}

#endif /* ZQ_MBEDTLS_TLS_CLIENT */
