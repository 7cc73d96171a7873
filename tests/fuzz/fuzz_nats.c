/* libFuzzer target for the NATS client (stack/nats). The first byte seeds how the rest is cut
 * into reads and which calls come between them (pub, sub, unsub, ping, a partial write), and
 * whether a canned INFO goes first, and whether the client runs over TLS (then reading stops
 * at the INFO that starts it, nothing is lent until the TLS is up, and the harness brings it
 * up there); the rest is what the server sent, so seeds are plain protocol text. (An nkey's
 * signature of INFO's nonce is fuzz_nats_nkey's: under the sanitizers one costs what a
 * thousand short inputs do.) Whatever arrives: events stay inside their bounds and the client's buffers,
 * a fatal error is the last event, the queue never holds more than ZQ_NATS_OUT_MAX, and a
 * command is queued whole or not at all. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "stack/nats/nats.h"
#include "fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static nats_client_t client;
static bool failed_seen, ready_seen;

static const char canned_info[] = "INFO {\"server_id\":\"FUZZ\",\"max_payload\":1048576,"
                                  "\"proto\":1,\"headers\":true,\"tls_available\":true}\r\n";

static bool inside(const void *p, size_t len, const void *buf, size_t cap)
{
    const uint8_t *b = buf, *q = p;
    return q >= b && len <= cap && (size_t)(q - b) <= cap - len;
}

static void check_msg(const nats_client_t *c, const nats_event_t *ev)
{
    check(ev->subject_len > 0 && inside(ev->subject, ev->subject_len, c->line, sizeof c->line));
    check((ev->reply == NULL) == (ev->reply_len == 0));
    check(ev->reply == NULL || inside(ev->reply, ev->reply_len, c->line, sizeof c->line));
    check(ev->len <= ZQ_NATS_PAYLOAD_MAX && ev->payload == c->payload);
}

static void on_event(void *ctx, const nats_event_t *ev)
{
    const nats_client_t *c = ctx;
    check(!failed_seen); /* nothing after a fatal error */
    switch (ev->type) {
    case NATS_EV_MSG:
        check_msg(c, ev);
        break;
    case NATS_EV_READY:
        check(!ready_seen && nats_client_ready(c));
        ready_seen = true;
        break;
    case NATS_EV_ERR:
        check(ev->text != NULL && ev->text_len <= sizeof c->line);
        check(ev->fatal == (nats_client_state(c) == NATS_STATE_FAILED));
        failed_seen = ev->fatal;
        break;
    case NATS_EV_INFO:
        check(nats_client_info(c)->url_count <= ZQ_NATS_URLS_MAX);
        break;
    case NATS_EV_PONG:
        check(nats_client_ready(c));
        break;
    default:
        check(false);
    }
}

static size_t pending(void)
{
    const uint8_t *p;
    size_t n = nats_client_pending(&client, &p);
    check(n <= ZQ_NATS_OUT_MAX && inside(p, n, client.out, sizeof client.out));
    return n;
}

/* A command queued whole (@p want more bytes, plus an owed PONG's 6 that may go first) or not
 * at all (only the owed PONG). */
static void check_queued(zq_err_t err, size_t before, size_t want)
{
    size_t grew = pending() - before;
    if (err == ZQ_OK) {
        check(grew == want || grew == want + 6);
    } else {
        check(err == ZQ_ERR_WOULD_BLOCK || err == ZQ_ERR_TOO_LONG || err == ZQ_ERR_INVALID_ARG ||
              err == ZQ_ERR_STATE || err == ZQ_ERR_CLOSED);
        check(grew == 0 || grew == 6);
        check(err != ZQ_ERR_CLOSED || nats_client_state(&client) == NATS_STATE_FAILED);
    }
}

static const char *const subjects[] = {"a", "zq.room.x", "a.*", ">", "a..b", "", "a b", "x.>.y"};

static size_t digits(uint64_t v)
{
    size_t n = 1;
    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

static void call_something(uint32_t r, const uint8_t *bytes, size_t len)
{
    const char *subject = subjects[(r >> 8) % (sizeof subjects / sizeof subjects[0])];
    const char *reply = (r & 0x10000) ? "_INBOX.r" : NULL;
    size_t before = pending(), n = len % 2048, want;
    zq_err_t err;
    switch (r % 6) {
    case 0:
        err = nats_client_pub(&client, subject, reply, bytes, n);
        want = 4 + strlen(subject) + (reply ? 1 + strlen(reply) : 0) + 1 + digits(n) + 2 + n + 2;
        check_queued(err, before, want);
        break;
    case 1:
        err = nats_client_sub(&client, subject, r >> 20);
        check_queued(err, before, 4 + strlen(subject) + 1 + digits(r >> 20) + 2);
        break;
    case 2:
        err = nats_client_unsub(&client, r >> 20);
        check_queued(err, before, 6 + digits(r >> 20) + 2);
        break;
    case 3:
        check_queued(nats_client_ping(&client), before, 6);
        break;
    default:
        nats_client_sent(&client, (r >> 8) % (before + 1));
        check(pending() <= before + 6);
        break;
    }
}

/* In NATS_STATE_TLS nothing is lent, not even CONNECT; the caller's TLS then comes up. */
static void tls_comes_up(void)
{
    if (nats_client_state(&client) == NATS_STATE_TLS) {
        check(client.opt.tls_required && pending() == 0);
        check(nats_client_tls_up(&client) == ZQ_OK);
        check(nats_client_state(&client) == NATS_STATE_CONNECTING && pending() > 0);
    } else {
        check(nats_client_tls_up(&client) == ZQ_ERR_STATE);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    uint32_t seed = data[0];
    failed_seen = ready_seen = false;
    nats_options_t opt = {.user = "u", .pass = "p", .name = "fuzz", .echo = (data[0] & 2) != 0,
                          .tls_required = (data[0] & 4) != 0};
    nats_client_init(&client, &opt, on_event, &client);
    if (data[0] & 1) {
        size_t taken = 0;
        check(nats_client_feed_some(&client, (const uint8_t *)canned_info,
                                    sizeof canned_info - 1, &taken) == ZQ_OK);
        check(taken == sizeof canned_info - 1);
        tls_comes_up();
    }
    size_t off = 1;
    while (off < size) {
        uint8_t r8;
        fuzz_counter_rand(&seed, &r8, 1);
        size_t piece = (size_t)(r8 % 64) + 1;
        piece = piece < size - off ? piece : size - off;
        size_t taken = 0;
        zq_err_t err = nats_client_feed_some(&client, data + off, piece, &taken);
        check(taken <= piece && (taken == piece || err != ZQ_OK ||
                                 nats_client_state(&client) == NATS_STATE_TLS));
        piece = taken > 0 ? taken : piece; /* the rest is read again, after the TLS came up */
        tls_comes_up();
        check(err == ZQ_OK || err == ZQ_ERR_CLOSED);
        check((err == ZQ_ERR_CLOSED) == (nats_client_state(&client) == NATS_STATE_FAILED));
        check(err == ZQ_OK || failed_seen); /* every failure was reported */
        uint32_t r;
        fuzz_counter_rand(&seed, (unsigned char *)&r, sizeof r);
        call_something(r, data + off, size - off);
        off += piece;
    }
    check(pending() <= ZQ_NATS_OUT_MAX);
    return 0;
}
