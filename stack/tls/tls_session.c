/* One TLS session's record layer, either role (see tls_session.h). Built where the mbedTLS
 * configuration has TLS (config/zq_mbedtls_tls.h); elsewhere only what a plain link asks. */
#include "stack/tls/tls_session.h"

#include "mbedtls/build_info.h"

#if defined(ZQ_MBEDTLS_TLS)

#if MBEDTLS_VERSION_MAJOR >= 4
/* Its RNG and key-parsing calls are mbedTLS 3.6's (stack/dtls/dtls_mbedtls.h has both forms
 * for DTLS): on ESP-IDF 6, build without wss:// (CONFIG_ZQ_ESP32_WSS=n). */
#error "stack/tls is not ported to mbedTLS 4 yet (README, Security)"
#endif

#include <stdio.h>
#include <string.h>

#include "mbedtls/error.h"
#include "mbedtls/x509_crt.h"
#include "stack/tls/tls_internal.h"

/* ---- What both roles configure ------------------------------------------------------------ */

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

zq_err_t tls_conf_init(mbedtls_ssl_config *conf, int endpoint, const zq_rand_t *rand)
{
    mbedtls_ssl_config_init(conf);
    if (mbedtls_ssl_config_defaults(conf, endpoint, MBEDTLS_SSL_TRANSPORT_STREAM,
                                    MBEDTLS_SSL_PRESET_DEFAULT) != 0) {
        mbedtls_ssl_config_free(conf);
        return ZQ_ERR_CRYPTO;
    }
    mbedtls_ssl_conf_rng(conf, rand->fill, rand->ctx);
    mbedtls_ssl_conf_min_tls_version(conf, MBEDTLS_SSL_VERSION_TLS1_2);
    mbedtls_ssl_conf_max_tls_version(conf, MBEDTLS_SSL_VERSION_TLS1_2);
    mbedtls_ssl_conf_ciphersuites(conf, cipher_suites);
    mbedtls_ssl_conf_groups(conf, groups);
    return ZQ_OK;
}

/* ---- mbedTLS's BIO: the two buffers -------------------------------------------------------- */

static int bio_send(void *ctx, const unsigned char *buf, size_t len)
{
    tls_session_t *t = ctx;
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
    tls_session_t *t = ctx;
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

zq_err_t tls_session_setup(tls_session_t *t, const mbedtls_ssl_config *conf)
{
    tls_session_free(t);
    mbedtls_ssl_init(&t->ssl);
    t->ssl_ready = true;
    if (mbedtls_ssl_setup(&t->ssl, conf) != 0) {
        tls_session_free(t);
        return ZQ_ERR_CRYPTO;
    }
    mbedtls_ssl_set_bio(&t->ssl, t, bio_send, bio_recv, NULL);
    t->state = TLS_HANDSHAKE;
    return ZQ_OK;
}

size_t tls_session_feed(tls_session_t *t, const uint8_t *data, size_t len)
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

size_t tls_session_input_room(const tls_session_t *t)
{
    return sizeof t->rx - (t->rx_len - t->rx_off); /* feed() moves the unread to the front */
}

bool tls_session_output(const tls_session_t *t, const uint8_t **out, size_t *len)
{
    *out = t->tx;
    *len = t->tx_len;
    return t->tx_len > 0;
}

void tls_session_output_consumed(tls_session_t *t, size_t n)
{
    n = n < t->tx_len ? n : t->tx_len;
    memmove(t->tx, t->tx + n, t->tx_len - n);
    t->tx_len -= n;
}

/* Without MBEDTLS_ERROR_C (a device: its 20 KiB of strings) the failures a device's user can
 * act on keep a name; the code printed beside it names the rest. */
void tls_error_text(int ret, char *out, size_t cap)
{
#if defined(MBEDTLS_ERROR_C)
    mbedtls_strerror(ret, out, cap);
#else
    const char *text = ret == MBEDTLS_ERR_SSL_ALLOC_FAILED ? "the mbedTLS arena is full"
                       : ret == MBEDTLS_ERR_SSL_FATAL_ALERT_MESSAGE ? "the peer sent a fatal alert"
                       : ret == MBEDTLS_ERR_SSL_HANDSHAKE_FAILURE
                           ? "no cipher suite, curve or signature in common"
                       : ret == MBEDTLS_ERR_SSL_BAD_PROTOCOL_VERSION ? "the peer speaks no TLS 1.2"
                       : ret == MBEDTLS_ERR_SSL_INVALID_RECORD ? "a record too large or malformed"
                       : ret == MBEDTLS_ERR_SSL_CONN_EOF ? "the connection ended"
                                                          : "mbedTLS error";
    (void)snprintf(out, cap, "%s", text);
#endif
}

/* The peer's fatal alert (RFC 5246 §7.2: the record's second byte is its description), in
 * words. A server that wanted a client certificate and got none says bad_certificate (42: Go's,
 * so nats-server), handshake_failure (40: OpenSSL's, so mosquitto) or TLS 1.3's
 * certificate_required (116, RFC 8446 §6.2). mbedTLS keeps the record in in_msg. */
static void explain_alert(tls_session_t *t)
{
    unsigned alert = t->ssl.MBEDTLS_PRIVATE(in_msg) != NULL ? t->ssl.MBEDTLS_PRIVATE(in_msg)[1]
                                                             : 0;
    const char *what =
        alert == 42 || alert == 116
            ? " (bad_certificate): the peer refused our certificate, or wanted one and got none"
        : alert == 40 ? " (handshake_failure): no suite or curve in common, or the peer wanted "
                        "a client certificate and got none"
        : alert == 48 ? " (unknown_ca): the peer does not trust our certificate's CA"
        : alert == 70 ? " (protocol_version): the peer takes no TLS 1.2"
                      : "";
    (void)snprintf(t->why, sizeof t->why, "TLS failed: the peer ended the handshake with "
                   "alert %u%s", alert, what);
}

static zq_err_t failed(tls_session_t *t, int ret, const char **why)
{
    t->state = TLS_FAILED;
    t->error = ret;
    if (ret == MBEDTLS_ERR_X509_CERT_VERIFY_FAILED) {
        t->verify_flags = mbedtls_ssl_get_verify_result(&t->ssl);
        tls_explain_verify(t->verify_flags, t->pin_failed, t->why, sizeof t->why);
        *why = t->why;
        return ZQ_ERR_INTEGRITY;
    }
    if (ret == MBEDTLS_ERR_SSL_FATAL_ALERT_MESSAGE) {
        explain_alert(t);
        *why = t->why;
        return ZQ_ERR_CRYPTO;
    }
    char text[96];
    tls_error_text(ret, text, sizeof text);
    /* A record larger than the input buffer: a server that ignored max_fragment_length, or a
     * client that asked for none (a browser). */
    const char *hint = ret == MBEDTLS_ERR_SSL_INVALID_RECORD && MBEDTLS_SSL_IN_CONTENT_LEN < 16384
                           ? "; a peer that sends records over 1.5 KiB needs a build with "
                             "ZQ_TLS_FULL_RECORDS"
                           : "";
    (void)snprintf(t->why, sizeof t->why, "TLS failed: %s (-0x%04x)%s", text, (unsigned)-ret,
                   hint);
    *why = t->why;
    return ZQ_ERR_CRYPTO;
}

zq_err_t tls_session_handshake(tls_session_t *t, const char **why)
{
    static const char *ignored;
    why = why != NULL ? why : &ignored;
    if (t->state == TLS_OPEN) {
        return ZQ_OK;
    }
    if (t->state != TLS_HANDSHAKE) {
        *why = t->why[0] != '\0' ? t->why : "no TLS session";
        return ZQ_ERR_STATE;
    }
    int ret = mbedtls_ssl_handshake(&t->ssl);
    if (ret == 0) {
        t->state = TLS_OPEN;
        return ZQ_OK;
    }
    if (ret == MBEDTLS_ERR_SSL_WANT_READ || ret == MBEDTLS_ERR_SSL_WANT_WRITE) {
        return ZQ_ERR_WOULD_BLOCK;
    }
    return failed(t, ret, why);
}

size_t tls_session_write_room(tls_session_t *t)
{
    if (t->state != TLS_OPEN) {
        return 0;
    }
    /* No more than one record whose ciphertext fits the output whole: mbedTLS then never
     * meets WANT_WRITE halfway through one, after which it must be called again with the very
     * same bytes (ssl_write_real). A record may be shorter than the most the peer takes. */
    int expansion = mbedtls_ssl_get_record_expansion(&t->ssl);
    int payload = mbedtls_ssl_get_max_out_record_payload(&t->ssl);
    size_t room = sizeof t->tx - t->tx_len;
    if (expansion < 0 || payload <= 0 || room <= (size_t)expansion) {
        return 0;
    }
    room -= (size_t)expansion;
    return room < (size_t)payload ? room : (size_t)payload;
}

zq_err_t tls_session_write(tls_session_t *t, const uint8_t *data, size_t len, size_t *taken)
{
    *taken = 0;
    if (t->state != TLS_OPEN) {
        return ZQ_ERR_CLOSED;
    }
    size_t room = tls_session_write_room(t);
    if (room == 0) {
        return ZQ_ERR_WOULD_BLOCK;
    }
    len = len < room ? len : room;
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

zq_err_t tls_session_read(tls_session_t *t, uint8_t *buf, size_t cap, size_t *got)
{
    *got = 0;
    if (t->state == TLS_CLOSED) {
        return ZQ_ERR_CLOSED;
    }
    if (t->state != TLS_OPEN) {
        return t->state == TLS_FAILED ? ZQ_ERR_CRYPTO : ZQ_ERR_STATE;
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
        t->state = TLS_CLOSED;
        return ZQ_ERR_CLOSED;
    }
    const char *why;
    (void)failed(t, ret, &why);
    return ZQ_ERR_CRYPTO;
}

bool tls_session_has_plaintext(const tls_session_t *t)
{
    return t->state == TLS_OPEN && mbedtls_ssl_get_bytes_avail(&t->ssl) > 0;
}

void tls_session_close_notify(tls_session_t *t)
{
    if (t->state == TLS_OPEN) {
        (void)mbedtls_ssl_close_notify(&t->ssl);
        t->state = TLS_CLOSED;
    }
}

void tls_session_free(tls_session_t *t)
{
    if (t->ssl_ready) {
        mbedtls_ssl_free(&t->ssl);
    }
    memset(t, 0, sizeof *t);
}

#else /* !ZQ_MBEDTLS_TLS */

/* A configuration without the TLS client's algorithms (the devices', mbedTLS 4's for now): no
 * trust store sets up and no session starts (both say so), and the calls a plain link makes
 * on the way (port/ws/ws_link.c) find none. */
zq_err_t tls_session_handshake(tls_session_t *t, const char **why)
{
    (void)t;
    if (why != NULL) {
        *why = "this build has no TLS client";
    }
    return ZQ_ERR_UNSUPPORTED;
}

size_t tls_session_feed(tls_session_t *t, const uint8_t *data, size_t len)
{
    (void)t;
    (void)data;
    (void)len;
    return 0;
}

size_t tls_session_input_room(const tls_session_t *t)
{
    (void)t;
    return 0;
}

bool tls_session_output(const tls_session_t *t, const uint8_t **out, size_t *len)
{
    (void)t;
    *out = NULL;
    *len = 0;
    return false;
}

void tls_session_output_consumed(tls_session_t *t, size_t n)
{
    (void)t;
    (void)n;
}

size_t tls_session_write_room(tls_session_t *t)
{
    (void)t;
    return 0;
}

zq_err_t tls_session_write(tls_session_t *t, const uint8_t *data, size_t len, size_t *taken)
{
    (void)t;
    (void)data;
    (void)len;
    *taken = 0;
    return ZQ_ERR_CLOSED;
}

zq_err_t tls_session_read(tls_session_t *t, uint8_t *buf, size_t cap, size_t *got)
{
    (void)t;
    (void)buf;
    (void)cap;
    *got = 0;
    return ZQ_ERR_CLOSED;
}

bool tls_session_has_plaintext(const tls_session_t *t)
{
    (void)t;
    return false;
}

void tls_session_close_notify(tls_session_t *t)
{
    (void)t;
}

void tls_session_free(tls_session_t *t)
{
    (void)t;
}

#endif /* ZQ_MBEDTLS_TLS */
