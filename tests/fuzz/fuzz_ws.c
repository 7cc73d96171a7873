/* libFuzzer target for the WebSocket connection (RFC 6455 §5-§8) and the client's handshake
 * check. The first byte picks the role and how the rest is cut into TCP reads. Whatever arrives,
 * the connection reports only valid events, and everything it writes is itself valid
 * WebSocket: a connection of the other role reading it never fails (it sees messages, pongs or
 * a close the first one sent, never a protocol error of its own). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "signal/ws.h"
#include "zq/utf8.h"
#include "fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(bool ok)
{
    if (!ok) {
        __builtin_trap();
    }
}

static ws_conn_t conn, peer;
static uint8_t wire[ZQ_WS_TX_BUFFER];

static bool code_reportable(uint16_t code)
{
    return code == WS_CLOSE_NO_STATUS || code == WS_CLOSE_ABNORMAL ||
           (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) ||
           (code >= 3000 && code <= 4999);
}

static void check_event(const ws_conn_t *c, const ws_event_t *ev)
{
    switch (ev->type) {
    case WS_EVENT_MESSAGE:
        require(ev->len <= ZQ_WS_MAX_MESSAGE);
        require(ev->data >= c->msg && ev->data + ev->len <= c->msg + sizeof c->msg);
        require(!ev->text || zq_utf8_valid(ev->data, ev->len));
        break;
    case WS_EVENT_PONG:
        require(ev->len <= WS_MAX_CONTROL_PAYLOAD);
        break;
    case WS_EVENT_CLOSED:
        require(code_reportable(ev->code));
        require(ev->len <= WS_MAX_CONTROL_PAYLOAD && zq_utf8_valid(ev->data, ev->len));
        require(ws_state(c) == WS_STATE_CLOSED);
        break;
    default:
        require(false);
    }
}

/* The peer reads what conn wrote: it must never find a protocol error in it. */
static void peer_reads(const uint8_t *bytes, size_t len)
{
    size_t off = 0;
    while (off < len) {
        size_t used;
        if (ws_feed(&peer, bytes + off, len - off, &used) != ZQ_OK) {
            return;
        }
        off += used;
        ws_event_t ev;
        bool any = false;
        while (ws_poll_event(&peer, &ev)) {
            any = true;
            require(ev.type != WS_EVENT_CLOSED || ev.remote);
        }
        if (used == 0 && !any) {
            return;
        }
    }
}

static void drain_output(ws_conn_t *c)
{
    const uint8_t *p;
    size_t n;
    while (ws_pending_output(c, &p, &n)) {
        require(n <= sizeof wire);
        memcpy(wire, p, n);
        ws_output_consumed(c, n);
        peer_reads(wire, n);
    }
}

/* Each message is echoed back, which exercises the output side too. */
static void handle(ws_conn_t *c, const ws_event_t *ev)
{
    check_event(c, ev);
    if (ev->type == WS_EVENT_MESSAGE) {
        zq_err_t err = ev->text ? ws_send_text(c, (const char *)ev->data, ev->len)
                                : ws_send_binary(c, ev->data, ev->len);
        require(err == ZQ_OK || err == ZQ_ERR_WOULD_BLOCK || err == ZQ_ERR_STATE ||
                err == ZQ_ERR_TOO_LONG);
    }
}

static void run_connection(ws_role_t role, size_t step, const uint8_t *data, size_t size)
{
    uint32_t seed = 1, peer_seed = 2;
    zq_rand_t rand = {fuzz_counter_rand, &seed}, peer_rand = {fuzz_counter_rand, &peer_seed};
    ws_conn_init(&conn, role, &rand);
    ws_conn_init(&peer, role == WS_ROLE_CLIENT ? WS_ROLE_SERVER : WS_ROLE_CLIENT, &peer_rand);
    size_t off = 0;
    while (off < size) {
        size_t piece = size - off < step ? size - off : step, used = 0;
        zq_err_t err = ws_feed(&conn, data + off, piece, &used);
        require(used <= piece);
        if (err != ZQ_OK) {
            require(err == ZQ_ERR_CLOSED && used == 0);
            break;
        }
        off += used;
        ws_event_t ev;
        while (ws_poll_event(&conn, &ev)) {
            handle(&conn, &ev);
        }
        drain_output(&conn);
    }
    ws_transport_closed(&conn);
    ws_event_t ev;
    while (ws_poll_event(&conn, &ev)) {
        check_event(&conn, &ev);
    }
    require(ws_state(&conn) == WS_STATE_CLOSED);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    static const uint8_t nonce[16] = "the sample nonce";
    size_t consumed = 0;
    zq_err_t err = ws_client_check_response((const char *)data + 1, size - 1, nonce, &consumed,
                                            NULL);
    require(err != ZQ_OK || consumed <= size - 1);

    ws_role_t role = (data[0] & 1) ? WS_ROLE_SERVER : WS_ROLE_CLIENT;
    size_t step = (size_t)(data[0] >> 1) + 1; /* reads of 1..128 bytes */
    run_connection(role, step, data + 1, size - 1);
    return 0;
}
