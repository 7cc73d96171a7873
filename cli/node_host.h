/**
 * @file node_host.h
 * @brief A node hosted on this machine, as `zq echo`, the broker commands and bench_peer run
 *        one: the DTLS identity on a static arena, one UDP socket per host candidate, and the
 *        poll loop driving host/host.h (datagrams, timeouts, signalling) through the
 *        signalling link. What the node does around its inputs is the host's; this is I/O.
 *
 * @code
 * static zq_node_host_t nh;                  // large (host, WebSocket): static
 * zq_node_host_identity(&rand, &identity, &dtls);
 * zq_node_host_open_udp(&nh, &any, &ncfg);   // fills ncfg.hosts
 * node_init(&node, &ncfg);
 * zq_host_init(&nh.host, &node, NULL, &hcfg, &callbacks, &app);
 * zq_sig_link_init(&nh.sig, "echo", &loop, &nh.host, url, &why);
 * zq_node_host_drive(&nh, &loop, &ncfg, after_io, &app);
 * zq_sig_link_open(&nh.sig, &why);
 * zq_loop_run(&loop, ZQ_TIME_NEVER);
 * @endcode
 */
#ifndef ZQ_CLI_NODE_HOST_H
#define ZQ_CLI_NODE_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/sig_link.h"
#include "host/host.h"
#include "node/node.h"
#include "port/posix/loop.h"
#include "port/zq_port.h"
#include "stack/dtls/dtls.h"

/** What each TLS or DTLS session's record buffers take beyond the device's 1,536 + 1,280 bytes
 *  (ZQ_TLS_FULL_RECORDS, config/zq_mbedtls_tls.h: 17,664 B). */
#define ZQ_HOST_RECORD_EXCESS (MBEDTLS_SSL_IN_CONTENT_LEN + MBEDTLS_SSL_OUT_CONTENT_LEN - 2816)
/** mbedTLS's heap for every peer's DTLS: ~13 KiB per handshake, ~6 KiB per session with the
 *  device's records, plus the identity (README, "Memory and footprint"), a wss:// signalling
 *  session at its handshake's peak (README, Security), and as much for a TURN allocation over
 *  TLS (turns:). One per process: a program hosts one node. */
#define ZQ_NODE_HOST_ARENA                                                                    \
    (ZQ_NODE_MAX_PEERS * (16 * 1024 + ZQ_HOST_RECORD_EXCESS) + 16 * 1024 + ZQ_WSS_ARENA +   \
     ZQ_NODE_TURN_STREAM * ZQ_WSS_ARENA)
/** What a wss:// session takes from the arena at its peak: 18.6 KB with an RSA-2048 server key,
 *  9.6 KB with ECDSA P-256 with the device's records (tests/interop/wss/run.sh; README,
 *  Security), and the host's larger record buffers; room for RSA-4096. */
#define ZQ_WSS_ARENA (32 * 1024 + ZQ_HOST_RECORD_EXCESS)

typedef struct {
    zq_host_t host;
    zq_sig_link_t sig;
    zq_loop_t *loop;                      /* borrowed */
    void (*after_io)(void *ctx, uint64_t now);
    void *ctx;
    zq_socket_t socks[ZQ_NODE_MAX_HOSTS]; /* one per host candidate */
    zq_addr_t bound[ZQ_NODE_MAX_HOSTS];   /* where each is bound */
    uint8_t n_socks;
    zq_addr_t want;                       /* what zq_node_host_open_udp() was asked for */
    bool watch;                           /* every address: follow the machine's changes */
    uint64_t next_check;                  /* when the addresses are looked at again */
    size_t driver;                        /* our id on the loop */
    zq_socket_t turn_sock;                /* TURN over TCP (node.h), or ZQ_SOCKET_INVALID */
    zq_addr_t turn_server;                /* where turn_sock is connected, or connecting */
    bool turn_connecting;                 /* its connect is under way */
    uint64_t turn_connect_deadline;       /* when that connect is given up */
} zq_node_host_t;

/** How long the TCP connect to a TURN server may take (the loop goes on meanwhile). */
#define ZQ_NODE_HOST_TURN_CONNECT_MS 3000

/** How often a node bound to every address looks whether they changed (a DHCP renewal, a
 *  move to another network): then it opens sockets on the new ones and rejoins. */
#define ZQ_NODE_HOST_ADDRESS_CHECK_MS 2000

/** Starts the arena and makes the node's certificate and DTLS context. @return false when no
 *  certificate could be made. */
bool zq_node_host_identity(zq_rand_t *rand, dtls_identity_t *identity, dtls_context_t *dtls);

/** zq_node_host_identity(), with the identity kept in @p path (NULL: none kept): read from it
 *  if it exists (the key's DER length, 2 bytes big-endian, the key's DER, the certificate's
 *  DER), else made and written there (mode 0600). @return false with @p why set when the file
 *  cannot be read, written or used. */
bool zq_node_host_identity_file(zq_rand_t *rand, const char *path, dtls_identity_t *identity,
                                dtls_context_t *dtls, const char **why);

/**
 * Opens one UDP socket per host address, bound to it, so a datagram's local address says
 * which candidate it reached, as ICE needs (RFC 8445 §7.3): @p want itself, or for an
 * unspecified address every address of its family (loopback too: a browser on this host
 * reaches us there), which are then looked at every ZQ_NODE_HOST_ADDRESS_CHECK_MS. Fills
 * @p nh's sockets and @p cfg's hosts, and the trust store turns: servers are checked against
 * (wss://'s: $SSL_CERT_FILE, port/posix/ws_tls.h; none if it cannot be read). @return how
 * many opened.
 */
uint8_t zq_node_host_open_udp(zq_node_host_t *nh, const zq_addr_t *want, node_config_t *cfg);

/**
 * Puts @p nh's host on @p loop with the sockets of zq_node_host_open_udp() (@p cfg's hosts):
 * datagrams and timeouts go to the host, its datagrams to the sockets and its frames to the
 * signalling link. @p after_io (may be NULL) runs after each turn, once the frames left: where
 * a program decides to stop. @return ZQ_OK or the loop's error.
 */
zq_err_t zq_node_host_drive(zq_node_host_t *nh, zq_loop_t *loop, const node_config_t *cfg,
                            void (*after_io)(void *ctx, uint64_t now), void *ctx);

void zq_node_host_close_udp(zq_node_host_t *nh);

#endif /* ZQ_CLI_NODE_HOST_H */
