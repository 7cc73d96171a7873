/* Rooms shared by several signalling servers (signal/cluster.h): up to six routers on an
 * in-memory bus that delivers in order, and that a test can cut, or make lose messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "signal/cluster.h"
#include "signal/router.h"
#include "zq/json.h"
#include "test_rand.h"

#define SERVERS 6
#define BUS_MAX 4096
#define BUS_PAYLOAD_MAX 4096
#define SENT_MAX 4096
#define SENT_FRAME_MAX 512

typedef struct {
    int from;
    char subject[SIG_CLUSTER_SUBJECT_MAX + 1];
    char payload[BUS_PAYLOAD_MAX];
    size_t len;
} bus_msg_t;

typedef struct {
    unsigned to;
    char frame[SENT_FRAME_MAX];
    size_t len;
} sent_t;

typedef struct {
    sig_router_t router;
    sig_cluster_t cluster;
    test_rand_t rng;
    bool cut;     /* its link to the bus is down: nothing in, nothing out */
    int index;
    sent_t sent[SENT_MAX];
    size_t n_sent;
    size_t n_overflow;
} server_t;

static server_t srv[SERVERS];
static bus_msg_t bus[BUS_MAX];
static size_t bus_head, bus_len;
static const char *lose_type; /* the bus loses messages of this type, if set */
static uint64_t now;

static void publish(void *ctx, const char *subject, const char *payload, size_t len)
{
    server_t *s = ctx;
    if (s->cut || (lose_type != NULL && strstr(payload, lose_type) != NULL)) {
        return;
    }
    assert_true(bus_len < BUS_MAX);
    assert_true(len < BUS_PAYLOAD_MAX);
    bus_msg_t *m = &bus[(bus_head + bus_len++) % BUS_MAX];
    m->from = s->index;
    strcpy(m->subject, subject);
    memcpy(m->payload, payload, len);
    m->len = len;
}

static void record(void *ctx, unsigned client, const char *frame, size_t len)
{
    server_t *s = ctx;
    assert_true(len < SENT_FRAME_MAX);
    if (s->n_sent == SENT_MAX) {
        s->n_overflow++; /* the full-table test's crowded servers: never looked at */
        return;
    }
    sent_t *e = &s->sent[s->n_sent++];
    e->to = client;
    memcpy(e->frame, frame, len);
    e->frame[len] = '\0';
    e->len = len;
}

/* Delivers what is on the bus (and what that makes) to every subscriber of its subject. */
static void pump(void)
{
    while (bus_len > 0) {
        bus_msg_t m = bus[bus_head];
        bus_head = (bus_head + 1) % BUS_MAX;
        bus_len--;
        for (int i = 0; i < SERVERS; i++) {
            server_t *s = &srv[i];
            if (i == m.from || s->cut) {
                continue; /* NATS with echo off: not back to its sender */
            }
            if (strcmp(m.subject, sig_cluster_subject(&s->cluster, SIG_SUBJECT_PRESENCE)) == 0 ||
                strcmp(m.subject, sig_cluster_subject(&s->cluster, SIG_SUBJECT_MINE)) == 0) {
                sig_cluster_message(&s->router, now, m.payload, m.len);
            }
        }
    }
}

/* Runs every server's timers from now until @p until, in 100 ms steps. */
static void run_until(uint64_t until)
{
    while (now < until) {
        now += 100;
        for (int i = 0; i < SERVERS; i++) {
            sig_cluster_timeout(&srv[i].router, now);
        }
        pump();
    }
}

static int setup(void **state)
{
    (void)state;
    memset(srv, 0, sizeof srv);
    bus_head = bus_len = 0;
    lose_type = NULL;
    now = 1000;
    for (int i = 0; i < SERVERS; i++) {
        server_t *s = &srv[i];
        s->index = i;
        zq_rand_t rand = test_rand(&s->rng, 100u + (unsigned)i);
        sig_router_init(&s->router, &rand, record, s);
        assert_int_equal(sig_cluster_init(&s->cluster, &rand, "zq.test", publish, s), ZQ_OK);
        sig_router_attach_cluster(&s->router, &s->cluster);
        sig_cluster_link_up(&s->router, now);
    }
    pump();
    return 0;
}

/* ---- Members ---------------------------------------------------------------------------- */

typedef struct {
    int server;
    unsigned client;
    char id[SIG_ID_LEN + 1];
} member_t;

static const char *field(const sent_t *e, const char *key)
{
    static char out[SENT_FRAME_MAX];
    json_value_t doc;
    json_value_t v;
    assert_int_equal(json_parse(e->frame, e->len, &doc), ZQ_OK);
    if (json_object_get(doc, key, &v) != ZQ_OK) {
        return "";
    }
    assert_int_equal(json_get_string(v, out, sizeof out, NULL), ZQ_OK);
    return out;
}

static member_t connect_to(int server)
{
    member_t m = {.server = server};
    server_t *s = &srv[server];
    assert_int_equal(sig_router_connect(&s->router, now, 1800000000u, NULL, &m.client), ZQ_OK);
    strcpy(m.id, s->router.clients[m.client].id);
    return m;
}

static void say(const member_t *m, const char *frame)
{
    sig_router_frame(&srv[m->server].router, now, m->client, frame, strlen(frame));
    pump();
}

static void join(const member_t *m, const char *room)
{
    char frame[128];
    snprintf(frame, sizeof frame, "{\"type\":\"join\",\"topicId\":\"%s\"}", room);
    say(m, frame);
}

static member_t joined(int server, const char *room)
{
    member_t m = connect_to(server);
    join(&m, room);
    return m;
}

static void leave(const member_t *m)
{
    sig_router_disconnect(&srv[m->server].router, m->client);
    pump();
}

/* Frames of @p type member @p m got that name @p about (NULL: any). */
static size_t heard(const member_t *m, const char *type, const char *about)
{
    const server_t *s = &srv[m->server];
    size_t n = 0;
    for (size_t i = 0; i < s->n_sent; i++) {
        const sent_t *e = &s->sent[i];
        if (e->to == m->client && strcmp(field(e, "type"), type) == 0 &&
            (about == NULL || strcmp(field(e, "peerId"), about) == 0)) {
            n++;
        }
    }
    return n;
}

/* The last frame member @p m got. */
static const sent_t *last_to(const member_t *m)
{
    const server_t *s = &srv[m->server];
    for (size_t i = s->n_sent; i-- > 0;) {
        if (s->sent[i].to == m->client) {
            return &s->sent[i];
        }
    }
    fail_msg("member %s got nothing", m->id);
    return NULL;
}

static void offer(const member_t *from, const member_t *to)
{
    char frame[256];
    snprintf(frame, sizeof frame, "{\"type\":\"offer\",\"peerId\":\"%s\",\"sdp\":\"v=0\"}", to->id);
    say(from, frame);
}

/* ---- Rules ------------------------------------------------------------------------------ */

/* Exactly one of the pair was told to dial the other, after @p before_a and @p before_b. */
static void assert_one_dials(const member_t *a, const member_t *b, size_t before_a,
                             size_t before_b)
{
    size_t by_a = heard(a, "peer_joined", b->id) - before_a;
    size_t by_b = heard(b, "peer_joined", a->id) - before_b;
    assert_int_equal(by_a + by_b, 1);
}

/* ... and it is the one with the smaller id. */
static void assert_smaller_dials(const member_t *a, const member_t *b)
{
    const member_t *lo = strcmp(a->id, b->id) < 0 ? a : b;
    const member_t *hi = lo == a ? b : a;
    assert_int_equal(heard(lo, "peer_joined", hi->id), 1);
    assert_int_equal(heard(hi, "peer_joined", lo->id), 0);
}

static void across_servers_the_smaller_id_dials_once(void **state)
{
    (void)state;
    member_t a = joined(0, "kitchen");
    member_t b = joined(1, "kitchen");
    member_t c = joined(2, "kitchen");
    assert_smaller_dials(&a, &b);
    assert_smaller_dials(&a, &c);
    assert_smaller_dials(&b, &c);
}

static void one_server_keeps_the_newcomer_rule(void **state)
{
    (void)state;
    member_t a = joined(0, "kitchen");
    member_t b = joined(0, "kitchen");
    assert_int_equal(heard(&a, "peer_joined", b.id), 1);
    assert_int_equal(heard(&b, "peer_joined", a.id), 0);
}

/* Two members joining at once on two servers are each the other's newcomer there: only the
 * id rule tells them apart (both dialling left zq.js pages that never connected). */
static void members_joining_at_once_on_two_servers_are_told_once(void **state)
{
    (void)state;
    member_t a = connect_to(0);
    member_t b = connect_to(1);
    const char *join = "{\"type\":\"join\",\"topicId\":\"kitchen\"}";
    sig_router_frame(&srv[0].router, now, a.client, join, strlen(join));
    sig_router_frame(&srv[1].router, now, b.client, join, strlen(join));
    pump(); /* both joins were on the bus before either server heard the other's */
    run_until(now + 2 * SIG_CLUSTER_ROSTER_MS);
    assert_smaller_dials(&a, &b);
}

static void an_offer_crosses_servers_with_peer_id_naming_the_sender(void **state)
{
    (void)state;
    member_t a = joined(0, "kitchen");
    member_t b = joined(1, "kitchen");
    offer(&a, &b);
    const sent_t *got = last_to(&b);
    assert_string_equal(field(got, "type"), "offer");
    assert_string_equal(field(got, "peerId"), a.id);
    assert_string_equal(field(got, "sdp"), "v=0");
    char answer[128];
    snprintf(answer, sizeof answer, "{\"type\":\"answer\",\"peerId\":\"%s\",\"sdp\":\"x\"}", a.id);
    say(&b, answer);
    got = last_to(&a);
    assert_string_equal(field(got, "type"), "answer");
    assert_string_equal(field(got, "peerId"), b.id);
}

static void a_frame_for_a_member_of_another_room_is_dropped(void **state)
{
    (void)state;
    member_t a = joined(0, "kitchen");
    member_t b = joined(1, "garage");
    uint32_t dropped = srv[0].router.dropped_frames;
    size_t b_had = srv[1].n_sent;
    offer(&a, &b);
    assert_int_equal(srv[0].router.dropped_frames, dropped + 1);
    assert_int_equal(srv[1].n_sent, b_had);
}

static void a_frame_for_a_member_that_never_joined_is_dropped(void **state)
{
    (void)state;
    member_t a = joined(0, "kitchen");
    member_t b = connect_to(1);
    size_t b_had = srv[1].n_sent;
    offer(&a, &b);
    assert_int_equal(srv[1].n_sent, b_had);
}

/* Server 0's word to server 1: a relay in room kitchen from @p from to @p to. @return what
 * server 1 sent its members because of it. */
static size_t relay_to_server_1(const member_t *from, const member_t *to)
{
    char msg[512];
    snprintf(msg, sizeof msg,
             "{\"type\":\"relay\",\"server\":\"%s\",\"room\":\"kitchen\",\"to\":\"%s\","
             "\"frame\":{\"type\":\"offer\",\"peerId\":\"%s\"}}",
             srv[0].cluster.self, to->id, from->id);
    size_t had = srv[1].n_sent;
    sig_cluster_message(&srv[1].router, now, msg, strlen(msg));
    return srv[1].n_sent - had;
}

static void a_relay_naming_a_room_its_target_is_not_in_is_dropped(void **state)
{
    (void)state;
    member_t a = joined(0, "kitchen");
    member_t b = joined(1, "garage");
    assert_int_equal(relay_to_server_1(&a, &b), 0);
    assert_int_equal(srv[1].cluster.relay_dropped, 1);
}

static void a_relay_claiming_a_local_id_as_sender_is_dropped(void **state)
{
    (void)state;
    member_t a = joined(1, "kitchen");
    member_t b = joined(1, "kitchen");
    assert_int_equal(relay_to_server_1(&a, &b), 0);
    assert_int_equal(srv[1].cluster.malformed, 1);
}

static void a_dial_naming_a_member_of_ours_as_the_other_is_dropped(void **state)
{
    (void)state;
    member_t a = joined(1, "kitchen");
    char msg[256];
    snprintf(msg, sizeof msg,
             "{\"type\":\"dial\",\"server\":\"%s\",\"room\":\"kitchen\",\"to\":\"%s\","
             "\"peerId\":\"%s\"}",
             srv[0].cluster.self, a.id, a.id);
    size_t had = srv[1].n_sent;
    sig_cluster_message(&srv[1].router, now, msg, strlen(msg));
    assert_int_equal(srv[1].n_sent, had); /* a is not told of itself (fuzz_sig_cluster) */
    assert_int_equal(srv[1].cluster.malformed, 1);
}

static void a_member_that_leaves_is_reported_gone_on_every_server(void **state)
{
    (void)state;
    member_t a = joined(0, "kitchen");
    member_t c = joined(2, "kitchen");
    member_t b = joined(1, "kitchen");
    leave(&b);
    assert_int_equal(heard(&a, "peer_left", b.id), 1);
    assert_int_equal(heard(&c, "peer_left", b.id), 1);
    assert_int_equal(sig_cluster_remote_count(&srv[0].cluster), 1); /* c */
}

static void a_dead_servers_members_are_gone_within_the_dead_time(void **state)
{
    (void)state;
    member_t a = joined(0, "kitchen");
    member_t b = joined(1, "kitchen");
    srv[1].cut = true; /* it dies: nothing more from it */
    uint64_t died = now;
    while (heard(&a, "peer_left", b.id) == 0 && now < died + 10000) {
        run_until(now + 100);
    }
    assert_int_equal(heard(&a, "peer_left", b.id), 1);
    assert_true(now - died <= SIG_CLUSTER_DEAD_MS + 100);
    assert_int_equal(sig_cluster_remote_count(&srv[0].cluster), 0);
    assert_int_equal(srv[0].cluster.servers_lost, 1);
}

static void a_live_server_is_never_taken_as_dead(void **state)
{
    (void)state;
    member_t a = joined(0, "kitchen");
    member_t b = joined(1, "kitchen");
    run_until(now + 60000);
    assert_int_equal(heard(&a, "peer_left", NULL), 0);
    assert_int_equal(heard(&b, "peer_left", NULL), 0);
    assert_int_equal(srv[0].cluster.servers_lost, 0);
}

static void a_lost_joined_is_repaired_by_the_rosters_with_one_side_dialling(void **state)
{
    (void)state;
    member_t a = joined(0, "kitchen");
    lose_type = "\"joined\"";
    member_t b = joined(1, "kitchen");
    lose_type = NULL;
    assert_int_equal(heard(&a, "peer_joined", b.id), 0);
    run_until(now + SIG_CLUSTER_ROSTER_MS + 200);
    assert_one_dials(&a, &b, 0, 0);
    offer(&a, &b); /* and frames go both ways */
    assert_string_equal(field(last_to(&b), "peerId"), a.id);
}

static void a_server_back_from_an_outage_pairs_each_couple_once(void **state)
{
    (void)state;
    member_t a1 = joined(0, "kitchen");
    member_t a2 = joined(0, "kitchen");
    member_t b1 = joined(1, "kitchen");
    member_t b2 = joined(1, "kitchen");
    srv[1].cut = true;
    run_until(now + SIG_CLUSTER_DEAD_MS + 500); /* both sides take the other as gone */
    assert_int_equal(heard(&a1, "peer_left", b1.id), 1);
    assert_int_equal(heard(&b1, "peer_left", a1.id), 1);
    size_t before[4][4];
    const member_t *m[4] = {&a1, &a2, &b1, &b2};
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 4; j++) {
            before[i][j] = heard(m[i], "peer_joined", m[j]->id);
        }
    }
    srv[1].cut = false;
    sig_cluster_link_up(&srv[1].router, now);
    pump();
    run_until(now + 2 * SIG_CLUSTER_ROSTER_MS);
    for (int i = 0; i < 2; i++) {
        for (int j = 2; j < 4; j++) {
            assert_one_dials(m[i], m[j], before[i][j], before[j][i]);
        }
    }
    /* The members of one server heard nothing new about each other. */
    assert_int_equal(heard(&a1, "peer_joined", a2.id), before[0][1]);
    assert_int_equal(heard(&b1, "peer_joined", b2.id), before[2][3]);
}

static void a_short_outage_changes_nothing(void **state)
{
    (void)state;
    member_t a = joined(0, "kitchen");
    member_t b = joined(1, "kitchen");
    srv[1].cut = true;
    run_until(now + SIG_CLUSTER_DEAD_MS - 1000);
    srv[1].cut = false;
    sig_cluster_link_up(&srv[1].router, now);
    pump();
    run_until(now + 2 * SIG_CLUSTER_ROSTER_MS);
    assert_int_equal(heard(&a, "peer_left", NULL) + heard(&b, "peer_left", NULL), 0);
    assert_one_dials(&a, &b, 0, 0);
}

static void a_lost_left_is_repaired_by_the_rosters(void **state)
{
    (void)state;
    member_t a = joined(0, "kitchen");
    member_t b = joined(1, "kitchen");
    lose_type = "\"left\"";
    leave(&b);
    lose_type = NULL;
    assert_int_equal(heard(&a, "peer_left", b.id), 0);
    run_until(now + 4 * SIG_CLUSTER_ROSTER_MS);
    assert_int_equal(heard(&a, "peer_left", b.id), 1);
}

static void a_member_moving_rooms_leaves_the_old_one_everywhere(void **state)
{
    (void)state;
    member_t a = joined(0, "kitchen");
    member_t g = joined(2, "garage");
    member_t b = joined(1, "kitchen");
    join(&b, "garage");
    assert_int_equal(heard(&a, "peer_left", b.id), 1);
    assert_one_dials(&g, &b, 0, 0);
    size_t b_had = srv[1].n_sent;
    offer(&a, &b); /* a's room is not b's any more */
    assert_int_equal(srv[1].n_sent, b_had);
}

static void the_tables_return_to_empty_when_everyone_leaves(void **state)
{
    (void)state;
    member_t m[6];
    for (int i = 0; i < 6; i++) {
        m[i] = joined(i % 3, i % 2 ? "kitchen" : "garage");
    }
    for (int i = 0; i < 6; i++) {
        leave(&m[i]);
    }
    for (int i = 0; i < SERVERS; i++) {
        assert_int_equal(sig_cluster_remote_count(&srv[i].cluster), 0);
        assert_int_equal(sig_router_client_count(&srv[i].router), 0);
    }
}

static void a_full_remote_table_is_counted_and_the_rest_still_works(void **state)
{
    (void)state;
    member_t a = joined(0, "kitchen");
    unsigned per = ZQ_SIG_REMOTE_MAX / (SERVERS - 1) + 1;
    assert_true(per <= ZQ_SIG_MAX_CLIENTS); /* else this build's servers cannot fill it */
    for (int s = 1; s < SERVERS; s++) {
        for (unsigned i = 0; i < per; i++) {
            (void)joined(s, "kitchen");
        }
    }
    assert_int_equal(sig_cluster_remote_count(&srv[0].cluster), ZQ_SIG_REMOTE_MAX);
    assert_true(srv[0].cluster.remote_full >= (SERVERS - 1) * per - ZQ_SIG_REMOTE_MAX);
    assert_int_equal(srv[0].cluster.paired, ZQ_SIG_REMOTE_MAX); /* a, with each it holds */
    assert_true(heard(&a, "peer_joined", NULL) <= ZQ_SIG_REMOTE_MAX);
}

static void malformed_messages_are_counted_and_change_nothing(void **state)
{
    (void)state;
    member_t a = joined(0, "kitchen");
    static const char *const bad[] = {
        "", "{", "[]", "{\"type\":\"joined\"}", "{\"type\":\"joined\",\"server\":\"x\"}",
        "{\"type\":\"what\",\"server\":\"x\"}",
        "{\"type\":\"roster\",\"server\":\"x\",\"room\":\"kitchen\",\"members\":7}",
        "{\"type\":\"joined\",\"server\":\"x\",\"room\":\"kitchen\",\"peerId\":\"a\\u0000b\"}",
        "{\"type\":\"relay\",\"server\":\"x\",\"room\":\"kitchen\",\"to\":\"y\",\"frame\":3}",
        ("{\"type\":\"relay\",\"server\":\"x\",\"room\":\"kitchen\",\"to\":\"y\","
         "\"frame\":{\"type\":\"welcome\",\"peerId\":\"z\"}}"), /* one string */
    };
    size_t had = srv[0].n_sent;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sig_cluster_message(&srv[0].router, now, bad[i], strlen(bad[i]));
    }
    assert_int_equal(srv[0].cluster.malformed, sizeof bad / sizeof bad[0]);
    assert_int_equal(srv[0].n_sent, had);
    (void)a;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(across_servers_the_smaller_id_dials_once, setup),
        cmocka_unit_test_setup(one_server_keeps_the_newcomer_rule, setup),
        cmocka_unit_test_setup(members_joining_at_once_on_two_servers_are_told_once, setup),
        cmocka_unit_test_setup(an_offer_crosses_servers_with_peer_id_naming_the_sender, setup),
        cmocka_unit_test_setup(a_frame_for_a_member_of_another_room_is_dropped, setup),
        cmocka_unit_test_setup(a_frame_for_a_member_that_never_joined_is_dropped, setup),
        cmocka_unit_test_setup(a_relay_naming_a_room_its_target_is_not_in_is_dropped, setup),
        cmocka_unit_test_setup(a_relay_claiming_a_local_id_as_sender_is_dropped, setup),
        cmocka_unit_test_setup(a_dial_naming_a_member_of_ours_as_the_other_is_dropped, setup),
        cmocka_unit_test_setup(a_member_that_leaves_is_reported_gone_on_every_server, setup),
        cmocka_unit_test_setup(a_dead_servers_members_are_gone_within_the_dead_time, setup),
        cmocka_unit_test_setup(a_live_server_is_never_taken_as_dead, setup),
        cmocka_unit_test_setup(a_lost_joined_is_repaired_by_the_rosters_with_one_side_dialling,
                               setup),
        cmocka_unit_test_setup(a_server_back_from_an_outage_pairs_each_couple_once, setup),
        cmocka_unit_test_setup(a_short_outage_changes_nothing, setup),
        cmocka_unit_test_setup(a_lost_left_is_repaired_by_the_rosters, setup),
        cmocka_unit_test_setup(a_member_moving_rooms_leaves_the_old_one_everywhere, setup),
        cmocka_unit_test_setup(the_tables_return_to_empty_when_everyone_leaves, setup),
        cmocka_unit_test_setup(a_full_remote_table_is_counted_and_the_rest_still_works, setup),
        cmocka_unit_test_setup(malformed_messages_are_counted_and_change_nothing, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
