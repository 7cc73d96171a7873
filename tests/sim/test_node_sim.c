/* zq nodes meeting through the room router, over a simulated network: the signalling frames
 * travel as JSON text through sig_router_t exactly as a WebSocket would carry them, the
 * datagrams through simnet. Checks the mesh forms (each pair dials once), messages flow both
 * ways, rooms stay apart, and members leaving or coming back are handled. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dtls_pair.h"
#include "node/echo.h"
#include "node/node.h"
#include "signal/router.h"
#include "simnet.h"
#include "zq/crypto.h"

#define NODES 6
#define INBOX 64
#define FRAME_MAX ZQ_SIG_FRAME_MAX

typedef struct {
    char frame[FRAME_MAX];
    size_t len;
} frame_t;

typedef struct {
    node_t node;
    zq_addr_t addr;
    unsigned client;      /* its connection to the router */
    bool online;          /* connected to the router */
    frame_t inbox[INBOX]; /* frames from the router, not yet handled */
    size_t inbox_count;
    unsigned connected;   /* PEER_CONNECTED events */
    unsigned gone;        /* PEER_GONE events */
    unsigned timed_out;   /* of which: never answered or never connected */
    unsigned refused;     /* NODE_EVENT_PEER_REFUSED: no slot for a member */
    unsigned waiting;     /* NODE_EVENT_WAITING: a member had no slot for us */
    unsigned long received;
    char last[128];
    /* With the echo service (node/echo.h) instead of the test's own echo: */
    bool runs_echo;
    bool quiet;           /* reads, never answers */
    echo_t echo;
    echo_report_t report;
    unsigned reports;
    /* Whole messages received back (the sender of the size test): */
    size_t got_len;
    bool got_binary;
    uint32_t got_crc;
    unsigned long got_messages;
} member_t;

static member_t members[NODES];
static sig_router_t router;
static simnet_t net;
static uint64_t now;
static unsigned n_members;
static unsigned long inbox_overflow;

static int member_of_client(unsigned client)
{
    for (unsigned i = 0; i < n_members; i++) {
        if (members[i].online && members[i].client == client) {
            return (int)i;
        }
    }
    return -1;
}

static void router_send(void *ctx, unsigned client, const char *frame, size_t len)
{
    (void)ctx;
    int i = member_of_client(client);
    if (i < 0 || members[i].inbox_count == INBOX || len > FRAME_MAX) {
        inbox_overflow++;
        return;
    }
    frame_t *f = &members[i].inbox[members[i].inbox_count++];
    memcpy(f->frame, frame, len);
    f->len = len;
}

static void go_online(unsigned i)
{
    /* The welcome is sent from inside connect: the client number must be known first. */
    unsigned client = 0;
    while (member_of_client(client) >= 0) {
        client++;
    }
    members[i].client = client;
    members[i].online = true;
    unsigned got = 0;
    assert_int_equal(sig_router_connect(&router, now, 0, NULL, &got), ZQ_OK);
    assert_int_equal(got, client);
    node_signal_connected(&members[i].node);
}

static void go_offline(unsigned i)
{
    sig_router_disconnect(&router, members[i].client);
    members[i].online = false;
    members[i].inbox_count = 0;
}

static void add_member(const char *room)
{
    unsigned i = n_members++;
    member_t *m = &members[i];
    memset(m, 0, sizeof *m);
    m->addr = zq_addr_v4(10, 0, 0, (uint8_t)(i + 1), 5000);
    node_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    snprintf(cfg.room, sizeof cfg.room, "%s", room);
    cfg.rand = fx.rand;
    cfg.dtls = i % 2 == 0 ? &fx.ctx_a : &fx.ctx_b;
    cfg.hosts[0] = m->addr;
    cfg.n_hosts = 1;
    assert_int_equal(node_init(&m->node, &cfg), ZQ_OK);
    go_online(i);
}

/* The test's own echo: "x" comes back as "echo:x"; what starts with "echo:" is kept. */
static void read_and_answer(member_t *m)
{
    node_message_t msg;
    while (node_read(&m->node, now, &msg)) {
        m->received++;
        size_t n = msg.msg.len < sizeof m->last - 1 ? msg.msg.len : sizeof m->last - 1;
        memcpy(m->last, msg.msg.data, n);
        m->last[n] = '\0';
        m->got_len = msg.msg.first ? 0 : m->got_len;
        m->got_crc = zq_crc32_update(msg.msg.first ? 0 : m->got_crc, msg.msg.data, msg.msg.len);
        m->got_len += msg.msg.len;
        m->got_binary = msg.msg.binary;
        m->got_messages += msg.msg.last && !msg.msg.aborted;
        if (!m->quiet && strncmp(m->last, "echo:", 5) != 0 && msg.msg.first && msg.msg.last &&
            msg.msg.len < 100) {
            char reply[160];
            int r = snprintf(reply, sizeof reply, "echo:%s", m->last);
            (void)node_send(&m->node, now, msg.peer, (const uint8_t *)reply, (size_t)r,
                            msg.msg.binary);
        }
    }
}

static void take_events(member_t *m)
{
    node_event_t ev;
    while (node_poll_event(&m->node, &ev)) {
        m->connected += ev.type == NODE_EVENT_PEER_CONNECTED;
        m->gone += ev.type == NODE_EVENT_PEER_GONE;
        m->timed_out += ev.type == NODE_EVENT_PEER_GONE && ev.failure == PEER_FAIL_TIMEOUT;
        m->refused += ev.type == NODE_EVENT_PEER_REFUSED;
        m->waiting += ev.type == NODE_EVENT_WAITING;
        if (m->runs_echo) {
            echo_handle_event(&m->echo, now, &ev);
        }
    }
}

static void settle(unsigned i)
{
    member_t *m = &members[i];
    for (int round = 0; round < 4; round++) {
        char out[FRAME_MAX];
        size_t len;
        while ((len = node_poll_signal(&m->node, now, out, sizeof out)) > 0) {
            if (m->online) {
                sig_router_frame(&router, now, m->client, out, len);
            }
        }
        take_events(m);
        if (m->runs_echo) {
            echo_pump(&m->echo, now);
            while (echo_poll_report(&m->echo, &m->report)) {
                m->reports++;
            }
        } else {
            read_and_answer(m);
        }
        peer_transmit_t tx;
        while (node_poll_transmit(&m->node, now, &tx)) {
            simnet_send(&net, now, &tx.local, &tx.remote, tx.data, tx.len);
        }
    }
}

/* Signalling frames waiting in inboxes are handled at once (the server is instant). */
static bool deliver_signalling(void)
{
    bool any = false;
    for (unsigned i = 0; i < n_members; i++) {
        member_t *m = &members[i];
        for (size_t k = 0; k < m->inbox_count; k++) {
            node_handle_signal(&m->node, now, m->inbox[k].frame, m->inbox[k].len);
            any = true;
        }
        m->inbox_count = 0;
        settle(i);
    }
    return any;
}

static void run_until(uint64_t until, bool (*done)(void))
{
    while (done == NULL || !done()) {
        while (deliver_signalling()) {
        }
        uint64_t t = simnet_next_delivery(&net);
        for (unsigned i = 0; i < n_members; i++) {
            t = zq_time_min(t, node_next_timeout(&members[i].node));
        }
        if (t > until) {
            now = until;
            return;
        }
        now = t > now ? t : now;
        simnet_packet_t pkt;
        while (simnet_receive(&net, now, &pkt)) {
            for (unsigned i = 0; i < n_members; i++) {
                if (zq_addr_equal(&pkt.to, &members[i].addr)) {
                    (void)node_handle_datagram(&members[i].node, now, &pkt.to, &pkt.from,
                                               pkt.data, pkt.len);
                    settle(i);
                }
            }
        }
        for (unsigned i = 0; i < n_members; i++) {
            node_handle_timeout(&members[i].node, now);
            settle(i);
        }
    }
}

static unsigned open_peers(unsigned i)
{
    unsigned n = 0;
    for (int k = 0; k < ZQ_NODE_MAX_PEERS; k++) {
        n += members[i].node.peers[k].used && members[i].node.peers[k].open;
    }
    return n;
}

static unsigned want_open; /* each of the first n_members reaches this many open peers */

static bool mesh_complete(void)
{
    for (unsigned i = 0; i < n_members; i++) {
        if (open_peers(i) < want_open) {
            return false;
        }
    }
    return true;
}

static int reset(void **state)
{
    (void)state;
    /* The previous test's connections give their DTLS memory back. */
    for (unsigned i = 0; i < n_members; i++) {
        node_close(&members[i].node, now);
        peer_transmit_t tx;
        while (node_poll_transmit(&members[i].node, now, &tx)) {
        }
    }
    memset(members, 0, sizeof members);
    n_members = 0;
    inbox_overflow = 0;
    now = 1000;
    simnet_init(&net, 11, (simnet_impairment_t){0, 0, 5, 0});
    sig_router_init(&router, &fx.rand, router_send, NULL);
    return 0;
}

static void send_text(unsigned i, uint8_t peer, const char *text)
{
    assert_int_equal(node_send(&members[i].node, now, peer, (const uint8_t *)text, strlen(text),
                               false),
                     ZQ_OK);
    settle(i);
}

static void three_members_form_a_full_mesh_and_echo(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++) {
        add_member("default-topic");
    }
    want_open = 2;
    run_until(now + 30000, mesh_complete);
    assert_true(mesh_complete());
    /* Exactly one connection per pair: nobody holds a second peer for the same member. */
    for (unsigned i = 0; i < 3; i++) {
        assert_int_equal(members[i].connected, 2);
        assert_int_equal(members[i].node.stats.peers_refused, 0);
    }
    /* The first member dialed both others (it heard peer_joined twice). */
    assert_true(members[0].node.peers[0].dialing && members[0].node.peers[1].dialing);
    for (uint8_t p = 0; p < 2; p++) {
        send_text(0, p, "hello");
    }
    run_until(now + 2000, NULL);
    assert_int_equal(members[1].received, 1);
    assert_int_equal(members[2].received, 1);
    assert_int_equal(members[0].received, 2);
    assert_string_equal(members[0].last, "echo:hello");
    assert_int_equal(inbox_overflow, 0);
    assert_int_equal(router.dropped_frames, 0);
}

static void members_of_other_rooms_never_connect(void **state)
{
    (void)state;
    add_member("red");
    add_member("blue");
    add_member("red");
    want_open = 0;
    run_until(now + 10000, NULL);
    assert_int_equal(open_peers(0), 1);
    assert_int_equal(open_peers(2), 1);
    assert_int_equal(open_peers(1), 0);
    assert_int_equal(members[1].node.peers[0].used, false);
}

static void a_member_who_leaves_is_forgotten_and_can_come_back(void **state)
{
    (void)state;
    add_member("room");
    add_member("room");
    want_open = 1;
    run_until(now + 30000, mesh_complete);
    assert_true(mesh_complete());

    /* The signalling connection of member 1 drops: member 0 hears peer_left. */
    go_offline(1);
    run_until(now + 100, NULL);
    assert_int_equal(members[0].gone, 1);
    assert_int_equal(open_peers(0), 0);

    /* It reconnects (a new id) and joins again; member 0 dials the newcomer. Member 1 drops
     * its old connection: the new offer replaces it. */
    node_close(&members[1].node, now);
    settle(1);
    go_online(1);
    run_until(now + 30000, mesh_complete);
    assert_true(mesh_complete());
    send_text(1, 0, "again");
    for (uint8_t p = 0; p < ZQ_NODE_MAX_PEERS; p++) {
        if (members[1].node.peers[p].used && members[1].node.peers[p].open) {
            send_text(1, p, "again");
        }
    }
    run_until(now + 2000, NULL);
    assert_true(members[0].received >= 1);
    assert_string_equal(members[1].last, "echo:again");
}

static bool holds_open_peer(unsigned i, const char *id)
{
    for (int k = 0; k < ZQ_NODE_MAX_PEERS; k++) {
        const node_peer_t *np = &members[i].node.peers[k];
        if (np->used && np->open && strcmp(np->id, id) == 0) {
            return true;
        }
    }
    return false;
}

/* Every slot a member holds is an open connection that its other end holds too. */
static void assert_no_half_connections(unsigned i)
{
    for (int k = 0; k < ZQ_NODE_MAX_PEERS; k++) {
        const node_peer_t *np = &members[i].node.peers[k];
        assert_true(!np->used || np->open); /* no slot is held by a dead attempt */
        if (np->used) {
            unsigned j = 0;
            while (j < n_members && strcmp(members[j].node.my_id, np->id) != 0) {
                j++;
            }
            assert_true(j < n_members);
            assert_true(holds_open_peer(j, members[i].node.my_id));
        }
    }
}

static void crowd_joins(void)
{
    for (int i = 0; i < NODES; i++) {
        add_member("crowd");
    }
    /* Six members, four slots each: some joins and offers find no room. */
    run_until(now + ZQ_PEER_CONNECT_TIMEOUT_MS + 15000, NULL);
}

static void members_left_out_for_want_of_a_slot_are_told_and_no_dial_times_out(void **state)
{
    (void)state;
    crowd_joins();
    unsigned refused = 0;
    unsigned told = 0;
    for (unsigned i = 0; i < NODES; i++) {
        const node_stats_t *st = &members[i].node.stats;
        refused += st->peers_refused;
        told += members[i].waiting;
        assert_int_equal(members[i].refused, st->peers_refused); /* the application knows */
        assert_int_equal(members[i].waiting, st->refused_by_members);
        assert_int_equal(st->waitlist_full, 0);
        /* A refused dial ends when the refusal comes, not at ZQ_PEER_CONNECT_TIMEOUT_MS. */
        assert_int_equal(members[i].timed_out, 0);
        assert_true(open_peers(i) >= 1 && open_peers(i) <= ZQ_NODE_MAX_PEERS);
        assert_no_half_connections(i);
    }
    assert_true(refused > 0);
    /* Each refusal is told, once per time it is made (two before the frame went: one frame). */
    assert_true(told > 0 && told <= refused);
    printf("    %u joins or offers refused for want of a slot, %u refusals told\n", refused,
           told);
}

static unsigned leaver; /* the member who left the crowd */

/* Each member but the leaver holds an open connection to each other one. */
static bool the_rest_fully_meshed(void)
{
    for (unsigned i = 0; i < NODES; i++) {
        for (unsigned j = 0; j < NODES; j++) {
            if (i != leaver && j != leaver && i != j &&
                !holds_open_peer(i, members[j].node.my_id)) {
                return false;
            }
        }
    }
    return true;
}

static void a_member_left_out_is_dialed_when_a_slot_frees(void **state)
{
    (void)state;
    crowd_joins();
    /* The first member leaves: five remain, four slots each. The members it leaves apart
     * (6 members, 4 slots) come together only if the one that refused dials the one it left
     * out, as nobody hears peer_joined again. */
    leaver = 0;
    assert_false(the_rest_fully_meshed());
    go_offline(leaver);
    run_until(now + ZQ_PEER_CONNECT_TIMEOUT_MS, the_rest_fully_meshed);
    assert_true(the_rest_fully_meshed());
    for (unsigned i = 1; i < NODES; i++) {
        assert_int_equal(members[i].timed_out, 0);
        assert_int_equal(members[i].node.n_waiting, 0);
    }
}

static void a_refusal_from_a_member_we_hold_no_slot_for_is_still_reported(void **state)
{
    (void)state;
    add_member("room");
    settle(0);
    static const char refused[] =
        "{\"type\":\"refused\",\"peerId\":\"nobody\",\"reason\":\"full\"}";
    node_handle_signal(&members[0].node, now, refused, strlen(refused));
    settle(0);
    assert_int_equal(members[0].waiting, 1);
    assert_int_equal(members[0].node.stats.refused_by_members, 1);
    assert_int_equal(members[0].node.stats.signal_malformed, 0);
}

static void say_to(unsigned i, const char *type, const char *id)
{
    char frame[128];
    int len = snprintf(frame, sizeof frame, "{\"type\":\"%s\",\"peerId\":\"%s\"}", type, id);
    node_handle_signal(&members[i].node, now, frame, (size_t)len);
}

/* A member that got a slot some other way than our dial from the wait list (here it joined
 * again as a slot was draining) leaves the list: a later dial would replace its connection. */
static void a_member_given_a_slot_leaves_the_wait_list(void **state)
{
    (void)state;
    add_member("room");
    static const char *ids[] = {"m1", "m2", "m3", "m4", "m5"};
    for (int k = 0; k < 5; k++) {
        say_to(0, "peer_joined", ids[k]);
    }
    assert_int_equal(members[0].node.n_waiting, 1); /* 4 slots: m5 waits */
    say_to(0, "peer_left", "m1"); /* its slot drains */
    say_to(0, "peer_joined", "m5");
    assert_int_equal(members[0].node.n_waiting, 0);
    assert_int_equal(members[0].node.stats.peers_refused, 1);
}

/* A member full for now says so, then more members join than slots and event queue hold,
 * with no event polled in between. */
static void a_full_event_queue_counts_the_refused_events_and_keeps_the_queued_ones(void **state)
{
    (void)state;
    add_member("room");
    say_to(0, "refused", "busy");
    const int joins = ZQ_NODE_MAX_PEERS + ZQ_NODE_EVENT_QUEUE + 1;
    for (int k = 0; k < joins; k++) {
        char id[16];
        snprintf(id, sizeof id, "m%d", k);
        say_to(0, "peer_joined", id);
    }
    node_t *n = &members[0].node;
    const int left_out = joins - ZQ_NODE_MAX_PEERS;
    assert_int_equal(n->stats.peers_refused, left_out); /* every one, queued or not */
    assert_int_equal(node_events_refused(n), 1 + left_out - ZQ_NODE_EVENT_QUEUE);
    node_event_t ev;
    assert_true(node_poll_event(n, &ev));
    assert_int_equal(ev.type, NODE_EVENT_WAITING);
    for (int k = 1; k < ZQ_NODE_EVENT_QUEUE; k++) {
        assert_true(node_poll_event(n, &ev));
        assert_int_equal(ev.type, NODE_EVENT_PEER_REFUSED);
        assert_int_equal(ev.peer, NODE_NO_PEER);
    }
    assert_false(node_poll_event(n, &ev));
    assert_int_equal(node_events_pending(n), 0);
}

static void garbage_signalling_is_counted_and_ignored(void **state)
{
    (void)state;
    add_member("room");
    static const char *junk[] = {
        "", "nope", "{}", "{\"type\":\"offer\",\"peerId\":\"x\"}",
        "{\"type\":\"offer\",\"peerId\":\"x\",\"sdp\":{\"type\":\"offer\",\"sdp\":\"v=0\"}}",
        "{\"type\":\"ice_candidate\",\"peerId\":\"x\",\"candidate\":{\"candidate\":\"garbage\"}}",
        "{\"type\":\"answer\",\"peerId\":\"nobody\",\"sdp\":{\"type\":\"answer\",\"sdp\":\"v=0\"}}",
    };
    for (size_t k = 0; k < sizeof junk / sizeof junk[0]; k++) {
        node_handle_signal(&members[0].node, now, junk[k], strlen(junk[k]));
        settle(0);
    }
    assert_int_equal(members[0].node.stats.signal_malformed, 4);
    assert_int_equal(open_peers(0), 0);
    /* The refused offer left no peer behind. */
    for (int p = 0; p < ZQ_NODE_MAX_PEERS; p++) {
        assert_false(members[0].node.peers[p].used);
    }
}

static void run_echo(unsigned i, uint32_t probes)
{
    members[i].runs_echo = true;
    echo_init(&members[i].echo, &members[i].node, probes);
}

static unsigned long want_messages;

static bool sender_got_reply(void)
{
    return members[1].got_messages >= want_messages;
}

/* Member 1 sends @p len bytes to member 0 (in parts when large) and waits for them back. */
static void round_trip(size_t len, bool binary)
{
    static uint8_t msg[262144];
    for (size_t k = 0; k < len; k++) {
        msg[k] = (uint8_t)(binary ? k * 7 : 'a' + k % 26);
    }
    if (len <= 1000) {
        zq_err_t err;
        while ((err = node_send(&members[1].node, now, 0, msg, len, binary)) ==
               ZQ_ERR_WOULD_BLOCK) {
            run_until(now + 5, NULL);
        }
        assert_int_equal(err, ZQ_OK);
        settle(1);
    }
    size_t done = 0;
    for (bool first = true; len > 1000 && done < len;) {
        size_t n = len - done < 3000 ? len - done : 3000;
        size_t took = 0;
        zq_err_t err = node_send_part(&members[1].node, now, 0, msg + done, n, binary, first,
                                      done + n == len, &took);
        settle(1);
        assert_true(err == ZQ_OK || err == ZQ_ERR_WOULD_BLOCK);
        first = first && took == 0;
        done += took;
        if (took < n) {
            run_until(now + 5, NULL);
        }
    }
    want_messages++;
    run_until(now + 60000, sender_got_reply);
    assert_int_equal(members[1].got_messages, want_messages);
    assert_int_equal(members[1].got_len, len);
    assert_int_equal(members[1].got_binary, binary);
    assert_int_equal(members[1].got_crc, zq_crc32_update(0, msg, len));
}

static void echo_service_returns_every_size_and_kind_through_small_buffers(void **state)
{
    (void)state;
    add_member("echo");
    add_member("echo");
    run_echo(0, 0);
    members[1].quiet = true;
    want_open = 1;
    run_until(now + 30000, mesh_complete);
    assert_true(mesh_complete());
    want_messages = 0;
    static const size_t sizes[] = {0, 1, 1000, 4096, 16383, 16384, 65536, 262144};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        round_trip(sizes[k], false);
        round_trip(sizes[k], true);
    }
    const echo_stats_t *st = &members[0].echo.stats;
    assert_int_equal(st->messages, 16);
    assert_int_equal(st->dropped, 0);
    assert_int_equal(st->oversize, 0);
    printf("    16 messages of 0 B to 256 KiB echoed through %d KiB buffers\n",
           ZQ_PEER_SEND_BUFFER / 1024);
}

static bool both_reported(void)
{
    return members[0].reports == 1 && members[1].reports == 1;
}

static void two_echo_services_probe_each_other(void **state)
{
    (void)state;
    add_member("pair");
    add_member("pair");
    run_echo(0, 20);
    run_echo(1, 20);
    run_until(now + 60000, both_reported);
    for (unsigned i = 0; i < 2; i++) {
        assert_int_equal(members[i].reports, 1);
        assert_int_equal(members[i].report.sent, 20);
        assert_int_equal(members[i].report.back, 20);
        assert_true(members[i].report.rtt_min >= 10); /* 5 ms each way */
        /* the other side's probes were echoed, not counted */
        assert_int_equal(members[i].echo.stats.messages, 20);
    }
}

static bool member1_saw_it_gone(void)
{
    return members[1].gone == 1;
}

static void echo_closes_the_channel_when_asked(void **state)
{
    (void)state;
    add_member("close");
    add_member("close");
    run_echo(0, 0);
    members[1].quiet = true;
    want_open = 1;
    run_until(now + 30000, mesh_complete);
    assert_true(mesh_complete());
    send_text(1, 0, ECHO_CLOSE_COMMAND);
    run_until(now + 10000, member1_saw_it_gone);
    assert_int_equal(members[1].gone, 1);
    assert_int_equal(members[0].echo.stats.closes, 1);
    assert_int_equal(members[0].echo.stats.messages, 0);
    assert_int_equal(open_peers(0), 0);
    assert_int_equal(open_peers(1), 0);
}

static size_t arena_in_use(void)
{
    dtls_arena_stats_t st;
    assert_int_equal(dtls_arena_stats(&st), ZQ_OK);
    return st.in_use;
}

static void reconnect_cycles_return_every_byte_to_the_dtls_arena(void **state)
{
    (void)state;
    size_t baseline = arena_in_use();
    add_member("cycles");
    add_member("cycles");
    want_open = 1;
    for (int cycle = 0; cycle < 20; cycle++) {
        run_until(now + 30000, mesh_complete);
        assert_true(mesh_complete());
        assert_true(arena_in_use() > baseline);
        /* Member 1 goes away and comes back, as a page reload does. */
        node_close(&members[1].node, now);
        settle(1);
        go_offline(1);
        run_until(now + 1000, NULL);
        go_online(1);
    }
    run_until(now + 30000, mesh_complete);
    node_close(&members[0].node, now);
    node_close(&members[1].node, now);
    settle(0);
    settle(1);
    run_until(now + 1000, NULL);
    for (unsigned i = 0; i < 2; i++) {
        for (int k = 0; k < ZQ_NODE_MAX_PEERS; k++) {
            assert_false(members[i].node.peers[k].used || members[i].node.peers[k].draining);
        }
    }
    assert_int_equal(arena_in_use(), baseline);
    printf("    21 connections opened and closed; the DTLS arena is back at %zu bytes (the two "
           "identities)\n",
           baseline);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(three_members_form_a_full_mesh_and_echo, reset),
        cmocka_unit_test_setup(members_of_other_rooms_never_connect, reset),
        cmocka_unit_test_setup(a_member_who_leaves_is_forgotten_and_can_come_back, reset),
        cmocka_unit_test_setup(
            members_left_out_for_want_of_a_slot_are_told_and_no_dial_times_out, reset),
        cmocka_unit_test_setup(a_member_left_out_is_dialed_when_a_slot_frees, reset),
        cmocka_unit_test_setup(a_refusal_from_a_member_we_hold_no_slot_for_is_still_reported,
                               reset),
        cmocka_unit_test_setup(a_member_given_a_slot_leaves_the_wait_list, reset),
        cmocka_unit_test_setup(
            a_full_event_queue_counts_the_refused_events_and_keeps_the_queued_ones, reset),
        cmocka_unit_test_setup(garbage_signalling_is_counted_and_ignored, reset),
        cmocka_unit_test_setup(echo_service_returns_every_size_and_kind_through_small_buffers,
                               reset),
        cmocka_unit_test_setup(two_echo_services_probe_each_other, reset),
        cmocka_unit_test_setup(echo_closes_the_channel_when_asked, reset),
        cmocka_unit_test_setup(reconnect_cycles_return_every_byte_to_the_dtls_arena, reset),
    };
    return cmocka_run_group_tests(tests, dtls_fixture_group_setup, NULL);
}
