/**
 * @file tls_session.h
 * @brief One TLS 1.2 session (RFC 5246), sans-IO, over mbedTLS 3.6 on the same static arena as
 *        DTLS: the record layer both roles share. tls_client.h starts one as a client (wss://
 *        signalling, turns:), tls_server.h as a server (`zq signal --tls-cert`).
 *
 * The caller moves bytes: what arrives from the TCP socket goes in with tls_session_feed(),
 * what tls_session_output() holds goes out to it; tls_session_handshake() advances until the
 * session is up, then tls_session_read() and tls_session_write() carry the plaintext. Nothing
 * here waits, reads a clock or touches a socket.
 *
 * Records: a peer may send up to 16 KiB of plaintext per record (RFC 5246 §6.2.1) unless it
 * agreed to less (RFC 6066 §4's max_fragment_length, which only a client can ask for). How
 * large a record this build takes is MBEDTLS_SSL_IN_CONTENT_LEN (config/zq_mbedtls_tls.h).
 */
#ifndef ZQ_TLS_SESSION_H
#define ZQ_TLS_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mbedtls/ssl.h"
#include "zq/addr.h"
#include "zq/err.h"

/** Ciphertext held in each direction between the socket and mbedTLS. */
#define TLS_IO_BUF 4096

typedef enum {
    TLS_IDLE = 0,
    TLS_HANDSHAKE,
    TLS_OPEN,
    TLS_CLOSED, /**< the peer sent close_notify, or we did */
    TLS_FAILED,
} tls_state_t;

/** One session, either role. Caller-allocated (about 9 KiB of its own, plus mbedTLS's from the
 *  arena while it is set up). */
typedef struct {
    tls_state_t state;
    mbedtls_ssl_context ssl;
    bool ssl_ready;
    uint8_t rx[TLS_IO_BUF]; /* ciphertext fed, not yet taken by mbedTLS */
    size_t rx_len, rx_off;
    uint8_t tx[TLS_IO_BUF]; /* ciphertext for the socket */
    size_t tx_len;
    /* A client's checks of the server (tls_client.c): */
    zq_addr_t ip;          /* the host when it is an IP literal, else family ZQ_AF_NONE */
    const uint8_t *pin;    /* the pinned key digest (the config's), or NULL */
    int (*chain_verify)(void *, mbedtls_x509_crt *, int, uint32_t *); /* the config's, or NULL */
    void *chain_verify_ctx;
    bool pin_failed;
    uint32_t verify_flags; /* mbedTLS's MBEDTLS_X509_BADCERT_* of the failed check */
    int error;             /* the mbedTLS error that failed the session, or 0 */
    char why[224];
} tls_session_t;

/** Takes ciphertext from the socket; @return how many of @p len bytes fit (the rest comes
 *  again after the next handshake or read step). */
size_t tls_session_feed(tls_session_t *t, const uint8_t *data, size_t len);

/** How many bytes tls_session_feed() takes now: read no more than this from the socket. */
size_t tls_session_input_room(const tls_session_t *t);

/** Ciphertext for the socket, if any. */
bool tls_session_output(const tls_session_t *t, const uint8_t **out, size_t *len);
void tls_session_output_consumed(tls_session_t *t, size_t n);

/**
 * Advances the handshake with what was fed.
 * @return ZQ_OK once the session is open; ZQ_ERR_WOULD_BLOCK while it needs more input (or its
 *         output sent); ZQ_ERR_INTEGRITY when a client found the server's certificate failed a
 *         check (*why says which: the chain, the name, the dates, the pin); ZQ_ERR_CRYPTO for
 *         any other failure (*why has mbedTLS's reason).
 */
zq_err_t tls_session_handshake(tls_session_t *t, const char **why);

/** The most plaintext tls_session_write() takes whole now (one record's), or 0 until the
 *  output is sent or while the session is not open. */
size_t tls_session_write_room(tls_session_t *t);

/**
 * Encrypts up to @p len bytes. @p taken may be less than @p len when the output is full.
 * @return ZQ_OK; ZQ_ERR_WOULD_BLOCK (nothing taken: send the output first); ZQ_ERR_CLOSED;
 *         ZQ_ERR_CRYPTO.
 */
zq_err_t tls_session_write(tls_session_t *t, const uint8_t *data, size_t len, size_t *taken);

/**
 * Decrypted bytes, up to @p cap.
 * @return ZQ_OK with @p got > 0; ZQ_ERR_WOULD_BLOCK (feed more); ZQ_ERR_CLOSED after the
 *         peer's close_notify; ZQ_ERR_CRYPTO (a bad record: the session is over).
 */
zq_err_t tls_session_read(tls_session_t *t, uint8_t *buf, size_t cap, size_t *got);

/** True if decrypted bytes wait in mbedTLS: read them before waiting on the socket. */
bool tls_session_has_plaintext(const tls_session_t *t);

/** Queues a close_notify (RFC 5246 §7.2.1) if the session is open; the output holds it. */
void tls_session_close_notify(tls_session_t *t);

/** Frees what the session took from the arena. Safe in any state. */
void tls_session_free(tls_session_t *t);

#endif /* ZQ_TLS_SESSION_H */
