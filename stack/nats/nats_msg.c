/* MSG: a message for one of our subscriptions (protocol doc, "MSG"):
 *
 *     MSG <subject> <sid> [reply-to] <#bytes>\r\n
 *     [payload]\r\n
 *
 * The line is parsed here and the payload read by count in nats_rx.c, which calls
 * nats_msg_complete() after its CRLF. A payload over ZQ_NATS_PAYLOAD_MAX is read without
 * being kept and counted: the next message is unaffected. */
#include <stdint.h>

#include "stack/nats/nats.h"
#include "stack/nats/nats_internal.h"
#include "zq/text.h"

typedef struct {
    nats_span_t subject, reply; /* reply.len 0: none */
    uint32_t sid;
    uint64_t bytes;
} msg_line_t;

/* NULL, or why the arguments are not a MSG's. */
static const char *parse_args(const char *args, size_t len, msg_line_t *m)
{
    nats_span_t f[4];
    size_t n = nats_split(args, len, f, 4);
    if (n != 3 && n != 4) {
        return "MSG line without 3 or 4 fields";
    }
    uint64_t sid;
    if (zq_parse_udec(f[1].p, f[1].len, UINT32_MAX, &sid) != ZQ_OK) {
        return "MSG sid is not a number zq gave"; /* zq's sids are decimal uint32_t */
    }
    if (zq_parse_udec(f[n - 1].p, f[n - 1].len, UINT64_MAX, &m->bytes) != ZQ_OK) {
        return "MSG byte count is not a number";
    }
    m->subject = f[0];
    m->sid = (uint32_t)sid;
    m->reply = n == 4 ? f[2] : (nats_span_t){NULL, 0};
    return NULL;
}

void nats_on_msg(nats_client_t *c, const char *args, size_t len)
{
    msg_line_t m;
    const char *why = parse_args(args, len, &m);
    if (why != NULL) {
        nats_protocol_error(c, why);
        return;
    }
    /* The spans point into c->line, which stays untouched until the payload's CRLF. */
    c->msg_subject_off = (size_t)(m.subject.p - c->line);
    c->msg_subject_len = m.subject.len;
    c->msg_reply_off = m.reply.len > 0 ? (size_t)(m.reply.p - c->line) : 0;
    c->msg_reply_len = m.reply.len;
    c->msg_sid = m.sid;
    c->payload_need = m.bytes;
    c->payload_got = 0;
    c->trailer_got = 0;
    c->rx = m.bytes == 0 ? NATS_RX_TRAILER
                         : m.bytes > ZQ_NATS_PAYLOAD_MAX ? NATS_RX_SKIP : NATS_RX_PAYLOAD;
}

void nats_msg_complete(nats_client_t *c)
{
    if (c->payload_need > ZQ_NATS_PAYLOAD_MAX) {
        c->dropped_oversize++;
        return;
    }
    nats_event_t ev = {
        .type = NATS_EV_MSG,
        .subject = c->line + c->msg_subject_off,
        .subject_len = c->msg_subject_len,
        .sid = c->msg_sid,
        .reply = c->msg_reply_len > 0 ? c->line + c->msg_reply_off : NULL,
        .reply_len = c->msg_reply_len,
        .payload = c->payload,
        .len = (size_t)c->payload_need,
    };
    nats_emit(c, &ev);
}
