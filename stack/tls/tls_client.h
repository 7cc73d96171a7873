/**
 * @file tls_client.h
 * @brief A TLS 1.2 client (RFC 5246) for `wss://` signalling, sans-IO, over mbedTLS 3.6 on the
 *        same static arena as DTLS.
 *
 * The caller moves bytes: what arrives from the TCP socket goes in with tls_client_feed(), what
 * tls_client_output() holds goes out to it; tls_client_handshake() advances until the session
 * is up, then tls_client_read() and tls_client_write() carry the plaintext. Nothing here waits,
 * reads a clock or touches a socket.
 *
 * The server is checked as a browser would: its chain up to a trust anchor from a CA bundle
 * (PEM text, e.g. Debian's /etc/ssl/certs/ca-certificates.crt, which the port reads), its
 * validity period, and its name against the URL's host (RFC 6125 §6: a DNS name by mbedTLS,
 * which also sends it as SNI, RFC 6066 §3; an IP literal against the iPAddress names here, and
 * never as SNI). Optionally the leaf
 * key is pinned too: the SHA-256 of its SubjectPublicKeyInfo must match (RFC 7469 §2.4's
 * digest, without HPKP's header). The bundle is not parsed up front: for each certificate in
 * the chain the anchors callback (tls_anchors.c) parses only the bundle's certificates whose
 * subject is that certificate's issuer, so the arena never holds the whole bundle.
 *
 * Records: a server may send up to 16 KiB of plaintext per record (RFC 5246 §6.2.1); the
 * client asks for 1 KiB records (RFC 6066 §4's max_fragment_length), which servers may ignore,
 * so mbedTLS's input buffer is a full record (config/zq_mbedtls_tls.h).
 */
#ifndef ZQ_TLS_CLIENT_H
#define ZQ_TLS_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mbedtls/ssl.h"
#include "zq/addr.h"
#include "zq/err.h"
#include "zq/rand.h"

/** Ciphertext held in each direction between the socket and mbedTLS. */
#define TLS_CLIENT_IO_BUF 4096
#define TLS_PIN_LEN 32

/** What every connection to servers of one trust store shares. Read-only once set up. */
typedef struct {
    mbedtls_ssl_config conf;
    const char *bundle;     /**< the CA bundle's PEM text, borrowed */
    size_t bundle_len;
    uint32_t anchors_parsed; /**< bundle certificates parsed while verifying, all sessions */
    bool has_pin;
    uint8_t pin[TLS_PIN_LEN];
    bool ready;
} tls_client_config_t;

/**
 * Sets up a client that trusts the certificates in @p bundle (PEM text, borrowed: it must
 * outlive every session), optionally pinning the server's key to @p pin (SHA-256 of the leaf's
 * SubjectPublicKeyInfo; NULL for none). TLS 1.2 only, ECDHE with AES-GCM or ChaCha20-Poly1305.
 * @return ZQ_OK; ZQ_ERR_INVALID_ARG when the bundle holds no certificate; ZQ_ERR_CRYPTO.
 */
zq_err_t tls_client_config_init(tls_client_config_t *cfg, const zq_rand_t *rand,
                                const char *bundle, size_t bundle_len,
                                const uint8_t pin[TLS_PIN_LEN]);
void tls_client_config_free(tls_client_config_t *cfg);

typedef enum {
    TLS_CLIENT_IDLE = 0,
    TLS_CLIENT_HANDSHAKE,
    TLS_CLIENT_OPEN,
    TLS_CLIENT_CLOSED, /**< the server sent close_notify */
    TLS_CLIENT_FAILED,
} tls_client_state_t;

/** One session. Caller-allocated (about 9 KiB of its own, plus mbedTLS's from the arena). */
typedef struct {
    tls_client_state_t state;
    tls_client_config_t *cfg; /* borrowed */
    zq_addr_t ip;             /* the host when it is an IP literal, else family ZQ_AF_NONE */
    mbedtls_ssl_context ssl;
    bool ssl_ready;
    uint8_t rx[TLS_CLIENT_IO_BUF]; /* ciphertext fed, not yet taken by mbedTLS */
    size_t rx_len, rx_off;
    uint8_t tx[TLS_CLIENT_IO_BUF]; /* ciphertext for the socket */
    size_t tx_len;
    bool pin_failed;
    uint32_t verify_flags; /* mbedTLS's MBEDTLS_X509_BADCERT_* of the failed check */
    int error;             /* the mbedTLS error that failed the session, or 0 */
    char why[224];
} tls_client_t;

/** Starts a session to @p host (a DNS name or an IP literal; the certificate must name it).
 *  @return ZQ_OK; ZQ_ERR_CRYPTO (the arena is exhausted, or the name is refused). */
zq_err_t tls_client_start(tls_client_t *t, tls_client_config_t *cfg, const char *host);

/** Takes ciphertext from the socket; @return how many of @p len bytes fit (the rest comes
 *  again after the next handshake or read step). */
size_t tls_client_feed(tls_client_t *t, const uint8_t *data, size_t len);

/** How many bytes tls_client_feed() takes now: read no more than this from the socket. */
size_t tls_client_input_room(const tls_client_t *t);

/** Ciphertext for the socket, if any. */
bool tls_client_output(const tls_client_t *t, const uint8_t **out, size_t *len);
void tls_client_output_consumed(tls_client_t *t, size_t n);

/**
 * Advances the handshake with what was fed.
 * @return ZQ_OK once the session is open; ZQ_ERR_WOULD_BLOCK while it needs more input (or its
 *         output sent); ZQ_ERR_INTEGRITY when the server's certificate failed a check (*why
 *         says which: the chain, the name, the dates, the pin); ZQ_ERR_CRYPTO for any other
 *         failure (*why has mbedTLS's reason).
 */
zq_err_t tls_client_handshake(tls_client_t *t, const char **why);

/**
 * Encrypts up to @p len bytes. @p taken may be less than @p len when the output is full.
 * @return ZQ_OK; ZQ_ERR_WOULD_BLOCK (nothing taken: send the output first); ZQ_ERR_CLOSED;
 *         ZQ_ERR_CRYPTO.
 */
zq_err_t tls_client_write(tls_client_t *t, const uint8_t *data, size_t len, size_t *taken);

/**
 * Decrypted bytes, up to @p cap.
 * @return ZQ_OK with @p got > 0; ZQ_ERR_WOULD_BLOCK (feed more); ZQ_ERR_CLOSED after the
 *         server's close_notify; ZQ_ERR_CRYPTO (a bad record: the session is over).
 */
zq_err_t tls_client_read(tls_client_t *t, uint8_t *buf, size_t cap, size_t *got);

/** True if decrypted bytes wait in mbedTLS: read them before waiting on the socket. */
bool tls_client_has_plaintext(const tls_client_t *t);

/** Queues a close_notify (RFC 5246 §7.2.1) if the session is open; the output holds it. */
void tls_client_close_notify(tls_client_t *t);

/** Frees what the session took from the arena. Safe in any state. */
void tls_client_free(tls_client_t *t);

#endif /* ZQ_TLS_CLIENT_H */
