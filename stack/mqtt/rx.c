/* Receive framing (3.1.1 §2.2, 5.0 §2.1): TCP bytes, split anywhere, into whole packets.
 *
 *     +-----------------+-------------------------------+----------------------------+
 *     | type | flags    | Remaining Length (1-4 bytes)  | Remaining Length bytes ... |
 *     +-----------------+-------------------------------+----------------------------+
 *
 * The first byte is checked as soon as it arrives and the remaining length as soon as it is
 * complete, so a packet that is refused never has its body buffered: a fifth length byte is
 * malformed (§1.5.5), and a packet over ZQ_MQTT_PACKET_MAX is a protocol error in 5.0 (we
 * said so in CONNECT's Maximum Packet Size, 0x95) or skipped and counted in 3.1.1. The body
 * goes into the receive buffer, and the whole packet to mqtt_handle_packet().
 */
#include <string.h>

#include "stack/mqtt/mqtt_internal.h"

static bool open_for_input(const mqtt_client_t *c)
{
    return c->state == MQTT_STATE_CONNECTING || c->state == MQTT_STATE_CONNECTED;
}

static void start_body(mqtt_client_t *c)
{
    if ((size_t)c->rx_hdr_len + c->rx_len > ZQ_MQTT_PACKET_MAX) {
        if (c->version == MQTT_V5) {
            mqtt_fail(c, MQTT_RC_PACKET_TOO_LARGE, "packet over our Maximum Packet Size");
            return;
        }
        c->rx_skipping = true;
        c->stats.rx_oversize++;
    }
    c->rx_in_body = true;
    c->rx_have = 0;
}

/* One byte of the fixed header. */
static void take_header_byte(mqtt_client_t *c, uint8_t b)
{
    const char *why = NULL;
    if (c->rx_hdr_len == 0) {
        mqtt_rc_t rc = mqtt_first_byte_check(c, b, &why);
        if (rc != MQTT_RC_SUCCESS) {
            mqtt_fail(c, rc, why);
            return;
        }
        c->rx_first = b;
        c->rx_hdr_len = 1;
        c->rx_len = 0;
        c->rx_varint_shift = 0;
        return;
    }
    c->rx_len |= (uint32_t)(b & 0x7F) << c->rx_varint_shift;
    c->rx_hdr_len++;
    c->rx_varint_shift += 7;
    if ((b & 0x80) != 0) {
        if (c->rx_hdr_len == MQTT_FIXED_HEADER_MAX) {
            mqtt_fail(c, MQTT_RC_MALFORMED_PACKET, "remaining length over four bytes");
        }
        return;
    }
    if (c->rx_hdr_len > 2 && b == 0) {
        mqtt_fail(c, MQTT_RC_MALFORMED_PACKET, "remaining length not minimally encoded");
        return;
    }
    start_body(c);
}

static void complete_packet(mqtt_client_t *c)
{
    bool skipped = c->rx_skipping;
    c->rx_in_body = false;
    c->rx_skipping = false;
    c->rx_hdr_len = 0;
    if (!skipped) {
        c->stats.rx_packets++;
        mqtt_handle_packet(c, c->rx_first, c->rx, c->rx_len);
    }
}

/* Takes what it can of @p data for the packet being read; returns how many bytes. */
static size_t take(mqtt_client_t *c, const uint8_t *data, size_t len)
{
    if (!c->rx_in_body) {
        take_header_byte(c, data[0]);
        if (c->rx_in_body && c->rx_len == 0) {
            complete_packet(c);
        }
        return 1;
    }
    size_t want = c->rx_len - c->rx_have;
    size_t n = want < len ? want : len;
    if (!c->rx_skipping) {
        memcpy(c->rx + c->rx_have, data, n);
    }
    c->rx_have += (uint32_t)n;
    if (c->rx_have == c->rx_len) {
        complete_packet(c);
    }
    return n;
}

zq_err_t mqtt_client_feed_some(mqtt_client_t *c, uint64_t now, const uint8_t *data, size_t len,
                               size_t *used)
{
    *used = 0;
    if (c->state == MQTT_STATE_IDLE) {
        return ZQ_ERR_STATE;
    }
    if (!open_for_input(c)) {
        return ZQ_ERR_CLOSED;
    }
    c->now = now;
    if (len > 0) {
        c->last_rx = now; /* any byte shows the connection lives (3.1.1 §3.1.2.10) */
    }
    uint32_t generation = c->generation;
    size_t off = 0;
    while (off < len && !c->rx_held && open_for_input(c) && c->generation == generation) {
        off += take(c, data + off, len - off);
    }
    *used = off;
    if (!open_for_input(c) || c->generation != generation) {
        return ZQ_ERR_CLOSED;
    }
    return c->rx_held ? ZQ_ERR_WOULD_BLOCK : ZQ_OK;
}

zq_err_t mqtt_client_feed(mqtt_client_t *c, uint64_t now, const uint8_t *data, size_t len)
{
    size_t used;
    zq_err_t err = mqtt_client_feed_some(c, now, data, len, &used);
    return err == ZQ_ERR_WOULD_BLOCK ? ZQ_OK : err; /* only a lenient client stops */
}

bool mqtt_client_resume(mqtt_client_t *c, uint64_t now)
{
    if (!c->rx_held) {
        return true;
    }
    if (c->n_unacked >= ZQ_MQTT_RX_INFLIGHT_MAX || !open_for_input(c)) {
        return false;
    }
    c->now = now;
    c->rx_held = false;
    mqtt_handle_packet(c, c->rx_first, c->rx, c->rx_len); /* it finds its slot now */
    return !c->rx_held;
}
