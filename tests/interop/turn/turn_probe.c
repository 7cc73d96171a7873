/* zq's TURN client (stack/turn) against a TURN server over UDP, with a peer of its own: the
 * allocation, a permission, data both ways through Send and Data indications, a channel, data
 * both ways as ChannelData, a refresh (the server's lifetime is short, its nonces shorter: a
 * 438 comes first), and the release.
 * tests/interop/turn/run.sh runs it against coturn.
 *
 *   turn_probe SERVER_IP:PORT USER PASSWORD PEER_IP [expect-failure CODE | no-refresh]
 *
 * no-refresh skips waiting for a refresh (a server with its default 600 s lifetime).
 * Prints what it did; exits 0 when every step happened as RFC 8656 says (or, with
 * expect-failure, when the allocation failed with CODE), 1 otherwise. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "port/zq_port.h"
#include "stack/turn/turn.h"

#define STEP_MS 10000

static turn_client_t turn;
static zq_socket_t client_sock, peer_sock;
static zq_addr_t server, peer_addr;

static int die(const char *what)
{
    (void)fprintf(stderr, "turn_probe: FAIL: %s (state %d, dropped %u)\n", what,
                  (int)turn.state, (unsigned)turn.dropped);
    return 1;
}

/* One turn of the loop: output to the server, input from it, timers. */
static void pump(void)
{
    uint64_t now = zq_port_now_ms();
    const uint8_t *out;
    size_t len;
    while (turn_client_poll_output(&turn, now, &out, &len)) {
        (void)zq_port_udp_send(client_sock, &server, out, len);
    }
    static uint8_t buf[2048];
    zq_addr_t from;
    (void)zq_port_tcp_wait(client_sock, false, now + 20);
    while (zq_port_udp_recv(client_sock, &from, buf, sizeof buf, &len) == ZQ_OK) {
        if (zq_addr_equal(&from, &server)) {
            turn_client_handle(&turn, zq_port_now_ms(), buf, len);
        }
    }
    (void)turn_client_timeout(&turn, zq_port_now_ms());
}

/* Runs until an event of @p type (its copy in @p ev), at most STEP_MS. Data events keep their
 * bytes in a static copy. */
static bool wait_event(turn_event_type_t type, turn_event_t *ev)
{
    static uint8_t data[2048];
    uint64_t end = zq_port_now_ms() + STEP_MS;
    while (zq_port_now_ms() < end) {
        pump();
        while (turn_client_poll_event(&turn, ev)) {
            if (ev->type == TURN_EVENT_DATA && ev->data_len <= sizeof data) {
                memcpy(data, ev->data, ev->data_len);
                ev->data = data;
            }
            if (ev->type == type) {
                return true;
            }
            if (ev->type == TURN_EVENT_FAILED || ev->type == TURN_EVENT_REFUSED) {
                *ev = (turn_event_t){.type = ev->type, .code = ev->code};
                return ev->type == type;
            }
        }
    }
    return false;
}

/* The peer receives @p text from the relayed address. */
static bool peer_gets(const char *text)
{
    uint8_t buf[512];
    size_t len;
    zq_addr_t from;
    uint64_t end = zq_port_now_ms() + STEP_MS;
    while (zq_port_now_ms() < end) {
        pump();
        if (zq_port_udp_recv(peer_sock, &from, buf, sizeof buf, &len) == ZQ_OK) {
            return zq_addr_equal(&from, &turn.relayed) && len == strlen(text) &&
                   memcmp(buf, text, len) == 0;
        }
    }
    return false;
}

static bool send_to_peer(const char *text)
{
    uint8_t wire[ZQ_TURN_DATAGRAM_MAX];
    size_t n = turn_client_wrap(&turn, &peer_addr, (const uint8_t *)text, strlen(text), wire,
                                sizeof wire);
    return n > 0 && zq_port_udp_send(client_sock, &server, wire, n) == ZQ_OK;
}

/* The peer sends @p text to the relayed address; the client hears it from the peer. */
static bool client_gets(const char *text)
{
    turn_event_t ev;
    if (zq_port_udp_send(peer_sock, &turn.relayed, (const uint8_t *)text, strlen(text)) != ZQ_OK ||
        !wait_event(TURN_EVENT_DATA, &ev)) {
        return false;
    }
    return zq_addr_equal(&ev.peer, &peer_addr) && ev.data_len == strlen(text) &&
           memcmp(ev.data, text, ev.data_len) == 0;
}

static int expect_failure(long code)
{
    turn_event_t ev;
    if (!wait_event(TURN_EVENT_FAILED, &ev) || ev.code != code) {
        return die("the allocation did not fail with the expected code");
    }
    (void)printf("turn_probe: allocation refused with %u, as expected\n", (unsigned)ev.code);
    return 0;
}

int main(int argc, char **argv)
{
    bool refresh = argc != 6 || strcmp(argv[5], "no-refresh") != 0;
    if (argc < 5 || argc > 7 || (argc == 6 && refresh) ||
        (argc == 7 && strcmp(argv[5], "expect-failure") != 0)) {
        (void)fprintf(stderr, "usage: turn_probe SERVER:PORT USER PASSWORD PEER_IP "
                              "[expect-failure CODE | no-refresh]\n");
        return 2;
    }
    zq_addr_t any_local = zq_addr_v4(127, 0, 0, 1, 0);
    if (zq_addr_parse(argv[1], strlen(argv[1]), &server) != ZQ_OK ||
        zq_addr_parse_ip(argv[4], strlen(argv[4]), &peer_addr) != ZQ_OK ||
        zq_port_udp_open(&client_sock, &any_local, NULL) != ZQ_OK ||
        zq_port_udp_open(&peer_sock, &peer_addr, &peer_addr) != ZQ_OK) {
        return die("addresses or sockets");
    }
    turn_config_t cfg = {.server = server, .rand = zq_port_rand()};
    (void)snprintf(cfg.username, sizeof cfg.username, "%s", argv[2]);
    (void)snprintf(cfg.password, sizeof cfg.password, "%s", argv[3]);
    if (turn_client_start(&turn, &cfg, zq_port_now_ms()) != ZQ_OK) {
        return die("start");
    }
    if (argc == 7) {
        return expect_failure(strtol(argv[6], NULL, 10));
    }
    turn_event_t ev;
    char relayed[ZQ_ADDR_TEXT_MAX];
    char mapped[ZQ_ADDR_TEXT_MAX];
    if (!wait_event(TURN_EVENT_ALLOCATED, &ev)) {
        return die("no allocation");
    }
    (void)zq_addr_format(&turn.relayed, relayed, sizeof relayed);
    (void)zq_addr_format(&turn.mapped, mapped, sizeof mapped);
    (void)printf("ok: allocated %s (mapped %s, lifetime %u s, after a 401 for the realm)\n",
                 relayed, mapped, (unsigned)turn.lifetime_s);
    if (turn_client_permit(&turn, zq_port_now_ms(), &peer_addr) != ZQ_OK ||
        !wait_event(TURN_EVENT_PERMISSION, &ev)) {
        return die("no permission");
    }
    (void)printf("ok: permission for the peer\n");
    if (!send_to_peer("via send indication") || !peer_gets("via send indication")) {
        return die("a Send indication did not reach the peer from the relayed address");
    }
    if (!client_gets("peer to client, data indication")) {
        return die("the peer's datagram did not come back as a Data indication");
    }
    (void)printf("ok: both ways through Send and Data indications\n");
    if (turn_client_bind(&turn, zq_port_now_ms(), &peer_addr) != ZQ_OK ||
        !wait_event(TURN_EVENT_CHANNEL, &ev)) {
        return die("no channel");
    }
    if (!send_to_peer("via channel") || !peer_gets("via channel") ||
        !client_gets("peer to client, channel data")) {
        return die("ChannelData did not carry both ways");
    }
    (void)printf("ok: channel 0x%04x, both ways as ChannelData\n", (unsigned)ev.channel);
    uint64_t end = zq_port_now_ms() + 3 * STEP_MS;
    while (refresh && turn.refreshes < 1 && zq_port_now_ms() < end && turn.state == TURN_ALLOCATED) {
        pump();
    }
    if ((refresh && turn.refreshes < 1) || !send_to_peer("after a refresh") ||
        !peer_gets("after a refresh")) {
        (void)fprintf(stderr, "turn_probe: %u refreshes, %u new nonces, lifetime now %u s\n",
                      (unsigned)turn.refreshes, (unsigned)turn.new_nonces,
                      (unsigned)turn.lifetime_s);
        return die("the allocation was not refreshed, or stopped relaying");
    }
    if (refresh) {
        (void)printf("ok: refreshed at half its lifetime (%u request(s) sent again after a 438 "
                     "stale nonce), lifetime now %u s, still relaying\n",
                     (unsigned)turn.new_nonces, (unsigned)turn.lifetime_s);
    }
    turn_client_release(&turn, zq_port_now_ms());
    end = zq_port_now_ms() + STEP_MS;
    while (turn.state == TURN_RELEASING && zq_port_now_ms() < end) {
        pump();
    }
    if (turn.state != TURN_IDLE) {
        return die("the release was not answered");
    }
    (void)printf("ok: released (Refresh with LIFETIME 0 answered)\n");
    return 0;
}
