/* TURN over TCP and TLS for a node's allocation (RFC 8656 §3.1): what UDP would carry, on a
 * stream the port holds. Over TCP the frames go as they are, each with its own length
 * (stack/turn/turn_stream.c); over TLS (turns:) they go inside a TLS session the node runs
 * itself (stack/tls), so a port moves bytes and knows neither TURN nor TLS. */
#include <stdio.h>
#include <string.h>

#include "node/node_relay.h"

#if ZQ_NODE_TURN && ZQ_NODE_TURN_STREAM

static bool over_tls(const node_t *n)
{
    return n->relay.transport == NODE_RELAY_TLS;
}

/* Frames can go: the connection is up, and over TLS its handshake done. */
static bool ready(const node_t *n)
{
    return n->relay.stream_open && (!over_tls(n) || n->relay.tls_up);
}

static size_t room(const node_t *n)
{
    return sizeof n->relay.stream_out - n->relay.stream_out_len;
}

bool node_relay_stream_can(const node_t *n, node_relay_transport_t t)
{
    return t == NODE_RELAY_TCP || (t == NODE_RELAY_TLS && n->cfg.turn_trust != NULL);
}

void node_relay_stream_reset(node_t *n)
{
    n->relay.stream_open = false;
    n->relay.tls_up = false;
    n->relay.stream_out_len = 0;
    turn_stream_reset(&n->relay.stream_in);
    tls_session_free(&n->relay.tls);
}

bool node_relay_stream_target(const node_t *n, zq_addr_t *server)
{
    turn_state_t st = n->relay.turn.state;
    if (n->relay.transport == NODE_RELAY_UDP || st == TURN_IDLE || st == TURN_FAILED) {
        return false;
    }
    *server = n->relay.turn.cfg.server;
    return true;
}

/* RFC 8656 §3.1: the allocation lives as long as its connection. One that never opened gives
 * way to the room's next server (TLS after TCP: a network that lets only TLS out). */
static void lost(node_t *n, uint64_t now, const char *why)
{
    bool never_opened = !n->relay.stream_open;
    n->stats.relay_stream_lost++;
    node_relay_stream_reset(n);
    if (never_opened && n->relay.offered != 0) {
        n->stats.relay_fallbacks++;
        if (node_relay_start_next(n, now)) {
            node_relay_sync_deadline(n, now);
            return;
        }
    }
    node_relay_failed(n, now, why, true);
}

/* Over TLS: the frames waiting in stream_out, encrypted as far as the session takes them. */
static void encrypt(node_t *n, uint64_t now)
{
    while (over_tls(n) && n->relay.tls_up && n->relay.stream_out_len > 0) {
        size_t taken = 0;
        zq_err_t err = tls_session_write(&n->relay.tls, n->relay.stream_out,
                                         n->relay.stream_out_len, &taken);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            return; /* the port takes the ciphertext first */
        }
        if (err != ZQ_OK) {
            lost(n, now, "the TLS session failed");
            return;
        }
        memmove(n->relay.stream_out, n->relay.stream_out + taken,
                n->relay.stream_out_len - taken);
        n->relay.stream_out_len -= taken;
    }
}

void node_relay_stream_fill(node_t *n, uint64_t now)
{
    const uint8_t *data;
    size_t len;
    while (ready(n) && room(n) >= ZQ_TURN_DATAGRAM_MAX &&
           turn_client_poll_output(&n->relay.turn, now, &data, &len)) {
        memcpy(n->relay.stream_out + n->relay.stream_out_len, data, len);
        n->relay.stream_out_len += len;
    }
    encrypt(n, now);
    node_relay_sync_deadline(n, now);
}

uint8_t *node_relay_stream_space(node_t *n, size_t *cap)
{
    *cap = ready(n) ? room(n) : 0;
    return n->relay.stream_out + n->relay.stream_out_len;
}

void node_relay_stream_wrote(node_t *n, uint64_t now, size_t len)
{
    n->relay.stream_out_len += len;
    encrypt(n, now);
}

void node_relay_stream_opened(node_t *n, uint64_t now)
{
    zq_addr_t server;
    if (!node_relay_stream_target(n, &server) || n->relay.stream_open) {
        return;
    }
    n->relay.stream_open = true;
    if (over_tls(n)) {
        /* The certificate must name the URL's IP (RFC 6125 §6; tls_client.h): no SNI. */
        char ip[ZQ_ADDR_TEXT_MAX];
        zq_addr_format_ip(&server, ip, sizeof ip);
        const char *why = "";
        if (tls_client_start(&n->relay.tls, n->cfg.turn_trust, ip) != ZQ_OK ||
            tls_session_handshake(&n->relay.tls, &why) != ZQ_ERR_WOULD_BLOCK) {
            lost(n, now, "no TLS session");
        }
        return; /* the ClientHello waits in the output */
    }
    node_relay_stream_fill(n, now);
}

void node_relay_stream_closed(node_t *n, uint64_t now)
{
    zq_addr_t server;
    if (node_relay_stream_target(n, &server)) {
        lost(n, now, n->relay.stream_open ? "the server closed the stream"
                                          : "no connection to the server");
    }
}

/* Plaintext from the server: each whole frame to the allocation. */
static bool frames_in(node_t *n, uint64_t now, const uint8_t *data, size_t len)
{
    zq_addr_t server;
    while (len > 0 && node_relay_stream_target(n, &server)) {
        size_t took = turn_stream_feed(&n->relay.stream_in, data, len);
        data += took;
        len -= took;
        const uint8_t *frame;
        size_t frame_len;
        zq_err_t err;
        while ((err = turn_stream_next(&n->relay.stream_in, &frame, &frame_len)) == ZQ_OK) {
            turn_client_handle(&n->relay.turn, now, frame, frame_len);
            node_relay_pump(n, now); /* a Data event borrows the frame: handed on first */
            turn_stream_pop(&n->relay.stream_in, frame_len);
        }
        if (err != ZQ_ERR_WOULD_BLOCK) {
            lost(n, now, "a frame that cannot be followed; closing the stream");
            return false;
        }
    }
    return true;
}

/* The handshake advanced by what was fed; once done, the allocation's requests start. */
static bool handshake(node_t *n, uint64_t now)
{
    const char *why = "";
    zq_err_t err = tls_session_handshake(&n->relay.tls, &why);
    if (err == ZQ_OK) {
        n->relay.tls_up = true;
        node_relay_stream_fill(n, now);
    } else if (err != ZQ_ERR_WOULD_BLOCK) {
        char line[NODE_RELAY_WHY_MAX];
        (void)snprintf(line, sizeof line, "TLS handshake failed: %s", why);
        lost(n, now, line);
        return false;
    }
    return true;
}

/* Ciphertext in: the handshake, or records decrypted into frames, until all of it is in. */
static void tls_in(node_t *n, uint64_t now, const uint8_t *data, size_t len)
{
    zq_addr_t server;
    while (node_relay_stream_target(n, &server)) {
        size_t took = tls_session_feed(&n->relay.tls, data, len);
        data += took;
        len -= took;
        if (!n->relay.tls_up && !handshake(n, now)) {
            return;
        }
        uint8_t plain[256];
        size_t got;
        zq_err_t err;
        while (n->relay.tls_up &&
               (err = tls_session_read(&n->relay.tls, plain, sizeof plain, &got)) == ZQ_OK) {
            if (!frames_in(n, now, plain, got)) {
                return;
            }
        }
        if (n->relay.tls_up && err != ZQ_ERR_WOULD_BLOCK) {
            lost(n, now, err == ZQ_ERR_CLOSED ? "the server ended the TLS session"
                                              : "a TLS record that does not decrypt");
            return;
        }
        if (len == 0) {
            return;
        }
    }
}

void node_relay_stream_input(node_t *n, uint64_t now, const uint8_t *data, size_t len)
{
    zq_addr_t server;
    if (!node_relay_stream_target(n, &server) || !n->relay.stream_open) {
        return;
    }
    if (over_tls(n)) {
        tls_in(n, now, data, len);
    } else {
        (void)frames_in(n, now, data, len);
    }
}

bool node_relay_stream_output(const node_t *n, const uint8_t **data, size_t *len)
{
    if (over_tls(n)) {
        return n->relay.stream_open && tls_session_output(&n->relay.tls, data, len);
    }
    if (n->relay.stream_out_len == 0) {
        return false;
    }
    *data = n->relay.stream_out;
    *len = n->relay.stream_out_len;
    return true;
}

void node_relay_stream_sent(node_t *n, uint64_t now, size_t len)
{
    if (over_tls(n)) {
        tls_session_output_consumed(&n->relay.tls, len);
        encrypt(n, now); /* room freed: what waited for it */
        return;
    }
    size_t sent = len < n->relay.stream_out_len ? len : n->relay.stream_out_len;
    memmove(n->relay.stream_out, n->relay.stream_out + sent, n->relay.stream_out_len - sent);
    n->relay.stream_out_len -= sent;
}

#else /* no stream: every TURN server is reached over UDP */

bool node_relay_stream_can(const node_t *n, node_relay_transport_t t)
{
    (void)n, (void)t;
    return false;
}

void node_relay_stream_reset(node_t *n)
{
    (void)n;
}

void node_relay_stream_fill(node_t *n, uint64_t now)
{
    (void)n, (void)now;
}

uint8_t *node_relay_stream_space(node_t *n, size_t *cap)
{
    (void)n;
    *cap = 0;
    return NULL;
}

void node_relay_stream_wrote(node_t *n, uint64_t now, size_t len)
{
    (void)n, (void)now, (void)len;
}

bool node_relay_stream_target(const node_t *n, zq_addr_t *server)
{
    (void)n, (void)server;
    return false;
}

void node_relay_stream_opened(node_t *n, uint64_t now)
{
    (void)n, (void)now;
}

void node_relay_stream_closed(node_t *n, uint64_t now)
{
    (void)n, (void)now;
}

void node_relay_stream_input(node_t *n, uint64_t now, const uint8_t *data, size_t len)
{
    (void)n, (void)now, (void)data, (void)len;
}

bool node_relay_stream_output(const node_t *n, const uint8_t **data, size_t *len)
{
    (void)n, (void)data, (void)len;
    return false;
}

void node_relay_stream_sent(node_t *n, uint64_t now, size_t len)
{
    (void)n, (void)now, (void)len;
}

#endif
