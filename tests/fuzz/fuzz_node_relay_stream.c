/* libFuzzer target for a node's TURN stream (node/node_relay_stream.c): what a TURN server's
 * TCP or TLS connection can send it, fed in pieces. Byte 0 even: turn:...?transport=tcp, the
 * bytes are TURN frames as they are; odd: turns:, the bytes are the server's side of a TLS
 * handshake. Byte 1 gives the pieces' size.
 *
 * Nothing fed may crash it, overrun the stream's output, allocate over TLS (no input can forge
 * a chain to the trust store's root, which has no certificate that verifies) or raise an
 * event the API does not name; once the node drops the allocation (new host addresses), the
 * arena holds what it held before the stream opened. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "node/node.h"
#include "stack/dtls/dtls.h"
#include "fuzz_trust.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t arena[256 * 1024];
static uint32_t rand_state;
static zq_rand_t random_source;
static tls_client_config_t trust;
static dtls_context_t no_peers; /* node_init wants one; no peer is ever made here */
static node_t node;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    random_source = (zq_rand_t){fuzz_counter_rand, &rand_state};
    fuzz_trust_init(arena, sizeof arena, &trust, &random_source);
    return 0;
}

static void frame(const char *text)
{
    node_handle_signal(&node, 1000, text, strlen(text));
}

/* What the node sends goes nowhere; its events must be the API's. */
static void drain(uint64_t now)
{
    const uint8_t *out;
    size_t len;
    while (node_relay_stream_output(&node, &out, &len)) {
        check(len > 0);
        node_relay_stream_sent(&node, now, len);
    }
    peer_transmit_t tx;
    while (node_poll_transmit(&node, now, &tx)) {
    }
    node_event_t ev;
    while (node_poll_event(&node, &ev)) {
        check(ev.type <= NODE_EVENT_RELAY);
        check(!(ev.type == NODE_EVENT_RELAY && ev.relay_up && ev.relay_transport == NODE_RELAY_TLS));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) {
        return 0;
    }
    rand_state = 1; /* the same transaction ids for the same input */
    bool tls = data[0] & 1;
    size_t piece = (size_t)data[1] + 1;
    node_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    memcpy(cfg.room, "room", sizeof "room");
    cfg.rand = random_source;
    cfg.dtls = &no_peers;
    cfg.hosts[0] = zq_addr_v4(192, 0, 2, 10, 5000);
    cfg.n_hosts = 1;
    cfg.turn_trust = &trust;
    check(node_init(&node, &cfg) == ZQ_OK);
    node_signal_connected(&node);
    frame("{\"type\":\"welcome\",\"peerId\":\"me\"}");
    frame(tls ? "{\"type\":\"ice_servers\",\"iceServers\":[{\"urls\":[\"turns:203.0.113.1:443\"],"
                "\"username\":\"1900000000:me\",\"credential\":\"c2VjcmV0\"}]}"
              : "{\"type\":\"ice_servers\",\"iceServers\":[{\"urls\":[\"turn:203.0.113.1:3478?"
                "transport=tcp\"],\"username\":\"1900000000:me\",\"credential\":\"c2VjcmV0\"}]}");
    zq_addr_t server;
    check(node_relay_stream_target(&node, &server));
    size_t before = fuzz_arena_in_use();
    uint64_t now = 1000;
    node_relay_stream_opened(&node, now);
    drain(now);
    for (size_t at = 2; at < size && node_relay_stream_target(&node, &server); at += piece) {
        size_t take = piece < size - at ? piece : size - at;
        node_relay_stream_input(&node, now, data + at, take);
        drain(now);
        now += 50;
        node_handle_timeout(&node, now);
        drain(now);
    }
    check(node.relay.stream_out_len <= sizeof node.relay.stream_out);
    node_set_hosts(&node, now, cfg.hosts, 1); /* drops the allocation and its stream */
    check(fuzz_arena_in_use() == before);
    return 0;
}
