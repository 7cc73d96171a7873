/* `zq signal --cluster`: the server's link to NATS, which carries the messages of
 * signal/cluster.h between the servers that share rooms. One TCP connection to one NATS server
 * at a time (stack/nats speaks the protocol); when it fails, the next URL, those given and
 * those the servers' INFO named (connect_urls: the rest of the NATS cluster), then a backoff
 * once every URL has failed in a row. */
#include <string.h>

#include "port/posix/read_file.h"
#include "port/posix/ws_tls.h"
#include "server/signal_server.h"
#include "zq/addr.h"
#include "zq/text.h"

#define NATS_CONNECT_MS 2000u  /* from TCP up to READY */
#define NATS_PING_MS 2000u     /* our PING to a silent server; two unanswered: dead */
#define NATS_RETRY_FIRST_MS 250u
#define NATS_RETRY_MAX_MS 5000u
#define SID_PRESENCE 1u
#define SID_MINE 2u

/* ---- URLs ----------------------------------------------------------------------------------- */

/* nats:// or tls://, then [USER:PASS@|TOKEN@]HOST:PORT (the port is 4222 if left out), the
 * form NATS clients take. @return NULL, or why not. */
static const char *parse_url(const char *text, size_t len, signal_nats_url_t *u)
{
    memset(u, 0, sizeof *u);
    size_t scheme = len >= 7 && memcmp(text, "nats://", 7) == 0   ? 7
                    : len >= 6 && memcmp(text, "tls://", 6) == 0 ? 6
                                                                  : 0;
    if (scheme == 0) {
        return "a NATS URL starts nats:// or tls://";
    }
    u->tls = scheme == 6;
    text += scheme;
    len -= scheme;
    const char *at = memchr(text, '@', len);
    if (at != NULL) {
        size_t cred = (size_t)(at - text);
        const char *colon = memchr(text, ':', cred);
        size_t user_len = colon != NULL ? (size_t)(colon - text) : cred;
        if (user_len == 0 || user_len >= sizeof u->user ||
            (colon != NULL && cred - user_len - 1 >= sizeof u->pass)) {
            return "the URL's credentials are empty or too long";
        }
        memcpy(u->user, text, user_len);
        if (colon != NULL) {
            memcpy(u->pass, colon + 1, cred - user_len - 1);
        }
        u->has_pass = colon != NULL; /* without one, USER is a token */
        len -= cred + 1;
        text = at + 1;
    }
    const char *colon = NULL;
    for (size_t i = 0; i < len; i++) {
        colon = text[i] == ':' ? text + i : colon; /* the last: an IPv6 address has more */
    }
    size_t host_len = colon != NULL ? (size_t)(colon - text) : len;
    uint64_t port = 4222;
    if (colon != NULL && zq_parse_udec(colon + 1, len - host_len - 1, 65535, &port) != ZQ_OK) {
        return "the URL's port is not a number up to 65535";
    }
    if (host_len >= 2 && text[0] == '[' && text[host_len - 1] == ']') {
        text++;
        host_len -= 2;
    }
    if (host_len == 0 || host_len >= sizeof u->host || port == 0) {
        return "the URL has no host, or a host over 63 characters, or port 0";
    }
    memcpy(u->host, text, host_len);
    u->port = (uint16_t)port;
    return NULL;
}

/* The URLs of a --cluster value, each checked and, with @p n, given to its link (the first
 * also keeps its credentials). @return NULL, or why not. */
static const char *read_urls(const char *list, signal_nats_t *n)
{
    signal_nats_url_t u;
    size_t count = 0;
    for (const char *p = list; p != NULL; count++) {
        const char *comma = strchr(p, ',');
        size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        const char *why = parse_url(p, len, &u);
        if (why != NULL) {
            return why;
        }
        if (count == SIGNAL_NATS_URLS_MAX) {
            return "too many NATS URLs";
        }
        if (n != NULL) {
            n->first = count == 0 ? u : n->first;
            n->tls |= u.tls; /* one tls:// makes every connection TLS, as NATS's clients do */
            (void)zq_tcp_link_add_server(&n->link, u.host, u.port, NULL);
        }
        p = comma != NULL ? comma + 1 : NULL;
    }
    return NULL;
}

const char *signal_cluster_check_urls(const char *list)
{
    return read_urls(list, NULL);
}

/* A "host:port" of INFO's connect_urls: the other NATS servers of the cluster, which the link
 * tries when its own fail, with the same credentials (one cluster, one account). Their
 * certificates are checked against their names; one known only by its IP address (what
 * nats-server announces unless told otherwise) against the first URL's host, as NATS's own
 * clients do for the servers they learn, since a cluster's nodes share one certificate name. */
static void learn_url(signal_nats_t *n, const char *host_port)
{
    char text[ZQ_NATS_URL_MAX + 8] = "nats://";
    signal_nats_url_t u;
    zq_addr_t ip;
    size_t len = strlen(host_port);
    if (len + 7 < sizeof text) {
        memcpy(text + 7, host_port, len + 1);
        if (parse_url(text, len + 7, &u) == NULL) {
            bool by_ip = zq_addr_parse_ip(u.host, strlen(u.host), &ip) == ZQ_OK;
            (void)zq_tcp_link_add_server(&n->link, u.host, u.port,
                                         n->tls && by_ip ? n->first.host : NULL);
        }
    }
}

/* ---- The link ------------------------------------------------------------------------------- */

static void on_nats_event(void *ctx, const nats_event_t *ev)
{
    signal_server_t *srv = ctx;
    signal_nats_t *n = &srv->nats;
    uint64_t now = n->now;
    if (ev->type == NATS_EV_INFO) {
        const nats_info_t *info = nats_client_info(&n->client);
        for (size_t i = 0; i < info->url_count; i++) {
            learn_url(n, info->connect_urls[i]);
        }
    } else if (ev->type == NATS_EV_READY) {
        (void)nats_client_sub(&n->client, sig_cluster_subject(&n->cluster, SIG_SUBJECT_PRESENCE),
                              SID_PRESENCE);
        (void)nats_client_sub(&n->client, sig_cluster_subject(&n->cluster, SIG_SUBJECT_MINE),
                              SID_MINE);
        zq_tcp_link_ready(&n->link);
        const zq_tcp_link_server_t *at = zq_tcp_link_server(&n->link);
        signal_say("cluster: joined through %s://%s:%u as server %s", n->tls ? "tls" : "nats",
                   at->host, at->port, n->cluster.self);
        sig_cluster_link_up(&srv->router, now);
    } else if (ev->type == NATS_EV_MSG) {
        sig_cluster_message(&srv->router, now, (const char *)ev->payload, ev->len);
        wsc_reap(srv, now);
    } else if (ev->type == NATS_EV_PONG) {
        n->pings_out = 0;
    } else if (ev->type == NATS_EV_ERR) {
        signal_say("cluster: NATS says: %.*s", (int)ev->text_len, ev->text);
        n->fatal |= ev->fatal;
    }
}

/* The link's side (port/posix/tcp_link.h): TCP up, bytes, TCP down, what to write. */
static void link_open(void *ctx, uint64_t now)
{
    signal_server_t *srv = ctx;
    signal_nats_t *n = &srv->nats;
    n->heard_at = now;
    n->pings_out = 0;
    n->fatal = false;
    n->connected_at = now;
    nats_client_init(&n->client, &n->options, on_nats_event, srv); /* the server speaks first */
}

static size_t link_bytes(void *ctx, uint64_t now, const uint8_t *data, size_t len)
{
    signal_server_t *srv = ctx;
    signal_nats_t *n = &srv->nats;
    n->now = now;
    n->heard_at = now;
    size_t taken = 0;
    if (nats_client_feed_some(&n->client, data, len, &taken) != ZQ_OK || n->fatal) {
        zq_tcp_link_drop(&n->link, now, "the NATS server ended the session");
        return len;
    }
    if (nats_client_state(&n->client) == NATS_STATE_TLS) {
        zq_tcp_link_start_tls(&n->link); /* after INFO: protocol doc, INFO, tls_required */
        return taken;
    }
    zq_tcp_link_flush(&n->link);
    return len; /* the cluster takes what comes: NATS drops a slow consumer itself */
}

/* The server's certificate passed: CONNECT, with the credentials, goes out over TLS. */
static void link_secure(void *ctx, uint64_t now)
{
    signal_server_t *srv = ctx;
    (void)now;
    (void)nats_client_tls_up(&srv->nats.client);
}

static void link_down(void *ctx, uint64_t now, const char *why)
{
    signal_server_t *srv = ctx;
    signal_nats_t *n = &srv->nats;
    (void)now;
    if (nats_client_ready(&n->client)) {
        sig_cluster_link_down(&srv->router);
    }
    nats_client_init(&n->client, &n->options, on_nats_event, srv); /* nothing more to send */
    const zq_tcp_link_server_t *at = zq_tcp_link_server(&n->link);
    signal_say("cluster: %s://%s:%u: %s", n->tls ? "tls" : "nats", at->host, at->port, why);
}

static size_t link_pending(void *ctx, const uint8_t **data)
{
    signal_server_t *srv = ctx;
    return nats_client_pending(&srv->nats.client, data);
}

static void link_sent(void *ctx, size_t n)
{
    signal_server_t *srv = ctx;
    nats_client_sent(&srv->nats.client, n);
}

static const zq_tcp_link_ops_t link_ops = {
    .on_open = link_open,
    .on_bytes = link_bytes,
    .on_down = link_down,
    .pending = link_pending,
    .sent = link_sent,
    .on_secure = link_secure,
};

static void publish(void *ctx, const char *subject, const char *payload, size_t len)
{
    signal_server_t *srv = ctx;
    signal_nats_t *n = &srv->nats;
    if (!nats_client_ready(&n->client)) {
        return;
    }
    if (nats_client_pub(&n->client, subject, NULL, (const uint8_t *)payload, len) != ZQ_OK) {
        n->dropped++; /* NATS's own at-most-once: the rosters repair what this loses */
        return;
    }
    zq_tcp_link_flush(&n->link);
}

/* ---- What the server calls ------------------------------------------------------------------ */

/* The credentials: the options (--nats-user, --nats-password, --nats-token) over the first
 * URL's USER:PASS@ or TOKEN@, for every URL. */
static void options_of(signal_nats_t *n, const signal_settings_t *s)
{
    const signal_nats_url_t *u = &n->first;
    nats_options_t *o = &n->options;
    memset(o, 0, sizeof *o);
    o->name = "zq-signal";
    o->echo = false; /* our own messages stay ours */
    o->tls_required = n->tls;
    o->user = s->nats_user != NULL ? s->nats_user : (u->has_pass ? u->user : NULL);
    o->pass = s->nats_password != NULL ? s->nats_password : (u->has_pass ? u->pass : NULL);
    o->token = s->nats_token != NULL ? s->nats_token
                                     : (!u->has_pass && u->user[0] != '\0' ? u->user : NULL);
}

/* --nats-nkey's seed or --nats-creds' JWT and seed into @p n. @return NULL, or why not. */
static const char *read_nkey(signal_nats_t *n, const signal_settings_t *s)
{
    static char text[NATS_JWT_MAX + 1024];
    const char *path = s->nats_creds != NULL ? s->nats_creds : s->nats_nkey;
    size_t len = 0;
    if (path == NULL) {
        return NULL;
    }
    if (zq_posix_read_file(path, (uint8_t *)text, sizeof text, &len) != ZQ_OK) {
        return "cannot read it (or it is over 5 KiB)";
    }
    zq_err_t err = s->nats_creds != NULL
                       ? nats_creds_parse(text, len, n->jwt, sizeof n->jwt, &n->nkey)
                       : nats_nkey_from_seed(&n->nkey, text, len);
    memset(text, 0, sizeof text);
    if (err == ZQ_OK) {
        n->options.nkey = &n->nkey;
        n->options.jwt = s->nats_creds != NULL ? n->jwt : NULL;
    }
    return err == ZQ_OK                   ? NULL
           : err == ZQ_ERR_INVALID_ARG    ? "the seed is not a user's (SU...)"
           : err == ZQ_ERR_UNSUPPORTED    ? "this build cannot sign (no SHA-512)"
           : err == ZQ_ERR_TOO_LONG       ? "its JWT is over NATS_JWT_MAX"
           : s->nats_creds != NULL        ? "no user JWT and nkey seed blocks, as nsc writes them"
                                          : "no nkey seed (SU... and 56 more base32 characters)";
}

int signal_cluster_start(signal_server_t *srv, const signal_settings_t *s, const zq_rand_t *rand)
{
    signal_nats_t *n = &srv->nats;
    if (s->cluster == NULL) {
        return -1;
    }
    zq_tcp_link_init(&n->link, srv->loop, &link_ops, srv, rand, NATS_RETRY_FIRST_MS,
                     NATS_RETRY_MAX_MS);
    /* A CA or a certificate makes the connection TLS, as in NATS's own clients. */
    n->tls = s->nats_tls.ca_file != NULL || s->nats_tls.cert_file != NULL;
    const char *why = read_urls(s->cluster, n);
    if (why != NULL) {
        return signal_fail("--cluster: %s", why);
    }
    tls_client_config_t *trust = NULL;
    if (n->tls && zq_posix_tls_config(&s->nats_tls, &trust, &why) != ZQ_OK) {
        return signal_fail("NATS over TLS: %s", why);
    }
    zq_tcp_link_use_tls(&n->link, ZQ_TCP_LINK_TLS_ASKED, trust);
    if (sig_cluster_init(&n->cluster, rand, s->cluster_prefix != NULL ? s->cluster_prefix
                                                                      : "zq.signal",
                         publish, srv) != ZQ_OK) {
        return signal_fail("--cluster-prefix: 1 to %d characters", SIG_CLUSTER_PREFIX_MAX);
    }
    options_of(n, s);
    if ((why = read_nkey(n, s)) != NULL) {
        return signal_fail("%s %s: %s", s->nats_creds != NULL ? "--nats-creds" : "--nats-nkey",
                           s->nats_creds != NULL ? s->nats_creds : s->nats_nkey, why);
    }
    nats_client_init(&n->client, &n->options, on_nats_event, srv);
    n->on = true;
    sig_router_attach_cluster(&srv->router, &n->cluster);
    return -1;
}

uint64_t signal_cluster_next_deadline(const signal_server_t *srv, uint64_t t)
{
    const signal_nats_t *n = &srv->nats;
    if (!n->on) {
        return t;
    }
    t = zq_time_min(t, sig_cluster_next_timeout(&n->cluster));
    t = zq_time_min(t, zq_tcp_link_next_timeout(&n->link));
    if (zq_tcp_link_is_open(&n->link)) {
        t = zq_time_min(t, nats_client_ready(&n->client)
                               ? n->heard_at + NATS_PING_MS * (n->pings_out + 1u)
                               : n->connected_at + NATS_CONNECT_MS);
    }
    return t;
}

/* A silent server gets a PING every NATS_PING_MS; one that answers none of two is dead (a
 * NATS node that vanished without a FIN, or a route that hangs). */
static void keepalive(signal_server_t *srv, uint64_t now)
{
    signal_nats_t *n = &srv->nats;
    if (!nats_client_ready(&n->client)) {
        if (now >= n->connected_at + NATS_CONNECT_MS) {
            zq_tcp_link_drop(&n->link, now, "no INFO, or no answer to CONNECT");
        }
        return;
    }
    if (now < n->heard_at + NATS_PING_MS * (n->pings_out + 1u)) {
        return;
    }
    if (n->pings_out == 2) {
        zq_tcp_link_drop(&n->link, now, "no PONG to two PINGs");
        return;
    }
    if (nats_client_ping(&n->client) == ZQ_OK) {
        n->pings_out++;
        zq_tcp_link_flush(&n->link);
    }
}

void signal_cluster_tick(signal_server_t *srv, uint64_t now)
{
    signal_nats_t *n = &srv->nats;
    if (!n->on) {
        return;
    }
    n->now = now;
    zq_tcp_link_tick(&n->link, now);
    if (zq_tcp_link_is_open(&n->link)) {
        keepalive(srv, now);
    }
    sig_cluster_timeout(&srv->router, now);
    wsc_reap(srv, now);
}

void signal_cluster_stop(signal_server_t *srv)
{
    signal_nats_t *n = &srv->nats;
    if (!n->on) {
        return;
    }
    zq_tcp_link_close(&n->link); /* after the members' `left`, said by the shutdown */
    sig_router_attach_cluster(&srv->router, NULL);
    n->on = false;
}
