/* A zq ICE agent on a real UDP socket, driven by a test script over stdin/stdout, so that ICE
 * implementations nobody here wrote (aioice) can be tested against it.
 *
 *   ice_peer --mode lite|full --role controlling|controlled [--bind 127.0.0.1] [--linger MS]
 *            [--timeout MS]
 *
 * It prints its own credentials and candidates:
 *     ufrag <ufrag>
 *     pwd <pwd>
 *     candidate <candidate-attribute>
 *     ready
 * then reads the peer's the same way, ended by a line "end" (a peer may send no candidates),
 * starts, and prints "selected <local> <remote>" when a pair is selected. It keeps answering
 * checks for --linger ms (so the peer finishes its nomination), prints "stats ..." and exits 0;
 * on failure or timeout it prints "failed <why>" and exits 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "port/posix/loop.h"
#include "port/zq_port.h"
#include "stack/ice/ice.h"

typedef struct {
    ice_agent_t agent;
    zq_loop_t *loop;
    bool selected;
    bool ended;
    uint64_t selected_at;
    unsigned linger_ms;
} peer_t;

static void on_datagram(void *obj, uint64_t now, const zq_addr_t *local, const zq_addr_t *remote,
                        const uint8_t *data, size_t len)
{
    peer_t *p = obj;
    (void)ice_agent_handle_datagram(&p->agent, now, local, remote, data, len);
}

static void on_timeout(void *obj, uint64_t now)
{
    peer_t *p = obj;
    ice_agent_handle_timeout(&p->agent, now);
    if (p->selected && now >= p->selected_at + p->linger_ms) {
        zq_loop_stop(p->loop);
    }
}

static uint64_t next_timeout(void *obj)
{
    peer_t *p = obj;
    uint64_t t = ice_agent_next_timeout(&p->agent);
    return p->selected ? zq_time_min(t, p->selected_at + p->linger_ms) : t;
}

static bool poll_transmit(void *obj, zq_addr_t *local, zq_addr_t *remote, const uint8_t **data,
                          size_t *len)
{
    peer_t *p = obj;
    ice_transmit_t tx;
    if (!ice_agent_poll_transmit(&p->agent, &tx)) {
        return false;
    }
    *local = tx.local;
    *remote = tx.remote;
    *data = tx.data;
    *len = tx.len;
    return true;
}

static void after_io(void *obj, uint64_t now)
{
    peer_t *p = obj;
    ice_event_t ev;
    while (ice_agent_poll_event(&p->agent, &ev)) {
        char l[ZQ_ADDR_TEXT_MAX];
        char r[ZQ_ADDR_TEXT_MAX];
        switch (ev.type) {
        case ICE_EVENT_SELECTED_PAIR:
            zq_addr_format(&ev.local, l, sizeof l);
            zq_addr_format(&ev.remote, r, sizeof r);
            printf("selected %s %s\n", l, r);
            fflush(stdout);
            if (!p->selected) {
                p->selected = true;
                p->selected_at = now;
            }
            break;
        case ICE_EVENT_FAILED:
        case ICE_EVENT_DISCONNECTED:
            printf("failed %s\n", ev.type == ICE_EVENT_FAILED ? "ice-failed" : "consent-lost");
            fflush(stdout);
            p->ended = true;
            zq_loop_stop(p->loop);
            break;
        default:
            break;
        }
    }
}

static const zq_driver_t peer_driver = {on_datagram, on_timeout, next_timeout, poll_transmit,
                                        after_io};

static void print_local(const ice_agent_t *a)
{
    const ice_credentials_t *c = ice_agent_local_credentials(a);
    printf("ufrag %s\npwd %s\n", c->ufrag, c->pwd);
    for (size_t i = 0; i < ice_agent_local_candidate_count(a); i++) {
        char line[ICE_CANDIDATE_TEXT_MAX];
        ice_candidate_format(ice_agent_local_candidate(a, i), line, sizeof line);
        printf("%s\n", line);
    }
    printf("ready\n");
    fflush(stdout);
}

/* Reads "ufrag", "pwd" and "candidate" lines until "end". */
static int read_remote(ice_agent_t *a, uint64_t now)
{
    char line[512];
    char ufrag[ZQ_ICE_UFRAG_MAX + 1] = "";
    while (fgets(line, sizeof line, stdin) != NULL) {
        line[strcspn(line, "\r\n")] = '\0';
        if (strcmp(line, "end") == 0) {
            return 0;
        }
        if (strncmp(line, "ufrag ", 6) == 0) {
            if (strlen(line + 6) >= sizeof ufrag) {
                fprintf(stderr, "ice_peer: ufrag too long\n");
                return -1;
            }
            memcpy(ufrag, line + 6, strlen(line + 6) + 1);
        } else if (strncmp(line, "pwd ", 4) == 0) {
            const char *pwd = line + 4;
            if (ice_agent_set_remote_credentials(a, ufrag, strlen(ufrag), pwd, strlen(pwd)) !=
                ZQ_OK) {
                fprintf(stderr, "ice_peer: bad remote credentials\n");
                return -1;
            }
        } else if (strncmp(line, "candidate", 9) == 0) {
            zq_err_t err = ice_agent_add_remote_candidate_line(a, now, line, strlen(line));
            if (err != ZQ_OK) {
                fprintf(stderr, "ice_peer: candidate '%s': %s\n", line, zq_strerror(err));
                return -1;
            }
        }
    }
    return -1;
}

static const char *arg_value(int argc, char **argv, const char *name, const char *fallback)
{
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], name) == 0) {
            return argv[i + 1];
        }
    }
    return fallback;
}

int main(int argc, char **argv)
{
    static zq_loop_t loop;
    static peer_t peer;
    ice_config_t cfg;
    bool full = strcmp(arg_value(argc, argv, "--mode", "lite"), "full") == 0;
    bool controlling = strcmp(arg_value(argc, argv, "--role", "controlled"), "controlling") == 0;
    const char *bind_ip = arg_value(argc, argv, "--bind", "127.0.0.1");
    peer.linger_ms = (unsigned)atoi(arg_value(argc, argv, "--linger", "2000"));
    unsigned timeout_ms = (unsigned)atoi(arg_value(argc, argv, "--timeout", "20000"));

    zq_port_init();
    ice_config_default(&cfg, full ? ICE_MODE_FULL : ICE_MODE_LITE);
    cfg.role = controlling ? ICE_ROLE_CONTROLLING : ICE_ROLE_CONTROLLED;
    cfg.rand = zq_port_rand();
    zq_addr_t want;
    zq_socket_t sock;
    zq_addr_t bound;
    if (zq_addr_parse_ip(bind_ip, strlen(bind_ip), &want) != ZQ_OK ||
        zq_port_udp_open(&sock, &want, &bound) != ZQ_OK ||
        ice_agent_init(&peer.agent, &cfg) != ZQ_OK) {
        printf("failed setup\n");
        return 1;
    }
    uint64_t now = zq_port_now_ms();
    ice_agent_add_host_candidate(&peer.agent, now, &bound);
    print_local(&peer.agent);
    if (read_remote(&peer.agent, zq_port_now_ms()) != 0) {
        printf("failed signalling\n");
        return 1;
    }
    ice_agent_remote_gathering_done(&peer.agent);
    ice_agent_start(&peer.agent, zq_port_now_ms());

    size_t id;
    peer.loop = &loop;
    zq_loop_init(&loop);
    zq_loop_add_driver(&loop, &peer_driver, &peer, &id);
    zq_loop_add_socket(&loop, id, sock, &bound);
    zq_err_t err = zq_loop_run(&loop, zq_port_now_ms() + timeout_ms);
    const ice_stats_t *st = ice_agent_stats(&peer.agent);
    printf("stats rx=%u checks=%u retransmits=%u prflx=%u 400=%u 401=%u 420=%u 487=%u role=%s\n",
           st->rx_datagrams, st->checks_sent, st->retransmits, st->prflx_learned,
           st->tx_bad_request, st->tx_unauthorized, st->tx_unknown_attr, st->tx_role_conflict,
           ice_agent_role(&peer.agent) == ICE_ROLE_CONTROLLING ? "controlling" : "controlled");
    if (err == ZQ_ERR_TIMEOUT && !peer.selected) {
        printf("failed timeout\n");
    }
    zq_port_udp_close(sock);
    return peer.selected && !peer.ended ? 0 : 1;
}
