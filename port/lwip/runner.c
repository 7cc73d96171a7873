/* The lwIP board's main loop (see runner.h): host/host.h over the port's UDP socket and the
 * signalling WebSocket (port/ws/ws_device.h), polled, with a sleep when nothing came. */
#include "port/lwip/runner.h"

#include <string.h>

#include "port/address/follow.h"
#include "port/lwip/zq_lwip.h"
#include "zq/time.h"

/* Datagrams read per turn before the signalling socket and the timers get theirs. */
#define RX_BURST 16
#define DEFAULT_SIGNAL_TIMEOUT_MS 5000u
/* How often the loop looks at the interface's address (a DHCP renewal may change it). */
#define ADDRESS_CHECK_MS 500u
/* The TCP connect to a TURN server, at most (a dropped SYN: the node tries its next server). */
#define RELAY_CONNECT_MS 3000u

/* ---- The host's callbacks: the application's, with the console's lines ------------------- */

static void log_arena(void)
{
    zq_arena_stats_t st;
    zq_lwip_mbedtls_arena_stats(&st);
    zq_lwip_printf("zq: arena %u in use, peak %u of %u, %u refused", (unsigned)st.in_use,
                   (unsigned)st.peak, (unsigned)st.capacity, (unsigned)st.failures);
}

static void log_node_event(zq_lwip_runner_t *r, uint64_t now, const node_event_t *ev)
{
    char line[NODE_DESCRIBE_MAX];
    if (ev->type == NODE_EVENT_WELCOME) {
        zq_lwip_printf("zq: joined room '%s' as %s, %lu ms after start", r->room, r->node.my_id,
                       (unsigned long)(now - r->started_ms));
        /* The baseline: the identity (and over wss:// the TLS session), nothing of a peer;
         * after a reconnect, the same unless a peer stayed. */
        log_arena();
    } else if (ev->type == NODE_EVENT_PEER_CONNECTED) {
        (void)node_describe_event(ev, line, sizeof line);
        zq_lwip_printf("zq: peer %s %s", node_peer_id(&r->node, ev->peer), line);
        log_arena();
    } else if (ev->type == NODE_EVENT_RELAY) {
        (void)node_describe_relay(&r->node, ev, line, sizeof line);
        zq_lwip_printf("zq: %s", line);
        log_arena();
    } else if (ev->type == NODE_EVENT_PEER_REFUSED) {
        zq_lwip_printf("zq: a member waits: all %d peer slots are taken (ZQ_NODE_MAX_PEERS)",
                       ZQ_NODE_MAX_PEERS);
    } else if (ev->type == NODE_EVENT_PEER_GONE) {
        (void)node_describe_event(ev, line, sizeof line);
        zq_lwip_printf("zq: peer %s %s", node_peer_id(&r->node, ev->peer), line);
        /* Its DTLS session is freed once its last datagrams went out (node_poll_transmit):
         * the arena is reported at the end of this turn, after the outputs. */
        r->arena_report_due = true;
    }
}

static void on_node_event(void *ctx, uint64_t now, const node_event_t *ev)
{
    zq_lwip_runner_t *r = ctx;
    log_node_event(r, now, ev);
    if (r->cb.host.on_node_event != NULL) {
        r->cb.host.on_node_event(r->ctx, now, ev);
    }
}

static void on_event(void *ctx, uint64_t now, const brk_event_t *ev)
{
    zq_lwip_runner_t *r = ctx;
    if (r->cb.host.on_event != NULL) {
        r->cb.host.on_event(r->ctx, now, ev);
    }
}

static void on_read(void *ctx, uint64_t now)
{
    zq_lwip_runner_t *r = ctx;
    if (r->cb.host.on_read != NULL) {
        r->cb.host.on_read(r->ctx, now);
    }
}

static void on_idle(void *ctx, uint64_t now)
{
    zq_lwip_runner_t *r = ctx;
    if (r->cb.host.on_idle != NULL) {
        r->cb.host.on_idle(r->ctx, now);
    }
}

static uint64_t next_timeout(void *ctx)
{
    zq_lwip_runner_t *r = ctx;
    return r->cb.host.next_timeout != NULL ? r->cb.host.next_timeout(r->ctx) : ZQ_TIME_NEVER;
}

static const zq_host_callbacks_t host_callbacks = {
    .on_node_event = on_node_event,
    .on_event = on_event,
    .on_read = on_read,
    .on_idle = on_idle,
    .next_timeout = next_timeout,
};

/* ---- Signalling ---------------------------------------------------------------------------- */

static void on_text(void *ctx, uint64_t now, const char *text, size_t len)
{
    zq_lwip_runner_t *r = ctx;
    zq_host_handle_signal(&r->host, now, text, len);
}

/* The trust store wss:// checks the server against; NULL for ws://. */
static tls_client_config_t *trust_of(zq_lwip_runner_t *r)
{
#if defined(ZQ_MBEDTLS_TLS)
    return r->url.secure ? &r->trust : NULL;
#else
    (void)r;
    return NULL;
#endif
}

static void connect_signal(zq_lwip_runner_t *r)
{
    const char *why = "";
    if (zq_device_ws_open(&r->ws, &r->url, &r->server, trust_of(r), r->signal_timeout_ms,
                          &why) == ZQ_OK) {
        zq_lwip_printf("zq: signalling connected to %s:%u, joining '%s'", r->url.host,
                       (unsigned)r->url.port, r->room);
        zq_host_signal_opened(&r->host, zq_port_now_ms());
        return;
    }
    uint32_t wait = zq_host_signal_down(&r->host, zq_port_now_ms()); /* opening waited */
    zq_lwip_printf("zq: cannot reach %s:%u: %s; next try in %u ms", r->url.host,
                   (unsigned)r->url.port, why, (unsigned)wait);
}

static void service_signal(zq_lwip_runner_t *r, uint64_t now)
{
    uint16_t code = 0;
    if (r->ws.open &&
        zq_device_ws_service(&r->ws, now, true, on_text, r, &code) == ZQ_ERR_CLOSED) {
        uint32_t wait = zq_host_signal_down(&r->host, now);
        zq_lwip_printf("zq: signalling closed (%u); reconnecting in %u ms", (unsigned)code,
                       (unsigned)wait);
    }
}

/* ---- Outputs ------------------------------------------------------------------------------- */

static void flush_signal(zq_lwip_runner_t *r, uint64_t now)
{
    const char *frame;
    size_t len;
    while (r->ws.open && zq_host_poll_signal(&r->host, now, &frame, &len)) {
        zq_err_t err = zq_device_ws_send_text(&r->ws, frame, len);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            return;
        }
        if (err != ZQ_OK) {
            zq_lwip_printf("zq: signalling frame of %u bytes not sent: %s", (unsigned)len,
                           zq_strerror(err));
        }
        zq_host_signal_sent(&r->host);
    }
}

static void send_outputs(zq_lwip_runner_t *r, uint64_t now)
{
    peer_transmit_t tx;
    while (zq_host_poll_transmit(&r->host, now, &tx)) {
        /* No buffer for it: dropped, as a full network would; ICE, DTLS and SCTP retransmit. */
        (void)zq_port_udp_send(r->udp, &tx.remote, tx.data, tx.len);
    }
    flush_signal(r, now);
}

/* ---- The board's address ------------------------------------------------------------------- */

/* A new address (a DHCP renewal, another network): port/address/follow.h moves the UDP socket
 * and rejoins; this says so. */
static void watch_address(zq_lwip_runner_t *r, uint64_t now)
{
    if (now < r->next_address_check) {
        return;
    }
    r->next_address_check = now + ADDRESS_CHECK_MS;
    zq_addr_t was;
    zq_address_follow_t moved =
        zq_address_follow(&r->udp, &r->local, &was, &r->ws, &r->host, now);
    if (moved == ZQ_ADDRESS_SAME) {
        return;
    }
    char from[ZQ_ADDR_TEXT_MAX];
    char to[ZQ_ADDR_TEXT_MAX];
    (void)zq_addr_format(&was, from, sizeof from);
    if (moved == ZQ_ADDRESS_NO_SOCKET) {
        zq_lwip_printf("zq: address changed from %s, and no UDP socket on the new one yet", from);
        return;
    }
    (void)zq_addr_format(&r->local, to, sizeof to);
    zq_lwip_printf("zq: address changed from %s to %s; rejoining", from, to);
}

/* ---- Inputs -------------------------------------------------------------------------------- */

static bool read_udp(zq_lwip_runner_t *r)
{
    bool any = false;
    for (int i = 0; i < RX_BURST; i++) {
        zq_addr_t from;
        size_t len = 0;
        zq_err_t err = zq_port_udp_recv(r->udp, &from, r->rx, sizeof r->rx, &len);
        if (err == ZQ_ERR_NO_SPACE) {
            continue; /* longer than any datagram zq accepts: dropped */
        }
        if (err != ZQ_OK) {
            break;
        }
        any = true;
        uint64_t now = zq_port_now_ms();
        zq_host_handle_datagram(&r->host, now, &r->local, &from, r->rx, len);
        send_outputs(r, now);
    }
    return any;
}

bool zq_lwip_runner_turn(zq_lwip_runner_t *r)
{
    bool any = zq_lwip_board_service();
    watch_address(r, zq_port_now_ms());
    any = read_udp(r) || any;
    any = zq_relay_link_service(&r->relay, &r->host, zq_port_now_ms(), RELAY_CONNECT_MS) || any;
    uint64_t now = zq_port_now_ms();
    service_signal(r, now);
    send_outputs(r, now);
    if (zq_host_signal_due(&r->host, now)) {
        connect_signal(r);
        now = zq_port_now_ms(); /* opening waited */
    }
    if (zq_host_next_timeout(&r->host) <= now) {
        zq_host_handle_timeout(&r->host, now); /* on_idle runs here at the app's deadline */
        send_outputs(r, now);
    }
    if (r->arena_report_due) {
        r->arena_report_due = false;
        log_arena();
    }
    return any;
}

void zq_lwip_runner_run(zq_lwip_runner_t *r)
{
    for (;;) {
        if (!zq_lwip_runner_turn(r)) {
            zq_lwip_board_idle(); /* until the next tick: a frame waits at most 1 ms */
        }
    }
}

/* ---- Start-up ------------------------------------------------------------------------------- */

static zq_err_t start_dtls(zq_lwip_runner_t *r)
{
    /* No flash store on this port: a new identity (key and certificate) at every boot, so the
     * fingerprint changes with each one (port/esp32 keeps its in NVS). */
    zq_err_t err = dtls_identity_generate(&r->identity, &r->rand);
    if (err != ZQ_OK) {
        return err;
    }
    dtls_config_t cfg;
    dtls_config_default(&cfg);
    cfg.rand = r->rand;
    return dtls_context_init(&r->dtls, &cfg, &r->identity);
}

static zq_err_t start_node(zq_lwip_runner_t *r, const zq_lwip_options_t *opt)
{
    node_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    memcpy(cfg.room, r->room, sizeof cfg.room);
    cfg.rand = r->rand;
    cfg.dtls = &r->dtls;
    cfg.hosts[0] = r->local;
    cfg.n_hosts = 1;
#if ZQ_NODE_TURN && ZQ_NODE_TURN_STREAM
    cfg.turn_trust = trust_of(r); /* turns: is checked as wss:// is; without one, skipped */
#endif
    zq_err_t err = node_init(&r->node, &cfg);
    if (err == ZQ_OK && opt->broker) {
        brk_config_t bcfg;
        brk_config_default(&bcfg);
        bcfg.rand = r->rand;
        err = brk_init(&r->brk, &r->node, &bcfg);
        r->with_broker = err == ZQ_OK;
    }
    if (err == ZQ_OK) {
        zq_host_config_t hcfg;
        zq_host_config_default(&hcfg);
        hcfg.rand = r->rand;
        if (opt->reconnect_max_ms != 0) {
            hcfg.reconnect_max_ms = opt->reconnect_max_ms;
        }
        zq_host_init(&r->host, &r->node, r->with_broker ? &r->brk : NULL, &hcfg, &host_callbacks,
                     r);
    }
    return err;
}

static zq_err_t open_udp(zq_lwip_runner_t *r, uint16_t port)
{
    if (zq_port_host_addresses(&r->local, 1, false) == 0) {
        zq_lwip_printf("zq: no interface has an IPv4 address");
        return ZQ_ERR_STATE;
    }
    r->local.port = port;
    zq_addr_t bound;
    zq_err_t err = zq_port_udp_open(&r->udp, &r->local, &bound);
    if (err == ZQ_OK) {
        r->local = bound;
    }
    return err;
}

static zq_err_t parse_options(zq_lwip_runner_t *r, const zq_lwip_options_t *opt)
{
    const char *why = "";
    size_t room = opt->room != NULL ? strlen(opt->room) : 0;
    if (room == 0 || room > ZQ_SIG_ROOM_MAX) {
        zq_lwip_printf("zq: the room wants 1 to %d characters", ZQ_SIG_ROOM_MAX);
        return ZQ_ERR_INVALID_ARG;
    }
    memcpy(r->room, opt->room, room + 1);
    if (opt->signal_url == NULL || zq_device_url_parse(opt->signal_url, &r->url, &why) != ZQ_OK) {
        zq_lwip_printf("zq: signalling URL '%s': %s", opt->signal_url ? opt->signal_url : "", why);
        return ZQ_ERR_INVALID_ARG;
    }
    /* No resolver on this port: the URL names the server by its address. */
    if (zq_addr_parse_ip(r->url.host, strlen(r->url.host), &r->server) != ZQ_OK ||
        r->server.family != ZQ_AF_INET4) {
        zq_lwip_printf("zq: signalling URL '%s': the host must be an IPv4 address here",
                       opt->signal_url);
        return ZQ_ERR_UNSUPPORTED;
    }
    r->server.port = r->url.port;
    if (r->url.secure && !zq_lwip_wall_clock_known()) {
        zq_lwip_printf("zq: signalling URL '%s': wss:// checks the server certificate's dates, "
                       "and this board's wall clock is not set (an RTC, SNTP, or the "
                       "configuration block's time=)", opt->signal_url);
        return ZQ_ERR_STATE;
    }
    r->signal_timeout_ms = opt->signal_timeout_ms != 0 ? opt->signal_timeout_ms
                                                       : DEFAULT_SIGNAL_TIMEOUT_MS;
    return ZQ_OK;
}

/* wss://: the trust store, from the board's CA certificates (PEM) and optional pin. */
static zq_err_t start_trust(zq_lwip_runner_t *r, const zq_lwip_options_t *opt)
{
#if defined(ZQ_MBEDTLS_TLS)
    if (!r->url.secure) {
        return ZQ_OK;
    }
    zq_err_t err = opt->ca_pem != NULL ? tls_client_config_init(&r->trust, &r->rand, opt->ca_pem,
                                                                 opt->ca_pem_len, opt->tls_pin)
                                       : ZQ_ERR_INVALID_ARG;
    if (err != ZQ_OK) {
        zq_lwip_printf("zq: wss:// needs CA certificates to check the server against: %s",
                       err == ZQ_ERR_INVALID_ARG ? "the board's trust store holds no PEM "
                                                   "certificate"
                                                 : "TLS could not be set up");
    }
    return err;
#else
    (void)r;
    (void)opt;
    return ZQ_OK; /* zq_device_url_parse() refused wss:// */
#endif
}

static zq_err_t start(zq_lwip_runner_t *r, const zq_lwip_options_t *opt)
{
    zq_err_t err = parse_options(r, opt);
    if (err != ZQ_OK) {
        return err;
    }
    (void)zq_port_init();
    r->rand = zq_port_rand();
    if ((err = start_trust(r, opt)) != ZQ_OK) {
        return err;
    }
    err = open_udp(r, opt->udp_port);
    if (err != ZQ_OK) {
        zq_lwip_printf("zq: no UDP socket: %s", zq_strerror(err));
        return err;
    }
    if ((err = start_dtls(r)) != ZQ_OK) {
        zq_lwip_printf("zq: no DTLS identity: %s", zq_strerror(err));
        return err;
    }
    if ((err = start_node(r, opt)) != ZQ_OK) {
        zq_lwip_printf("zq: cannot start the node: %s", zq_strerror(err));
        return err;
    }
    char text[ZQ_ADDR_TEXT_MAX];
    (void)zq_addr_format(&r->local, text, sizeof text);
    zq_lwip_printf("zq: node on %s, identity made %lu ms after start", text,
                   (unsigned long)(zq_port_now_ms() - r->started_ms));
    uint64_t now = zq_port_now_ms();
    if (r->cb.on_start != NULL && (err = r->cb.on_start(r->ctx, r, now)) != ZQ_OK) {
        zq_lwip_printf("zq: the application did not start: %s", zq_strerror(err));
        return err;
    }
    connect_signal(r);
    send_outputs(r, zq_port_now_ms()); /* the join, and what on_start made */
    return ZQ_OK;
}

zq_err_t zq_lwip_runner_start(zq_lwip_runner_t *r, const zq_lwip_options_t *opt,
                              const zq_lwip_callbacks_t *cb, void *ctx)
{
    memset(r, 0, sizeof *r);
    r->started_ms = zq_port_now_ms();
    r->udp = ZQ_SOCKET_INVALID;
    zq_relay_link_init(&r->relay);
    if (cb != NULL) {
        r->cb = *cb;
    }
    r->ctx = ctx;
    zq_err_t err = start(r, opt);
    if (err != ZQ_OK && r->udp != ZQ_SOCKET_INVALID) {
        zq_port_udp_close(r->udp);
        r->udp = ZQ_SOCKET_INVALID;
    }
    return err;
}
