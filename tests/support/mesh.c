/* A room of zq nodes in one process (see mesh.h). */
#include "mesh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_rand.h"

mesh_t mesh;
static test_rand_t rand_state;
static bool arena_ready;
static uint8_t arena[2 * 1024 * 1024];

/* ---- Signalling --------------------------------------------------------------------------- */

static int member_of_client(unsigned client)
{
    for (unsigned i = 0; i < mesh.n; i++) {
        if (mesh.members[i].online && mesh.members[i].client == client) {
            return (int)i;
        }
    }
    return -1;
}

static void router_send(void *ctx, unsigned client, const char *frame, size_t len)
{
    (void)ctx;
    int i = member_of_client(client);
    mesh_member_t *m = i >= 0 ? &mesh.members[i] : NULL;
    if (m == NULL || m->inbox_count == MESH_INBOX || len > sizeof m->inbox[0].frame) {
        mesh.inbox_overflow++;
        return;
    }
    memcpy(m->inbox[m->inbox_count].frame, frame, len);
    m->inbox[m->inbox_count++].len = len;
}

void mesh_online(unsigned i)
{
    mesh_member_t *m = &mesh.members[i];
    unsigned client = 0;
    while (member_of_client(client) >= 0) {
        client++; /* the router gives the first free slot: know it before its welcome */
    }
    m->client = client;
    m->online = true;
    unsigned got = 0;
    if (sig_router_connect(&mesh.router, mesh.now, 0, NULL, &got) != ZQ_OK || got != client) {
        fprintf(stderr, "mesh: router slot mismatch\n");
        abort();
    }
    node_signal_connected(&m->node);
}

void mesh_offline(unsigned i)
{
    sig_router_disconnect(&mesh.router, mesh.members[i].client);
    mesh.members[i].online = false;
    mesh.members[i].inbox_count = 0;
}

/* ---- Members ------------------------------------------------------------------------------ */

static void free_member(mesh_member_t *m)
{
    if (!m->used) {
        return;
    }
    node_close(&m->node, mesh.now);
    peer_transmit_t tx;
    while (node_poll_transmit(&m->node, mesh.now, &tx)) {
    }
    if (m->identity.fingerprint.bytes[0] != 0 || m->identity.fingerprint.bytes[1] != 0) {
        dtls_context_free(&m->ctx);
        dtls_identity_free(&m->identity);
    }
    m->used = false;
}

void mesh_reset(uint64_t seed, simnet_impairment_t impair)
{
    if (!arena_ready) {
        dtls_arena_init(arena, sizeof arena);
        arena_ready = true;
    }
    for (unsigned i = 0; i < mesh.n; i++) {
        free_member(&mesh.members[i]);
    }
    memset(&mesh, 0, sizeof mesh);
    mesh.rand = test_rand(&rand_state, seed);
    mesh.now = 1000;
    simnet_init(&mesh.net, seed, impair);
    sig_router_init(&mesh.router, &mesh.rand, router_send, NULL);
}

static void make_identity(mesh_member_t *m, int same_as)
{
    dtls_config_t cfg;
    dtls_config_default(&cfg);
    cfg.rand = mesh.rand;
    if (same_as >= 0) { /* the same certificate: the same identity after a "restart" */
        const mesh_member_t *o = &mesh.members[same_as];
        uint8_t key[256];
        uint8_t cert[1024];
        size_t key_len = 0;
        size_t cert_len = 0;
        if (dtls_identity_export(&o->identity, key, sizeof key, &key_len, cert, sizeof cert,
                                 &cert_len) != ZQ_OK ||
            dtls_identity_import(&m->identity, key, key_len, cert, cert_len, &mesh.rand) !=
                ZQ_OK) {
            fprintf(stderr, "mesh: identity copy failed\n");
            abort();
        }
    } else if (dtls_identity_generate(&m->identity, &mesh.rand) != ZQ_OK) {
        fprintf(stderr, "mesh: identity failed\n");
        abort();
    }
    if (dtls_context_init(&m->ctx, &cfg, &m->identity) != ZQ_OK) {
        fprintf(stderr, "mesh: context failed\n");
        abort();
    }
}

unsigned mesh_add(const char *room, bool broker, const brk_config_t *cfg, int same_identity_as)
{
    unsigned i = mesh.n++;
    mesh_member_t *m = &mesh.members[i];
    memset(m, 0, sizeof *m);
    m->used = true;
    m->addr = zq_addr_v4(10, 0, 0, (uint8_t)(i + 1), (uint16_t)(5000 + mesh.now % 1000));
    make_identity(m, same_identity_as);
    node_config_t ncfg;
    memset(&ncfg, 0, sizeof ncfg);
    snprintf(ncfg.room, sizeof ncfg.room, "%s", room);
    ncfg.rand = mesh.rand;
    ncfg.dtls = &m->ctx;
    ncfg.hosts[0] = m->addr;
    ncfg.n_hosts = 1;
    if (node_init(&m->node, &ncfg) != ZQ_OK) {
        abort();
    }
    m->has_broker = broker;
    if (broker) {
        brk_config_t c;
        brk_config_default(&c);
        if (cfg != NULL) {
            c = *cfg;
        }
        c.rand = mesh.rand;
        if (brk_init(&m->broker, &m->node, &c) != ZQ_OK) {
            abort();
        }
    }
    mesh_online(i);
    return i;
}

void mesh_close_peers(unsigned i)
{
    node_close(&mesh.members[i].node, mesh.now);
}

void mesh_crash(unsigned i)
{
    mesh.members[i].crashed = true;
    if (mesh.members[i].online) {
        mesh_offline(i); /* its WebSocket dies with it: the server says peer_left */
    }
}

/* ---- Settling one member after an input ---------------------------------------------------- */

static void copy_str(char *out, size_t cap, brk_str_t s)
{
    size_t n = s.len < cap - 1 ? s.len : cap - 1;
    if (n > 0) { /* an empty string may have no pointer at all */
        memcpy(out, s.p, n);
    }
    out[n] = '\0';
}

static void log_event(unsigned i, const brk_event_t *ev)
{
    mesh_member_t *m = &mesh.members[i];
    if (m->n_log < MESH_LOG) {
        mesh_event_t *e = &m->log[m->n_log++];
        memset(e, 0, sizeof *e);
        e->type = ev->type;
        e->peer = ev->peer;
        copy_str(e->topic, sizeof e->topic, ev->topic);
        copy_str(e->payload, sizeof e->payload, ev->payload);
        copy_str(e->id, sizeof e->id, ev->id);
        e->seq = ev->seq;
        e->lost_from = ev->lost_from;
        e->lost_to = ev->lost_to;
        e->attempt = ev->attempt;
        e->count = ev->count;
        e->handle = ev->handle;
        e->ok = ev->ok;
        e->last_value = ev->last_value;
        e->zq = ev->zq;
        e->at = mesh.now;
    }
    if (m->on_event != NULL) {
        m->on_event(i, ev);
    }
}

static void read_raw(unsigned i)
{
    mesh_member_t *m = &mesh.members[i];
    node_message_t msg;
    while (node_read(&m->node, mesh.now, &msg)) {
        if (m->n_raw < MESH_LOG && msg.msg.first && msg.msg.last && !msg.msg.binary) {
            mesh_raw_t *r = &m->raw[m->n_raw++];
            r->peer = msg.peer;
            size_t n = msg.msg.len < sizeof r->text - 1 ? msg.msg.len : sizeof r->text - 1;
            memcpy(r->text, msg.msg.data, n);
            r->text[n] = '\0';
        }
    }
}

static void settle(unsigned i)
{
    mesh_member_t *m = &mesh.members[i];
    if (m->crashed) {
        return;
    }
    for (int round = 0; round < 8; round++) {
        char out[ZQ_SIG_FRAME_MAX];
        size_t len;
        while ((len = node_poll_signal(&m->node, mesh.now, out, sizeof out)) > 0) {
            if (m->online) {
                sig_router_frame(&mesh.router, mesh.now, m->client, out, len);
            }
        }
        node_event_t nev;
        while (node_poll_event(&m->node, &nev)) {
            if (m->has_broker) {
                brk_handle_node_event(&m->broker, mesh.now, &nev);
            }
        }
        if (m->has_broker) {
            brk_event_t bev;
            while (brk_poll_event(&m->broker, mesh.now, &bev)) {
                log_event(i, &bev);
            }
        } else {
            read_raw(i);
        }
        peer_transmit_t tx;
        while (node_poll_transmit(&m->node, mesh.now, &tx)) {
            simnet_send(&mesh.net, mesh.now, &tx.local, &tx.remote, tx.data, tx.len);
        }
        if (node_events_pending(&m->node) == 0) {
            break;
        }
    }
}

static bool deliver_signalling(void)
{
    bool any = false;
    for (unsigned i = 0; i < mesh.n; i++) {
        mesh_member_t *m = &mesh.members[i];
        for (size_t k = 0; k < m->inbox_count && !m->crashed; k++) {
            node_handle_signal(&m->node, mesh.now, m->inbox[k].frame, m->inbox[k].len);
            any = true;
        }
        m->inbox_count = 0;
        settle(i);
    }
    return any;
}

static uint64_t member_deadline(const mesh_member_t *m)
{
    if (m->crashed) {
        return ZQ_TIME_NEVER;
    }
    uint64_t t = node_next_timeout(&m->node);
    return m->has_broker ? zq_time_min(t, brk_next_timeout(&m->broker)) : t;
}

static void deliver_datagrams(void)
{
    simnet_packet_t pkt;
    while (simnet_receive(&mesh.net, mesh.now, &pkt)) {
        for (unsigned i = 0; i < mesh.n; i++) {
            mesh_member_t *m = &mesh.members[i];
            if (!m->crashed && zq_addr_equal(&pkt.to, &m->addr)) {
                (void)node_handle_datagram(&m->node, mesh.now, &pkt.to, &pkt.from, pkt.data,
                                           pkt.len);
                settle(i);
            }
        }
    }
}

static void fire_timers(void)
{
    for (unsigned i = 0; i < mesh.n; i++) {
        mesh_member_t *m = &mesh.members[i];
        if (m->crashed) {
            continue;
        }
        node_handle_timeout(&m->node, mesh.now);
        if (m->has_broker && brk_next_timeout(&m->broker) <= mesh.now) {
            brk_handle_timeout(&m->broker, mesh.now);
        }
        settle(i);
    }
}

bool mesh_run(uint64_t until, bool (*done)(void))
{
    for (;;) {
        while (deliver_signalling()) {
        }
        for (unsigned i = 0; i < mesh.n; i++) {
            settle(i); /* what the test's API calls made due */
        }
        if (done != NULL && done()) {
            return true;
        }
        uint64_t t = simnet_next_delivery(&mesh.net);
        for (unsigned i = 0; i < mesh.n; i++) {
            t = zq_time_min(t, member_deadline(&mesh.members[i]));
        }
        if (t > until) {
            mesh.now = until > mesh.now ? until : mesh.now;
            return done != NULL && done();
        }
        mesh.now = t > mesh.now ? t : mesh.now;
        deliver_datagrams();
        fire_timers();
    }
}

bool mesh_run_for(uint64_t ms)
{
    return mesh_run(mesh.now + ms, NULL);
}

/* ---- Queries ------------------------------------------------------------------------------ */

int mesh_slot(unsigned i, unsigned j)
{
    const node_t *n = &mesh.members[i].node;
    const char *id = mesh.members[j].node.my_id;
    for (int k = 0; k < ZQ_NODE_MAX_PEERS; k++) {
        if (n->peers[k].used && n->peers[k].open && strcmp(n->peers[k].id, id) == 0) {
            return k;
        }
    }
    return -1;
}

bool mesh_connected(unsigned i, unsigned j)
{
    int a = mesh_slot(i, j);
    int b = mesh_slot(j, i);
    if (a < 0 || b < 0) {
        return false;
    }
    const mesh_member_t *mi = &mesh.members[i];
    const mesh_member_t *mj = &mesh.members[j];
    bool hello_i = !mi->has_broker || !mj->has_broker || mi->broker.peers[a].zq;
    bool hello_j = !mi->has_broker || !mj->has_broker || mj->broker.peers[b].zq;
    return hello_i && hello_j;
}

bool mesh_all_connected(unsigned count)
{
    for (unsigned i = 0; i < count; i++) {
        for (unsigned j = i + 1; j < count; j++) {
            if (!mesh.members[i].crashed && !mesh.members[j].crashed && !mesh_connected(i, j)) {
                return false;
            }
        }
    }
    return true;
}

void mesh_send_raw(unsigned i, unsigned j, const char *text)
{
    int slot = mesh_slot(i, j);
    if (slot < 0 || node_send(&mesh.members[i].node, mesh.now, (uint8_t)slot,
                              (const uint8_t *)text, strlen(text), false) != ZQ_OK) {
        fprintf(stderr, "mesh: raw send failed\n");
        abort();
    }
    settle(i);
}

size_t mesh_count(unsigned i, brk_event_type_t type, const char *topic)
{
    size_t n = 0;
    const mesh_member_t *m = &mesh.members[i];
    for (size_t k = 0; k < m->n_log; k++) {
        n += m->log[k].type == type && (topic == NULL || strcmp(m->log[k].topic, topic) == 0);
    }
    return n;
}
