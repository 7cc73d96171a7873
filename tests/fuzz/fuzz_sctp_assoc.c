/* Feeds arbitrary packets to an SCTP association with a data channel layer on top, in every
 * state: closed, COOKIE-WAIT, COOKIE-ECHOED, established with traffic in flight, shutting down.
 * An honest peer association brings the target to the chosen state; then each input step is
 * either a raw packet, a packet assembled from fuzzed chunks with the right verification tag
 * and checksum (so it passes the gates), a mutated copy of a real packet from the peer, a
 * timer tick, or an application call. Invariants: outputs fit the MTU, the rings' accounting
 * holds, deadlines settle, and nothing reads or writes out of bounds (ASan). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stack/sctp/datachannel.h"
#include "stack/sctp/sctp_internal.h"
#include "fuzz_support.h"

#define BUF 8192

static uint8_t bufs[4][BUF];
static sctp_assoc_t target, peer;
static dc_t dc;
static uint64_t now;
static uint8_t last_from_peer[1500];
static size_t last_from_peer_len;
static uint32_t seed;

/* The send ring agrees with the counters kept beside it: records marked for retransmission
 * (a->n_rtx lets packets skip the ring walk) and bytes in flight. */
static void check_send_ring(const sctp_assoc_t *a)
{
    uint32_t rtx = 0;
    uint32_t flight = 0;
    for (uint32_t off = sctp_ring_first(&a->out); off != SCTP_NO_OFFSET && off != a->unsent_off;
         off = sctp_ring_next(&a->out, off)) {
        const out_rec_t *r = (const out_rec_t *)(const void *)sctp_ring_at(&a->out, off);
        rtx += (r->h.state & OUT_RTX) != 0;
        bool out = (r->h.state & OUT_SENT) &&
                   !(r->h.state & (OUT_ACKED | OUT_GAP | OUT_RTX | OUT_ABANDONED));
        flight += out ? r->len : 0;
    }
    check(rtx == a->n_rtx);
    check(a->state == SCTP_STATE_CLOSED || flight == a->flight);
}

static void check_invariants(const sctp_assoc_t *a)
{
    check(a->out.used <= a->out.cap && a->in.used <= a->in.cap);
    check(a->rq_count <= ZQ_SCTP_READ_QUEUE && a->n_streams <= ZQ_SCTP_MAX_STREAMS);
    check(zq_queue_count(&a->evq) <= ZQ_SCTP_EVENT_QUEUE);
    check(a->flight <= a->out.cap);
    check_send_ring(a);
}

static void drain_target(void)
{
    uint8_t pkt[1500];
    size_t n;
    int packets = 0;
    while ((n = sctp_poll_transmit(&target, now, pkt, sizeof pkt)) > 0) {
        check(n <= target.cfg.mtu && ++packets < 1000);
        (void)sctp_handle_packet(&peer, now, pkt, n); /* the peer keeps the target honest */
    }
    sctp_event_t ev;
    while (sctp_poll_event(&target, &ev)) {
        (void)dc_handle_sctp_event(&dc, now, &ev);
    }
    dc_message_t m;
    while (dc_read(&dc, now, &m)) {
        check(m.len <= 1 << 20);
    }
    dc_event_t dev;
    while (dc_poll_event(&dc, &dev)) {
    }
    check_invariants(&target);
}

static void drain_peer(bool deliver)
{
    uint8_t pkt[1500];
    size_t n;
    int packets = 0;
    while ((n = sctp_poll_transmit(&peer, now, pkt, sizeof pkt)) > 0 && ++packets < 1000) {
        memcpy(last_from_peer, pkt, n);
        last_from_peer_len = n;
        if (deliver) {
            (void)sctp_handle_packet(&target, now, pkt, n);
            drain_target();
        }
    }
    sctp_event_t ev;
    while (sctp_poll_event(&peer, &ev)) {
    }
    sctp_message_t m;
    while (sctp_read(&peer, &m)) {
    }
}

static void init_pair(void)
{
    static uint32_t seed_a;
    static uint32_t seed_b;
    sctp_config_t cfg;
    sctp_config_default(&cfg);
    seed_a = 1;
    seed_b = 2;
    cfg.rand = (zq_rand_t){fuzz_counter_rand, &seed_a};
    check(sctp_assoc_init(&target, &cfg, bufs[0], BUF, bufs[1], BUF) == ZQ_OK);
    cfg.rand = (zq_rand_t){fuzz_counter_rand, &seed_b};
    check(sctp_assoc_init(&peer, &cfg, bufs[2], BUF, bufs[3], BUF) == ZQ_OK);
    dc_init(&dc, &target, true, 65536, 65536);
    now = 1000;
}

/* Brings the target to a state: 0 closed, 1 cookie-wait, 2 cookie-echoed, 3 established,
 * 4 established with data in flight, 5 shutting down. */
static void reach(uint8_t state)
{
    init_pair();
    if (state == 0) {
        return;
    }
    (void)sctp_connect(&target, now);
    uint8_t pkt[1500];
    size_t n = sctp_poll_transmit(&target, now, pkt, sizeof pkt); /* INIT */
    if (state == 1) {
        return;
    }
    (void)sctp_handle_packet(&peer, now, pkt, n);
    drain_peer(true); /* INIT ACK, and the target answers COOKIE ECHO to the peer */
    if (state == 2) {
        return;
    }
    for (int i = 0; i < 4; i++) {
        drain_peer(true);
    }
    if (state >= 4) {
        static const uint8_t data[300] = {1};
        uint16_t id;
        (void)dc_open(&dc, now, "fuzz", "", DC_RELIABLE, 0, &id);
        (void)sctp_send(&target, now, id, DC_PPID_BINARY, data, sizeof data, NULL);
        (void)sctp_send(&peer, now, 1, DC_PPID_BINARY, data, sizeof data, NULL);
        drain_peer(false);
    }
    if (state == 5) {
        (void)sctp_shutdown(&target, now);
    }
}

/* A packet with the target's tag and a valid checksum, its chunks taken from the input. */
static size_t structured_packet(zq_reader_t *in, uint8_t *pkt, size_t cap)
{
    sctp_packet_builder_t b;
    uint8_t tag_choice = zq_read_u8(in);
    uint32_t vtag = tag_choice & 1 ? target.my_vtag : tag_choice & 2 ? 0 : target.peer_vtag;
    sctp_packet_begin(&b, pkt, cap, 5000, 5000, vtag);
    uint8_t n_chunks = zq_read_u8(in) % 6;
    for (uint8_t i = 0; i < n_chunks && !in->failed; i++) {
        uint8_t type = zq_read_u8(in);
        uint8_t flags = zq_read_u8(in);
        size_t len = zq_read_u8(in);
        const uint8_t *value = zq_read_bytes(in, len);
        if (value == NULL || len + 8 > sctp_packet_space(&b)) {
            break;
        }
        sctp_chunk_write_header(&b.w, type, flags, len);
        zq_write_bytes(&b.w, value, len);
        sctp_write_padding(&b.w);
    }
    return sctp_packet_finish(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zq_reader_t in = zq_reader(data, size);
    seed = 7;
    reach(zq_read_u8(&in) % 6);
    while (zq_reader_left(&in) > 0) {
        uint8_t op = zq_read_u8(&in);
        now += zq_read_u8(&in) * 7u;
        uint8_t pkt[1500];
        size_t len = 0;
        switch (op % 6) {
        case 0: { /* raw bytes */
            len = zq_read_u8(&in) * 4u;
            const uint8_t *raw = zq_read_bytes(&in, len);
            if (raw == NULL) {
                return 0;
            }
            memcpy(pkt, raw, len);
            break;
        }
        case 1:
            len = structured_packet(&in, pkt, sizeof pkt);
            break;
        case 2: { /* a real packet of the peer, one byte changed, checksum made right again */
            if (last_from_peer_len <= SCTP_COMMON_HEADER_LEN) {
                break;
            }
            uint8_t body[1500];
            size_t body_len = last_from_peer_len - SCTP_COMMON_HEADER_LEN;
            memcpy(body, last_from_peer + SCTP_COMMON_HEADER_LEN, body_len);
            body[zq_read_u8(&in) % body_len] ^= zq_read_u8(&in);
            sctp_packet_builder_t b;
            sctp_packet_begin(&b, pkt, sizeof pkt, 5000, 5000, zq_load_be32(last_from_peer + 4));
            zq_write_bytes(&b.w, body, body_len);
            len = sctp_packet_finish(&b);
            break;
        }
        case 3:
            if (sctp_next_timeout(&target) <= now) {
                sctp_handle_timeout(&target, now);
            }
            break;
        case 4: { /* the application */
            uint8_t what = zq_read_u8(&in);
            static const uint8_t payload[2000] = {2};
            if (what & 1) {
                (void)dc_send(&dc, now, (uint16_t)(what >> 1), payload, what * 7u, what & 2);
            } else if (what & 2) {
                (void)dc_close(&dc, now, (uint16_t)(what >> 2));
            } else {
                (void)sctp_reset_stream(&target, now, what >> 2);
            }
            break;
        }
        default:
            drain_peer(true);
            break;
        }
        if (len > 0) {
            (void)sctp_handle_packet(&target, now, pkt, len);
        }
        drain_target();
    }
    /* Let every timer run out: the association must settle, not spin. */
    for (int i = 0; i < 5000 && sctp_next_timeout(&target) != ZQ_TIME_NEVER; i++) {
        uint64_t t = sctp_next_timeout(&target);
        check(t != 0 || i < 4999);
        now = t > now ? t : now + 1;
        sctp_handle_timeout(&target, now);
        drain_target();
    }
    return 0;
}
