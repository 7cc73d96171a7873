/* One DTLS connection: mbedTLS driven sans-IO. Its I/O callbacks read the datagram the caller
 * is feeding and write into a one-datagram slot the caller drains; its timer callbacks read
 * the `now` the caller gave (the mbedTLS "DTLS tutorial" model, with an injected clock). */
#include <string.h>

#include "stack/dtls/dtls_internal.h"
#include "zq/crypto.h"

/* ---- Events ------------------------------------------------------------------------------ */

/* At most CONNECTED then CLOSED or FAILED per connection: a refusal means events were not
 * drained (dtls_events_refused()). */
static void push_event(dtls_t *d, dtls_event_type_t type, dtls_failure_t why, int code)
{
    dtls_event_t *ev = ZQ_QUEUE_PUSH(&d->evq, d->events);
    if (ev != NULL) {
        ev->type = type;
        ev->failure = why;
        ev->mbedtls_error = code;
    }
}

bool dtls_poll_event(dtls_t *d, dtls_event_t *ev)
{
    const dtls_event_t *oldest = ZQ_QUEUE_POP(&d->evq, d->events);
    if (oldest == NULL) {
        return false;
    }
    *ev = *oldest;
    return true;
}

uint32_t dtls_events_refused(const dtls_t *d)
{
    return zq_queue_refused(&d->evq);
}

const char *dtls_failure_text(dtls_failure_t why)
{
    switch (why) {
    case DTLS_FAIL_NONE:
        return "none";
    case DTLS_FAIL_TIMEOUT:
        return "handshake timed out";
    case DTLS_FAIL_FINGERPRINT:
        return "peer certificate does not match its fingerprint";
    case DTLS_FAIL_NO_CERTIFICATE:
        return "peer sent no certificate";
    case DTLS_FAIL_ALERT:
        return "peer sent a fatal alert";
    case DTLS_FAIL_MEMORY:
        return "mbedTLS arena exhausted";
    case DTLS_FAIL_PROTOCOL:
        return "DTLS protocol error";
    }
    return "unknown";
}

static void stop_timer(dtls_t *d)
{
    d->timer_fin_ms = 0;
}

static void fail(dtls_t *d, dtls_failure_t why, int code)
{
    d->state = DTLS_STATE_FAILED;
    d->rx = NULL;
    stop_timer(d);
    push_event(d, DTLS_EVENT_FAILED, why, code);
}

/* ---- mbedTLS callbacks ------------------------------------------------------------------- */

/* Output: one datagram at a time. While the caller holds it, mbedTLS is told to retry later
 * and keeps the record in its own buffer, so nothing is lost. */
static int bio_send(void *ctx, const unsigned char *buf, size_t len)
{
    dtls_t *d = ctx;
    if (d->tx_len != 0) {
        return MBEDTLS_ERR_SSL_WANT_WRITE;
    }
    if (len > sizeof d->tx) {
        return MBEDTLS_ERR_SSL_BAD_INPUT_DATA; /* mbedTLS honours the MTU: cannot happen */
    }
    memcpy(d->tx, buf, len);
    d->tx_len = (uint16_t)len;
    return (int)len;
}

/* Input: the datagram being fed, once. */
static int bio_recv(void *ctx, unsigned char *buf, size_t len)
{
    dtls_t *d = ctx;
    if (d->rx == NULL) {
        return MBEDTLS_ERR_SSL_WANT_READ;
    }
    size_t n = d->rx_len;
    const uint8_t *data = d->rx;
    d->rx = NULL;
    if (n > len) {
        d->stats.rx_dropped++; /* larger than mbedTLS's input buffer */
        return MBEDTLS_ERR_SSL_WANT_READ;
    }
    memcpy(buf, data, n);
    return (int)n;
}

/* mbedtls_ssl_set_timer_t: (re)arm with an intermediate and a final delay, 0 to stop. */
static void timer_set(void *ctx, uint32_t int_ms, uint32_t fin_ms)
{
    dtls_t *d = ctx;
    d->timer_start = d->now;
    d->timer_int_ms = int_ms;
    d->timer_fin_ms = fin_ms;
}

/* mbedtls_ssl_get_timer_t: -1 stopped, 0 running, 1 intermediate passed, 2 final passed. */
static int timer_get(void *ctx)
{
    const dtls_t *d = ctx;
    if (d->timer_fin_ms == 0) {
        return -1;
    }
    uint64_t elapsed = d->now - d->timer_start;
    return elapsed >= d->timer_fin_ms ? 2 : elapsed >= d->timer_int_ms ? 1 : 0;
}

/* RFC 8827 §6.5: the certificate is trusted if and only if it matches the signalled
 * fingerprint. Returning a fatal error stops the handshake at once. */
static int verify_certificate(void *ctx, mbedtls_x509_crt *crt, int depth, uint32_t *flags)
{
    dtls_t *d = ctx;
    if (depth != 0) {
        *flags = 0; /* a chain above the leaf is irrelevant: only the leaf is pinned */
        return 0;
    }
    uint8_t digest[DTLS_FINGERPRINT_LEN];
    zq_sha256(crt->raw.p, crt->raw.len, digest);
    if (memcmp(digest, d->remote_fp.bytes, sizeof digest) != 0) {
        d->remote_mismatch = true;
        return MBEDTLS_ERR_X509_FATAL_ERROR;
    }
    d->remote_verified = true;
    *flags = 0;
    return 0;
}

/* ---- The handshake ----------------------------------------------------------------------- */

static dtls_failure_t classify(const dtls_t *d, int ret)
{
    if (d->remote_mismatch) {
        return DTLS_FAIL_FINGERPRINT;
    }
    switch (ret) {
    case MBEDTLS_ERR_SSL_TIMEOUT:
        return DTLS_FAIL_TIMEOUT;
    case MBEDTLS_ERR_SSL_FATAL_ALERT_MESSAGE:
        return DTLS_FAIL_ALERT;
    case MBEDTLS_ERR_SSL_ALLOC_FAILED:
        return DTLS_FAIL_MEMORY;
    default:
        return DTLS_FAIL_PROTOCOL;
    }
}

/* Sends a fatal alert or close_notify. If the slot is taken, mbedTLS keeps the record and
 * release_tx() flushes it later: calling mbedtls_ssl_send_alert_message() again only flushes
 * pending output when there is some. */
static void send_alert(dtls_t *d, unsigned char level, unsigned char message)
{
    int ret = mbedtls_ssl_send_alert_message(&d->ssl, level, message);
    d->alert_pending = ret == MBEDTLS_ERR_SSL_WANT_WRITE;
}

/* A client may skip its Certificate (RFC 5246 §7.4.6) and VERIFY_OPTIONAL lets that pass, so
 * the pin is checked again once the handshake is over. */
static void handshake_done(dtls_t *d)
{
    stop_timer(d);
    if (!d->remote_verified) {
        send_alert(d, MBEDTLS_SSL_ALERT_LEVEL_FATAL, MBEDTLS_SSL_ALERT_MSG_BAD_CERT);
        fail(d, DTLS_FAIL_NO_CERTIFICATE, 0);
        return;
    }
    d->state = DTLS_STATE_CONNECTED;
    push_event(d, DTLS_EVENT_CONNECTED, DTLS_FAIL_NONE, 0);
}

/* RFC 6347 §4.2.1: the server answered a cookie-less ClientHello with HelloVerifyRequest and
 * keeps no state; mbedTLS wants a fresh session bound to the same client address. */
static int restart_after_hello_verify(dtls_t *d)
{
    d->stats.hello_verify_sent++;
    d->awaiting_hello = true;
    int ret = mbedtls_ssl_session_reset(&d->ssl);
    if (ret == 0) {
        ret = mbedtls_ssl_set_client_transport_id(&d->ssl, d->client_id, d->client_id_len);
    }
    return ret;
}

static void step_handshake(dtls_t *d)
{
    int ret = mbedtls_ssl_handshake(&d->ssl);
    if (ret == MBEDTLS_ERR_SSL_HELLO_VERIFY_REQUIRED) {
        ret = restart_after_hello_verify(d);
        if (ret == 0) {
            return;
        }
    }
    if (ret == 0) {
        handshake_done(d);
    } else if (ret != MBEDTLS_ERR_SSL_WANT_READ && ret != MBEDTLS_ERR_SSL_WANT_WRITE) {
        fail(d, classify(d, ret), ret);
    }
}

/* The caller is done with the datagram it was lent; if mbedTLS was waiting for room (a flight
 * of several datagrams), let it continue. */
static void release_tx(dtls_t *d)
{
    if (!d->tx_lent) {
        return;
    }
    d->tx_lent = false;
    d->tx_len = 0;
    if (d->alert_pending) {
        send_alert(d, MBEDTLS_SSL_ALERT_LEVEL_WARNING, MBEDTLS_SSL_ALERT_MSG_CLOSE_NOTIFY);
    } else if (d->state == DTLS_STATE_HANDSHAKE) {
        step_handshake(d);
    }
}

static void advance_clock(dtls_t *d, uint64_t now)
{
    if (now > d->now) {
        d->now = now;
    }
}

/* A datagram that yields no record and no event was discarded by mbedTLS: a forged or
 * replayed record, or a handshake flight the peer retransmitted. mbedTLS drops those
 * silently (RFC 6347 §4.1.2.7); zq counts them. */
static int datagram_done(dtls_t *d)
{
    if (d->staged && !d->staged_yielded && d->state == DTLS_STATE_CONNECTED) {
        d->stats.rx_discarded++;
    }
    d->staged = false;
    return 0;
}

/* ---- API --------------------------------------------------------------------------------- */

zq_err_t dtls_start(dtls_t *d, const dtls_context_t *ctx, dtls_role_t role,
                    const dtls_fingerprint_t *remote_fp, const uint8_t *peer_id,
                    size_t peer_id_len, uint64_t now)
{
    if (peer_id_len > sizeof d->client_id) {
        return ZQ_ERR_INVALID_ARG;
    }
    memset(d, 0, sizeof *d);
    d->ctx = ctx;
    d->role = role;
    d->remote_fp = *remote_fp;
    d->now = now;
    if (peer_id_len > 0) {
        memcpy(d->client_id, peer_id, peer_id_len);
    }
    d->client_id_len = peer_id_len;
    mbedtls_ssl_init(&d->ssl);
    int ret = mbedtls_ssl_setup(&d->ssl, role == DTLS_ROLE_SERVER ? &ctx->server : &ctx->client);
    if (ret != 0) {
        mbedtls_ssl_free(&d->ssl);
        return ret == MBEDTLS_ERR_SSL_ALLOC_FAILED ? ZQ_ERR_CAPACITY : ZQ_ERR_CRYPTO;
    }
    mbedtls_ssl_set_bio(&d->ssl, d, bio_send, bio_recv, NULL);
    mbedtls_ssl_set_timer_cb(&d->ssl, d, timer_set, timer_get);
    mbedtls_ssl_set_mtu(&d->ssl, ctx->cfg.mtu);
    mbedtls_ssl_set_verify(&d->ssl, verify_certificate, d);
    if (ctx->cfg.keylog != NULL) {
        mbedtls_ssl_set_export_keys_cb(&d->ssl, dtls_export_keys, d);
    }
    if (role == DTLS_ROLE_SERVER) {
        (void)mbedtls_ssl_set_client_transport_id(&d->ssl, d->client_id, d->client_id_len);
        d->awaiting_hello = true;
    }
    d->state = DTLS_STATE_HANDSHAKE;
    step_handshake(d); /* a client sends its ClientHello now */
    return ZQ_OK;
}

zq_err_t dtls_handle_datagram(dtls_t *d, uint64_t now, const uint8_t *data, size_t len)
{
    release_tx(d);
    advance_clock(d, now);
    d->stats.rx_datagrams++;
    datagram_done(d); /* an unread previous datagram is gone with its buffer */
    d->rx = NULL;
    if (d->state != DTLS_STATE_HANDSHAKE && d->state != DTLS_STATE_CONNECTED) {
        return ZQ_ERR_STATE;
    }
    if (!dtls_datagram_well_formed(data, len)) {
        d->stats.rx_dropped++;
        return ZQ_ERR_MALFORMED;
    }
    if (d->awaiting_hello) {
        /* mbedTLS would end the handshake on it: RFC 6347 §4.1.2.7 says discard instead */
        if (!dtls_is_client_hello(data, len)) {
            d->stats.rx_discarded++;
            return ZQ_OK;
        }
        d->awaiting_hello = false;
    }
    d->rx = data;
    d->rx_len = len;
    d->staged = d->state == DTLS_STATE_CONNECTED;
    d->staged_yielded = false;
    if (d->state == DTLS_STATE_HANDSHAKE) {
        step_handshake(d);
    }
    return ZQ_OK;
}

void dtls_handle_timeout(dtls_t *d, uint64_t now)
{
    release_tx(d);
    advance_clock(d, now);
    d->rx = NULL;
    if (d->state == DTLS_STATE_HANDSHAKE && timer_get(d) == 2) {
        step_handshake(d); /* retransmits the last flight, or gives up (RFC 6347 §4.2.4) */
    }
}

uint64_t dtls_next_timeout(const dtls_t *d)
{
    if (d->state != DTLS_STATE_HANDSHAKE || d->timer_fin_ms == 0) {
        return ZQ_TIME_NEVER;
    }
    return d->timer_start + d->timer_fin_ms;
}

static void read_result(dtls_t *d, int ret)
{
    switch (ret) {
    case MBEDTLS_ERR_SSL_WANT_READ:
    case MBEDTLS_ERR_SSL_WANT_WRITE:
        break;
    case MBEDTLS_ERR_SSL_PEER_CLOSE_NOTIFY:
        d->state = DTLS_STATE_CLOSED;
        push_event(d, DTLS_EVENT_CLOSED, DTLS_FAIL_NONE, 0);
        break;
    default:
        fail(d, ret == MBEDTLS_ERR_SSL_FATAL_ALERT_MESSAGE ? DTLS_FAIL_ALERT : DTLS_FAIL_PROTOCOL,
             ret);
        break;
    }
}

int dtls_read(dtls_t *d, uint8_t *buf, size_t cap)
{
    release_tx(d);
    if (d->state != DTLS_STATE_CONNECTED) {
        d->rx = NULL;
        d->staged = false;
        return 0;
    }
    int max_in = mbedtls_ssl_get_max_in_record_payload(&d->ssl);
    if (max_in > 0 && cap < (size_t)max_in) {
        return ZQ_ERR_NO_SPACE; /* a record must come out whole: it is one SCTP packet */
    }
    for (;;) {
        int ret = mbedtls_ssl_read(&d->ssl, buf, cap);
        if (ret > 0) {
            d->staged_yielded = true;
            return ret;
        }
        if (ret != 0) {
            read_result(d, ret);
            return datagram_done(d);
        }
        /* 0: an empty record; look at the next one. */
    }
}

zq_err_t dtls_write(dtls_t *d, uint64_t now, const uint8_t *data, size_t len)
{
    release_tx(d);
    advance_clock(d, now);
    if (d->state != DTLS_STATE_CONNECTED) {
        return ZQ_ERR_STATE;
    }
    if (d->tx_len != 0) {
        return ZQ_ERR_WOULD_BLOCK; /* the previous datagram was not taken yet */
    }
    if (len > dtls_max_payload(d)) {
        return ZQ_ERR_TOO_LONG;
    }
    int ret = mbedtls_ssl_write(&d->ssl, data, len);
    if (ret == (int)len) {
        return ZQ_OK;
    }
    fail(d, DTLS_FAIL_PROTOCOL, ret);
    return ZQ_ERR_CRYPTO;
}

size_t dtls_max_payload(const dtls_t *d)
{
    int n = mbedtls_ssl_get_max_out_record_payload(&d->ssl);
    return n > 0 ? (size_t)n : 0;
}

bool dtls_poll_transmit(dtls_t *d, const uint8_t **data, size_t *len)
{
    release_tx(d);
    if (d->tx_len == 0) {
        return false;
    }
    d->tx_lent = true;
    d->stats.tx_datagrams++;
    *data = d->tx;
    *len = d->tx_len;
    return true;
}

void dtls_close(dtls_t *d, uint64_t now)
{
    release_tx(d);
    advance_clock(d, now);
    if (d->state == DTLS_STATE_CONNECTED || d->state == DTLS_STATE_HANDSHAKE) {
        send_alert(d, MBEDTLS_SSL_ALERT_LEVEL_WARNING, MBEDTLS_SSL_ALERT_MSG_CLOSE_NOTIFY);
        d->state = DTLS_STATE_CLOSED;
    }
    d->rx = NULL;
    stop_timer(d);
}

void dtls_free(dtls_t *d)
{
    mbedtls_ssl_free(&d->ssl);
    d->state = DTLS_STATE_IDLE;
    d->rx = NULL;
    d->tx_len = 0;
    d->tx_lent = false;
}

dtls_state_t dtls_state(const dtls_t *d)
{
    return d->state;
}

const dtls_stats_t *dtls_stats(const dtls_t *d)
{
    return &d->stats;
}

const char *dtls_cipher_suite(const dtls_t *d)
{
    return mbedtls_ssl_get_ciphersuite(&d->ssl);
}
