/* NATS input: control lines framed by CRLF, each dispatched on its verb, and the payload a MSG
 * line announces, read by count (protocol doc: "Newlines", "Protocol Messages"). Input comes
 * cut anywhere; the state between pieces is the line so far, or how much of a payload and its
 * trailing CRLF is still due. */
#include <string.h>

#include "stack/nats/nats.h"
#include "stack/nats/nats_internal.h"
#include "zq/ascii.h"

static bool is_space(char ch)
{
    return ch == ' ' || ch == '\t';
}

size_t nats_split(const char *s, size_t len, nats_span_t *f, size_t max)
{
    size_t n = 0, i = 0;
    while (i < len) {
        while (i < len && is_space(s[i])) {
            i++;
        }
        size_t start = i;
        while (i < len && !is_space(s[i])) {
            i++;
        }
        if (i > start) {
            if (n < max) {
                f[n] = (nats_span_t){s + start, i - start};
            }
            n++;
        }
    }
    return n;
}

/* ---- Dispatch ----------------------------------------------------------------------------- */

static void on_ok(nats_client_t *c, const char *args, size_t len)
{
    (void)c;
    (void)args;
    (void)len; /* +OK: only sent in verbose mode, which CONNECT turns off; nothing to do */
}

static void on_hmsg(nats_client_t *c, const char *args, size_t len)
{
    (void)args;
    (void)len; /* HMSG only goes to a client whose CONNECT said headers:true */
    nats_protocol_error(c, "HMSG, but CONNECT said headers:false");
}

typedef void (*verb_fn)(nats_client_t *c, const char *args, size_t len);

/* What a server may send a client (protocol doc, "Protocol Messages"). "As soon as the server
 * accepts a connection from the client, it will send information about itself" (INFO), so
 * only INFO may come first, or a -ERR refusing us at once. */
static const struct {
    const char *verb;
    verb_fn handle;
    bool may_come_first;
} verbs[] = {
    {"MSG", nats_on_msg, false},   {"PING", nats_on_ping, false}, {"PONG", nats_on_pong, false},
    {"INFO", nats_on_info, true},  {"+OK", on_ok, false},         {"-ERR", nats_on_err, true},
    {"HMSG", on_hmsg, false},
};

/* Protocol doc: "protocol operation names are case-insensitive". */
static bool verb_is(const char *s, size_t len, const char *verb)
{
    size_t i = 0;
    for (; i < len && verb[i] != '\0'; i++) {
        if (zq_ascii_lower(s[i]) != zq_ascii_lower(verb[i])) {
            return false;
        }
    }
    return i == len && verb[i] == '\0';
}

static void dispatch(nats_client_t *c, const char *line, size_t len)
{
    size_t v = 0;
    while (v < len && !is_space(line[v])) {
        v++;
    }
    size_t a = v;
    while (a < len && is_space(line[a])) {
        a++;
    }
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++) {
        if (!verb_is(line, v, verbs[i].verb)) {
            continue;
        }
        if (c->state == NATS_STATE_WAIT_INFO && !verbs[i].may_come_first) {
            nats_protocol_error(c, "the server did not begin with INFO");
            return;
        }
        verbs[i].handle(c, line + a, len - a);
        return;
    }
    nats_protocol_error(c, "unknown verb");
}

/* ---- Framing ------------------------------------------------------------------------------ */

static void end_line(nats_client_t *c)
{
    size_t len = c->line_len;
    c->line_len = 0;
    if (len == 0 || c->line[len - 1] != '\r') {
        nats_protocol_error(c, "line not ended by CRLF");
        return;
    }
    dispatch(c, c->line, len - 1);
}

/* Up to and including the LF; the line is kept with its CR, which end_line() checks. */
static size_t take_line(nats_client_t *c, const uint8_t *p, size_t n)
{
    const uint8_t *lf = memchr(p, '\n', n);
    size_t take = lf != NULL ? (size_t)(lf - p) : n;
    if (take > sizeof c->line - c->line_len) {
        nats_protocol_error(c, "line longer than ZQ_NATS_LINE_MAX");
        return n;
    }
    memcpy(c->line + c->line_len, p, take);
    c->line_len += take;
    if (lf == NULL) {
        return take;
    }
    end_line(c);
    return take + 1;
}

static size_t take_payload(nats_client_t *c, const uint8_t *p, size_t n)
{
    uint64_t left = c->payload_need - c->payload_got;
    size_t take = left < n ? (size_t)left : n;
    if (c->rx == NATS_RX_PAYLOAD) {
        memcpy(c->payload + c->payload_got, p, take);
    }
    c->payload_got += take;
    if (c->payload_got == c->payload_need) {
        c->rx = NATS_RX_TRAILER;
        c->trailer_got = 0;
    }
    return take;
}

/* The CRLF that ends a payload (protocol doc, MSG: "<payload>\r\n"). */
static size_t take_trailer(nats_client_t *c, const uint8_t *p, size_t n)
{
    size_t i = 0;
    while (i < n && c->trailer_got < 2) {
        if (p[i++] != (uint8_t)"\r\n"[c->trailer_got++]) {
            nats_protocol_error(c, "MSG payload not followed by CRLF");
            return i;
        }
    }
    if (c->trailer_got == 2) {
        nats_msg_complete(c);
        c->rx = NATS_RX_LINE;
    }
    return i;
}

zq_err_t nats_client_feed_some(nats_client_t *c, const uint8_t *data, size_t len,
                               size_t *taken)
{
    *taken = 0;
    if (data == NULL && len > 0) {
        return ZQ_ERR_INVALID_ARG;
    }
    size_t off = 0;
    while (off < len && c->state != NATS_STATE_FAILED && c->state != NATS_STATE_TLS) {
        const uint8_t *p = data + off;
        size_t n = len - off;
        switch (c->rx) {
        case NATS_RX_LINE:
            off += take_line(c, p, n);
            break;
        case NATS_RX_PAYLOAD:
        case NATS_RX_SKIP:
            off += take_payload(c, p, n);
            break;
        case NATS_RX_TRAILER:
            off += take_trailer(c, p, n);
            break;
        }
    }
    *taken = off;
    return c->state == NATS_STATE_FAILED ? ZQ_ERR_CLOSED : ZQ_OK;
}

zq_err_t nats_client_feed(nats_client_t *c, const uint8_t *data, size_t len)
{
    size_t taken = 0;
    zq_err_t err = nats_client_feed_some(c, data, len, &taken);
    return err == ZQ_OK && taken < len ? ZQ_ERR_STATE : err;
}
