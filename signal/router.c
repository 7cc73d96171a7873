/* The signalling server's rooms (see router.h for what it promises). */
#include <string.h>

#include "zq/json.h"
#include "signal/cluster.h"
#include "signal/router.h"
#include "zq/crypto.h"
#include "zq/hex.h"
#include "zq/text.h"
#include "zq/base64.h"

void sig_router_init(sig_router_t *r, const zq_rand_t *rand, sig_send_fn send, void *send_ctx)
{
    memset(r, 0, sizeof *r);
    r->rand = *rand;
    r->send = send;
    r->send_ctx = send_ctx;
}

void sig_router_require_tokens(sig_router_t *r, const uint8_t *key, size_t key_len)
{
    r->token_key = key;
    r->token_key_len = key_len;
}

/* ---- Ids and tokens --------------------------------------------------------------------- */

void sig_router_attach_cluster(sig_router_t *r, struct sig_cluster *cluster)
{
    r->cluster = cluster;
}

/* 128 random bits as 22 base64url characters: unguessable, URL- and JSON-safe. */
void sig_new_id(const zq_rand_t *rand, char out[SIG_ID_LEN + 1])
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    uint8_t bytes[SIG_ID_LEN];
    (void)zq_rand_bytes(rand, bytes, sizeof bytes);
    for (size_t i = 0; i < SIG_ID_LEN; i++) {
        /* 6 bits of each byte: 22 x 6 = 132 bits of randomness, uniform */
        out[i] = alphabet[bytes[i] & 63u];
    }
    out[SIG_ID_LEN] = '\0';
}

/* EXPIRY.MAC (router.h): the expiry's digits without leading zeros (one spelling per token),
 * then 64 hex digits. */
static bool parse_token(const char *text, uint64_t *expiry, uint8_t mac[32])
{
    if (text == NULL) {
        return false;
    }
    const char *dot = strchr(text, '.');
    if (dot == NULL || (text[0] == '0' && dot - text > 1) || strlen(dot + 1) != 64 ||
        zq_parse_udec(text, (size_t)(dot - text), UINT64_MAX, expiry) != ZQ_OK) {
        return false;
    }
    return zq_hex_decode(mac, dot + 1, 32);
}

/* HMAC-SHA256(key, "zq-room-token-v1\n" room "\n" expiry): the version label keeps a MAC made
 * for anything else under the same key from passing as a token. @return false for a room
 * longer than ZQ_SIG_ROOM_MAX, which no caller passes and no token opens. */
static bool token_mac(const uint8_t *key, size_t key_len, const char *room, uint64_t expiry,
                      uint8_t mac[ZQ_SHA256_LEN])
{
    char msg[sizeof "zq-room-token-v1\n" + ZQ_SIG_ROOM_MAX + 1 + 20];
    zq_writer_t w = zq_writer((uint8_t *)msg, sizeof msg);
    zq_write_str(&w, "zq-room-token-v1\n");
    zq_write_str(&w, room);
    zq_write_char(&w, '\n');
    zq_write_udec(&w, expiry);
    if (w.failed) {
        return false;
    }
    zq_hmac_sha256(key, key_len, (const uint8_t *)msg, w.len, mac);
    return true;
}

void sig_room_token(const uint8_t *key, size_t key_len, const char *room, uint64_t expiry,
                    char out[SIG_TOKEN_TEXT_MAX + 1])
{
    uint8_t mac[ZQ_SHA256_LEN];
    char hex[2 * ZQ_SHA256_LEN + 1];
    out[0] = '\0';
    if (!token_mac(key, key_len, room, expiry, mac)) {
        return; /* no token for a room no join could name */
    }
    hex[zq_hex_encode(hex, mac, sizeof mac)] = '\0';
    zq_writer_t w = zq_text_writer(out, SIG_TOKEN_TEXT_MAX + 1);
    zq_write_udec(&w, expiry);
    zq_write_char(&w, '.');
    zq_write_str(&w, hex);
    (void)zq_text_end(&w);
}

static bool mac_opens(const sig_router_t *r, const uint8_t mac[32], uint64_t expiry,
                      uint64_t unix_s, const char *room)
{
    if (expiry <= unix_s) {
        return false;
    }
    uint8_t want[ZQ_SHA256_LEN];
    return token_mac(r->token_key, r->token_key_len, room, expiry, want) &&
           zq_consttime_equal(want, mac, sizeof want);
}

static bool token_allows(const sig_router_t *r, const sig_client_slot_t *c, const char *room)
{
    return r->token_key == NULL ||
           (c->has_token && mac_opens(r, c->token, c->token_expiry, c->connected_unix, room));
}

bool sig_router_token_opens(const sig_router_t *r, const char *token, const char *room,
                            uint64_t unix_s)
{
    uint64_t expiry;
    uint8_t mac[32];
    return r->token_key == NULL ||
           (parse_token(token, &expiry, mac) && mac_opens(r, mac, expiry, unix_s, room));
}

/* ---- Frames out ------------------------------------------------------------------------- */

/* {"type":<type>,<key>:<value>}: welcome, peer_joined and peer_left name a peer; error says
 * why the router refused something (ZeroQ clients ignore types they do not know). */
static void send_pair(sig_router_t *r, unsigned to, const char *type, const char *key,
                      const char *value)
{
    json_writer_t w;
    json_writer_init(&w, r->frame, sizeof r->frame);
    json_object_begin(&w);
    json_key(&w, "type");
    json_string(&w, type, strlen(type));
    json_key(&w, key);
    json_string(&w, value, strlen(value));
    json_object_end(&w);
    size_t len = json_finish(&w);
    if (len > 0) {
        r->send(r->send_ctx, to, r->frame, len);
    }
}

void sig_router_send_about(sig_router_t *r, unsigned to, const char *type, const char *id)
{
    send_pair(r, to, type, "peerId", id);
}

void sig_router_offer_ice_servers(sig_router_t *r, const char *const *urls, size_t url_count,
                                  const uint8_t *secret, size_t secret_len, uint32_t ttl_s)
{
    r->ice_urls = urls;
    r->ice_url_count = url_count < SIG_ICE_URLS_MAX ? url_count : SIG_ICE_URLS_MAX;
    r->turn_secret = secret;
    r->turn_secret_len = secret_len;
    r->turn_ttl_s = ttl_s;
}

/* The TURN REST credential of member @p c (router.h): "EXPIRY:ID" and its HMAC-SHA1. */
static void turn_credential(const sig_router_t *r, const sig_client_slot_t *c, uint64_t now,
                            char *user, size_t user_cap, char *password, size_t password_cap)
{
    uint64_t unix_now = c->connected_unix + (now - c->connected_at) / 1000u;
    zq_writer_t w = zq_text_writer(user, user_cap);
    zq_write_udec(&w, unix_now + r->turn_ttl_s);
    zq_write_char(&w, ':');
    zq_write_str(&w, c->id);
    size_t n = zq_text_end(&w);
    if (n == 0) {
        return;
    }
    zq_hmac_sha1_t h;
    uint8_t mac[ZQ_SHA1_LEN];
    zq_hmac_sha1_start(&h, r->turn_secret, r->turn_secret_len);
    zq_hmac_sha1_update(&h, (const uint8_t *)user, n);
    zq_hmac_sha1_finish(&h, mac);
    size_t len = 0;
    if (zq_base64_encode(mac, sizeof mac, password, password_cap, &len) != ZQ_OK) {
        password[0] = '\0';
    }
}

/* {"type":"ice_servers","iceServers":[{"urls":[...],"username":..,"credential":..}]}, the
 * credential only with a TURN secret. */
static void send_ice_servers(sig_router_t *r, unsigned to, uint64_t now)
{
    char user[21 + 1 + SIG_ID_LEN + 1] = "";
    char password[32] = "";
    if (r->turn_secret != NULL) {
        turn_credential(r, &r->clients[to], now, user, sizeof user, password, sizeof password);
        if (user[0] == '\0' || password[0] == '\0') {
            return;
        }
    }
    json_writer_t w;
    json_writer_init(&w, r->frame, sizeof r->frame);
    json_object_begin(&w);
    json_key(&w, "type");
    json_string(&w, "ice_servers", 11);
    json_key(&w, "iceServers");
    json_array_begin(&w);
    json_object_begin(&w);
    json_key(&w, "urls");
    json_array_begin(&w);
    for (size_t i = 0; i < r->ice_url_count; i++) {
        json_string(&w, r->ice_urls[i], strlen(r->ice_urls[i]));
    }
    json_array_end(&w);
    if (r->turn_secret != NULL) {
        json_key(&w, "username");
        json_string(&w, user, strlen(user));
        json_key(&w, "credential");
        json_string(&w, password, strlen(password));
    }
    json_object_end(&w);
    json_array_end(&w);
    json_object_end(&w);
    size_t len = json_finish(&w);
    if (len > 0) {
        r->clients[to].ice_sent_at = now;
        r->send(r->send_ctx, to, r->frame, len);
    }
}

void sig_router_refresh_ice_servers(sig_router_t *r, uint64_t now)
{
    if (r->turn_secret == NULL || r->ice_url_count == 0) {
        return;
    }
    uint64_t half_life_ms = (uint64_t)r->turn_ttl_s * 1000u / 2u;
    for (unsigned c = 0; c < ZQ_SIG_MAX_CLIENTS; c++) {
        const sig_client_slot_t *m = &r->clients[c];
        if (m->used && m->joined && now - m->ice_sent_at >= half_life_ms) {
            send_ice_servers(r, c, now);
        }
    }
}

/* ---- Clients ---------------------------------------------------------------------------- */

zq_err_t sig_router_connect(sig_router_t *r, uint64_t now, uint64_t unix_s, const char *token,
                            unsigned *client)
{
    for (unsigned i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
        sig_client_slot_t *c = &r->clients[i];
        if (c->used) {
            continue;
        }
        memset(c, 0, sizeof *c);
        c->used = true;
        c->last_seen = now;
        c->connected_unix = unix_s;
        c->connected_at = now;
        c->has_token = parse_token(token, &c->token_expiry, c->token);
        sig_new_id(&r->rand, c->id);
        *client = i;
        sig_router_send_about(r, i, "welcome", c->id);
        return ZQ_OK;
    }
    return ZQ_ERR_CAPACITY;
}

static bool in_same_room(const sig_client_slot_t *a, const sig_client_slot_t *b)
{
    return a != b && a->used && b->used && a->joined && b->joined &&
           strcmp(a->room, b->room) == 0;
}

/* Tells the rest of @p c's room that @p type ("peer_joined" / "peer_left") happened. */
static void tell_room(sig_router_t *r, unsigned c, const char *type)
{
    for (unsigned i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
        if (in_same_room(&r->clients[i], &r->clients[c])) {
            sig_router_send_about(r, i, type, r->clients[c].id);
        }
    }
}

void sig_router_disconnect(sig_router_t *r, unsigned client)
{
    if (client >= ZQ_SIG_MAX_CLIENTS || !r->clients[client].used) {
        return;
    }
    if (r->clients[client].joined) {
        tell_room(r, client, "peer_left");
        if (r->cluster != NULL) {
            sig_cluster_member_leaving(r, client);
        }
    }
    if (r->clients[client].name_count > 0) {
        r->names_epoch++;
    }
    memset(&r->clients[client], 0, sizeof r->clients[client]);
}

unsigned sig_router_client_count(const sig_router_t *r)
{
    unsigned n = 0;
    for (unsigned i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
        n += r->clients[i].used;
    }
    return n;
}

void sig_router_touch(sig_router_t *r, uint64_t now, unsigned client)
{
    if (client < ZQ_SIG_MAX_CLIENTS && r->clients[client].used) {
        r->clients[client].last_seen = now;
    }
}

int sig_router_find_idle(const sig_router_t *r, uint64_t now, uint64_t idle_ms)
{
    for (unsigned i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
        if (r->clients[i].used && now - r->clients[i].last_seen >= idle_ms) {
            return (int)i;
        }
    }
    return -1;
}

/* ---- Frames in -------------------------------------------------------------------------- */

static bool string_field(sig_router_t *r, json_value_t obj, const char *key, size_t max)
{
    json_value_t v;
    size_t len;
    /* A \u0000 inside would make the C string name someone else: refused. */
    return json_object_get(obj, key, &v) == ZQ_OK && json_type(v) == JSON_STRING &&
           json_get_string(v, r->scratch, max + 1, &len) == ZQ_OK && len > 0 &&
           strlen(r->scratch) == len;
}

static void handle_join(sig_router_t *r, uint64_t now, unsigned c, json_value_t doc)
{
    sig_client_slot_t *me = &r->clients[c];
    if (!string_field(r, doc, "topicId", ZQ_SIG_ROOM_MAX)) {
        r->dropped_frames++;
        return;
    }
    if (!token_allows(r, me, r->scratch)) {
        r->refused_joins++;
        send_pair(r, c, "error", "reason", "this room needs a valid ?token=");
        return;
    }
    if (me->joined && strcmp(me->room, r->scratch) == 0) {
        return; /* ZeroQ joins again after every reconnect: nothing new to say */
    }
    if (me->joined) {
        tell_room(r, c, "peer_left");
        if (r->cluster != NULL) {
            sig_cluster_member_leaving(r, c);
        }
    }
    if (me->name_count > 0) {
        me->name_count = 0; /* what it announced belonged to the room it left */
        r->names_epoch++;
    }
    memcpy(me->room, r->scratch, strlen(r->scratch) + 1);
    me->joined = true;
    me->joined_at = now;
    if (r->ice_url_count > 0) {
        send_ice_servers(r, c, now); /* before anyone dials it */
    }
    tell_room(r, c, "peer_joined"); /* only those already there dial: no glare */
    if (r->cluster != NULL) {
        sig_cluster_member_joined(r, now, c); /* and those on other servers */
    }
}

static int find_client(const sig_router_t *r, const char *id)
{
    for (unsigned i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
        if (r->clients[i].used && strcmp(r->clients[i].id, id) == 0) {
            return (int)i;
        }
    }
    return -1;
}

/* Re-writes the frame member by member, with peerId now naming the sender. */
static size_t rewrite_sender(sig_router_t *r, json_value_t doc, const char *sender)
{
    json_writer_t w;
    json_writer_init(&w, r->frame, sizeof r->frame);
    json_object_begin(&w);
    json_iter_t it;
    json_value_t key;
    json_value_t value;
    json_iter_init(&it, doc);
    while (json_iter_next(&it, &key, &value)) {
        char name[32];
        size_t name_len;
        if (json_get_string(key, name, sizeof name, &name_len) != ZQ_OK ||
            strcmp(name, "peerId") == 0) {
            continue; /* written below; long keys are nothing ZeroQ reads */
        }
        json_key(&w, name);
        json_raw(&w, value);
    }
    json_key(&w, "peerId");
    json_string(&w, sender, strlen(sender));
    json_object_end(&w);
    return json_finish(&w);
}

static void forward(sig_router_t *r, unsigned c, json_value_t doc)
{
    if (!r->clients[c].joined || !string_field(r, doc, "peerId", ZQ_SIG_ID_MAX)) {
        r->dropped_frames++;
        return;
    }
    int to = find_client(r, r->scratch);
    /* Self-addressed (ZeroQ gossips our own id back to us) or outside the room: dropped. */
    if ((to >= 0 && !in_same_room(&r->clients[to], &r->clients[c])) ||
        (to < 0 && r->cluster == NULL)) {
        r->dropped_frames++;
        return;
    }
    char target[SIG_ID_LEN + 1];
    bool remote = to < 0 && strlen(r->scratch) <= SIG_ID_LEN;
    if (remote) {
        memcpy(target, r->scratch, strlen(r->scratch) + 1);
    }
    size_t len = rewrite_sender(r, doc, r->clients[c].id);
    if (len == 0 || (to < 0 && (!remote || !sig_cluster_relay(r, c, target, r->frame, len)))) {
        r->dropped_frames++; /* unwritable, or nobody of its room on any server */
        return;
    }
    if (to >= 0) {
        r->send(r->send_ctx, (unsigned)to, r->frame, len);
    }
}

/* A joined member announced a name for its room's lists: kept with the member, once. */
static void remember_name(sig_router_t *r, unsigned c, json_value_t doc, sig_name_kind_t kind)
{
    sig_client_slot_t *me = &r->clients[c];
    const char *key = kind == SIG_NAME_TOPIC ? "topic" : "queue";
    if (!string_field(r, doc, key, ZQ_SIG_NAME_MAX)) {
        r->dropped_frames++;
        return;
    }
    if (!me->joined) {
        r->dropped_names++; /* a socket that has not joined changes nothing */
        return;
    }
    for (uint8_t i = 0; i < me->name_count; i++) {
        if (me->names[i].kind == kind && strcmp(me->names[i].text, r->scratch) == 0) {
            return;
        }
    }
    if (me->name_count == ZQ_SIG_NAMES_PER_MEMBER) {
        r->dropped_names++;
        return;
    }
    sig_name_t *n = &me->names[me->name_count++];
    n->kind = (uint8_t)kind;
    memcpy(n->text, r->scratch, strlen(r->scratch) + 1);
    r->names_epoch++;
}

void sig_router_frame(sig_router_t *r, uint64_t now, unsigned client, const char *frame,
                      size_t len)
{
    json_value_t doc;
    json_value_t type;
    if (client >= ZQ_SIG_MAX_CLIENTS || !r->clients[client].used) {
        return;
    }
    r->clients[client].last_seen = now;
    if (json_parse(frame, len, &doc) != ZQ_OK || json_type(doc) != JSON_OBJECT ||
        json_object_get(doc, "type", &type) != ZQ_OK) {
        r->dropped_frames++;
        return;
    }
    if (json_string_equals(type, "join")) {
        handle_join(r, now, client, doc);
    } else if (json_string_equals(type, "offer") || json_string_equals(type, "answer") ||
               json_string_equals(type, "ice_candidate") || json_string_equals(type, "refused")) {
        forward(r, client, doc);
    } else if (json_string_equals(type, "create_topic") || json_string_equals(type, "subscribe")) {
        remember_name(r, client, doc, SIG_NAME_TOPIC);
    } else if (json_string_equals(type, "create_queue") || json_string_equals(type, "consume")) {
        remember_name(r, client, doc, SIG_NAME_QUEUE);
    }
    /* Anything else: ignored, as ZeroQ's clients ignore what they do not know. */
}

static bool lists_in(const sig_client_slot_t *c, const char *room)
{
    return c->used && c->joined && (room == NULL || strcmp(c->room, room) == 0);
}

/* True if a member before position (client, name) in the walk's order already holds @p n. */
static bool listed_before(const sig_router_t *r, const char *room, unsigned client,
                          unsigned name, const sig_name_t *n)
{
    for (unsigned i = 0; i <= client; i++) {
        const sig_client_slot_t *c = &r->clients[i];
        unsigned stop = i == client ? name : c->name_count;
        for (unsigned j = 0; lists_in(c, room) && j < stop; j++) {
            if (c->names[j].kind == n->kind && strcmp(c->names[j].text, n->text) == 0) {
                return true;
            }
        }
    }
    return false;
}

const char *sig_router_next_name(const sig_router_t *r, const char *room, sig_name_kind_t kind,
                                 sig_name_cursor_t *cursor)
{
    for (; cursor->client < ZQ_SIG_MAX_CLIENTS; cursor->client++, cursor->name = 0) {
        const sig_client_slot_t *c = &r->clients[cursor->client];
        while (lists_in(c, room) && cursor->name < c->name_count) {
            const sig_name_t *n = &c->names[cursor->name++];
            if (n->kind == kind && !listed_before(r, room, cursor->client, cursor->name - 1, n)) {
                return n->text;
            }
        }
    }
    return NULL;
}
