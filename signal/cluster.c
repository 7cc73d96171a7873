/* Rooms shared by several signalling servers (see cluster.h for what it promises and the
 * messages it exchanges). */
#include <string.h>

#include "signal/cluster.h"
#include "zq/json.h"
#include "zq/text.h"

zq_err_t sig_cluster_init(sig_cluster_t *cl, const zq_rand_t *rand, const char *prefix,
                          sig_cluster_publish_fn publish, void *ctx)
{
    size_t n = prefix != NULL ? strlen(prefix) : 0;
    if (n == 0 || n > SIG_CLUSTER_PREFIX_MAX) {
        return ZQ_ERR_INVALID_ARG;
    }
    memset(cl, 0, sizeof *cl);
    memcpy(cl->prefix, prefix, n + 1);
    sig_new_id(rand, cl->self);
    cl->publish = publish;
    cl->publish_ctx = ctx;
    return ZQ_OK;
}

/* PREFIX @p tail [@p id], in cl->subject. */
static const char *subject(sig_cluster_t *cl, const char *tail, const char *id)
{
    zq_writer_t w = zq_text_writer(cl->subject, sizeof cl->subject);
    zq_write_str(&w, cl->prefix);
    zq_write_str(&w, tail);
    zq_write_str(&w, id);
    (void)zq_text_end(&w);
    return cl->subject;
}

/* The subject of server @p id's own messages. */
static const char *subject_of(sig_cluster_t *cl, const char *id)
{
    return subject(cl, ".to.", id);
}

const char *sig_cluster_subject(sig_cluster_t *cl, sig_subject_t which)
{
    return which == SIG_SUBJECT_PRESENCE ? subject(cl, ".presence", "") : subject_of(cl, cl->self);
}

unsigned sig_cluster_remote_count(const sig_cluster_t *cl)
{
    unsigned n = 0;
    for (size_t i = 0; i < ZQ_SIG_REMOTE_MAX; i++) {
        n += cl->remote[i].used;
    }
    return n;
}

/* ---- Local members ---------------------------------------------------------------------- */

static bool local_in(const sig_client_slot_t *c, const char *room)
{
    return c->used && c->joined && strcmp(c->room, room) == 0;
}

static bool room_is_local(const sig_router_t *r, const char *room)
{
    for (unsigned i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
        if (local_in(&r->clients[i], room)) {
            return true;
        }
    }
    return false;
}

static int local_member(const sig_router_t *r, const char *id, const char *room)
{
    for (unsigned i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
        if (local_in(&r->clients[i], room) && strcmp(r->clients[i].id, id) == 0) {
            return (int)i;
        }
    }
    return -1;
}

static bool is_local_id(const sig_router_t *r, const char *id)
{
    for (unsigned i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
        if (r->clients[i].used && strcmp(r->clients[i].id, id) == 0) {
            return true;
        }
    }
    return false;
}

static void tell_locals(sig_router_t *r, const char *room, const char *type, const char *id)
{
    for (unsigned i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
        if (local_in(&r->clients[i], room)) {
            sig_router_send_about(r, i, type, id);
        }
    }
}

/* ---- Messages out ----------------------------------------------------------------------- */

/* {"type":TYPE,"server":SELF: the head every message shares, left open. */
static void begin(sig_cluster_t *cl, json_writer_t *w, const char *type)
{
    json_writer_init(w, cl->msg, sizeof cl->msg);
    json_object_begin(w);
    json_key(w, "type");
    json_string(w, type, strlen(type));
    json_key(w, "server");
    json_string(w, cl->self, strlen(cl->self));
}

static void put(json_writer_t *w, const char *key, const char *value)
{
    json_key(w, key);
    json_string(w, value, strlen(value));
}

static void send_to(sig_cluster_t *cl, const char *subject, json_writer_t *w)
{
    json_object_end(w);
    size_t len = json_finish(w);
    if (len > 0 && cl->linked) {
        cl->publish(cl->publish_ctx, subject, cl->msg, len);
    }
}

static void send_presence(sig_cluster_t *cl, json_writer_t *w)
{
    send_to(cl, sig_cluster_subject(cl, SIG_SUBJECT_PRESENCE), w);
}

/* Room @p room's local members, SIG_CLUSTER_ROSTER_CHUNK a message, as @p type ("here" or
 * "roster"), to server @p to (NULL: everyone). */
static void send_roster(sig_router_t *r, const char *type, const char *room, const char *to)
{
    sig_cluster_t *cl = r->cluster;
    unsigned i = 0;
    while (i < ZQ_SIG_MAX_CLIENTS) {
        json_writer_t w;
        begin(cl, &w, type);
        put(&w, "room", room);
        json_key(&w, "members");
        json_array_begin(&w);
        unsigned n = 0;
        for (; i < ZQ_SIG_MAX_CLIENTS && n < SIG_CLUSTER_ROSTER_CHUNK; i++) {
            if (local_in(&r->clients[i], room)) {
                json_string(&w, r->clients[i].id, strlen(r->clients[i].id));
                n++;
            }
        }
        json_array_end(&w);
        if (n == 0) {
            return;
        }
        send_to(cl, to != NULL ? subject_of(cl, to) : sig_cluster_subject(cl, SIG_SUBJECT_PRESENCE),
                &w);
    }
}

/* True if local member @p c is the first of its room in the table: each room once. */
static bool first_of_room(const sig_router_t *r, unsigned c)
{
    for (unsigned i = 0; i < c; i++) {
        if (local_in(&r->clients[i], r->clients[c].room)) {
            return false;
        }
    }
    return true;
}

static void send_all_rosters(sig_router_t *r, const char *to)
{
    for (unsigned c = 0; c < ZQ_SIG_MAX_CLIENTS; c++) {
        const sig_client_slot_t *m = &r->clients[c];
        if (m->used && m->joined && first_of_room(r, c)) {
            send_roster(r, "roster", m->room, to);
        }
    }
}

static void send_member(sig_cluster_t *cl, const char *type, const char *room, const char *id)
{
    json_writer_t w;
    begin(cl, &w, type);
    put(&w, "room", room);
    put(&w, "peerId", id);
    send_presence(cl, &w);
}

/* ---- The bus ---------------------------------------------------------------------------- */

void sig_cluster_link_up(sig_router_t *r, uint64_t now)
{
    sig_cluster_t *cl = r->cluster;
    cl->linked = true;
    json_writer_t w;
    begin(cl, &w, "sync");
    send_presence(cl, &w);
    send_all_rosters(r, NULL);
    cl->next_beat = now + SIG_CLUSTER_BEAT_MS;
    cl->next_roster = now + SIG_CLUSTER_ROSTER_MS;
}

void sig_cluster_link_down(sig_router_t *r)
{
    r->cluster->linked = false;
}

/* ---- Remote members and servers --------------------------------------------------------- */

static int find_server(const sig_cluster_t *cl, const char *id)
{
    for (int i = 0; i < ZQ_SIG_CLUSTER_SERVERS_MAX; i++) {
        if (cl->servers[i].used && strcmp(cl->servers[i].id, id) == 0) {
            return i;
        }
    }
    return -1;
}

/* Server @p id was heard from: its slot, taken now if it is new; -1 if none is left. */
static int hear_server(sig_cluster_t *cl, uint64_t now, const char *id)
{
    int s = find_server(cl, id);
    for (int i = 0; s < 0 && i < ZQ_SIG_CLUSTER_SERVERS_MAX; i++) {
        if (!cl->servers[i].used) {
            cl->servers[i].used = true;
            memcpy(cl->servers[i].id, id, strlen(id) + 1);
            s = i;
        }
    }
    if (s < 0) {
        cl->servers_full++;
        return -1;
    }
    cl->servers[s].heard_at = now;
    return s;
}

static int find_remote(const sig_cluster_t *cl, const char *id, const char *room)
{
    for (int i = 0; i < ZQ_SIG_REMOTE_MAX; i++) {
        const sig_remote_t *m = &cl->remote[i];
        if (m->used && strcmp(m->id, id) == 0 && (room == NULL || strcmp(m->room, room) == 0)) {
            return i;
        }
    }
    return -1;
}

static void forget_remote(sig_router_t *r, int i, bool tell)
{
    sig_remote_t *m = &r->cluster->remote[i];
    if (tell) {
        tell_locals(r, m->room, "peer_left", m->id);
    }
    memset(m, 0, sizeof *m);
}

/* Member @p id of @p room on server @p s: its slot, new or confirmed, with @p fresh set when
 * it is new; -1 when the table is full. A member is in one room: the one named last. */
static int learn_remote(sig_router_t *r, uint64_t now, int s, const char *id, const char *room,
                        bool *fresh)
{
    sig_cluster_t *cl = r->cluster;
    int i = find_remote(cl, id, NULL);
    *fresh = i < 0 || strcmp(cl->remote[i].room, room) != 0;
    if (i >= 0 && *fresh) {
        forget_remote(r, i, true); /* it moved rooms: the old room saw the last of it */
    }
    for (int j = 0; *fresh && i < 0 && j < ZQ_SIG_REMOTE_MAX; j++) {
        if (!cl->remote[j].used) {
            i = j;
        }
    }
    if (i < 0) {
        cl->remote_full++;
        return -1;
    }
    sig_remote_t *m = &cl->remote[i];
    if (*fresh) {
        memset(m, 0, sizeof *m);
        m->used = true;
        memcpy(m->id, id, strlen(id) + 1);
        memcpy(m->room, room, strlen(room) + 1);
    }
    m->server = (uint8_t)s;
    m->confirmed_at = now;
    return i;
}

static void forget_server(sig_router_t *r, int s)
{
    sig_cluster_t *cl = r->cluster;
    for (int i = 0; i < ZQ_SIG_REMOTE_MAX; i++) {
        if (cl->remote[i].used && cl->remote[i].server == s) {
            forget_remote(r, i, true);
        }
    }
    memset(&cl->servers[s], 0, sizeof cl->servers[s]);
    cl->servers_lost++;
}

/* Nobody local is left in @p room: what this server knew of it is of no use now. */
static void forget_room(sig_router_t *r, const char *room)
{
    for (int i = 0; i < ZQ_SIG_REMOTE_MAX; i++) {
        if (r->cluster->remote[i].used && strcmp(r->cluster->remote[i].room, room) == 0) {
            forget_remote(r, i, false);
        }
    }
}

/* ---- What the router calls -------------------------------------------------------------- */

void sig_cluster_member_joined(sig_router_t *r, uint64_t now, unsigned c)
{
    (void)now;
    send_member(r->cluster, "joined", r->clients[c].room, r->clients[c].id);
}

void sig_cluster_member_leaving(sig_router_t *r, unsigned c)
{
    sig_client_slot_t *me = &r->clients[c];
    send_member(r->cluster, "left", me->room, me->id);
    me->joined = false; /* for the question below; the router clears the slot after */
    if (!room_is_local(r, me->room)) {
        forget_room(r, me->room);
    }
    me->joined = true;
}

bool sig_cluster_relay(sig_router_t *r, unsigned c, const char *to, const char *frame,
                       size_t len)
{
    sig_cluster_t *cl = r->cluster;
    int i = find_remote(cl, to, r->clients[c].room);
    json_value_t doc;
    if (i < 0 || json_parse(frame, len, &doc) != ZQ_OK) {
        return false;
    }
    const sig_remote_t *m = &cl->remote[i];
    json_writer_t w;
    begin(cl, &w, "relay");
    put(&w, "room", m->room);
    put(&w, "to", m->id);
    json_key(&w, "frame");
    json_raw(&w, doc);
    send_to(cl, subject_of(cl, cl->servers[m->server].id), &w);
    cl->relayed_out++;
    return true;
}

/* ---- Messages in ------------------------------------------------------------------------ */

/* The string member @p key of @p doc, at most @p max bytes and no NUL inside, in @p out. */
static bool text_field(json_value_t doc, const char *key, char *out, size_t max)
{
    json_value_t v;
    size_t len;
    return json_object_get(doc, key, &v) == ZQ_OK && json_type(v) == JSON_STRING &&
           json_get_string(v, out, max + 1, &len) == ZQ_OK && len > 0 && strlen(out) == len;
}

/* What every message names: its server (not this one) and, for all but alive and sync, a
 * room. */
typedef struct {
    json_value_t doc;
    int server;
    char server_id[SIG_ID_LEN + 1];
    char room[ZQ_SIG_ROOM_MAX + 1];
    char id[ZQ_SIG_ID_MAX + 1];
} cluster_msg_t;

static void pair_up(sig_router_t *r, uint64_t now, int i);

static void on_joined(sig_router_t *r, uint64_t now, cluster_msg_t *m)
{
    bool fresh;
    int i;
    if (!text_field(m->doc, "peerId", m->id, SIG_ID_LEN) || is_local_id(r, m->id)) {
        r->cluster->malformed++;
        return;
    }
    if (!room_is_local(r, m->room) ||
        (i = learn_remote(r, now, m->server, m->id, m->room, &fresh)) < 0) {
        return;
    }
    if (fresh) {
        pair_up(r, now, i);
        send_roster(r, "here", m->room, m->server_id);
    }
}

static void on_left(sig_router_t *r, cluster_msg_t *m)
{
    int i;
    if (!text_field(m->doc, "peerId", m->id, SIG_ID_LEN)) {
        r->cluster->malformed++;
        return;
    }
    if ((i = find_remote(r->cluster, m->id, m->room)) >= 0 &&
        r->cluster->remote[i].server == m->server) {
        forget_remote(r, i, true);
    }
}

/* Asks server @p s to tell its member @p to that @p id joined (the smaller id dials). */
static void ask_to_dial(sig_cluster_t *cl, int s, const char *room, const char *to,
                        const char *id)
{
    json_writer_t w;
    begin(cl, &w, "dial");
    put(&w, "room", room);
    put(&w, "to", to);
    put(&w, "peerId", id);
    send_to(cl, subject_of(cl, cl->servers[s].id), &w);
}

/* Remote member @p i is new here (its join, or a roster): with each local member of its room,
 * the smaller id dials (cluster.h). */
static void pair_up(sig_router_t *r, uint64_t now, int i)
{
    sig_remote_t *m = &r->cluster->remote[i];
    m->paired_at = now == 0 ? 1 : now;
    for (unsigned c = 0; c < ZQ_SIG_MAX_CLIENTS; c++) {
        if (!local_in(&r->clients[c], m->room)) {
            continue;
        }
        r->cluster->paired++;
        if (strcmp(r->clients[c].id, m->id) < 0) {
            sig_router_send_about(r, c, "peer_joined", m->id);
        } else {
            ask_to_dial(r->cluster, m->server, m->room, m->id, r->clients[c].id);
        }
    }
}

/* here (@p pair false: learn only) or roster (@p pair true). */
static void on_members(sig_router_t *r, uint64_t now, cluster_msg_t *m, bool pair)
{
    json_value_t list;
    json_value_t v;
    json_iter_t it;
    if (json_object_get(m->doc, "members", &list) != ZQ_OK || json_type(list) != JSON_ARRAY) {
        r->cluster->malformed++;
        return;
    }
    if (!room_is_local(r, m->room)) {
        return;
    }
    json_iter_init(&it, list);
    while (json_iter_next(&it, NULL, &v)) {
        size_t len;
        bool fresh;
        int i;
        if (json_type(v) != JSON_STRING ||
            json_get_string(v, m->id, sizeof m->id, &len) != ZQ_OK || len == 0 ||
            strlen(m->id) != len || len > SIG_ID_LEN || is_local_id(r, m->id)) {
            r->cluster->malformed++;
            continue;
        }
        if ((i = learn_remote(r, now, m->server, m->id, m->room, &fresh)) >= 0 && fresh && pair) {
            pair_up(r, now, i);
        }
    }
}

static void on_dial(sig_router_t *r, uint64_t now, cluster_msg_t *m)
{
    char to[SIG_ID_LEN + 1];
    bool fresh;
    int c;
    int i;
    if (!text_field(m->doc, "to", to, SIG_ID_LEN) ||
        !text_field(m->doc, "peerId", m->id, SIG_ID_LEN) || is_local_id(r, m->id)) {
        r->cluster->malformed++; /* a member of ours is no other server's */
        return;
    }
    if ((c = local_member(r, to, m->room)) < 0 ||
        (i = learn_remote(r, now, m->server, m->id, m->room, &fresh)) < 0) {
        return;
    }
    const sig_remote_t *peer = &r->cluster->remote[i];
    if (!fresh && peer->paired_at != 0 && r->clients[c].joined_at <= peer->paired_at) {
        return; /* we paired them up ourselves: our member was told then */
    }
    sig_router_send_about(r, (unsigned)c, "peer_joined", m->id);
}

/* What one server forwards between members (router.c) and so all another may relay: a
 * forged welcome, peer_joined or ice_servers is no frame of a member's. */
static bool relayable(json_value_t frame)
{
    static const char *const types[] = {"offer", "answer", "ice_candidate", "refused"};
    json_value_t type;
    if (json_type(frame) != JSON_OBJECT || json_object_get(frame, "type", &type) != ZQ_OK) {
        return false;
    }
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        if (json_string_equals(type, types[i])) {
            return true;
        }
    }
    return false;
}

static void on_relay(sig_router_t *r, uint64_t now, cluster_msg_t *m)
{
    sig_cluster_t *cl = r->cluster;
    char to[SIG_ID_LEN + 1];
    json_value_t frame;
    bool fresh;
    int c;
    if (!text_field(m->doc, "to", to, SIG_ID_LEN) ||
        json_object_get(m->doc, "frame", &frame) != ZQ_OK || !relayable(frame) ||
        !text_field(frame, "peerId", m->id, SIG_ID_LEN) || is_local_id(r, m->id)) {
        cl->malformed++;
        return;
    }
    /* Only to a member of the room the sender's server names, and a sender we then know. */
    if ((c = local_member(r, to, m->room)) < 0 ||
        learn_remote(r, now, m->server, m->id, m->room, &fresh) < 0) {
        cl->relay_dropped++;
        return;
    }
    json_writer_t w;
    json_writer_init(&w, r->frame, sizeof r->frame);
    json_raw(&w, frame);
    size_t len = json_finish(&w);
    if (len == 0) {
        cl->relay_dropped++;
        return;
    }
    cl->relayed_in++;
    r->send(r->send_ctx, (unsigned)c, r->frame, len);
}

/* The message's own server and, for those that name one, its room: false if malformed. */
static bool read_head(sig_router_t *r, uint64_t now, cluster_msg_t *m, bool wants_room)
{
    sig_cluster_t *cl = r->cluster;
    if (!text_field(m->doc, "server", m->server_id, SIG_ID_LEN) ||
        (wants_room && !text_field(m->doc, "room", m->room, ZQ_SIG_ROOM_MAX))) {
        cl->malformed++;
        return false;
    }
    if (strcmp(m->server_id, cl->self) == 0) {
        return false; /* our own, echoed */
    }
    m->server = hear_server(cl, now, m->server_id);
    return m->server >= 0;
}

void sig_cluster_message(sig_router_t *r, uint64_t now, const char *payload, size_t len)
{
    static const char *const with_room[] = {"joined", "left", "here", "roster", "relay", "dial"};
    cluster_msg_t m;
    json_value_t type;
    if (r->cluster == NULL) {
        return;
    }
    if (json_parse(payload, len, &m.doc) != ZQ_OK || json_type(m.doc) != JSON_OBJECT ||
        json_object_get(m.doc, "type", &type) != ZQ_OK) {
        r->cluster->malformed++;
        return;
    }
    bool wants_room = false;
    for (size_t i = 0; i < sizeof with_room / sizeof with_room[0]; i++) {
        wants_room |= json_string_equals(type, with_room[i]);
    }
    if (!read_head(r, now, &m, wants_room)) {
        return;
    }
    if (json_string_equals(type, "joined")) {
        on_joined(r, now, &m);
    } else if (json_string_equals(type, "left")) {
        on_left(r, &m);
    } else if (json_string_equals(type, "here")) {
        on_members(r, now, &m, false);
    } else if (json_string_equals(type, "roster")) {
        on_members(r, now, &m, true);
    } else if (json_string_equals(type, "relay")) {
        on_relay(r, now, &m);
    } else if (json_string_equals(type, "dial")) {
        on_dial(r, now, &m);
    } else if (json_string_equals(type, "sync")) {
        send_all_rosters(r, m.server_id);
    } else if (!json_string_equals(type, "alive")) {
        r->cluster->malformed++;
    }
}

/* ---- Timers ----------------------------------------------------------------------------- */

static void expire(sig_router_t *r, uint64_t now)
{
    sig_cluster_t *cl = r->cluster;
    for (int s = 0; s < ZQ_SIG_CLUSTER_SERVERS_MAX; s++) {
        if (cl->servers[s].used && now - cl->servers[s].heard_at >= SIG_CLUSTER_DEAD_MS) {
            forget_server(r, s);
        }
    }
    for (int i = 0; i < ZQ_SIG_REMOTE_MAX; i++) {
        if (cl->remote[i].used && now - cl->remote[i].confirmed_at >= 3u * SIG_CLUSTER_ROSTER_MS) {
            forget_remote(r, i, true); /* its left was lost, and its server lives on */
        }
    }
}

void sig_cluster_timeout(sig_router_t *r, uint64_t now)
{
    sig_cluster_t *cl = r->cluster;
    if (cl == NULL) {
        return;
    }
    expire(r, now);
    if (cl->linked && now >= cl->next_beat) {
        json_writer_t w;
        begin(cl, &w, "alive");
        send_presence(cl, &w);
        cl->next_beat = now + SIG_CLUSTER_BEAT_MS;
    }
    if (cl->linked && now >= cl->next_roster) {
        send_all_rosters(r, NULL);
        cl->next_roster = now + SIG_CLUSTER_ROSTER_MS;
    }
}

uint64_t sig_cluster_next_timeout(const sig_cluster_t *cl)
{
    uint64_t t = cl->linked ? (cl->next_beat < cl->next_roster ? cl->next_beat : cl->next_roster)
                            : UINT64_MAX;
    for (int s = 0; s < ZQ_SIG_CLUSTER_SERVERS_MAX; s++) {
        if (cl->servers[s].used && cl->servers[s].heard_at + SIG_CLUSTER_DEAD_MS < t) {
            t = cl->servers[s].heard_at + SIG_CLUSTER_DEAD_MS;
        }
    }
    for (int i = 0; i < ZQ_SIG_REMOTE_MAX; i++) {
        uint64_t due = cl->remote[i].confirmed_at + 3u * SIG_CLUSTER_ROSTER_MS;
        if (cl->remote[i].used && due < t) {
            t = due;
        }
    }
    return t;
}
