/**
 * @file dtls.h
 * @brief DTLS 1.2 (RFC 6347) for data channels, sans-IO, over mbedTLS 3.6 on a static arena.
 *
 * Three objects:
 * - dtls_identity_t: the node's ECDSA P-256 key and self-signed certificate, made once and kept
 *   (exported as DER, e.g. to flash) across every connection; its SHA-256 fingerprint goes in
 *   the SDP (`a=fingerprint:sha-256 AB:CD:...`, RFC 8122 §5).
 * - dtls_context_t: what all connections of a node share: the identity, one mbedTLS config
 *   per role, the HelloVerifyRequest cookie key, the random source, the key-log sink.
 * - dtls_t: one connection, client or server, checking that the peer's certificate matches
 *   the fingerprint signalling gave (RFC 8827 §6.5): a mismatch, or no certificate at all,
 *   fails the handshake with a reason.
 *
 * A connection never touches a socket or a clock:
 *
 * @code
 * dtls_start(&conn, &ctx, DTLS_ROLE_SERVER, &remote_fp, peer_id, id_len, now);
 * // a datagram from the peer (RFC 7983: first byte 20..63):
 * dtls_handle_datagram(&conn, now, data, len);
 * while ((n = dtls_read(&conn, buf, sizeof buf)) > 0) sctp_handle_packet(..., buf, n);
 * // the deadline passed:
 * dtls_handle_timeout(&conn, now);
 * // after any call, send what it produced and react to its events:
 * while (dtls_poll_transmit(&conn, &tx, &tx_len)) udp_send(tx, tx_len);
 * while (dtls_poll_event(&conn, &ev)) ...;
 * // sleep until dtls_next_timeout(&conn)
 * @endcode
 *
 * Memory: mbedTLS allocates from the arena given to dtls_arena_init() and from nowhere else;
 * dtls_free() returns everything a connection took. The outgoing datagram is lent to the caller
 * by dtls_poll_transmit() until its next call on the connection, so a connection holds one
 * datagram of output, not a queue.
 */
#ifndef ZQ_DTLS_H
#define ZQ_DTLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mbedtls/pk.h"
#include "mbedtls/ssl.h"
#include "mbedtls/ssl_cookie.h"
#include "mbedtls/x509_crt.h"
#include "zq/config.h"
#include "zq/err.h"
#include "zq/queue.h"
#include "zq/rand.h"
#include "zq/time.h"

#define DTLS_FINGERPRINT_LEN 32 /* SHA-256 */
/* "sha-256 " + 32 bytes as "AB:" + NUL */
#define DTLS_FINGERPRINT_TEXT_MAX (8 + 3 * DTLS_FINGERPRINT_LEN)

/* ---- The static arena -------------------------------------------------------------------- */

/** Points mbedTLS's allocator at @p buf (static, owned by the node, outliving every use of
 *  mbedTLS). Call once before anything else here. */
void dtls_arena_init(uint8_t *buf, size_t len);

typedef struct {
    size_t in_use;    /**< bytes allocated now */
    size_t blocks;    /**< allocations now */
    size_t peak;      /**< highest in_use since init or the last dtls_arena_reset_peak() */
} dtls_arena_stats_t;

/** What the arena holds. @return ZQ_ERR_UNSUPPORTED where mbedTLS has no MEMORY_DEBUG. */
zq_err_t dtls_arena_stats(dtls_arena_stats_t *stats);
void dtls_arena_reset_peak(void);

/* ---- Identity ---------------------------------------------------------------------------- */

typedef struct {
    uint8_t bytes[DTLS_FINGERPRINT_LEN];
} dtls_fingerprint_t;

typedef struct {
    mbedtls_pk_context key;
    mbedtls_x509_crt cert;
    dtls_fingerprint_t fingerprint; /**< SHA-256 of the certificate's DER */
} dtls_identity_t;

/** Makes a fresh ECDSA P-256 key and a self-signed certificate for it ("CN=zq"). The key comes
 *  from PSA Crypto's generator (the port's mbedtls_psa_external_get_random), @p rand gives the
 *  certificate's serial (and, on mbedTLS 3.6, the signature's blinding). */
zq_err_t dtls_identity_generate(dtls_identity_t *id, const zq_rand_t *rand);

/** Exports the key (SEC1/PKCS#1 DER) and certificate (DER) to keep them, e.g. in flash. */
zq_err_t dtls_identity_export(const dtls_identity_t *id, uint8_t *key, size_t key_cap,
                              size_t *key_len, uint8_t *cert, size_t cert_cap, size_t *cert_len);

/** Loads an identity exported before; checks that the key matches the certificate. */
zq_err_t dtls_identity_import(dtls_identity_t *id, const uint8_t *key, size_t key_len,
                              const uint8_t *cert, size_t cert_len, const zq_rand_t *rand);

void dtls_identity_free(dtls_identity_t *id);

/** Writes "sha-256 AB:CD:..." (RFC 8122 §5 / RFC 4572), NUL-terminated; returns its length,
 *  or 0 if @p cap is too small. */
size_t dtls_fingerprint_format(const dtls_fingerprint_t *fp, char *out, size_t cap);

/** Parses "sha-256 AB:CD:..." (hash name and hex in either case). @return ZQ_OK,
 *  ZQ_ERR_UNSUPPORTED for another hash function, ZQ_ERR_MALFORMED otherwise. */
zq_err_t dtls_fingerprint_parse(const char *text, size_t len, dtls_fingerprint_t *out);

/* ---- Shared context ---------------------------------------------------------------------- */

/** Receives one NSS key-log line ("CLIENT_RANDOM <hex> <hex>", no newline) per handshake, so
 *  Wireshark/tshark can decrypt zq's traffic. A debugging aid: never enable it in production. */
typedef void (*dtls_keylog_fn)(void *ctx, const char *line);

typedef struct {
    zq_rand_t rand;                 /**< required: cookie key; on mbedTLS 3.6 also the handshake's
                                         randoms (mbedTLS 4 takes those from PSA's generator) */
    uint16_t mtu;                   /**< largest datagram sent, 64..ZQ_DTLS_MTU: ZQ_DTLS_MTU */
    uint32_t handshake_timeout_min_ms; /**< first retransmission (RFC 6347 §4.2.4.1): 250 */
    uint32_t handshake_timeout_max_ms; /**< give up after the timer reaches this: 16000 */
    bool hello_verify;              /**< server: require a cookie (RFC 6347 §4.2.1): true */
    dtls_keylog_fn keylog;          /**< NULL: no key log */
    void *keylog_ctx;
} dtls_config_t;

void dtls_config_default(dtls_config_t *cfg);

typedef struct {
    dtls_config_t cfg;
    dtls_identity_t *identity;
    mbedtls_ssl_config client;
    mbedtls_ssl_config server;
    mbedtls_ssl_cookie_ctx cookies;
} dtls_context_t;

/** Sets up the shared configuration. @p identity is borrowed and must outlive the context
 *  (mbedTLS takes it as non-const, though it never modifies it during handshakes). */
zq_err_t dtls_context_init(dtls_context_t *ctx, const dtls_config_t *cfg,
                           dtls_identity_t *identity);
void dtls_context_free(dtls_context_t *ctx);

/* ---- One connection ---------------------------------------------------------------------- */

typedef enum { DTLS_ROLE_CLIENT = 0, DTLS_ROLE_SERVER = 1 } dtls_role_t;

typedef enum {
    DTLS_STATE_IDLE,
    DTLS_STATE_HANDSHAKE,
    DTLS_STATE_CONNECTED,
    DTLS_STATE_CLOSED, /**< close_notify sent or received; dtls_free() releases the memory */
    DTLS_STATE_FAILED,
} dtls_state_t;

typedef enum {
    DTLS_FAIL_NONE = 0,
    DTLS_FAIL_TIMEOUT,         /**< the peer stopped answering during the handshake */
    DTLS_FAIL_FINGERPRINT,     /**< the peer's certificate does not match its fingerprint */
    DTLS_FAIL_NO_CERTIFICATE,  /**< the peer sent no certificate */
    DTLS_FAIL_ALERT,           /**< the peer sent a fatal alert */
    DTLS_FAIL_MEMORY,          /**< the arena is exhausted */
    DTLS_FAIL_PROTOCOL,        /**< any other handshake error (see mbedtls_error) */
} dtls_failure_t;

/** Short text for a failure reason. */
const char *dtls_failure_text(dtls_failure_t why);

typedef enum {
    DTLS_EVENT_CONNECTED, /**< handshake done and the peer's fingerprint verified */
    DTLS_EVENT_CLOSED,    /**< the peer sent close_notify */
    DTLS_EVENT_FAILED,    /**< the handshake or the connection failed: see @c failure */
} dtls_event_type_t;

typedef struct {
    dtls_event_type_t type;
    dtls_failure_t failure; /**< DTLS_EVENT_FAILED */
    int mbedtls_error;      /**< DTLS_EVENT_FAILED: mbedTLS's code, for logs */
} dtls_event_t;

/** Counters of what was dropped or refused. */
typedef struct {
    uint32_t rx_datagrams;
    uint32_t rx_dropped;     /**< not DTLS records at all, or larger than the input buffer */
    uint32_t rx_discarded;   /**< yielded nothing: forged, replayed, a retransmitted flight, or
                                  (server) not a ClientHello before the first one */
    uint32_t tx_datagrams;
    uint32_t hello_verify_sent;
} dtls_stats_t;

#define DTLS_EVENT_QUEUE 4

typedef struct {
    const dtls_context_t *ctx;
    mbedtls_ssl_context ssl;
    dtls_role_t role;
    dtls_state_t state;
    dtls_fingerprint_t remote_fp;
    bool remote_verified;     /* the verify callback saw a certificate matching remote_fp */
    bool remote_mismatch;     /* ... or one that did not match */
    uint64_t now;             /* the latest `now` given */
    uint64_t timer_start;     /* mbedTLS timer (RFC 6347 §4.2.4 retransmission) */
    uint32_t timer_int_ms;
    uint32_t timer_fin_ms;    /* 0: stopped */
    const uint8_t *rx;        /* the datagram being fed, borrowed until consumed */
    size_t rx_len;
    bool awaiting_hello;      /* a server before its (next) ClientHello */
    bool staged;              /* a datagram was fed while connected and not read to the end */
    bool staged_yielded;      /* ... and it produced application data */
    uint8_t client_id[32];    /* transport id for HelloVerifyRequest cookies (server) */
    size_t client_id_len;
    bool tx_lent;             /* the caller holds tx[] since the last poll_transmit */
    bool alert_pending;       /* an alert (or close_notify) waits in mbedTLS for room in tx[] */
    uint16_t tx_len;          /* bytes waiting in tx[]; 0 = empty */
    uint8_t tx[ZQ_DTLS_MTU];
    zq_queue_t evq;
    dtls_event_t events[DTLS_EVENT_QUEUE];
    dtls_stats_t stats;
} dtls_t;

/**
 * Starts a connection in @p role, expecting the peer's certificate to have fingerprint
 * @p remote_fp. For a server, @p peer_id / @p peer_id_len (the peer's transport address bytes,
 * at most 32) bind the HelloVerifyRequest cookie to it. A client sends its ClientHello at once.
 */
zq_err_t dtls_start(dtls_t *d, const dtls_context_t *ctx, dtls_role_t role,
                    const dtls_fingerprint_t *remote_fp, const uint8_t *peer_id,
                    size_t peer_id_len, uint64_t now);

/** Whether a datagram opens with a ClientHello record: what a server may start from. */
bool dtls_is_client_hello(const uint8_t *data, size_t len);

/** Feeds one datagram from the peer. A server that has no ClientHello yet discards (and
 *  counts in rx_discarded) anything else: a record left over from an earlier connection
 *  between the same addresses must not end this one (RFC 6347 §4.1.2.7).
 *  @p data is borrowed until the next dtls_read() that returns 0, or the next dtls_handle_*
 *  call, whichever comes first. */
zq_err_t dtls_handle_datagram(dtls_t *d, uint64_t now, const uint8_t *data, size_t len);

/** Runs the handshake retransmission timer. */
void dtls_handle_timeout(dtls_t *d, uint64_t now);

/** The retransmission deadline, or ZQ_TIME_NEVER. */
uint64_t dtls_next_timeout(const dtls_t *d);

/**
 * Takes the plaintext of the next application record into @p buf.
 * @return its length (> 0; an empty record is skipped), 0 when nothing is left, or a negative
 *         zq_err_t (ZQ_ERR_NO_SPACE if @p cap is smaller than the record, which stays queued).
 */
int dtls_read(dtls_t *d, uint8_t *buf, size_t cap);

/**
 * Encrypts @p len bytes into one record (one datagram). Drain dtls_poll_transmit() between
 * writes: a connection holds one datagram of output.
 * @return ZQ_OK, ZQ_ERR_STATE (not connected), ZQ_ERR_TOO_LONG (more than dtls_max_payload()),
 *         ZQ_ERR_WOULD_BLOCK (the previous datagram was not taken yet).
 */
zq_err_t dtls_write(dtls_t *d, uint64_t now, const uint8_t *data, size_t len);

/** The largest @p len dtls_write() accepts: the MTU less the record overhead of the suite. */
size_t dtls_max_payload(const dtls_t *d);

/** Lends the next datagram to send until the next call on @p d; false when none. */
bool dtls_poll_transmit(dtls_t *d, const uint8_t **data, size_t *len);

bool dtls_poll_event(dtls_t *d, dtls_event_t *ev);
/** Events refused because the event queue was full (zq/queue.h): events not drained. */
uint32_t dtls_events_refused(const dtls_t *d);

/** Sends close_notify (RFC 5246 §7.2.1); the connection is then CLOSED. */
void dtls_close(dtls_t *d, uint64_t now);

/** Releases everything the connection took from the arena. Safe in any state. */
void dtls_free(dtls_t *d);

dtls_state_t dtls_state(const dtls_t *d);
const dtls_stats_t *dtls_stats(const dtls_t *d);
/** The negotiated cipher suite's IANA name, e.g. "TLS-ECDHE-ECDSA-WITH-AES-128-GCM-SHA256". */
const char *dtls_cipher_suite(const dtls_t *d);

#endif /* ZQ_DTLS_H */
