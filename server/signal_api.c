/* `zq signal`'s /api/topics and /api/queues: the topic and queue names ZeroQ clients announced
 * to the router, as a JSON array of strings. The length goes in the head first, then the
 * elements follow a bufferful at a time (signal_http_answer.c asks for each). */
#include <string.h>

#include "server/signal_server.h"
#include "zq/json.h"

#define NAME_JSON_MAX (ZQ_SIG_NAME_MAX * 6 + 8) /* every byte as \u00XX, quotes, brackets */

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

/* /api/topics and /api/queues: any method, as ZeroQ's Go server (docs/zeroq-wire.md §5). */
void api_list_send(signal_server_t *srv, http_conn_t *h, const sig_name_set_t *set,
                   bool head_only, uint64_t now)
{
    char el[NAME_JSON_MAX];
    uint16_t count = set->count;
    size_t length = 2 + (count > 0 ? count - 1u : 0u);
    for (uint16_t i = 0; i < count; i++) {
        length += name_json(set->names[i], el, sizeof el);
    }
    zq_writer_t w = zq_writer((uint8_t *)h->buf, sizeof h->buf);
    (void)http_response_head(&w, 200, "application/json", length,
                             "Access-Control-Allow-Origin: *\r\n");
    if (!head_only) {
        h->names = set;
        h->name_count = count;
        h->name_next = 0;
        h->list_begun = false;
        h->list_done = false;
    }
    http_conn_send(srv, h, w.len, now);
}

/* The names go out a bufferful at a time. The router only ever appends names and never
 * changes one, so the first name_count of them are the same bytes the length was made of. */
void api_list_refill(http_conn_t *h)
{
    char el[NAME_JSON_MAX];
    if (!h->list_begun) {
        h->buf[h->len++] = '[';
        h->list_begun = true;
    }
    while (h->name_next < h->name_count) {
        size_t n = name_json(h->names->names[h->name_next], el, sizeof el);
        size_t comma = h->name_next > 0;
        if (n + comma > sizeof h->buf - h->len) {
            return; /* the next refill goes on from this name */
        }
        memcpy(h->buf + h->len, ",", comma);
        memcpy(h->buf + h->len + comma, el, n);
        h->len += n + comma;
        h->name_next++;
    }
    if (h->len < sizeof h->buf) {
        h->buf[h->len++] = ']';
        h->list_done = true;
    }
}
