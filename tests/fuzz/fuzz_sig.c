/* The signalling message handlers: the server's room router and the client's frame reader.
 *
 * The input is a script of frames separated by NUL bytes; the first byte of each frame picks
 * which of three connected clients sends it (the last client never joins: a ZeroQ bookkeeping
 * socket). "$0", "$1" and "$2" in a frame stand for the clients' ids, which a fuzzer could never
 * guess (128 random bits). Every frame is also read by sig_parse_frame(). Checked after each frame: every
 * frame the router sends is one JSON object with a string "type"; a forwarded frame's peerId
 * is its sender's id, and it never goes back to its sender; the client table does not change. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zq/json.h"
#include "signal/router.h"
#include "signal/sig_client.h"

#define CLIENTS 3

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static sig_router_t router;
static unsigned clients[CLIENTS];
static int sender = -1; /* the client whose frame is being handled */

static uint64_t xorshift_state;

static int fill(void *ctx, unsigned char *out, size_t len)
{
    (void)ctx;
    for (size_t i = 0; i < len; i++) {
        xorshift_state ^= xorshift_state << 13;
        xorshift_state ^= xorshift_state >> 7;
        xorshift_state ^= xorshift_state << 17;
        out[i] = (uint8_t)xorshift_state;
    }
    return 0;
}

static void check_sent(void *ctx, unsigned to, const char *frame, size_t len)
{
    (void)ctx;
    json_value_t doc;
    json_value_t type;
    json_value_t peer;
    if (json_parse(frame, len, &doc) != ZQ_OK || json_type(doc) != JSON_OBJECT ||
        json_object_get(doc, "type", &type) != ZQ_OK || json_type(type) != JSON_STRING) {
        abort();
    }
    bool forwarded = json_string_equals(type, "offer") || json_string_equals(type, "answer") ||
                     json_string_equals(type, "ice_candidate");
    if (!forwarded || sender < 0) {
        return;
    }
    const char *id = router.clients[clients[sender]].id;
    if (to == clients[sender] || json_object_get(doc, "peerId", &peer) != ZQ_OK ||
        !json_string_equals(peer, id)) {
        abort();
    }
}

static void reset(void)
{
    xorshift_state = 0x9e3779b97f4a7c15u;
    zq_rand_t rand = {fill, NULL};
    sig_router_init(&router, &rand, check_sent, NULL);
    sender = -1;
    for (int i = 0; i < CLIENTS; i++) {
        if (sig_router_connect(&router, 0, 0, NULL, &clients[i]) != ZQ_OK) {
            abort();
        }
    }
    static const char join[] = "{\"type\":\"join\",\"topicId\":\"room\"}";
    for (int i = 0; i < CLIENTS - 1; i++) {
        sig_router_frame(&router, 0, clients[i], join, sizeof join - 1);
    }
}

/* Copies @p in to @p out with each "$N" replaced by client N's id. */
static size_t expand_ids(const uint8_t *in, size_t len, char *out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < len && n < cap; i++) {
        if (in[i] == '$' && i + 1 < len && in[i + 1] >= '0' && in[i + 1] < '0' + CLIENTS &&
            n + SIG_ID_LEN <= cap) {
            memcpy(out + n, router.clients[clients[in[i + 1] - '0']].id, SIG_ID_LEN);
            n += SIG_ID_LEN;
            i++;
        } else {
            out[n++] = (char)in[i];
        }
    }
    return n;
}

static void handle(uint64_t now, const uint8_t *frame, size_t len)
{
    static char text[2 * ZQ_SIG_FRAME_MAX];
    if (len == 0) {
        return;
    }
    sender = frame[0] % CLIENTS;
    size_t n = expand_ids(frame + 1, len - 1, text, sizeof text);
    sig_router_frame(&router, now, clients[sender], text, n);
    static sig_event_t ev;
    (void)sig_parse_frame(text, n, &ev);
    if (ev.text_len > ZQ_SIG_SDP_MAX || strlen(ev.peer) > ZQ_SIG_ID_MAX) {
        abort();
    }
    sender = -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reset();
    uint64_t now = 1;
    size_t start = 0;
    for (size_t i = 0; i <= size; i++) {
        if (i == size || data[i] == 0) {
            handle(now++, data + start, i - start);
            start = i + 1;
        }
    }
    if (sig_router_client_count(&router) != CLIENTS) {
        abort();
    }
    for (int i = 0; i < CLIENTS; i++) {
        sig_router_disconnect(&router, clients[i]);
    }
    if (sig_router_client_count(&router) != 0) {
        abort();
    }
    return 0;
}
