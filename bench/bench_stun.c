/* bench_stun: what one incoming STUN Binding request costs a node, from the datagram to the
 * answer queued (routing by USERNAME, the RFC 7983 demux, the parse, FINGERPRINT and
 * MESSAGE-INTEGRITY checks, the signed success response).
 *
 *   bench_stun [N]   N requests (10000) to the last of ZQ_NODE_MAX_PEERS peers, each answer
 *                    drained; the requests go through node_handle_datagram() inside
 *                    bench_counted(), for
 *                    valgrind --tool=callgrind --toggle-collect=bench_counted bench_stun N
 *
 * The request is what a browser sends as a connectivity check: USERNAME, PRIORITY,
 * ICE-CONTROLLING, MESSAGE-INTEGRITY and FINGERPRINT (RFC 8445 §7.1.1, §7.2.2). The same
 * request arrives every time, as a retransmission would (RFC 8489 §6.3.1 answers it again). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_stats.h"
#include "browser_check.h"
#include "node/node.h"
#include "stack/ice/stun.h"

static uint64_t rand_state = 0x5eedb5e9c4d7a11ULL;

/* A fixed-seed xorshift64*, so runs replay. */
static int bench_rand_fill(void *ctx, unsigned char *out, size_t len)
{
    (void)ctx;
    for (size_t i = 0; i < len; i++) {
        rand_state ^= rand_state >> 12;
        rand_state ^= rand_state << 25;
        rand_state ^= rand_state >> 27;
        out[i] = (unsigned char)((rand_state * 0x2545F4914F6CDD1DULL) >> 56);
    }
    return 0;
}

static const zq_rand_t bench_rand = {bench_rand_fill, NULL};

static uint8_t arena[64 * 1024];
static dtls_identity_t identity;
static dtls_context_t context;
static node_t node;

static void die(const char *what)
{
    fprintf(stderr, "bench_stun: %s\n", what);
    exit(1);
}

static void signal_frame(const char *frame)
{
    node_handle_signal(&node, 0, frame, strlen(frame));
}

/* A node in room "bench" whose every slot holds a peer: the request's peer is found last. */
static void setup_node(const zq_addr_t *host)
{
    dtls_config_t dcfg;
    dtls_config_default(&dcfg);
    dcfg.rand = bench_rand;
    dtls_arena_init(arena, sizeof arena);
    if (dtls_identity_generate(&identity, &bench_rand) != ZQ_OK ||
        dtls_context_init(&context, &dcfg, &identity) != ZQ_OK) {
        die("DTLS identity");
    }
    node_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    memcpy(cfg.room, "bench", sizeof "bench");
    cfg.rand = bench_rand;
    cfg.dtls = &context;
    cfg.hosts[0] = *host;
    cfg.n_hosts = 1;
    if (node_init(&node, &cfg) != ZQ_OK) {
        die("node_init");
    }
    node_signal_connected(&node);
    signal_frame("{\"type\":\"welcome\",\"peerId\":\"me\"}");
    char frame[64];
    for (int i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        (void)snprintf(frame, sizeof frame, "{\"type\":\"peer_joined\",\"peerId\":\"p%d\"}", i);
        signal_frame(frame);
    }
}

static size_t build_request(uint8_t *buf, size_t cap)
{
    return browser_check(ice_agent_local_credentials(&node.peers[ZQ_NODE_MAX_PEERS - 1].peer.ice),
                         buf, cap);
}

static unsigned long drain(void)
{
    unsigned long sent = 0;
    peer_transmit_t tx;
    while (node_poll_transmit(&node, 0, &tx)) {
        sent++;
    }
    node_event_t ev;
    while (node_poll_event(&node, &ev)) {
    }
    return sent;
}

long bench_counted(const zq_addr_t *host, const zq_addr_t *from, const uint8_t *req,
                   size_t len, unsigned long n);

BENCH_NOT_INLINED long bench_counted(const zq_addr_t *host, const zq_addr_t *from,
                                     const uint8_t *req, size_t len, unsigned long n)
{
    long failed = 0;
    for (unsigned long i = 0; i < n; i++) {
        failed += node_handle_datagram(&node, 0, host, from, req, len) != ZQ_OK;
    }
    return failed;
}

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
    zq_addr_t host = zq_addr_v4(10, 0, 0, 1, 5000);
    zq_addr_t from = zq_addr_v4(10, 0, 0, 2, 6000);
    setup_node(&host);
    uint8_t req[256];
    size_t len = build_request(req, sizeof req);
    if (len == 0) {
        die("request");
    }
    (void)bench_counted(&host, &from, req, len, 1); /* learns the peer-reflexive candidate */
    (void)drain();
    unsigned long answered = 0;
    for (unsigned long done = 0; done < n; done++) {
        if (bench_counted(&host, &from, req, len, 1) != 0) {
            die("a request was refused");
        }
        answered += drain();
    }
    printf("requests %lu, datagrams sent %lu, request %zu bytes\n", n, answered, len);
    return 0;
}
