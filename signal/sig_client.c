/* The client side of ZeroQ's signalling frames (docs/zeroq-wire.md §1). */
#include <string.h>

#include "zq/json.h"
#include "signal/sig_client.h"

static zq_err_t copy_string(json_value_t v, char *out, size_t cap, size_t *len)
{
    if (json_type(v) != JSON_STRING) {
        return ZQ_ERR_MALFORMED;
    }
    return json_get_string(v, out, cap, len) == ZQ_OK ? ZQ_OK : ZQ_ERR_TOO_LONG;
}

static zq_err_t take_peer(json_value_t frame, sig_event_t *ev)
{
    json_value_t id;
    size_t len;
    if (json_object_get(frame, "peerId", &id) != ZQ_OK) {
        return ZQ_ERR_MALFORMED;
    }
    return copy_string(id, ev->peer, sizeof ev->peer, &len);
}

/* The text inside `sdp: {type, sdp}` or `candidate: {candidate, ...}`. */
static zq_err_t take_inner(json_value_t frame, const char *outer, const char *inner,
                           sig_event_t *ev)
{
    json_value_t obj;
    json_value_t text;
    if (json_object_get(frame, outer, &obj) != ZQ_OK || json_type(obj) != JSON_OBJECT ||
        json_object_get(obj, inner, &text) != ZQ_OK) {
        return ZQ_ERR_MALFORMED;
    }
    return copy_string(text, ev->text, sizeof ev->text, &ev->text_len);
}

/* Appends one URL and a newline to ev->text; one holding a newline or NUL is not a URL. */
static zq_err_t add_url(json_value_t url, sig_event_t *ev)
{
    size_t len;
    zq_err_t err = copy_string(url, ev->text + ev->text_len, sizeof ev->text - ev->text_len - 1,
                               &len);
    if (err != ZQ_OK) {
        return err;
    }
    if (memchr(ev->text + ev->text_len, '\n', len) != NULL ||
        strlen(ev->text + ev->text_len) != len) {
        return ZQ_ERR_MALFORMED;
    }
    ev->text_len += len;
    ev->text[ev->text_len++] = '\n';
    ev->text[ev->text_len] = '\0';
    return ZQ_OK;
}

/* `iceServers: [{urls, username, credential}, ...]` as RTCIceServer (W3C WebRTC §4.2.1):
 * urls a string or an array of them. The first entry is read; zq signal sends one. */
static zq_err_t take_ice_servers(json_value_t frame, sig_event_t *ev)
{
    json_value_t list, server, urls, v;
    json_iter_t it;
    size_t len;
    json_iter_init(&it, (json_object_get(frame, "iceServers", &list) == ZQ_OK &&
                         json_type(list) == JSON_ARRAY)
                            ? list
                            : (json_value_t){0});
    if (!json_iter_next(&it, NULL, &server) || json_type(server) != JSON_OBJECT ||
        json_object_get(server, "urls", &urls) != ZQ_OK) {
        return ZQ_ERR_MALFORMED;
    }
    zq_err_t err = ZQ_OK;
    if (json_type(urls) == JSON_ARRAY) {
        json_iter_init(&it, urls);
        while (err == ZQ_OK && json_iter_next(&it, NULL, &v)) {
            err = add_url(v, ev);
        }
    } else {
        err = add_url(urls, ev);
    }
    if (err == ZQ_OK && json_object_get(server, "username", &v) == ZQ_OK) {
        err = copy_string(v, ev->username, sizeof ev->username, &len);
    }
    if (err == ZQ_OK && json_object_get(server, "credential", &v) == ZQ_OK) {
        err = copy_string(v, ev->credential, sizeof ev->credential, &len);
    }
    return err;
}

static sig_event_type_t type_of(json_value_t type)
{
    static const struct {
        const char *name;
        sig_event_type_t type;
    } types[] = {
        {"welcome", SIG_EVENT_WELCOME},     {"peer_joined", SIG_EVENT_PEER_JOINED},
        {"peer_left", SIG_EVENT_PEER_LEFT}, {"offer", SIG_EVENT_OFFER},
        {"answer", SIG_EVENT_ANSWER},       {"ice_candidate", SIG_EVENT_CANDIDATE},
        {"refused", SIG_EVENT_REFUSED},     {"ice_servers", SIG_EVENT_ICE_SERVERS},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        if (json_string_equals(type, types[i].name)) {
            return types[i].type;
        }
    }
    return SIG_EVENT_NONE;
}

zq_err_t sig_parse_frame(const char *frame, size_t len, sig_event_t *ev)
{
    json_value_t doc;
    json_value_t type;
    memset(ev, 0, offsetof(sig_event_t, text));
    ev->text[0] = '\0';
    ev->text_len = 0;
    ev->username[0] = ev->credential[0] = '\0';
    if (json_parse(frame, len, &doc) != ZQ_OK || json_type(doc) != JSON_OBJECT ||
        json_object_get(doc, "type", &type) != ZQ_OK) {
        return ZQ_ERR_MALFORMED;
    }
    ev->type = type_of(type);
    switch (ev->type) {
    case SIG_EVENT_NONE:
        return ZQ_OK;
    case SIG_EVENT_ICE_SERVERS:
        return take_ice_servers(doc, ev);
    case SIG_EVENT_OFFER:
    case SIG_EVENT_ANSWER: {
        zq_err_t err = take_peer(doc, ev);
        return err == ZQ_OK ? take_inner(doc, "sdp", "sdp", ev) : err;
    }
    case SIG_EVENT_CANDIDATE: {
        zq_err_t err = take_peer(doc, ev);
        return err == ZQ_OK ? take_inner(doc, "candidate", "candidate", ev) : err;
    }
    case SIG_EVENT_REFUSED: {
        json_value_t reason; /* optional: the refusal stands without it */
        zq_err_t err = take_peer(doc, ev);
        if (err == ZQ_OK && json_object_get(doc, "reason", &reason) == ZQ_OK) {
            err = copy_string(reason, ev->text, sizeof ev->text, &ev->text_len);
        }
        return err;
    }
    default:
        return take_peer(doc, ev);
    }
}

/* A flat object of string members: @p pairs holds key, value, key, value... */
static size_t write_strings(char *out, size_t cap, const char *const *pairs, size_t n_pairs)
{
    json_writer_t w;
    json_writer_init(&w, out, cap);
    json_object_begin(&w);
    for (size_t i = 0; i < 2 * n_pairs; i += 2) {
        json_key(&w, pairs[i]);
        json_string(&w, pairs[i + 1], strlen(pairs[i + 1]));
    }
    json_object_end(&w);
    return json_finish(&w);
}

size_t sig_write_join(const char *room, char *out, size_t cap)
{
    const char *const pairs[] = {"type", "join", "topicId", room};
    return write_strings(out, cap, pairs, 2);
}

size_t sig_write_description(bool offer, const char *to, const char *sdp, size_t sdp_len,
                             char *out, size_t cap)
{
    const char *kind = offer ? "offer" : "answer";
    json_writer_t w;
    json_writer_init(&w, out, cap);
    json_object_begin(&w);
    json_key(&w, "type");
    json_string(&w, kind, strlen(kind));
    json_key(&w, "peerId");
    json_string(&w, to, strlen(to));
    json_key(&w, "sdp"); /* RTCSessionDescription's JSON form (zeroq-wire.md §1) */
    json_object_begin(&w);
    json_key(&w, "type");
    json_string(&w, kind, strlen(kind));
    json_key(&w, "sdp");
    json_string(&w, sdp, sdp_len);
    json_object_end(&w);
    json_object_end(&w);
    return json_finish(&w);
}

size_t sig_write_candidate(const char *to, const char *line, const char *ufrag, char *out,
                           size_t cap)
{
    json_writer_t w;
    json_writer_init(&w, out, cap);
    json_object_begin(&w);
    json_key(&w, "type");
    json_string(&w, "ice_candidate", 13);
    json_key(&w, "peerId");
    json_string(&w, to, strlen(to));
    json_key(&w, "candidate"); /* RTCIceCandidate's JSON form */
    json_object_begin(&w);
    json_key(&w, "candidate");
    json_string(&w, line, strlen(line));
    json_key(&w, "sdpMid");
    json_string(&w, "0", 1);
    json_key(&w, "sdpMLineIndex");
    json_int64(&w, 0);
    json_key(&w, "usernameFragment");
    json_string(&w, ufrag, strlen(ufrag));
    json_object_end(&w);
    json_object_end(&w);
    return json_finish(&w);
}

size_t sig_write_refused(const char *to, const char *reason, char *out, size_t cap)
{
    const char *const pairs[] = {"type", "refused", "peerId", to, "reason", reason};
    return write_strings(out, cap, pairs, 3);
}
