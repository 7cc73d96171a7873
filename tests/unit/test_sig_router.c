/* The signalling server's room router: ids, rooms, forwarding, bounds (signal/router.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "psa/crypto.h"
#include "zq/base64.h"
#include "zq/json.h"
#include "signal/router.h"
#include "signal/sig_client.h"
#include "test_rand.h"

/* Every frame the router sends, in order, with its addressee. */
#define SENT_MAX 8192
#define SENT_FRAME_MAX 512

typedef struct {
    unsigned to;
    char frame[SENT_FRAME_MAX];
    size_t len;
} sent_t;

typedef struct {
    sig_router_t router;
    test_rand_t rng;
    sent_t sent[SENT_MAX];
    size_t n_sent;
    size_t n_overflow;
} fixture_t;

static fixture_t fx;

static void record(void *ctx, unsigned client, const char *frame, size_t len)
{
    fixture_t *f = ctx;
    if (f->n_sent == SENT_MAX || len >= SENT_FRAME_MAX) {
        f->n_overflow++;
        return;
    }
    sent_t *s = &f->sent[f->n_sent++];
    s->to = client;
    memcpy(s->frame, frame, len);
    s->frame[len] = '\0';
    s->len = len;
}

static int setup(void **state)
{
    (void)state;
    memset(&fx, 0, sizeof fx);
    zq_rand_t rand = test_rand(&fx.rng, 7);
    sig_router_init(&fx.router, &rand, record, &fx);
    return 0;
}

/* The wall clock the tests' clients connect at, Unix seconds (2027-01-15). */
#define NOW_UNIX 1800000000u

static unsigned connect_client_at(uint64_t unix_s, const char *token)
{
    unsigned c = 0;
    assert_int_equal(sig_router_connect(&fx.router, 0, unix_s, token, &c), ZQ_OK);
    return c;
}

static unsigned connect_client(const char *token)
{
    return connect_client_at(NOW_UNIX, token);
}

static void say(unsigned client, const char *frame)
{
    sig_router_frame(&fx.router, 0, client, frame, strlen(frame));
}

static void join(unsigned client, const char *room)
{
    char frame[256];
    snprintf(frame, sizeof frame, "{\"type\":\"join\",\"topicId\":\"%s\"}", room);
    say(client, frame);
}

/* The string member @p key of a recorded frame. */
static const char *member(const sent_t *s, const char *key)
{
    static char out[SENT_FRAME_MAX];
    json_value_t doc;
    json_value_t v;
    assert_int_equal(json_parse(s->frame, s->len, &doc), ZQ_OK);
    if (json_object_get(doc, key, &v) != ZQ_OK) {
        return NULL;
    }
    assert_int_equal(json_get_string(v, out, sizeof out, NULL), ZQ_OK);
    return out;
}

/* The id the router gave @p client in its welcome. */
static const char *id_of(unsigned client)
{
    static char ids[4][SIG_ID_LEN + 1];
    static unsigned next;
    for (size_t i = 0; i < fx.n_sent; i++) {
        if (fx.sent[i].to == client && strcmp(member(&fx.sent[i], "type"), "welcome") == 0) {
            char *out = ids[next++ % 4];
            strcpy(out, member(&fx.sent[i], "peerId"));
            return out;
        }
    }
    fail_msg("client %u got no welcome", client);
    return NULL;
}

static size_t count_to(unsigned client, const char *type)
{
    size_t n = 0;
    for (size_t i = 0; i < fx.n_sent; i++) {
        n += fx.sent[i].to == client && strcmp(member(&fx.sent[i], "type"), type) == 0;
    }
    return n;
}

static const sent_t *last_to(unsigned client)
{
    for (size_t i = fx.n_sent; i-- > 0;) {
        if (fx.sent[i].to == client) {
            return &fx.sent[i];
        }
    }
    return NULL;
}

static void welcome_gives_each_client_a_distinct_22_char_id(void **state)
{
    (void)state;
    unsigned a = connect_client(NULL);
    unsigned b = connect_client(NULL);
    const char *ida = id_of(a);
    const char *idb = id_of(b);
    assert_int_equal(strlen(ida), SIG_ID_LEN);
    assert_int_equal(strlen(idb), SIG_ID_LEN);
    assert_string_not_equal(ida, idb);
    for (const char *p = ida; *p; p++) {
        assert_non_null(strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
                               *p));
    }
}

static void join_tells_only_existing_members_so_exactly_one_side_dials(void **state)
{
    (void)state;
    unsigned a = connect_client(NULL);
    unsigned b = connect_client(NULL);
    unsigned c = connect_client(NULL);
    join(a, "room");
    assert_int_equal(count_to(a, "peer_joined"), 0);
    join(b, "room");
    assert_int_equal(count_to(a, "peer_joined"), 1);
    assert_string_equal(member(last_to(a), "peerId"), id_of(b));
    assert_int_equal(count_to(b, "peer_joined"), 0); /* the newcomer waits to be dialed */
    join(c, "room");
    assert_int_equal(count_to(a, "peer_joined"), 2);
    assert_int_equal(count_to(b, "peer_joined"), 1);
    assert_int_equal(count_to(c, "peer_joined"), 0);
}

static void joining_the_same_room_again_says_nothing_new(void **state)
{
    (void)state;
    unsigned a = connect_client(NULL);
    unsigned b = connect_client(NULL);
    join(a, "room");
    join(b, "room");
    join(b, "room"); /* ZeroQ re-sends join after every reconnect */
    assert_int_equal(count_to(a, "peer_joined"), 1);
}

static void rooms_are_isolated(void **state)
{
    (void)state;
    unsigned a = connect_client(NULL);
    unsigned b = connect_client(NULL);
    join(a, "red");
    join(b, "blue");
    assert_int_equal(count_to(a, "peer_joined"), 0);
    assert_int_equal(count_to(b, "peer_joined"), 0);
    char frame[256];
    snprintf(frame, sizeof frame,
             "{\"type\":\"offer\",\"peerId\":\"%s\",\"sdp\":{\"type\":\"offer\",\"sdp\":\"v=0\"}}",
             id_of(b));
    size_t before = fx.n_sent;
    say(a, frame);
    assert_int_equal(fx.n_sent, before);
    assert_int_equal(fx.router.dropped_frames, 1);
}

static void switching_rooms_tells_the_old_room_peer_left(void **state)
{
    (void)state;
    unsigned a = connect_client(NULL);
    unsigned b = connect_client(NULL);
    join(a, "red");
    join(b, "red");
    join(b, "blue");
    assert_int_equal(count_to(a, "peer_left"), 1);
    assert_string_equal(member(last_to(a), "peerId"), id_of(b));
}

static void forwarded_frames_name_the_sender_and_keep_every_other_member(void **state)
{
    (void)state;
    unsigned a = connect_client(NULL);
    unsigned b = connect_client(NULL);
    join(a, "room");
    join(b, "room");
    char frame[512];
    snprintf(frame, sizeof frame,
             "{\"type\":\"ice_candidate\",\"peerId\":\"%s\",\"candidate\":{\"candidate\":"
             "\"candidate:1 1 udp 2122260223 127.0.0.1 5000 typ host\",\"sdpMid\":\"0\","
             "\"sdpMLineIndex\":0,\"usernameFragment\":\"abcd\"},\"extra\":[1,{\"x\":null}]}",
             id_of(b));
    say(a, frame);
    const sent_t *s = last_to(b);
    assert_non_null(s);
    assert_string_equal(member(s, "type"), "ice_candidate");
    assert_string_equal(member(s, "peerId"), id_of(a)); /* rewritten to the sender */
    assert_non_null(strstr(s->frame, "\"candidate\":{\"candidate\":\"candidate:1 1 udp "
                                     "2122260223 127.0.0.1 5000 typ host\",\"sdpMid\":\"0\","
                                     "\"sdpMLineIndex\":0,\"usernameFragment\":\"abcd\"}"));
    assert_non_null(strstr(s->frame, "\"extra\":[1,{\"x\":null}]"));
}

/* Three clients connect and join @p room, in order. */
static void three_join(const char *room, unsigned out[3])
{
    for (int i = 0; i < 3; i++) {
        out[i] = connect_client(NULL);
    }
    for (int i = 0; i < 3; i++) {
        join(out[i], room);
    }
}

static void offer_and_answer_reach_the_addressed_peer_only(void **state)
{
    (void)state;
    unsigned m[3];
    three_join("room", m);
    unsigned a = m[0], b = m[1], c = m[2];
    char frame[256];
    snprintf(frame, sizeof frame,
             "{\"type\":\"offer\",\"peerId\":\"%s\",\"sdp\":{\"type\":\"offer\",\"sdp\":\"v=0\\r\\n\"}}",
             id_of(c));
    size_t c_before = count_to(c, "offer");
    say(a, frame);
    assert_int_equal(count_to(c, "offer"), c_before + 1);
    assert_int_equal(count_to(b, "offer"), 0);
    snprintf(frame, sizeof frame,
             "{\"type\":\"answer\",\"peerId\":\"%s\",\"sdp\":{\"type\":\"answer\",\"sdp\":\"v=0\"}}",
             id_of(a));
    say(c, frame);
    assert_int_equal(count_to(a, "answer"), 1);
    assert_string_equal(member(last_to(a), "peerId"), id_of(c));
}

/* zq's `refused` (a node full for now tells the member it left out) travels like an offer:
 * to the addressed member only, naming the member that refused. */
static void a_refusal_reaches_the_member_left_out_naming_who_refused(void **state)
{
    (void)state;
    unsigned m[3];
    three_join("room", m);
    unsigned full = m[0], other = m[1], newcomer = m[2];
    char frame[256];
    size_t len = sig_write_refused(id_of(newcomer), "full", frame, sizeof frame);
    assert_true(len > 0);
    sig_router_frame(&fx.router, 0, full, frame, len);
    assert_int_equal(count_to(newcomer, "refused"), 1);
    assert_int_equal(count_to(other, "refused"), 0);
    const sent_t *got = last_to(newcomer);
    sig_event_t ev;
    assert_int_equal(sig_parse_frame(got->frame, got->len, &ev), ZQ_OK);
    assert_int_equal(ev.type, SIG_EVENT_REFUSED);
    assert_string_equal(ev.peer, id_of(full));
    assert_string_equal(ev.text, "full");
}

static void self_addressed_frames_are_dropped(void **state)
{
    (void)state;
    unsigned a = connect_client(NULL);
    join(a, "room");
    char frame[256];
    snprintf(frame, sizeof frame,
             "{\"type\":\"offer\",\"peerId\":\"%s\",\"sdp\":{\"type\":\"offer\",\"sdp\":\"v=0\"}}",
             id_of(a));
    size_t before = fx.n_sent;
    say(a, frame);
    assert_int_equal(fx.n_sent, before);
    assert_int_equal(fx.router.dropped_frames, 1);
}

static void frames_to_unknown_or_nul_smuggling_ids_are_dropped(void **state)
{
    (void)state;
    unsigned a = connect_client(NULL);
    unsigned b = connect_client(NULL);
    join(a, "room");
    join(b, "room");
    size_t before = fx.n_sent;
    say(a, "{\"type\":\"offer\",\"peerId\":\"nobody\",\"sdp\":{}}");
    char frame[256];
    snprintf(frame, sizeof frame, "{\"type\":\"offer\",\"peerId\":\"%s\\u0000x\",\"sdp\":{}}",
             id_of(b));
    say(a, frame);
    say(a, "{\"type\":\"offer\",\"peerId\":42}");
    say(a, "{\"type\":\"offer\"}");
    assert_int_equal(fx.n_sent, before);
    assert_int_equal(fx.router.dropped_frames, 4);
}

static void members_who_have_not_joined_cannot_forward(void **state)
{
    (void)state;
    unsigned a = connect_client(NULL);
    unsigned b = connect_client(NULL);
    join(b, "room");
    char frame[256];
    snprintf(frame, sizeof frame, "{\"type\":\"offer\",\"peerId\":\"%s\",\"sdp\":{}}", id_of(b));
    size_t before = fx.n_sent;
    say(a, frame);
    assert_int_equal(fx.n_sent, before);
}

static void garbage_and_oversized_frames_are_dropped_without_harming_others(void **state)
{
    (void)state;
    unsigned a = connect_client(NULL);
    unsigned b = connect_client(NULL);
    unsigned bad = connect_client(NULL);
    join(a, "room");
    join(b, "room");
    join(bad, "room");
    static const char *garbage[] = {
        "", "{", "[]", "null", "\"join\"", "{\"type\":1}", "{\"topicId\":\"room\"}",
        "{\"type\":\"join\"}", "{\"type\":\"join\",\"topicId\":\"\"}",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
        "{\"type\":\"join\",\"topicId\":\"\xff\xfe\"}", "{\"type\":\"join\",\"topicId\":\"room\"} x",
    };
    for (size_t i = 0; i < sizeof garbage / sizeof garbage[0]; i++) {
        say(bad, garbage[i]);
    }
    /* A room name longer than the router keeps, and a frame too big to re-write. */
    char big[ZQ_SIG_FRAME_MAX + 64];
    int n = snprintf(big, sizeof big, "{\"type\":\"join\",\"topicId\":\"");
    memset(big + n, 'r', ZQ_SIG_ROOM_MAX + 1);
    strcpy(big + n + ZQ_SIG_ROOM_MAX + 1, "\"}");
    say(bad, big);
    n = snprintf(big, sizeof big, "{\"type\":\"offer\",\"peerId\":\"%s\",\"sdp\":\"", id_of(a));
    memset(big + n, 's', sizeof big - (size_t)n - 3);
    strcpy(big + sizeof big - 3, "\"}");
    size_t a_before = count_to(a, "offer");
    say(bad, big);
    assert_int_equal(count_to(a, "offer"), a_before);
    assert_true(fx.router.dropped_frames >= 10);

    /* The others still talk. */
    char frame[256];
    snprintf(frame, sizeof frame, "{\"type\":\"offer\",\"peerId\":\"%s\",\"sdp\":{}}", id_of(b));
    say(a, frame);
    assert_int_equal(count_to(b, "offer"), 1);
    assert_int_equal(sig_router_client_count(&fx.router), 3);
}

static void leaving_tells_the_room_peer_left(void **state)
{
    (void)state;
    unsigned a = connect_client(NULL);
    unsigned b = connect_client(NULL);
    unsigned outsider = connect_client(NULL);
    join(a, "room");
    join(b, "room");
    join(outsider, "elsewhere");
    char idb[SIG_ID_LEN + 1];
    strcpy(idb, id_of(b));
    sig_router_disconnect(&fx.router, b);
    assert_int_equal(count_to(a, "peer_left"), 1);
    assert_string_equal(member(last_to(a), "peerId"), idb);
    assert_int_equal(count_to(outsider, "peer_left"), 0);
    sig_router_disconnect(&fx.router, b); /* twice: nothing more */
    assert_int_equal(count_to(a, "peer_left"), 1);
}

static void two_hundred_clients_join_and_leave_and_the_tables_return_to_empty(void **state)
{
    (void)state;
    enum { N = 200, ROOMS = 5 };
    unsigned ids[N];
    for (unsigned i = 0; i < N; i++) {
        ids[i] = connect_client(NULL);
        char room[16];
        snprintf(room, sizeof room, "room-%u", i % ROOMS);
        join(ids[i], room);
    }
    assert_int_equal(sig_router_client_count(&fx.router), N);
    /* Member k of a room hears peer_joined from every later member of its room. */
    for (unsigned i = 0; i < N; i++) {
        assert_int_equal(count_to(ids[i], "peer_joined"), (N - 1 - i) / ROOMS);
    }
    for (unsigned i = 0; i < N; i++) {
        sig_router_disconnect(&fx.router, ids[i]);
    }
    assert_int_equal(sig_router_client_count(&fx.router), 0);
    for (unsigned i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
        assert_false(fx.router.clients[i].used);
        assert_false(fx.router.clients[i].joined);
    }
    assert_int_equal(fx.n_overflow, 0);
}

static void a_full_client_table_refuses_cleanly(void **state)
{
    (void)state;
    for (unsigned i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
        (void)connect_client(NULL);
    }
    unsigned c;
    assert_int_equal(sig_router_connect(&fx.router, 0, NOW_UNIX, NULL, &c), ZQ_ERR_CAPACITY);
    sig_router_disconnect(&fx.router, 3);
    assert_int_equal(sig_router_connect(&fx.router, 0, NOW_UNIX, NULL, &c), ZQ_OK);
    assert_int_equal(c, 3);
}

/* The names of @p kind listed for @p room (NULL: every room), comma-separated. */
static const char *listed(const char *room, sig_name_kind_t kind)
{
    static char out[1024];
    sig_name_cursor_t cur = {0, 0};
    const char *name;
    out[0] = '\0';
    while ((name = sig_router_next_name(&fx.router, room, kind, &cur)) != NULL) {
        if (out[0] != '\0') {
            strcat(out, ",");
        }
        assert_true(strlen(out) + strlen(name) < sizeof out);
        strcat(out, name);
    }
    return out;
}

static void bookkeeping_frames_list_a_members_names_once_and_make_no_member(void **state)
{
    (void)state;
    unsigned member_a = connect_client(NULL);
    unsigned books = connect_client(NULL);
    join(member_a, "default-topic");
    join(books, "default-topic");
    say(books, "{\"type\":\"create_topic\",\"topic\":\"news\"}");
    say(books, "{\"type\":\"subscribe\",\"topic\":\"news\"}");
    say(books, "{\"type\":\"subscribe\",\"topic\":\"rpc.reply\"}");
    say(books, "{\"type\":\"create_queue\",\"queue\":\"jobs\"}");
    say(books, "{\"type\":\"consume\",\"queue\":\"jobs\"}");
    say(member_a, "{\"type\":\"subscribe\",\"topic\":\"news\"}");
    assert_int_equal(count_to(member_a, "peer_joined"), 1); /* books only: nothing else */
    assert_string_equal(listed("default-topic", SIG_NAME_TOPIC), "news,rpc.reply");
    assert_string_equal(listed("default-topic", SIG_NAME_QUEUE), "jobs");
    assert_int_equal(fx.router.dropped_names, 0);
}

static void a_socket_that_has_not_joined_lists_nothing(void **state)
{
    (void)state;
    unsigned member = connect_client(NULL);
    unsigned stranger = connect_client(NULL);
    join(member, "lab");
    uint32_t epoch = fx.router.names_epoch;
    say(stranger, "{\"type\":\"create_topic\",\"topic\":\"spam\"}");
    say(stranger, "{\"type\":\"consume\",\"queue\":\"spam\"}");
    assert_string_equal(listed(NULL, SIG_NAME_TOPIC), "");
    assert_string_equal(listed(NULL, SIG_NAME_QUEUE), "");
    assert_int_equal(fx.router.dropped_names, 2);
    assert_int_equal(fx.router.names_epoch, epoch);
}

static void each_room_lists_only_its_own_members_names(void **state)
{
    (void)state;
    unsigned a = connect_client(NULL);
    unsigned b = connect_client(NULL);
    unsigned c = connect_client(NULL);
    join(a, "lab");
    join(b, "lab");
    join(c, "home");
    say(a, "{\"type\":\"subscribe\",\"topic\":\"temp\"}");
    say(b, "{\"type\":\"subscribe\",\"topic\":\"temp\"}");
    say(b, "{\"type\":\"subscribe\",\"topic\":\"alarm\"}");
    say(c, "{\"type\":\"subscribe\",\"topic\":\"door\"}");
    say(c, "{\"type\":\"subscribe\",\"topic\":\"temp\"}");
    assert_string_equal(listed("lab", SIG_NAME_TOPIC), "temp,alarm");
    assert_string_equal(listed("home", SIG_NAME_TOPIC), "door,temp");
    assert_string_equal(listed("attic", SIG_NAME_TOPIC), "");
    assert_string_equal(listed(NULL, SIG_NAME_TOPIC), "temp,alarm,door");
}

static void names_leave_the_lists_with_their_member(void **state)
{
    (void)state;
    unsigned a = connect_client(NULL);
    unsigned b = connect_client(NULL);
    join(a, "lab");
    join(b, "lab");
    say(a, "{\"type\":\"subscribe\",\"topic\":\"temp\"}");
    say(b, "{\"type\":\"create_queue\",\"queue\":\"jobs\"}");
    uint32_t epoch = fx.router.names_epoch;
    join(a, "home"); /* what it announced belonged to the room it left */
    assert_string_equal(listed("lab", SIG_NAME_TOPIC), "");
    assert_string_equal(listed("home", SIG_NAME_TOPIC), "");
    assert_true(fx.router.names_epoch != epoch);
    epoch = fx.router.names_epoch;
    sig_router_disconnect(&fx.router, b);
    assert_string_equal(listed(NULL, SIG_NAME_QUEUE), "");
    assert_true(fx.router.names_epoch != epoch);
    /* 1000 members come, announce, and go: the lists never fill. */
    for (unsigned i = 0; i < 1000; i++) {
        unsigned m = connect_client(NULL);
        char name[16];
        char frame[96];
        snprintf(name, sizeof name, "t%u", i);
        snprintf(frame, sizeof frame, "{\"type\":\"create_topic\",\"topic\":\"%s\"}", name);
        join(m, "lab");
        say(m, frame);
        assert_string_equal(listed("lab", SIG_NAME_TOPIC), name);
        sig_router_disconnect(&fx.router, m);
    }
    assert_int_equal(fx.router.dropped_names, 0);
}

static void a_member_announcing_beyond_its_share_is_counted_not_listed(void **state)
{
    (void)state;
    unsigned a = connect_client(NULL);
    join(a, "lab");
    for (unsigned i = 0; i < ZQ_SIG_NAMES_PER_MEMBER + 3; i++) {
        char frame[96];
        snprintf(frame, sizeof frame, "{\"type\":\"subscribe\",\"topic\":\"t%u\"}", i);
        say(a, frame);
    }
    assert_int_equal(fx.router.dropped_names, 3);
    unsigned n = 0;
    sig_name_cursor_t cur = {0, 0};
    while (sig_router_next_name(&fx.router, "lab", SIG_NAME_TOPIC, &cur) != NULL) {
        n++;
    }
    assert_int_equal(n, ZQ_SIG_NAMES_PER_MEMBER);
}

static void rooms_with_a_key_need_the_hmac_token_of_that_room(void **state)
{
    (void)state;
    static const uint8_t key[] = "operator secret";
    sig_router_require_tokens(&fx.router, key, sizeof key - 1);
    char good[SIG_TOKEN_TEXT_MAX + 1];
    char other[SIG_TOKEN_TEXT_MAX + 1];
    sig_room_token(key, sizeof key - 1, "room", NOW_UNIX + 60, good);
    sig_room_token(key, sizeof key - 1, "other", NOW_UNIX + 60, other);
    unsigned a = connect_client(good);
    unsigned b = connect_client(good);
    unsigned wrong = connect_client(other);
    unsigned none = connect_client(NULL);
    unsigned junk = connect_client("zz");
    join(a, "room");
    join(b, "room");
    join(wrong, "room");
    join(none, "room");
    join(junk, "room");
    assert_int_equal(count_to(a, "peer_joined"), 1); /* b only */
    assert_int_equal(fx.router.refused_joins, 3);
    assert_int_equal(count_to(wrong, "error"), 1);
    assert_int_equal(count_to(none, "error"), 1);
}

static void a_token_stops_opening_its_room_at_its_expiry(void **state)
{
    (void)state;
    static const uint8_t key[] = "operator secret";
    sig_router_require_tokens(&fx.router, key, sizeof key - 1);
    char t[SIG_TOKEN_TEXT_MAX + 1];
    sig_room_token(key, sizeof key - 1, "room", NOW_UNIX + 60, t);
    unsigned before = connect_client_at(NOW_UNIX + 59, t);
    unsigned at = connect_client_at(NOW_UNIX + 60, t);
    join(before, "room");
    join(at, "room");
    assert_int_equal(count_to(at, "error"), 1);
    assert_int_equal(fx.router.refused_joins, 1);
    assert_true(sig_router_token_opens(&fx.router, t, "room", NOW_UNIX + 59));
    assert_false(sig_router_token_opens(&fx.router, t, "room", NOW_UNIX + 60));
    assert_false(sig_router_token_opens(&fx.router, t, "other", NOW_UNIX));
    assert_false(sig_router_token_opens(&fx.router, NULL, "room", NOW_UNIX));
}

static void a_token_with_its_expiry_changed_or_mangled_opens_nothing(void **state)
{
    (void)state;
    static const uint8_t key[] = "operator secret";
    sig_router_require_tokens(&fx.router, key, sizeof key - 1);
    char t[SIG_TOKEN_TEXT_MAX + 1];
    char forged[SIG_TOKEN_TEXT_MAX + 8];
    sig_room_token(key, sizeof key - 1, "room", NOW_UNIX + 60, t);
    const char *mac = strchr(t, '.');
    assert_non_null(mac);
    snprintf(forged, sizeof forged, "%u%s", NOW_UNIX + 86400, mac); /* a later expiry */
    assert_false(sig_router_token_opens(&fx.router, forged, "room", NOW_UNIX));
    snprintf(forged, sizeof forged, "0%s", t); /* the same number, spelt another way */
    assert_false(sig_router_token_opens(&fx.router, forged, "room", NOW_UNIX));
    assert_false(sig_router_token_opens(&fx.router, mac, "room", NOW_UNIX)); /* no expiry */
    assert_false(sig_router_token_opens(&fx.router, mac + 1, "room", NOW_UNIX)); /* v0 form */
    snprintf(forged, sizeof forged, "99999999999999999999%s", mac); /* past UINT64_MAX */
    assert_false(sig_router_token_opens(&fx.router, forged, "room", NOW_UNIX));
    snprintf(forged, sizeof forged, "%s0", t); /* one hex digit too many */
    assert_false(sig_router_token_opens(&fx.router, forged, "room", NOW_UNIX));
    snprintf(forged, sizeof forged, "%.*sx", (int)strlen(t) - 1, t);
    assert_false(sig_router_token_opens(&fx.router, forged, "room", NOW_UNIX));
    assert_true(sig_router_token_opens(&fx.router, t, "room", NOW_UNIX));
}

static void a_token_is_its_expiry_and_an_hmac_over_label_room_and_expiry(void **state)
{
    (void)state;
    /* Checked against OpenSSL: printf 'zq-room-token-v1\nlab\n1800000000' |
     * openssl dgst -sha256 -hmac Jefe */
    char t[SIG_TOKEN_TEXT_MAX + 1];
    sig_room_token((const uint8_t *)"Jefe", 4, "lab", 1800000000u, t);
    assert_string_equal(t, "1800000000."
                           "d27cd8af948b7977f68288ba9a4caccbb31a2253d2513357a98d4a1e1eaf7b8b");
    sig_room_token((const uint8_t *)"Jefe", 4, "lab", UINT64_MAX, t);
    assert_int_equal(strlen(t), SIG_TOKEN_TEXT_MAX);
}

/* Element @p i of array @p arr. */
static json_value_t element(json_value_t arr, unsigned i)
{
    json_iter_t it;
    json_value_t v;
    json_iter_init(&it, arr);
    for (unsigned k = 0; k <= i; k++) {
        assert_true(json_iter_next(&it, NULL, &v));
    }
    return v;
}

/* HMAC-SHA1 by PSA's MAC API, not zq's (core/hmac.c): the credential's check. */
static void hmac_sha1_psa(const char *key, const char *msg, uint8_t mac[20])
{
    assert_int_equal(psa_crypto_init(), PSA_SUCCESS);
    psa_key_attributes_t attr = PSA_KEY_ATTRIBUTES_INIT;
    psa_set_key_type(&attr, PSA_KEY_TYPE_HMAC);
    psa_set_key_usage_flags(&attr, PSA_KEY_USAGE_SIGN_MESSAGE);
    psa_set_key_algorithm(&attr, PSA_ALG_HMAC(PSA_ALG_SHA_1));
    psa_key_id_t id;
    assert_int_equal(psa_import_key(&attr, (const uint8_t *)key, strlen(key), &id), PSA_SUCCESS);
    size_t n;
    assert_int_equal(psa_mac_compute(id, PSA_ALG_HMAC(PSA_ALG_SHA_1), (const uint8_t *)msg,
                                     strlen(msg), mac, 20, &n),
                     PSA_SUCCESS);
    assert_int_equal(n, 20);
    (void)psa_destroy_key(id);
}

static void members_get_turn_credentials_as_they_join_and_strangers_none(void **state)
{
    (void)state;
    static const char secret[] = "coturn static-auth-secret";
    static const char *const urls[] = {"turn:192.0.2.1:3478", "turns:192.0.2.1:443?transport=tcp"};
    sig_router_offer_ice_servers(&fx.router, urls, 2, (const uint8_t *)secret, sizeof secret - 1,
                                 3600);
    static const uint8_t key[] = "k";
    sig_router_require_tokens(&fx.router, key, 1);
    char token[SIG_TOKEN_TEXT_MAX + 1];
    sig_room_token(key, 1, "lab", NOW_UNIX + 60, token);
    unsigned joiner = connect_client(token);
    unsigned stranger = connect_client(NULL);
    sig_router_frame(&fx.router, 5000, joiner, "{\"type\":\"join\",\"topicId\":\"lab\"}", 31);
    join(stranger, "lab"); /* refused: no token */
    assert_int_equal(count_to(stranger, "ice_servers"), 0);
    assert_int_equal(count_to(joiner, "ice_servers"), 1);
    const sent_t *f = last_to(joiner);
    assert_string_equal(member(f, "type"), "ice_servers");
    json_value_t doc, list, server, v;
    assert_int_equal(json_parse(f->frame, f->len, &doc), ZQ_OK);
    assert_int_equal(json_object_get(doc, "iceServers", &list), ZQ_OK);
    server = element(list, 0);
    char user[64], credential[64], url[64];
    assert_int_equal(json_object_get(server, "username", &v), ZQ_OK);
    assert_int_equal(json_get_string(v, user, sizeof user, NULL), ZQ_OK);
    assert_int_equal(json_object_get(server, "credential", &v), ZQ_OK);
    assert_int_equal(json_get_string(v, credential, sizeof credential, NULL), ZQ_OK);
    assert_int_equal(json_object_get(server, "urls", &v), ZQ_OK);
    assert_int_equal(json_get_string(element(v, 1), url, sizeof url, NULL), ZQ_OK);
    assert_string_equal(url, urls[1]);
    /* Joined 5 s after connecting at NOW_UNIX: good for an hour from then, in its own name. */
    char want_user[64];
    snprintf(want_user, sizeof want_user, "%u:%s", NOW_UNIX + 5 + 3600, id_of(joiner));
    assert_string_equal(user, want_user);
    uint8_t mac[20];
    hmac_sha1_psa(secret, user, mac);
    uint8_t got[20];
    size_t got_len;
    assert_int_equal(zq_base64_decode(credential, strlen(credential), got, sizeof got, &got_len),
                     ZQ_OK);
    assert_int_equal(got_len, 20);
    assert_memory_equal(got, mac, 20);
    /* The ice_servers frame comes before anyone is told to dial the member. */
    unsigned later = connect_client(token);
    join(later, "lab");
    assert_int_equal(count_to(later, "ice_servers"), 1);
}

/* The username of the last ice_servers frame to @p c. */
static void last_turn_user(unsigned c, char *user, size_t cap)
{
    const sent_t *f = last_to(c);
    json_value_t doc, list, v;
    assert_string_equal(member(f, "type"), "ice_servers");
    assert_int_equal(json_parse(f->frame, f->len, &doc), ZQ_OK);
    assert_int_equal(json_object_get(doc, "iceServers", &list), ZQ_OK);
    assert_int_equal(json_object_get(element(list, 0), "username", &v), ZQ_OK);
    assert_int_equal(json_get_string(v, user, cap, NULL), ZQ_OK);
}

static void a_member_that_stays_gets_fresh_credentials_at_half_their_life(void **state)
{
    (void)state;
    static const char secret[] = "s";
    static const char *const urls[] = {"turn:192.0.2.1:3478"};
    sig_router_offer_ice_servers(&fx.router, urls, 1, (const uint8_t *)secret, 1, 600);
    unsigned a = connect_client(NULL);
    unsigned stranger = connect_client(NULL);
    join(a, "lab"); /* at 0 ms: good until NOW_UNIX + 600 */
    sig_router_refresh_ice_servers(&fx.router, 299999);
    assert_int_equal(count_to(a, "ice_servers"), 1);
    sig_router_refresh_ice_servers(&fx.router, 300000); /* half of 600 s */
    assert_int_equal(count_to(a, "ice_servers"), 2);
    char user[64], want[64];
    last_turn_user(a, user, sizeof user);
    snprintf(want, sizeof want, "%u:%s", NOW_UNIX + 300 + 600, id_of(a));
    assert_string_equal(user, want);
    sig_router_refresh_ice_servers(&fx.router, 450000); /* the next is due at 600 s */
    assert_int_equal(count_to(a, "ice_servers"), 2);
    sig_router_refresh_ice_servers(&fx.router, 600000);
    assert_int_equal(count_to(a, "ice_servers"), 3);
    assert_int_equal(count_to(stranger, "ice_servers"), 0); /* never joined: never any */
}

static void without_a_turn_secret_nothing_is_refreshed(void **state)
{
    (void)state;
    static const char *const urls[] = {"stun:203.0.113.10:3478"};
    sig_router_offer_ice_servers(&fx.router, urls, 1, NULL, 0, 0);
    unsigned a = connect_client(NULL);
    join(a, "lab");
    sig_router_refresh_ice_servers(&fx.router, 86400000);
    assert_int_equal(count_to(a, "ice_servers"), 1); /* the join's: STUN URLs do not expire */
}

static void silent_clients_are_found_idle_and_a_pong_keeps_them(void **state)
{
    (void)state;
    unsigned a = 0;
    unsigned b = 0;
    assert_int_equal(sig_router_connect(&fx.router, 1000, NOW_UNIX, NULL, &a), ZQ_OK);
    assert_int_equal(sig_router_connect(&fx.router, 1000, NOW_UNIX, NULL, &b), ZQ_OK);
    assert_int_equal(sig_router_find_idle(&fx.router, 30999, 30000), -1);
    sig_router_touch(&fx.router, 20000, a);
    assert_int_equal(sig_router_find_idle(&fx.router, 31000, 30000), (int)b);
    sig_router_frame(&fx.router, 30000, b, "{\"type\":\"ping\"}", 15);
    assert_int_equal(sig_router_find_idle(&fx.router, 31000, 30000), -1);
    assert_int_equal(sig_router_find_idle(&fx.router, 50000, 30000), (int)a);
}

/* The node reads the frame the router wrote: every URL, one per line, and the credential. */
static void the_client_reads_the_ice_servers_frame_the_router_writes(void **state)
{
    (void)state;
    static const char secret[] = "s";
    static const char *const urls[] = {"turn:192.0.2.1:3478", "turns:192.0.2.1:443?transport=tcp"};
    sig_router_offer_ice_servers(&fx.router, urls, 2, (const uint8_t *)secret, 1, 600);
    unsigned a = connect_client(NULL);
    join(a, "lab");
    const sent_t *f = last_to(a);
    sig_event_t ev;
    assert_int_equal(sig_parse_frame(f->frame, f->len, &ev), ZQ_OK);
    assert_int_equal(ev.type, SIG_EVENT_ICE_SERVERS);
    assert_string_equal(ev.text, "turn:192.0.2.1:3478\nturns:192.0.2.1:443?transport=tcp\n");
    assert_non_null(strstr(ev.username, id_of(a)));
    assert_int_equal(strlen(ev.credential), 28); /* base64 of an HMAC-SHA1 */
}

/* STUN servers alone (zq signal --stun-url, no TURN secret): the URLs, no credential. */
static void stun_servers_alone_go_to_members_without_a_credential(void **state)
{
    (void)state;
    static const char *const urls[] = {"stun:203.0.113.10:3478"};
    sig_router_offer_ice_servers(&fx.router, urls, 1, NULL, 0, 0);
    unsigned a = connect_client(NULL);
    join(a, "lab");
    assert_int_equal(count_to(a, "ice_servers"), 1);
    const sent_t *f = last_to(a);
    assert_null(strstr(f->frame, "username"));
    assert_null(strstr(f->frame, "credential"));
    sig_event_t ev;
    assert_int_equal(sig_parse_frame(f->frame, f->len, &ev), ZQ_OK);
    assert_int_equal(ev.type, SIG_EVENT_ICE_SERVERS);
    assert_string_equal(ev.text, "stun:203.0.113.10:3478\n");
    assert_string_equal(ev.username, "");
}

static void ice_servers_frames_without_urls_or_with_a_newline_in_one_are_malformed(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "{\"type\":\"ice_servers\"}",
        "{\"type\":\"ice_servers\",\"iceServers\":[]}",
        "{\"type\":\"ice_servers\",\"iceServers\":[{\"username\":\"u\"}]}",
        "{\"type\":\"ice_servers\",\"iceServers\":[{\"urls\":\"turn:a\\nstun:b\"}]}",
        "{\"type\":\"ice_servers\",\"iceServers\":[{\"urls\":[\"turn:a\\u0000\"]}]}",
        "{\"type\":\"ice_servers\",\"iceServers\":[{\"urls\":[7]}]}",
    };
    sig_event_t ev;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_not_equal(sig_parse_frame(bad[i], strlen(bad[i]), &ev), ZQ_OK);
    }
    static const char one[] = "{\"type\":\"ice_servers\",\"iceServers\":[{\"urls\":\"stun:192.0.2.9\"}]}";
    assert_int_equal(sig_parse_frame(one, strlen(one), &ev), ZQ_OK); /* W3C: a string will do */
    assert_string_equal(ev.text, "stun:192.0.2.9\n");
    assert_string_equal(ev.username, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(welcome_gives_each_client_a_distinct_22_char_id, setup),
        cmocka_unit_test_setup(join_tells_only_existing_members_so_exactly_one_side_dials, setup),
        cmocka_unit_test_setup(joining_the_same_room_again_says_nothing_new, setup),
        cmocka_unit_test_setup(rooms_are_isolated, setup),
        cmocka_unit_test_setup(switching_rooms_tells_the_old_room_peer_left, setup),
        cmocka_unit_test_setup(forwarded_frames_name_the_sender_and_keep_every_other_member,
                               setup),
        cmocka_unit_test_setup(offer_and_answer_reach_the_addressed_peer_only, setup),
        cmocka_unit_test_setup(self_addressed_frames_are_dropped, setup),
        cmocka_unit_test_setup(frames_to_unknown_or_nul_smuggling_ids_are_dropped, setup),
        cmocka_unit_test_setup(members_who_have_not_joined_cannot_forward, setup),
        cmocka_unit_test_setup(a_refusal_reaches_the_member_left_out_naming_who_refused, setup),
        cmocka_unit_test_setup(garbage_and_oversized_frames_are_dropped_without_harming_others,
                               setup),
        cmocka_unit_test_setup(leaving_tells_the_room_peer_left, setup),
        cmocka_unit_test_setup(two_hundred_clients_join_and_leave_and_the_tables_return_to_empty,
                               setup),
        cmocka_unit_test_setup(a_full_client_table_refuses_cleanly, setup),
        cmocka_unit_test_setup(bookkeeping_frames_list_a_members_names_once_and_make_no_member,
                               setup),
        cmocka_unit_test_setup(a_socket_that_has_not_joined_lists_nothing, setup),
        cmocka_unit_test_setup(each_room_lists_only_its_own_members_names, setup),
        cmocka_unit_test_setup(names_leave_the_lists_with_their_member, setup),
        cmocka_unit_test_setup(a_member_announcing_beyond_its_share_is_counted_not_listed,
                               setup),
        cmocka_unit_test_setup(rooms_with_a_key_need_the_hmac_token_of_that_room, setup),
        cmocka_unit_test_setup(a_token_stops_opening_its_room_at_its_expiry, setup),
        cmocka_unit_test_setup(a_token_with_its_expiry_changed_or_mangled_opens_nothing, setup),
        cmocka_unit_test_setup(a_token_is_its_expiry_and_an_hmac_over_label_room_and_expiry,
                               setup),
        cmocka_unit_test_setup(members_get_turn_credentials_as_they_join_and_strangers_none,
                               setup),
        cmocka_unit_test_setup(a_member_that_stays_gets_fresh_credentials_at_half_their_life,
                               setup),
        cmocka_unit_test_setup(without_a_turn_secret_nothing_is_refreshed, setup),
        cmocka_unit_test_setup(silent_clients_are_found_idle_and_a_pong_keeps_them, setup),
        cmocka_unit_test_setup(the_client_reads_the_ice_servers_frame_the_router_writes, setup),
        cmocka_unit_test_setup(stun_servers_alone_go_to_members_without_a_credential, setup),
        cmocka_unit_test_setup(
            ice_servers_frames_without_urls_or_with_a_newline_in_one_are_malformed, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
