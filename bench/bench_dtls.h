/* What bench_dtls.c (zq) and openssl_dtls.c (OpenSSL) share: one set of operations per DTLS
 * stack, so both are timed by the same loops and counted by the same callgrind region.
 *
 * Each stack drives two endpoints of its own in one process, passing datagrams through memory
 * in lock step (no loss, no reordering), so no retransmission timer ever fires. */
#ifndef ZQ_BENCH_DTLS_H
#define ZQ_BENCH_DTLS_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { BENCH_AES_128_GCM, BENCH_CHACHA20_POLY1305 } bench_suite_t;

typedef struct {
    const char *name;    /* "zq", "openssl": the command-line name */
    const char *(*version)(void); /* "mbedTLS 3.6.6", "OpenSSL 3.0.19" */
    /* Identities, contexts: everything a node keeps across connections. */
    bool (*setup)(void);
    /* n full handshakes, each on fresh connections freed at the end (ECDHE-ECDSA P-256,
     * AES-128-GCM, mutual certificates, HelloVerifyRequest cookie). */
    bool (*handshakes)(unsigned long n);
    /* Connects one pair with only @p suite offered, for bulk(). */
    bool (*bulk_begin)(bench_suite_t suite);
    /* The largest payload one record of a 1200-byte datagram carries, after bulk_begin(). */
    size_t (*max_payload)(void);
    /* The negotiated suite's name, after bulk_begin(). */
    const char *(*suite_name)(void);
    /* @p records records of @p len bytes, client to server, each encrypted, delivered,
     * decrypted and checked for length. */
    bool (*bulk)(size_t len, unsigned long records);
    void (*bulk_end)(void);
    /* Datagrams and bytes sent by both sides since setup(), to compare what goes on the wire. */
    void (*traffic)(unsigned long *datagrams, unsigned long *bytes);
} bench_stack_t;

/* Both stacks send datagrams of at most this size: zq's default ZQ_DTLS_MTU, a common WebRTC
 * choice that leaves room for IPv6, UDP and TURN headers. */
#define BENCH_MTU 1200

#if defined(ZQ_BENCH_OPENSSL)
extern const bench_stack_t bench_openssl;
#endif

#endif
