/* WebSocket output (RFC 6455 §5.2-§5.5, §7): whole frames appended to one bounded buffer that
 * the caller drains to TCP. Pongs and the close wait in their own slots when the buffer is
 * full, so the input side never has to stop for output room. */
#include <string.h>

#include "signal/ws.h"
#include "signal/ws_internal.h"
#include "zq/bytes.h"
#include "zq/utf8.h"

void ws_conn_init(ws_conn_t *c, ws_role_t role, const zq_rand_t *rand)
{
    memset(c, 0, sizeof *c);
    c->role = role;
    c->state = WS_STATE_OPEN;
    c->hdr_need = 2;
    if (rand != NULL) {
        c->rand = *rand;
    }
}

bool ws_close_code_valid(uint16_t code)
{
    /* §7.4.1-§7.4.2: 1000-1003 and 1007-1011 are defined, 1012-1014 were registered later
     * (IANA), 3000-4999 belong to libraries and applications. 1004-1006 and 1015 must never
     * appear on the wire. */
    return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) ||
           (code >= 3000 && code <= 4999);
}

/* ---- The output buffer -------------------------------------------------------------------- */

static size_t tx_free(const ws_conn_t *c)
{
    return sizeof c->tx - (c->tx_tail - c->tx_head);
}

/* n bytes at the end of the output (n <= tx_free), moving what is pending to the front first
 * if the end has too little room. */
static uint8_t *tx_reserve(ws_conn_t *c, size_t n)
{
    if (sizeof c->tx - c->tx_tail < n) {
        memmove(c->tx, c->tx + c->tx_head, c->tx_tail - c->tx_head);
        c->tx_tail -= c->tx_head;
        c->tx_head = 0;
    }
    uint8_t *p = c->tx + c->tx_tail;
    c->tx_tail += n;
    return p;
}

static size_t header_len(const ws_conn_t *c, size_t len)
{
    size_t ext = len < 126 ? 0 : len <= 0xFFFF ? 2 : 8;
    return 2 + ext + (c->role == WS_ROLE_CLIENT ? 4 : 0);
}

/* §5.2 header: FIN set (zq never fragments what it sends), the shortest length form, and for a
 * client the mask bit and key (§5.3). */
static void put_header(zq_writer_t *w, uint8_t opcode, size_t len, const uint8_t *mask)
{
    zq_write_u8(w, (uint8_t)(0x80 | opcode));
    uint8_t mask_bit = mask != NULL ? 0x80 : 0;
    if (len < 126) {
        zq_write_u8(w, (uint8_t)(mask_bit | len));
    } else if (len <= 0xFFFF) {
        zq_write_u8(w, (uint8_t)(mask_bit | 126));
        zq_write_be16(w, (uint16_t)len);
    } else {
        zq_write_u8(w, (uint8_t)(mask_bit | 127));
        zq_write_be64(w, (uint64_t)len);
    }
    if (mask != NULL) {
        zq_write_bytes(w, mask, 4);
    }
}

/* Appends one frame whose payload is a[0..alen) then b[0..blen) (a close's code, then its
 * reason), masked when sent by a client. */
static zq_err_t write_frame(ws_conn_t *c, uint8_t opcode, const uint8_t *a, size_t alen,
                            const uint8_t *b, size_t blen)
{
    size_t len = alen + blen, total = header_len(c, len) + len;
    if (len > sizeof c->tx || total > sizeof c->tx) {
        return ZQ_ERR_TOO_LONG;
    }
    if (total > tx_free(c)) {
        return ZQ_ERR_WOULD_BLOCK;
    }
    uint8_t mask[4] = {0};
    bool client = c->role == WS_ROLE_CLIENT;
    if (client && (c->rand.fill == NULL || zq_rand_bytes(&c->rand, mask, 4) != ZQ_OK)) {
        return c->rand.fill == NULL ? ZQ_ERR_INVALID_ARG : ZQ_ERR_CRYPTO;
    }
    zq_writer_t w = zq_writer(tx_reserve(c, total), total);
    put_header(&w, opcode, len, client ? mask : NULL);
    uint8_t *payload = zq_write_reserve(&w, len);
    for (size_t i = 0; i < len; i++) {
        payload[i] = (i < alen ? a[i] : b[i - alen]) ^ mask[i & 3];
    }
    return ZQ_OK;
}

/* ---- Control frames waiting for room ------------------------------------------------------ */

void ws_flush_control(ws_conn_t *c)
{
    if (c->pong_waiting) {
        if (write_frame(c, WS_OP_PONG, c->pong, c->pong_len, NULL, 0) != ZQ_OK) {
            return; /* the close must not overtake the pong */
        }
        c->pong_waiting = false;
    }
    if (c->close_waiting) {
        uint8_t code[2];
        zq_store_be16(code, c->close_code);
        size_t code_len = c->close_code != 0 ? 2 : 0;
        if (write_frame(c, WS_OP_CLOSE, code, code_len, c->close_reason, c->close_reason_len) ==
            ZQ_OK) {
            c->close_waiting = false;
            c->close_sent = true;
        }
    }
}

void ws_queue_pong(ws_conn_t *c, const uint8_t *data, size_t len)
{
    memcpy(c->pong, data, len);
    c->pong_len = (uint8_t)len;
    c->pong_waiting = true;
    ws_flush_control(c);
}

void ws_queue_close(ws_conn_t *c, uint16_t code, const uint8_t *reason, size_t len)
{
    if (c->close_waiting || c->close_sent) {
        return;
    }
    len = len < sizeof c->close_reason ? len : sizeof c->close_reason;
    if (len > 0) {
        memcpy(c->close_reason, reason, len);
    }
    c->close_reason_len = (uint8_t)len;
    c->close_code = code;
    c->close_waiting = true;
    ws_flush_control(c);
}

/* ---- Sending ------------------------------------------------------------------------------ */

static zq_err_t check_can_send(const ws_conn_t *c)
{
    if (c->state == WS_STATE_CLOSED) {
        return ZQ_ERR_CLOSED;
    }
    /* §5.5.1: nothing after our close. */
    return c->close_waiting || c->close_sent ? ZQ_ERR_STATE : ZQ_OK;
}

static zq_err_t send_frame(ws_conn_t *c, uint8_t opcode, const uint8_t *data, size_t len)
{
    zq_err_t err = check_can_send(c);
    if (err != ZQ_OK) {
        return err;
    }
    if (data == NULL && len > 0) {
        return ZQ_ERR_INVALID_ARG;
    }
    ws_flush_control(c); /* a waiting pong goes first */
    return write_frame(c, opcode, data, len, NULL, 0);
}

zq_err_t ws_send_text(ws_conn_t *c, const char *text, size_t len)
{
    const uint8_t *p = (const uint8_t *)text;
    if (p != NULL && !zq_utf8_valid(p, len)) {
        return ZQ_ERR_INVALID_ARG; /* §5.6: text frames carry UTF-8 */
    }
    return send_frame(c, WS_OP_TEXT, p, len);
}

zq_err_t ws_send_binary(ws_conn_t *c, const uint8_t *data, size_t len)
{
    return send_frame(c, WS_OP_BINARY, data, len);
}

zq_err_t ws_send_ping(ws_conn_t *c, const uint8_t *data, size_t len)
{
    if (len > WS_MAX_CONTROL_PAYLOAD) {
        return ZQ_ERR_TOO_LONG;
    }
    return send_frame(c, WS_OP_PING, data, len);
}

zq_err_t ws_close(ws_conn_t *c, uint16_t code, const char *reason)
{
    zq_err_t err = check_can_send(c);
    if (err != ZQ_OK) {
        return err;
    }
    size_t len = reason != NULL ? strlen(reason) : 0;
    if ((code != 0 && !ws_close_code_valid(code)) || (code == 0 && len > 0) ||
        len > sizeof c->close_reason || !zq_utf8_valid((const uint8_t *)reason, len)) {
        return ZQ_ERR_INVALID_ARG;
    }
    c->state = WS_STATE_CLOSING;
    ws_queue_close(c, code, (const uint8_t *)reason, len);
    return ZQ_OK;
}

bool ws_pending_output(ws_conn_t *c, const uint8_t **data, size_t *len)
{
    ws_flush_control(c);
    *data = c->tx + c->tx_head;
    *len = c->tx_tail - c->tx_head;
    return *len > 0;
}

void ws_output_consumed(ws_conn_t *c, size_t n)
{
    size_t pending = c->tx_tail - c->tx_head;
    c->tx_head += n < pending ? n : pending;
    if (c->tx_head == c->tx_tail) {
        c->tx_head = c->tx_tail = 0;
    }
    ws_flush_control(c);
}
