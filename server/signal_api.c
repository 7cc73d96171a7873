/* `zq signal`'s /api/topics and /api/queues: the topic and queue names that members of one
 * room announced, as a JSON array of strings (docs/zeroq-wire.md §5 has ZeroQ's server-wide
 * form; zq's lists are per room and forget a member's names when it goes).
 *
 * The same doors as the WebSocket: a page from an Origin outside --allow-origin gets 403; with
 * a token key, `?room=R&token=T` must name the room and open it (403 otherwise). Only an open
 * server answers without `room=`, with every room's names.
 *
 * The length goes in the head first, then the elements follow a bufferful at a time
 * (signal_http_answer.c asks for each) from the router's live tables; if they change in
 * between, the answer is cut short (the client sees fewer bytes than Content-Length said)
 * rather than being a list that never existed. */
#include <stdio.h>
#include <string.h>

#include "server/signal_server.h"
#include "zq/json.h"

#define NAME_JSON_MAX (ZQ_SIG_NAME_MAX * 6 + 8) /* every byte as \u00XX, quotes, brackets */
#define CORS_MAX (64 + ZQ_HTTP_MAX_REQUEST)

/* One /api list element as JSON: the one JSON writer escapes it, inside a one-element array
 * whose brackets are then dropped. */
static size_t name_json(const char *name, char *out, size_t cap)
{
    json_writer_t w;
    json_writer_init(&w, out, cap);
    json_array_begin(&w);
    json_string(&w, name, strlen(name));
    json_array_end(&w);
    size_t n = json_finish(&w);
    if (n < 2) {
        return 0;
    }
    memmove(out, out + 1, n - 2);
    return n - 2;
}

static const char *list_room(const http_conn_t *h)
{
    return h->list_any_room ? NULL : h->list_room;
}

static size_t list_length(const signal_server_t *srv, const http_conn_t *h)
{
    char el[NAME_JSON_MAX];
    sig_name_cursor_t cur = {0, 0};
    size_t length = 2;
    const char *name;
    for (size_t i = 0;
         (name = sig_router_next_name(&srv->router, list_room(h), h->list_kind, &cur)) != NULL;
         i++) {
        length += (i > 0) + name_json(name, el, sizeof el);
    }
    return length;
}

/* Which room the request asks about; false after answering it (400 or 403). */
static bool api_room(signal_server_t *srv, http_conn_t *h, const http_request_t *req,
                     uint64_t now)
{
    size_t n;
    char token[SIG_TOKEN_TEXT_MAX + 1];
    zq_err_t err = http_query_param(req, "room", h->list_room, sizeof h->list_room, &n);
    bool keyed = srv->router.token_key != NULL;
    if (err == ZQ_ERR_NOT_FOUND && !keyed) {
        h->list_any_room = true;
        return true;
    }
    if (err != ZQ_OK || n == 0) {
        http_conn_reply(srv, h, now, keyed && err == ZQ_ERR_NOT_FOUND ? 403 : 400, NULL);
        return false;
    }
    h->list_any_room = false;
    bool has = http_query_param(req, "token", token, sizeof token, &n) == ZQ_OK;
    if (!sig_router_token_opens(&srv->router, has ? token : NULL, h->list_room,
                                signal_unix_now())) {
        http_conn_reply(srv, h, now, 403, NULL);
        return false;
    }
    return true;
}

/* CORS (Fetch standard): with an allow-list, the allowed Origin is named back (and caches
 * told it varies); an open server says any page may read. */
static void cors_headers(const signal_server_t *srv, const http_request_t *req, char *out,
                         size_t cap)
{
    const char *v;
    size_t n;
    if (srv->origin_count == 0) {
        (void)snprintf(out, cap, "Access-Control-Allow-Origin: *\r\n");
    } else if (http_header(req, "Origin", &v, &n) && n + 48 < cap) {
        (void)snprintf(out, cap, "Access-Control-Allow-Origin: %.*s\r\nVary: Origin\r\n",
                       (int)n, v);
    } else {
        (void)snprintf(out, cap, "Vary: Origin\r\n");
    }
}

void signal_serve_api(signal_server_t *srv, http_conn_t *h, const http_request_t *req,
                      sig_name_kind_t kind, uint64_t now)
{
    char cors[CORS_MAX];
    bool head_only = http_request_method_is(req, "HEAD"); /* req lives in h->buf, reused below */
    if (!signal_origin_allowed(srv, req)) {
        http_conn_reply(srv, h, now, 403, NULL);
        return;
    }
    if (!api_room(srv, h, req, now)) {
        return;
    }
    h->list_kind = (uint8_t)kind;
    cors_headers(srv, req, cors, sizeof cors);
    size_t length = list_length(srv, h);
    zq_writer_t w = zq_writer((uint8_t *)h->buf, sizeof h->buf);
    (void)http_response_head(&w, 200, "application/json", length, cors);
    if (!head_only) {
        h->listing = true;
        h->list_epoch = srv->router.names_epoch;
        h->cursor = (sig_name_cursor_t){0, 0};
        h->list_begun = false;
        h->list_more = false;
    }
    http_conn_send(srv, h, w.len, now);
}

zq_err_t api_list_refill(const signal_server_t *srv, http_conn_t *h)
{
    char el[NAME_JSON_MAX];
    if (srv->router.names_epoch != h->list_epoch) {
        signal_say("an /api list changed while it was sent: answer cut short");
        return ZQ_ERR_STATE;
    }
    if (!h->list_begun) {
        h->buf[h->len++] = '[';
        h->list_begun = true;
    }
    for (;;) {
        sig_name_cursor_t at = h->cursor;
        const char *name = sig_router_next_name(&srv->router, list_room(h), h->list_kind,
                                                &h->cursor);
        if (name == NULL) {
            break;
        }
        size_t n = name_json(name, el, sizeof el);
        size_t comma = h->list_more;
        if (n + comma > sizeof h->buf - h->len) {
            h->cursor = at; /* the next refill goes on from this name */
            return ZQ_OK;
        }
        memcpy(h->buf + h->len, ",", comma);
        memcpy(h->buf + h->len + comma, el, n);
        h->len += n + comma;
        h->list_more = true;
    }
    if (h->len < sizeof h->buf) {
        h->buf[h->len++] = ']';
        h->listing = false;
    }
    return ZQ_OK;
}
