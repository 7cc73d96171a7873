/* A node that cannot reach its peer directly (every datagram between their hosts is dropped,
 * as two symmetric NATs would) connects through its TURN allocation (node/node_relay.c): the
 * ice_servers frame starts it, the relayed candidate goes into the offer or is trickled, the
 * checks and DTLS go to the server as Send indications, a channel is bound once connected and
 * data then goes as ChannelData. The TURN server is scripted here (RFC 8656's messages built
 * by hand); coturn is the server in tests/interop/nat. The remote side is a plain full-ICE
 * peer_t, whose relayed address it learns from the candidates. The server is reached over
 * UDP, or over the node's TCP stream (RFC 8656 §3.1), whose bytes reach the node here in
 * 7-byte pieces, so every frame is reassembled across reads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dtls_pair.h"
#include "heap_count.h"
#include "node/node.h"
#include "psa/crypto.h"
#include "stack/turn/turn.h"

static node_t node;
static peer_t remote;
static uint64_t now;
static zq_addr_t host, remote_host, server, relayed, mapped;
static uint8_t key[16]; /* MD5(username ":" realm ":" credential), RFC 8489 §9.2.2 */
static const char username[] = "1900000000:me";
static const char credential[] = "c3VwZXJzZWNyZXQ=";

/* What the scripted server saw. */
static struct {
    unsigned allocates, permissions, binds, sends, channel_data, relayed_to_node;
    bool permitted; /* remote_host's IP */
    uint16_t channel; /* bound to remote_host, or 0 */
    uint64_t channel_expires; /* RFC 8656 §12: 600 s after the last ChannelBind */
} srv;

/* How the node reaches the scripted server. */
static struct {
    bool tcp;          /* over the node's stream: the port's connection is up */
    bool udp_blocked;  /* the site drops UDP to the server */
    unsigned udp_dropped;
    uint8_t rx[4 * TURN_STREAM_FRAME_MAX]; /* stream bytes from the node, not yet a frame */
    size_t rx_len;
} path;

/* ---- The scripted TURN server ------------------------------------------------------------ */

static void to_node(const uint8_t *buf, size_t len)
{
    if (!path.tcp) {
        (void)node_handle_datagram(&node, now, &host, &server, buf, len);
        return;
    }
    for (size_t at = 0; at < len; at += 7) {
        node_relay_stream_input(&node, now, buf + at, len - at < 7 ? len - at : 7);
    }
}

static void answer(const stun_msg_t *req, uint16_t type, uint16_t error)
{
    uint8_t buf[256];
    stun_builder_t b;
    stun_build_start(&b, buf, sizeof buf, type, req->tid);
    if (error != 0) {
        stun_put_error_code(&b, error, "Unauthorized");
        stun_put_attr(&b, STUN_ATTR_REALM, "zq.test", 7);
        stun_put_attr(&b, STUN_ATTR_NONCE, "abcd", 4);
    } else if (type == TURN_ALLOCATE_SUCCESS) {
        stun_put_xor_address(&b, TURN_ATTR_XOR_RELAYED_ADDRESS, &relayed);
        stun_put_xor_address(&b, STUN_ATTR_XOR_MAPPED_ADDRESS, &mapped);
        stun_put_u32(&b, TURN_ATTR_LIFETIME, 600);
    }
    if (error == 0) {
        stun_put_integrity(&b, key, sizeof key);
    }
    stun_put_fingerprint(&b);
    to_node(buf, stun_build_finish(&b));
}

/* The relayed payload reaches the remote peer as from the relayed address (RFC 8656 §11.3). */
static void relay_to_remote(const uint8_t *data, size_t len)
{
    (void)peer_handle_datagram(&remote, now, &remote_host, &relayed, data, len);
}

static void request(const stun_msg_t *m, const turn_attrs_t *a)
{
    bool signed_ok = (m->present & STUN_HAS_MESSAGE_INTEGRITY) &&
                     stun_verify_integrity(m, key, sizeof key) == ZQ_OK;
    if (m->type == TURN_ALLOCATE_REQUEST) {
        srv.allocates++;
        answer(m, signed_ok ? TURN_ALLOCATE_SUCCESS : TURN_ALLOCATE_ERROR, signed_ok ? 0 : 401);
        return;
    }
    assert_true(signed_ok); /* every request after the 401 carries the long-term credential */
    if (m->type == TURN_CREATE_PERMISSION_REQUEST) {
        srv.permissions++;
        srv.permitted |= zq_addr_same_ip(&a->peer, &remote_host);
        answer(m, TURN_CREATE_PERMISSION_SUCCESS, 0);
    } else if (m->type == TURN_CHANNEL_BIND_REQUEST) {
        srv.binds++;
        assert_true(zq_addr_equal(&a->peer, &remote_host));
        srv.channel = a->channel;
        srv.channel_expires = now + 600000;
        answer(m, TURN_CHANNEL_BIND_SUCCESS, 0);
    } else if (m->type == TURN_REFRESH_REQUEST) {
        answer(m, TURN_REFRESH_SUCCESS, 0);
    }
}

static void server_input(const uint8_t *buf, size_t len)
{
    uint16_t channel;
    const uint8_t *data;
    size_t n;
    if (turn_is_channel_data(buf, len)) {
        assert_int_equal(turn_channel_data_parse(buf, len, &channel, &data, &n), ZQ_OK);
        assert_int_equal(channel, srv.channel);
        srv.channel_data++;
        relay_to_remote(data, n);
        return;
    }
    stun_msg_t m;
    turn_attrs_t a;
    assert_int_equal(stun_parse(&m, buf, len), ZQ_OK);
    assert_int_equal(turn_parse_attrs(&m, &a), ZQ_OK);
    if (m.type == TURN_SEND_INDICATION) {
        srv.sends++;
        if (srv.permitted && zq_addr_same_ip(&a.peer, &remote_host)) {
            relay_to_remote(a.data, a.data_len); /* §11.2: only to a permitted peer */
        }
        return;
    }
    request(&m, &a);
}

/* The remote peer sent to the relayed address: a Data indication, or ChannelData once bound. */
static void server_from_remote(const uint8_t *data, size_t len)
{
    uint8_t buf[ZQ_UDP_MAX_DATAGRAM + 64];
    srv.relayed_to_node++;
    if (srv.channel != 0 && now >= srv.channel_expires) {
        srv.channel = 0; /* not refreshed: unbound */
    }
    if (srv.channel != 0) {
        to_node(buf, turn_channel_data_write(buf, sizeof buf, srv.channel, data, len));
        return;
    }
    static const uint8_t tid[STUN_TID_LEN] = {9};
    stun_builder_t b;
    stun_build_start(&b, buf, sizeof buf, TURN_DATA_INDICATION, tid);
    stun_put_xor_address(&b, TURN_ATTR_XOR_PEER_ADDRESS, &remote_host);
    stun_put_attr(&b, TURN_ATTR_DATA, data, len);
    to_node(buf, stun_build_finish(&b));
}

/* ---- The network: the two hosts cannot reach each other ---------------------------------- */

static unsigned direct_dropped;
static bool cut; /* the node's network is gone: everything it sends is lost */

static void server_input(const uint8_t *buf, size_t len);

/* A frame's length on the stream, as the server reads it: STUN's 20-byte header and its
 * length; ChannelData's 4 and its length, which over TCP is always padded (RFC 8656 §12.5). */
static size_t server_frame_len(const uint8_t *buf)
{
    size_t n = (size_t)buf[2] << 8 | buf[3];
    return turn_is_channel_data(buf, 4) ? 4 + ((n + 3) & ~(size_t)3) : 20 + n;
}

/* What the node put on its stream reaches the server, frame by frame. */
static void stream_to_server(void)
{
    const uint8_t *data;
    size_t len;
    while (node_relay_stream_output(&node, &data, &len)) {
        assert_true(len <= sizeof path.rx - path.rx_len);
        if (!cut) {
            memcpy(path.rx + path.rx_len, data, len);
            path.rx_len += len;
        }
        node_relay_stream_sent(&node, now, len);
    }
    size_t n;
    while (path.rx_len >= 4 && path.rx_len >= (n = server_frame_len(path.rx))) {
        uint8_t f[TURN_STREAM_FRAME_MAX];
        memcpy(f, path.rx, n);
        memmove(path.rx, path.rx + n, path.rx_len - n);
        path.rx_len -= n;
        server_input(f, n);
    }
}

static void flush(void)
{
    bool moved = true;
    while (moved) {
        moved = false;
        peer_transmit_t tx;
        while (node_poll_transmit(&node, now, &tx)) {
            moved = true;
            assert_true(zq_addr_equal(&tx.local, &host)); /* the relayed address is no socket */
            if (cut) {
                continue;
            }
            if (zq_addr_equal(&tx.remote, &server) && path.udp_blocked) {
                path.udp_dropped++;
            } else if (zq_addr_equal(&tx.remote, &server)) {
                server_input(tx.data, tx.len);
            } else {
                direct_dropped++;
            }
        }
        if (path.tcp && node_relay_stream_output(&node, &(const uint8_t *){NULL}, &(size_t){0})) {
            moved = true;
            stream_to_server();
        }
        while (peer_poll_transmit(&remote, now, &tx)) {
            moved = true;
            if (zq_addr_equal(&tx.remote, &relayed)) {
                server_from_remote(tx.data, tx.len);
            } else {
                direct_dropped++;
            }
        }
    }
}

/* ---- Signalling between the node and the remote peer ("b") -------------------------------- */

static char frame[ZQ_SIG_SDP_MAX + 512];

static void node_frame(const char *text)
{
    node_handle_signal(&node, now, text, strlen(text));
}

static void remote_answers(const char *sdp, size_t len)
{
    const char *reason = NULL;
    assert_int_equal(peer_set_remote_description(&remote, now, sdp, len, &reason), ZQ_OK);
    char answer_sdp[PEER_SDP_MAX];
    size_t n = 0;
    assert_int_equal(peer_create_answer(&remote, now, answer_sdp, sizeof answer_sdp, &n), ZQ_OK);
    size_t frame_len = sig_write_description(false, "b", answer_sdp, n, frame, sizeof frame);
    assert_true(frame_len > 0);
    node_handle_signal(&node, now, frame, frame_len);
}

static char offer_sdp[PEER_SDP_MAX];
static unsigned relay_candidates_trickled;

static void signalling(void)
{
    static sig_event_t ev;
    size_t len;
    while ((len = node_poll_signal(&node, now, frame, sizeof frame)) > 0) {
        assert_int_equal(sig_parse_frame(frame, len, &ev), ZQ_OK);
        if (ev.type == SIG_EVENT_OFFER) {
            memcpy(offer_sdp, ev.text, ev.text_len + 1);
            remote_answers(ev.text, ev.text_len);
        } else if (ev.type == SIG_EVENT_CANDIDATE) {
            relay_candidates_trickled += strstr(ev.text, "typ relay") != NULL;
            (void)peer_add_remote_candidate(&remote, now, ev.text, ev.text_len);
        }
    }
    peer_event_t pev;
    while (peer_poll_event(&remote, &pev)) {
        if (pev.type == PEER_EVENT_LOCAL_CANDIDATE) {
            size_t n = sig_write_candidate("b", pev.candidate, peer_local_ufrag(&remote), frame,
                                           sizeof frame);
            assert_true(n > 0);
            node_handle_signal(&node, now, frame, n);
        }
    }
}

/* ---- Fixture ------------------------------------------------------------------------------- */

static void make_key(void)
{
    char input[256];
    int n = snprintf(input, sizeof input, "%s:zq.test:%s", username, credential);
    size_t len;
    assert_int_equal(psa_hash_compute(PSA_ALG_MD5, (const uint8_t *)input, (size_t)n, key,
                                      sizeof key, &len),
                     PSA_SUCCESS);
}

/* The remote side: a full-ICE peer on remote_host. */
static void remote_init(void)
{
    peer_config_t pcfg;
    peer_config_default(&pcfg, &fx.rand, &fx.ctx_b);
    ice_config_default(&pcfg.ice, ICE_MODE_FULL);
    pcfg.ice.rand = fx.rand;
    assert_int_equal(peer_init(&remote, &pcfg), ZQ_OK);
    assert_int_equal(peer_add_host_candidate(&remote, now, &remote_host), ZQ_OK);
}

static int setup(void **state)
{
    (void)state;
    now = 1000;
    memset(&srv, 0, sizeof srv);
    memset(&path, 0, sizeof path);
    direct_dropped = relay_candidates_trickled = 0;
    cut = false;
    host = zq_addr_v4(192, 0, 2, 10, 5000);
    remote_host = zq_addr_v4(198, 51, 100, 20, 6000);
    server = zq_addr_v4(203, 0, 113, 1, 3478);
    relayed = zq_addr_v4(203, 0, 113, 1, 49152);
    mapped = zq_addr_v4(203, 0, 113, 7, 40000);
    make_key();
    node_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    memcpy(cfg.room, "room", sizeof "room");
    cfg.rand = fx.rand;
    cfg.dtls = &fx.ctx_a;
    cfg.hosts[0] = host;
    cfg.n_hosts = 1;
    assert_int_equal(node_init(&node, &cfg), ZQ_OK);
    node_signal_connected(&node);
    node_frame("{\"type\":\"welcome\",\"peerId\":\"me\"}");
    remote_init();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        peer_free(&node.peers[i].peer);
    }
    peer_free(&remote);
    return 0;
}

static void ice_servers(const char *urls)
{
    snprintf(frame, sizeof frame,
             "{\"type\":\"ice_servers\",\"iceServers\":[{\"urls\":[%s],\"username\":\"%s\","
             "\"credential\":\"%s\"}]}",
             urls, username, credential);
    node_frame(frame);
}

static node_event_t connected; /* the last PEER_CONNECTED */

/* Runs the clock in 5 ms steps until the node's channel to "b" is open, or @p limit ms. */
static bool run_until_connected(uint64_t limit)
{
    uint64_t end = now + limit;
    for (; now < end; now += 5) {
        node_handle_timeout(&node, now);
        peer_handle_timeout(&remote, now);
        signalling();
        flush();
        signalling();
        node_event_t ev;
        while (node_poll_event(&node, &ev)) {
            if (ev.type == NODE_EVENT_PEER_CONNECTED) {
                connected = ev;
                return true;
            }
            assert_int_not_equal(ev.type, NODE_EVENT_PEER_GONE);
        }
    }
    return false;
}

/* Runs both sides for @p ms. */
static void run_for(uint64_t ms)
{
    for (uint64_t end = now + ms; now < end; now += 5) {
        node_handle_timeout(&node, now);
        peer_handle_timeout(&remote, now);
        signalling();
        flush();
        node_event_t ev;
        while (node_poll_event(&node, &ev)) {
        }
    }
}

static const node_peer_t *peer_b(void)
{
    for (int i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        if (node.peers[i].used && strcmp(node.peers[i].id, "b") == 0) {
            return &node.peers[i];
        }
    }
    fail_msg("no peer b");
    return NULL;
}

/* The node sends @p msg to b, which reads it; the server carried it as ChannelData. */
static void sent_over_the_channel(const char *msg)
{
    unsigned before = srv.channel_data;
    size_t len = strlen(msg);
    assert_int_equal(node_send(&node, now, (uint8_t)(peer_b() - node.peers),
                               (const uint8_t *)msg, len, false),
                     ZQ_OK);
    dc_message_t got;
    bool read = false;
    for (int k = 0; k < 100 && !read; k++, now += 5) {
        flush();
        read = peer_read(&remote, now, &got);
    }
    assert_true(read);
    assert_int_equal(got.len, len);
    assert_memory_equal(got.data, msg, len);
    assert_true(srv.channel_data > before);
}

/* ---- Tests --------------------------------------------------------------------------------- */

/* The allocation is done before b joins: the offer carries the relayed candidate (raddr the
 * mapped address) and the srflx the allocation saw; the connection runs over the relay, and
 * once connected a channel carries it as ChannelData (RFC 8656 §12). */
static void a_node_with_no_direct_path_connects_through_its_turn_allocation(void **state)
{
    (void)state;
    ice_servers("\"turn:203.0.113.1:3478?transport=udp\"");
    flush();
    assert_int_equal(srv.allocates, 2); /* the first without a credential, 401, then signed */
    node_frame("{\"type\":\"peer_joined\",\"peerId\":\"b\"}");
    assert_true(run_until_connected(10000));
    assert_non_null(strstr(offer_sdp, "typ relay raddr 203.0.113.7 rport 40000"));
    assert_non_null(strstr(offer_sdp, "203.0.113.7 40000 typ srflx"));
    assert_true(srv.permitted);
    assert_true(srv.sends > 0);
    assert_true(direct_dropped > 0); /* the direct pairs were tried and went nowhere */
    const node_peer_t *b = peer_b();
    assert_true(zq_addr_equal(&b->peer.path_local, &relayed));
    assert_true(zq_addr_equal(&remote.path_remote, &relayed));
    assert_int_equal(srv.binds, 1);
    char line[NODE_DESCRIBE_MAX];
    assert_true(node_describe_event(&connected, line, sizeof line) > 0);
    assert_non_null(strstr(line, " ms over relay -> host"));
    sent_over_the_channel("over the relay");
    assert_int_equal(node.stats.relay_dropped, 0);
}

/* b joins while the allocation is under way: the relayed candidate follows the offer as a
 * trickled one. */
static void a_peer_that_joins_during_the_allocation_gets_the_relayed_candidate_trickled(void **state)
{
    (void)state;
    ice_servers("\"turn:203.0.113.1:3478\"");
    node_frame("{\"type\":\"peer_joined\",\"peerId\":\"b\"}");
    signalling(); /* the offer leaves before the server has answered anything */
    assert_null(strstr(offer_sdp, "typ relay"));
    assert_true(run_until_connected(10000));
    assert_int_equal(relay_candidates_trickled, 1);
    assert_true(zq_addr_equal(&peer_b()->peer.path_local, &relayed));
}

/* The room names only a TCP server; the port's connection is up; the allocation is made. */
static void allocate_over_tcp(void)
{
    ice_servers("\"turn:203.0.113.1:3478?transport=tcp\"");
    path.tcp = true;
    node_relay_stream_opened(&node, now);
    flush();
}

/* turns: (TLS) and named servers are not used, and counted; a room whose only TURN server is
 * over TCP gets the node's allocation over TCP: it asks the port for the stream and sends
 * nothing until the stream is up, then nothing over UDP. */
static void turns_and_named_servers_are_skipped_and_a_tcp_only_server_waits_for_the_stream(
    void **state)
{
    (void)state;
    ice_servers("\"turns:203.0.113.1:443?transport=tcp\",\"turn:203.0.113.1?transport=tcp\","
                "\"turn:turn.example.org\",\"stun:203.0.113.1\"");
    peer_transmit_t tx;
    assert_false(node_poll_transmit(&node, now, &tx));
    assert_int_equal(node.stats.relay_urls_skipped, 2);
    zq_addr_t target;
    assert_true(node_relay_stream_target(&node, &target));
    assert_true(zq_addr_equal(&target, &server));
    const uint8_t *data;
    size_t len;
    assert_false(node_relay_stream_output(&node, &data, &len)); /* not before it is open */
    path.tcp = true;
    node_relay_stream_opened(&node, now);
    flush();
    assert_int_equal(srv.allocates, 2); /* 401, then signed: over the stream */
    assert_int_equal(node.relay.turn.state, TURN_ALLOCATED);
    assert_int_equal(path.udp_dropped, 0);
}

/* Over TCP the whole connection goes through the stream: checks and DTLS as Send indications,
 * then ChannelData padded to 4 bytes (RFC 8656 §12.5), every frame the server sends back
 * reassembled from 7-byte reads. */
static void a_node_connects_through_an_allocation_held_over_a_tcp_stream(void **state)
{
    (void)state;
    allocate_over_tcp();
    node_frame("{\"type\":\"peer_joined\",\"peerId\":\"b\"}");
    assert_true(run_until_connected(10000));
    assert_true(zq_addr_equal(&peer_b()->peer.path_local, &relayed));
    assert_int_equal(srv.binds, 1);
    /* The mapped address the server saw is a TCP one: no server-reflexive candidate from it. */
    const ice_agent_t *ice = &peer_b()->peer.ice;
    for (size_t i = 0; i < ice_agent_local_candidate_count(ice); i++) {
        assert_int_not_equal(ice_agent_local_candidate(ice, i)->type, ICE_CAND_SRFLX);
    }
    assert_non_null(strstr(offer_sdp, "typ relay raddr 203.0.113.7 rport 40000"));
    sent_over_the_channel("over TCP, 23 bytes long"); /* a length no multiple of 4 */
    assert_int_equal(path.rx_len, 0); /* every byte on the stream was a whole frame */
    assert_int_equal(node.stats.relay_dropped, 0);
    assert_int_equal(node.stats.relay_stream_lost, 0);
}

/* A site that drops UDP: the Allocate over UDP goes unanswered, and ZQ_NODE_TURN_TCP_AFTER_MS
 * later the node asks for the room's TCP server with the same credential. */
static void an_unanswered_udp_allocation_gives_way_to_the_rooms_tcp_server(void **state)
{
    (void)state;
    path.udp_blocked = true;
    ice_servers("\"turn:203.0.113.1:3478?transport=udp\",\"turn:203.0.113.1:3478?transport=tcp\"");
    node_frame("{\"type\":\"peer_joined\",\"peerId\":\"b\"}");
    zq_addr_t target;
    uint64_t start = now;
    for (; now < start + 10000 && !node_relay_stream_target(&node, &target); now += 5) {
        node_handle_timeout(&node, now);
        signalling();
        flush();
    }
    assert_true(now - start >= ZQ_NODE_TURN_TCP_AFTER_MS);
    assert_true(now - start <= ZQ_NODE_TURN_TCP_AFTER_MS + 10);
    assert_true(path.udp_dropped >= 3); /* the UDP Allocate, sent again meanwhile */
    assert_int_equal(node.stats.relay_fallbacks, 1);
    assert_true(peer_b()->peer.ice.relay_expected); /* the candidate is still coming */
    path.tcp = true;
    node_relay_stream_opened(&node, now);
    assert_true(run_until_connected(10000));
    assert_true(zq_addr_equal(&peer_b()->peer.path_local, &relayed));
    assert_int_equal(srv.allocates, 2);
}

/* RFC 8656 §3.1: an allocation over TCP lives as long as its connection. A stream that closes
 * ends it: the port is told to hold none, the peers stop waiting for the relayed candidate. */
static void a_closed_stream_ends_the_allocation_made_over_it(void **state)
{
    (void)state;
    allocate_over_tcp();
    assert_int_equal(node.relay.turn.state, TURN_ALLOCATED);
    node_relay_stream_closed(&node, now);
    zq_addr_t target;
    assert_false(node_relay_stream_target(&node, &target));
    assert_int_equal(node.stats.relay_stream_lost, 1);
    assert_int_equal(node.stats.relay_failed, 1);
    ice_servers("\"turn:203.0.113.1:3478?transport=tcp\""); /* the next join's: again */
    assert_true(node_relay_stream_target(&node, &target));
}

/* A network that lets only TLS out: the TCP server does not connect, so the room's turns:
 * server is next (its TLS session is tests/interop/nat's, against coturn); when that does not
 * connect either, the allocation has failed. */
static void a_tcp_server_that_does_not_connect_gives_way_to_the_rooms_turns_server(void **state)
{
    (void)state;
    static tls_client_config_t trust; /* never opened here: no session is started */
    node.cfg.turn_trust = &trust;
    ice_servers("\"turn:203.0.113.1:3478?transport=tcp\",\"turns:203.0.113.1:443?transport=tcp\"");
    zq_addr_t target;
    assert_true(node_relay_stream_target(&node, &target));
    assert_true(zq_addr_equal(&target, &server));
    node_relay_stream_closed(&node, now); /* the port's connect failed */
    assert_true(node_relay_stream_target(&node, &target));
    assert_true(zq_addr_equal(&target, &(zq_addr_t){.family = ZQ_AF_INET4, .port = 443,
                                                    .ip = {203, 0, 113, 1}}));
    assert_int_equal(node.relay.transport, NODE_RELAY_TLS);
    assert_int_equal(node.stats.relay_fallbacks, 1);
    assert_int_equal(node.stats.relay_failed, 0);
    node_relay_stream_closed(&node, now);
    assert_false(node_relay_stream_target(&node, &target));
    assert_int_equal(node.stats.relay_failed, 1);
}

/* A frame the stream cannot be followed past (neither STUN nor ChannelData: an HTTP answer
 * from a proxy, say) ends the stream there; nothing after it is read as TURN. */
static void bytes_that_are_no_turn_frame_end_the_stream(void **state)
{
    (void)state;
    allocate_over_tcp();
    static const char http[] = "HTTP/1.1 400 Bad Request\r\n\r\n";
    node_relay_stream_input(&node, now, (const uint8_t *)http, sizeof http - 1);
    zq_addr_t target;
    assert_false(node_relay_stream_target(&node, &target));
    assert_int_equal(node.stats.relay_stream_lost, 1);
}

/* RFC 8445 §2.5: a lite agent has host candidates only; a lite node allocates nothing. */
static void a_lite_node_ignores_the_turn_servers(void **state)
{
    (void)state;
    node.cfg.ice_lite = true;
    ice_servers("\"turn:203.0.113.1:3478\"");
    peer_transmit_t tx;
    assert_false(node_poll_transmit(&node, now, &tx));
}

/* An allocation that never comes ends the wait for a relayed candidate (RFC 8489 §6.2.1:
 * seven sends, then Rm x RTO), so ICE can declare its gathering done. */
static void an_unanswered_allocation_ends_the_wait_for_a_relayed_candidate(void **state)
{
    (void)state;
    ice_servers("\"turn:203.0.113.1:3478\"");
    node_frame("{\"type\":\"peer_joined\",\"peerId\":\"b\"}");
    peer_transmit_t tx;
    assert_true(node_poll_transmit(&node, now, &tx)); /* the Allocate: never answered */
    assert_true(peer_b()->peer.ice.relay_expected);
    for (int k = 0; k < 80 && node.stats.relay_failed == 0; k++) {
        now += 1000;
        node_handle_timeout(&node, now);
        while (node_poll_transmit(&node, now, &tx)) {
        }
    }
    assert_int_equal(node.stats.relay_failed, 1);
    assert_false(peer_b()->peer.ice.relay_expected);
}

/* A failed allocation is not the end of relaying: ZQ_NODE_TURN_RETRY_MS later the node
 * allocates again with the credential it has (the server back, a network mended), and the
 * peers wait for the relayed candidate again. */
static void a_failed_allocation_is_tried_again_after_the_retry_delay(void **state)
{
    (void)state;
    path.udp_blocked = true;
    ice_servers("\"turn:203.0.113.1:3478\"");
    uint64_t failed_at = 0;
    for (uint64_t end = now + 60000; now < end && node.stats.relay_retries == 0; now += 5) {
        node_handle_timeout(&node, now);
        flush();
        if (failed_at == 0 && node.stats.relay_failed == 1) {
            failed_at = now;
        }
    }
    assert_true(failed_at != 0);
    assert_int_equal(node.stats.relay_retries, 1);
    assert_true(now - failed_at >= ZQ_NODE_TURN_RETRY_MS);
    assert_true(now - failed_at <= ZQ_NODE_TURN_RETRY_MS + 10);
    path.udp_blocked = false; /* the server is reachable again: the next retransmission */
    for (uint64_t end = now + 2000; now < end && node.relay.turn.state != TURN_ALLOCATED;
         now += 5) {
        node_handle_timeout(&node, now);
        flush();
    }
    assert_int_equal(node.relay.turn.state, TURN_ALLOCATED);
    assert_int_equal(srv.allocates, 2);
}

/* A credential the server refuses (RFC 8489 §9.2: 401 to the signed request) is not tried
 * again: the next join brings another. */
static void a_refused_credential_waits_for_the_next_joins(void **state)
{
    (void)state;
    memset(key, 0, sizeof key); /* the server knows another password */
    ice_servers("\"turn:203.0.113.1:3478\"");
    flush();
    assert_int_equal(node.stats.relay_failed, 1);
    run_for(3 * ZQ_NODE_TURN_RETRY_MS);
    assert_int_equal(node.stats.relay_retries, 0);
    assert_int_equal(srv.allocates, 2);
    char line[NODE_DESCRIBE_MAX];
    node_event_t ev = {.type = NODE_EVENT_RELAY, .relay_transport = NODE_RELAY_UDP};
    assert_true(node_describe_relay(&node, &ev, line, sizeof line) > 0);
    assert_non_null(strstr(line, "TURN allocation over UDP failed: the server answered 401"));
}

/* zq signal's fresh credential for a member that stays joined (signal/router.h), while the
 * allocation is held: kept for the next allocation, never put on the held one, whose later
 * requests must carry the username that made it (RFC 8656 §5; the fake server's key is the
 * first credential's, and it refuses anything else signed). */
static void a_fresh_credential_waits_for_the_next_allocation_and_the_held_one_keeps_its_own(
    void **state)
{
    (void)state;
    ice_servers("\"turn:203.0.113.1:3478\"");
    flush();
    assert_int_equal(node.relay.turn.state, TURN_ALLOCATED);
    node_frame("{\"type\":\"ice_servers\",\"iceServers\":[{\"urls\":[\"turn:203.0.113.1:3478\"],"
               "\"username\":\"1900043200:me\",\"credential\":\"bmV3ZXI=\"}]}");
    assert_string_equal(node.relay.username, "1900043200:me");
    assert_string_equal(node.relay.turn.cfg.username, username);
    node_frame("{\"type\":\"peer_joined\",\"peerId\":\"b\"}");
    assert_true(run_until_connected(10000)); /* its permission and channel: the first's key */
    assert_int_equal(srv.allocates, 2);
    assert_int_equal(node.relay.turn.state, TURN_ALLOCATED);
}

/* A refused credential waits (above) for the room's next one: the join's, or the fresh one zq
 * signal sends a member that stays joined; with it the allocation is made. */
static void a_fresh_credential_after_a_refused_one_allocates(void **state)
{
    (void)state;
    memset(key, 0, sizeof key);
    ice_servers("\"turn:203.0.113.1:3478\"");
    flush();
    assert_int_equal(node.relay.turn.state, TURN_FAILED);
    make_key(); /* the server knows this credential */
    ice_servers("\"turn:203.0.113.1:3478\"");
    flush();
    assert_int_equal(node.relay.turn.state, TURN_ALLOCATED);
}

/* With no relay offered and no direct path, ICE gives up at its connect timeout (30 s) and
 * the event says what was tried: one host pair, which failed. */
static void with_no_relay_the_peer_fails_and_says_which_candidates_were_tried(void **state)
{
    (void)state;
    node_frame("{\"type\":\"peer_joined\",\"peerId\":\"b\"}");
    node_event_t ev = {0};
    for (uint64_t end = now + 40000; now < end && ev.type != NODE_EVENT_PEER_GONE; now += 5) {
        node_handle_timeout(&node, now);
        peer_handle_timeout(&remote, now);
        signalling();
        flush();
        while (ev.type != NODE_EVENT_PEER_GONE && node_poll_event(&node, &ev)) {
        }
    }
    assert_int_equal(ev.type, NODE_EVENT_PEER_GONE);
    /* The peer's own deadline (ZQ_PEER_CONNECT_TIMEOUT_MS, from the offer) comes before ICE's
     * (from its start): either way the tries are told. */
    assert_true(ev.failure == PEER_FAIL_ICE || ev.failure == PEER_FAIL_TIMEOUT);
    assert_int_equal(ev.tried.pairs, 1);
    assert_int_equal(ev.tried.pairs_valid, 0);
    assert_int_equal(ev.tried.local_types, 1u << ICE_CAND_HOST);
    assert_int_equal(ev.tried.remote_types, 1u << ICE_CAND_HOST);
    char line[NODE_DESCRIBE_MAX];
    assert_true(node_describe_event(&ev, line, sizeof line) > 0);
    assert_non_null(strstr(line, "; ICE tried 1 pair, 0 answered; our candidates host, theirs host"));
}

/* A stun: URL of the room (zq signal --stun-url) is where a node configured with no STUN
 * server sends each new peer's Binding request (RFC 8445 §5.1.1.2); the server's answer,
 * which names no ufrag and comes from no peer's address, finds the peer by its transaction
 * ID, and the mapped address becomes a server-reflexive candidate. */
static void a_stun_url_from_the_room_is_where_peers_learn_their_reflexive_address(void **state)
{
    (void)state;
    node_frame("{\"type\":\"ice_servers\",\"iceServers\":[{\"urls\":"
               "[\"stun:203.0.113.1:3478\"]}]}");
    node_frame("{\"type\":\"peer_joined\",\"peerId\":\"b\"}");
    peer_transmit_t tx;
    bool asked = false;
    for (int k = 0; k < 20 && !asked; k++, now += 5) {
        node_handle_timeout(&node, now);
        signalling(); /* the offerer's agent starts, and gathers, with the answer */
        while (node_poll_transmit(&node, now, &tx)) {
            stun_msg_t m;
            asked = zq_addr_equal(&tx.remote, &server) && stun_parse(&m, tx.data, tx.len) ==
                    ZQ_OK && m.type == STUN_BINDING_REQUEST;
            if (asked) { /* RFC 8489 §14.2: the reflexive address, XORed */
                uint8_t buf[128];
                stun_builder_t b;
                stun_build_start(&b, buf, sizeof buf, STUN_BINDING_SUCCESS, m.tid);
                stun_put_xor_address(&b, STUN_ATTR_XOR_MAPPED_ADDRESS, &mapped);
                size_t n = stun_build_finish(&b);
                assert_int_equal(node_handle_datagram(&node, now, &host, &server, buf, n), ZQ_OK);
                break;
            }
        }
    }
    assert_true(asked);
    assert_int_equal(srv.allocates, 0);
    assert_int_equal(node.stats.relay_urls_skipped, 0);
    const peer_t *b = &peer_b()->peer;
    bool srflx = false;
    for (size_t i = 0; i < ice_agent_local_candidate_count(&b->ice); i++) {
        const ice_candidate_t *c = ice_agent_local_candidate(&b->ice, i);
        srflx |= c->type == ICE_CAND_SRFLX && zq_addr_equal(&c->addr, &mapped);
    }
    assert_true(srflx);
}

/* The allocation, then b joins and the node dials it; run on until the controlling side's
 * nomination is done: ICE connected, consent checks running. */
static void connect_over_relay(void)
{
    ice_servers("\"turn:203.0.113.1:3478\"");
    flush();
    node_frame("{\"type\":\"peer_joined\",\"peerId\":\"b\"}");
    assert_true(run_until_connected(10000));
    run_for(1000);
}

/* What the node did while its network was cut (run_cut). */
typedef struct {
    uint64_t gone_at;          /* its peer's PEER_GONE, or 0 */
    peer_failure_t failure;    /* and why */
    uint64_t offered_at;       /* its first offer after that, or 0 */
} cut_run_t;

static sig_event_t cut_offer; /* that offer */

/* Cuts the node's network and runs it for up to @p ms, or until it offers again when
 * @p until_offer; the remote hears nothing. */
static cut_run_t run_cut(uint64_t ms, bool until_offer)
{
    cut_run_t r = {0};
    cut = true;
    for (uint64_t end = now + ms; now < end && !(until_offer && r.offered_at != 0); now += 5) {
        node_handle_timeout(&node, now);
        flush();
        node_event_t ev;
        while (node_poll_event(&node, &ev)) {
            if (ev.type == NODE_EVENT_PEER_GONE && r.gone_at == 0) {
                r.gone_at = now;
                r.failure = ev.failure;
            }
        }
        size_t len;
        while (r.offered_at == 0 && (len = node_poll_signal(&node, now, frame, sizeof frame)) > 0) {
            assert_int_equal(sig_parse_frame(frame, len, &cut_offer), ZQ_OK);
            if (cut_offer.type == SIG_EVENT_OFFER && r.gone_at != 0) {
                r.offered_at = now;
            }
        }
    }
    return r;
}

/* The node's network goes (a Wi-Fi that drops) under a connection it dialed: consent runs
 * out (RFC 7675 §5.1, 30 s), the peer is gone, and ZQ_NODE_REDIAL_MS later the node offers
 * to the member again, which is still in the room. */
static void a_connection_lost_on_the_network_is_dialed_again_after_the_redial_delay(void **state)
{
    (void)state;
    connect_over_relay();
    assert_int_equal(ice_agent_state(&peer_b()->peer.ice), ICE_STATE_CONNECTED);
    cut_run_t r = run_cut(40000, true);
    assert_true(r.gone_at != 0);
    assert_int_equal(r.failure, PEER_FAIL_CONSENT);
    assert_string_equal(cut_offer.peer, "b");
    assert_true(r.offered_at >= r.gone_at + ZQ_NODE_REDIAL_MS);
    assert_true(r.offered_at <= r.gone_at + ZQ_NODE_REDIAL_MS + 10);
    assert_int_equal(node.stats.redials, 1);
}

/* The side that answered does not redial: the dialer's new offer reconnects them, and two
 * offers crossing would be glare. */
static void the_side_that_answered_waits_for_the_dialers_new_offer(void **state)
{
    (void)state;
    connect_over_relay();
    node.peers[peer_b() - node.peers].dialing = false; /* as if b had dialed us */
    cut_run_t r = run_cut(40000, false);
    assert_true(r.gone_at != 0);
    assert_int_equal(r.offered_at, 0);
    assert_int_equal(node.stats.redials, 0);
}

/* A DHCP renewal: the node's connections and its allocation were made from the old address,
 * so each peer is gone and the allocation dropped; the next ice_servers frame (the rejoin's)
 * allocates again, from the new address. */
static void new_host_addresses_drop_the_peers_and_the_allocation_made_from_the_old(void **state)
{
    (void)state;
    ice_servers("\"turn:203.0.113.1:3478\"");
    flush();
    node_frame("{\"type\":\"peer_joined\",\"peerId\":\"b\"}");
    assert_true(run_until_connected(10000));
    zq_addr_t renewed = zq_addr_v4(192, 0, 2, 11, 5001);
    node_set_hosts(&node, now, &renewed, 1);
    node_event_t ev;
    bool gone = false;
    while (node_poll_event(&node, &ev)) {
        gone |= ev.type == NODE_EVENT_PEER_GONE;
    }
    assert_true(gone);
    assert_int_equal(node.relay.turn.state, TURN_IDLE);
    assert_true(zq_addr_equal(&node.cfg.hosts[0], &renewed));
    unsigned before = srv.allocates;
    ice_servers("\"turn:203.0.113.1:3478\"");
    peer_transmit_t tx;
    assert_true(node_poll_transmit(&node, now, &tx)); /* the new Allocate */
    assert_true(zq_addr_equal(&tx.local, &renewed));
    assert_true(zq_addr_equal(&tx.remote, &server));
    assert_int_equal(srv.allocates, before);
}

static size_t arena_in_use(void)
{
    dtls_arena_stats_t st;
    assert_int_equal(dtls_arena_stats(&st), ZQ_OK);
    return st.in_use;
}

static unsigned used(const bool *flag, size_t stride, size_t n)
{
    unsigned k = 0;
    for (size_t i = 0; i < n; i++) {
        k += *(const bool *)((const char *)flag + i * stride);
    }
    return k;
}

/* The field report this answers: a device that leaks a little on every reconnect (esp_peer's
 * and LiveKit's ESP32 SDK's users). 200 times (two hours of a flapping network): the network
 * goes, consent runs out, the node dials again, the peer (a fresh one each time, as a
 * restarted browser tab would be) answers, and the connection is back over the relay for
 * 10 s. Refreshes that fall in an outage go unanswered and are tried again (the allocation,
 * permission and channel outlive it); the scripted server unbinds a channel not refreshed in
 * 600 s, as RFC 8656 §12 says. After each cycle the node holds what it held after the first:
 * one peer, nobody waiting, one permission and one channel, the DTLS arena at the same bytes;
 * and no heap call was made. */
static void two_hundred_lost_networks_leave_no_heap_call_and_no_growth(void **state)
{
    (void)state;
    connect_over_relay();
    size_t baseline = arena_in_use();
    const turn_client_t *t = &node.relay.turn;
    heap_counting = true;
    for (int cycle = 0; cycle < 200; cycle++) {
        assert_true(run_cut(40000, true).offered_at != 0);
        cut = false;
        peer_free(&remote);
        remote_init();
        memcpy(offer_sdp, cut_offer.text, cut_offer.text_len + 1);
        remote_answers(cut_offer.text, cut_offer.text_len);
        assert_true(run_until_connected(10000));
        run_for(10000); /* up for 10 s: the refreshes due meanwhile are answered */
        assert_int_equal(arena_in_use(), baseline);
        assert_int_equal(node.n_waiting, 0);
        assert_int_equal(used(&node.peers[0].used, sizeof node.peers[0], ZQ_NODE_MAX_PEERS), 1);
        assert_int_equal(used(&t->perms[0].used, sizeof t->perms[0], ZQ_TURN_MAX_PERMISSIONS), 1);
        assert_int_equal(used(&t->channels[0].used, sizeof t->channels[0],
                              ZQ_TURN_MAX_CHANNELS),
                         1);
    }
    heap_counting = false;
    assert_int_equal(heap_calls, 0);
    assert_int_equal(node.stats.redials, 200);
    assert_int_equal(node.stats.relay_failed, 0); /* the allocation outlived every outage */
    print_message("    200 cycles: 0 heap calls, the DTLS arena back at %zu bytes after each\n",
                  baseline);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            a_node_with_no_direct_path_connects_through_its_turn_allocation, setup, teardown),
        cmocka_unit_test_setup_teardown(
            a_peer_that_joins_during_the_allocation_gets_the_relayed_candidate_trickled, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            turns_and_named_servers_are_skipped_and_a_tcp_only_server_waits_for_the_stream,
            setup, teardown),
        cmocka_unit_test_setup_teardown(
            a_node_connects_through_an_allocation_held_over_a_tcp_stream, setup, teardown),
        cmocka_unit_test_setup_teardown(
            an_unanswered_udp_allocation_gives_way_to_the_rooms_tcp_server, setup, teardown),
        cmocka_unit_test_setup_teardown(a_closed_stream_ends_the_allocation_made_over_it, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(bytes_that_are_no_turn_frame_end_the_stream, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            a_tcp_server_that_does_not_connect_gives_way_to_the_rooms_turns_server, setup,
            teardown),
        cmocka_unit_test_setup_teardown(a_lite_node_ignores_the_turn_servers, setup, teardown),
        cmocka_unit_test_setup_teardown(an_unanswered_allocation_ends_the_wait_for_a_relayed_candidate, setup, teardown),
        cmocka_unit_test_setup_teardown(a_failed_allocation_is_tried_again_after_the_retry_delay,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(a_refused_credential_waits_for_the_next_joins, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            a_fresh_credential_waits_for_the_next_allocation_and_the_held_one_keeps_its_own,
            setup, teardown),
        cmocka_unit_test_setup_teardown(a_fresh_credential_after_a_refused_one_allocates, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            with_no_relay_the_peer_fails_and_says_which_candidates_were_tried, setup, teardown),
        cmocka_unit_test_setup_teardown(
            a_stun_url_from_the_room_is_where_peers_learn_their_reflexive_address, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            a_connection_lost_on_the_network_is_dialed_again_after_the_redial_delay, setup,
            teardown),
        cmocka_unit_test_setup_teardown(the_side_that_answered_waits_for_the_dialers_new_offer,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(two_hundred_lost_networks_leave_no_heap_call_and_no_growth,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            new_host_addresses_drop_the_peers_and_the_allocation_made_from_the_old, setup,
            teardown),
    };
    return cmocka_run_group_tests(tests, dtls_fixture_group_setup, dtls_fixture_group_teardown);
}
