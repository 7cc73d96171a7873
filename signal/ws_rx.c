/* WebSocket input (RFC 6455 §5, §7, §8): a frame header collected byte by byte, then its
 * payload unmasked straight into the message (or control) buffer as it arrives. */
#include <string.h>

#include "signal/ws.h"
#include "signal/ws_internal.h"
#include "zq/bytes.h"

static bool is_control(uint8_t opcode)
{
    return (opcode & 0x8) != 0; /* §5.5: opcodes 0x8-0xF */
}

static void emit(ws_conn_t *c, ws_event_type_t type, const uint8_t *data, size_t len)
{
    c->event = (ws_event_t){.type = type, .text = c->msg_text, .data = data, .len = len};
    c->has_event = true;
}

static void emit_closed(ws_conn_t *c, uint16_t code, const uint8_t *reason, size_t len,
                        bool remote)
{
    c->state = WS_STATE_CLOSED;
    c->closed_event = (ws_event_t){
        .type = WS_EVENT_CLOSED, .data = reason, .len = len, .code = code, .remote = remote};
    c->has_closed_event = true;
}

/* §7.1.7 "Fail the WebSocket Connection": send a close with the reason (unless one was sent
 * already), stop reading, report it. */
static void fail(ws_conn_t *c, uint16_t code, const char *why)
{
    size_t len = strlen(why);
    ws_queue_close(c, code, (const uint8_t *)why, len);
    emit_closed(c, code, (const uint8_t *)why, len, false);
}

/* ---- Header (§5.2) ------------------------------------------------------------------------ */

/* The first two bytes: everything but the extended length and the masking key. */
static void check_first_bytes(ws_conn_t *c)
{
    uint8_t b0 = c->hdr[0], b1 = c->hdr[1];
    uint8_t op = b0 & 0x0F, len7 = b1 & 0x7F;
    c->fin = (b0 & 0x80) != 0;
    c->opcode = op;
    c->masked = (b1 & 0x80) != 0;
    c->hdr_need = (uint8_t)(2 + (len7 == 126 ? 2 : len7 == 127 ? 8 : 0) + (c->masked ? 4 : 0));
    if ((b0 & 0x70) != 0) {
        fail(c, WS_CLOSE_PROTOCOL_ERROR, "reserved bits set"); /* no extension negotiated */
    } else if (op > WS_OP_BINARY && op != WS_OP_CLOSE && op != WS_OP_PING && op != WS_OP_PONG) {
        fail(c, WS_CLOSE_PROTOCOL_ERROR, "unknown opcode");
    } else if (is_control(op) && (!c->fin || len7 > WS_MAX_CONTROL_PAYLOAD)) {
        fail(c, WS_CLOSE_PROTOCOL_ERROR, "bad control frame"); /* §5.5 */
    } else if (c->masked != (c->role == WS_ROLE_SERVER)) {
        fail(c, WS_CLOSE_PROTOCOL_ERROR, c->masked ? "masked frame" : "unmasked frame");
    } else if (op == WS_OP_CONTINUATION && !c->in_message) {
        fail(c, WS_CLOSE_PROTOCOL_ERROR, "continuation without a message"); /* §5.4 */
    } else if ((op == WS_OP_TEXT || op == WS_OP_BINARY) && c->in_message) {
        fail(c, WS_CLOSE_PROTOCOL_ERROR, "new message inside a fragmented one");
    }
}

static void complete_frame(ws_conn_t *c);

static void finish_header(ws_conn_t *c)
{
    uint8_t len7 = c->hdr[1] & 0x7F;
    size_t off = 2;
    c->frame_len = len7;
    if (len7 == 126) {
        c->frame_len = zq_load_be16(c->hdr + 2);
        off = 4;
    } else if (len7 == 127) {
        c->frame_len = zq_load_be64(c->hdr + 2);
        off = 10;
        if (c->frame_len >> 63 != 0) {
            fail(c, WS_CLOSE_PROTOCOL_ERROR, "length with top bit set");
            return;
        }
    }
    memcpy(c->mask, c->masked ? c->hdr + off : (const uint8_t *)"\0\0\0\0", 4);
    if (!is_control(c->opcode)) {
        if (c->opcode != WS_OP_CONTINUATION) {
            c->in_message = true;
            c->msg_text = c->opcode == WS_OP_TEXT;
            c->msg_len = 0;
            c->utf8 = (zq_utf8_t){0};
        }
        if (c->frame_len > ZQ_WS_MAX_MESSAGE - c->msg_len) {
            fail(c, WS_CLOSE_TOO_BIG, "message too big"); /* before its payload arrives */
            return;
        }
    }
    c->frame_done = 0;
    c->in_payload = true;
    if (c->frame_len == 0) {
        complete_frame(c);
    }
}

static size_t take_header(ws_conn_t *c, const uint8_t *p, size_t n)
{
    size_t take = c->hdr_need - c->hdr_len;
    take = take < n ? take : n;
    memcpy(c->hdr + c->hdr_len, p, take);
    c->hdr_len = (uint8_t)(c->hdr_len + take);
    if (c->hdr_len == 2 && c->hdr_need == 2) {
        check_first_bytes(c);
        if (c->state == WS_STATE_CLOSED || c->hdr_need > 2) {
            return take;
        }
    }
    if (c->hdr_len == c->hdr_need) {
        finish_header(c);
    }
    return take;
}

/* ---- Payload (§5.3 masking, §5.4 fragments) ----------------------------------------------- */

static size_t take_payload(ws_conn_t *c, const uint8_t *p, size_t n)
{
    uint64_t left = c->frame_len - c->frame_done;
    size_t take = left < n ? (size_t)left : n;
    bool control = is_control(c->opcode);
    uint8_t *dst = control ? c->ctrl + c->frame_done : c->msg + c->msg_len;
    for (size_t i = 0; i < take; i++) {
        dst[i] = p[i] ^ c->mask[(c->frame_done + i) & 3];
    }
    c->frame_done += take;
    if (!control) {
        c->msg_len += take;
        /* §8.1: fail as soon as the text cannot be UTF-8, not after the whole message. */
        if (c->msg_text && !zq_utf8_feed(&c->utf8, dst, take)) {
            fail(c, WS_CLOSE_INVALID_DATA, "invalid UTF-8");
            return take;
        }
    }
    if (c->frame_done == c->frame_len) {
        complete_frame(c);
    }
    return take;
}

/* ---- Whole frames ------------------------------------------------------------------------- */

/* §5.5.1: an optional 2-byte code, then a UTF-8 reason. */
static void handle_close(ws_conn_t *c)
{
    size_t len = (size_t)c->frame_len;
    uint16_t code = len >= 2 ? zq_load_be16(c->ctrl) : WS_CLOSE_NO_STATUS;
    if (len == 1 || (len >= 2 && !ws_close_code_valid(code))) {
        fail(c, WS_CLOSE_PROTOCOL_ERROR, "bad close frame");
        return;
    }
    const uint8_t *reason = c->ctrl + (len >= 2 ? 2 : 0);
    size_t reason_len = len >= 2 ? len - 2 : 0;
    if (!zq_utf8_valid(reason, reason_len)) {
        fail(c, WS_CLOSE_INVALID_DATA, "invalid UTF-8 in close reason");
        return;
    }
    /* Echo the code (§5.5.1) unless this answers our own close. */
    ws_queue_close(c, len >= 2 ? code : 0, NULL, 0);
    emit_closed(c, code, reason, reason_len, true);
}

static void complete_frame(ws_conn_t *c)
{
    c->in_payload = false;
    c->hdr_len = 0;
    c->hdr_need = 2;
    switch (c->opcode) {
    case WS_OP_PING:
        if (c->state == WS_STATE_OPEN) {
            ws_queue_pong(c, c->ctrl, (size_t)c->frame_len);
        }
        break;
    case WS_OP_PONG:
        emit(c, WS_EVENT_PONG, c->ctrl, (size_t)c->frame_len);
        break;
    case WS_OP_CLOSE:
        handle_close(c);
        break;
    default: /* text, binary, continuation */
        if (!c->fin) {
            break;
        }
        if (c->msg_text && !zq_utf8_complete(&c->utf8)) {
            fail(c, WS_CLOSE_INVALID_DATA, "invalid UTF-8"); /* ends inside a character */
            break;
        }
        c->in_message = false;
        emit(c, WS_EVENT_MESSAGE, c->msg, c->msg_len);
        break;
    }
}

zq_err_t ws_feed(ws_conn_t *c, const uint8_t *data, size_t len, size_t *consumed)
{
    *consumed = 0;
    if (c->state == WS_STATE_CLOSED) {
        return ZQ_ERR_CLOSED;
    }
    size_t used = 0;
    while (used < len && !c->has_event && c->state != WS_STATE_CLOSED) {
        used += c->in_payload ? take_payload(c, data + used, len - used)
                              : take_header(c, data + used, len - used);
    }
    *consumed = used;
    return ZQ_OK;
}

bool ws_poll_event(ws_conn_t *c, ws_event_t *ev)
{
    if (c->has_event) {
        *ev = c->event;
        c->has_event = false;
        return true;
    }
    if (c->has_closed_event) {
        *ev = c->closed_event;
        c->has_closed_event = false;
        return true;
    }
    return false;
}

void ws_transport_closed(ws_conn_t *c)
{
    /* Nothing more can be written; §7.1.5: without a close frame the code is 1006. */
    c->tx_head = c->tx_tail = 0;
    c->pong_waiting = c->close_waiting = false;
    if (c->state != WS_STATE_CLOSED) {
        emit_closed(c, WS_CLOSE_ABNORMAL, NULL, 0, false);
    }
}

ws_state_t ws_state(const ws_conn_t *c)
{
    return c->state;
}
