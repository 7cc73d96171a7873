#include "sctp_pair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zq/crypto.h"

#define MAX_BUF (512 * 1024)
static uint8_t bufs[4][MAX_BUF];

void sctp_pair_pattern(uint8_t *buf, size_t size, unsigned long n)
{
    for (size_t i = 0; i < size; i++) {
        buf[i] = (uint8_t)(n * 131 + i * 7 + (i >> 8));
    }
}

void sctp_pair_init(sctp_pair_t *p, uint64_t seed, simnet_impairment_t impair, size_t bufsize,
                    const sctp_config_t *cfg)
{
    sctp_pair_init_sizes(p, seed, impair, bufsize, bufsize, cfg);
}

void sctp_pair_init_sizes(sctp_pair_t *p, uint64_t seed, simnet_impairment_t impair,
                          size_t send_size, size_t recv_size, const sctp_config_t *cfg)
{
    memset(p, 0, sizeof *p);
    simnet_init(&p->net, seed, impair);
    p->now = 1000;
    for (int i = 0; i < 2; i++) {
        sctp_end_t *e = &p->end[i];
        sctp_config_t c;
        if (cfg != NULL) {
            c = *cfg;
        } else {
            sctp_config_default(&c);
        }
        c.rand = test_rand(&e->rand, seed * 17 + (uint64_t)i + 1);
        e->addr = zq_addr_v4(10, 0, 0, (uint8_t)(i + 1), 5000);
        e->sendbuf = bufs[2 * i];
        e->recvbuf = bufs[2 * i + 1];
        if (send_size > MAX_BUF || recv_size > MAX_BUF ||
            sctp_assoc_init(&e->assoc, &c, e->sendbuf, send_size, e->recvbuf, recv_size) !=
                ZQ_OK) {
            fprintf(stderr, "sctp pair: init failed\n");
            abort();
        }
    }
}

void sctp_pair_log_event(sctp_end_t *e, const sctp_event_t *ev)
{
    if (e->n_events < SCTP_PAIR_EVENT_LOG) {
        e->events[e->n_events++] = *ev;
    }
    switch (ev->type) {
    case SCTP_EVENT_CONNECTED:
        e->connected = true;
        break;
    case SCTP_EVENT_RESTARTED:
        e->restarted = true;
        e->connected = true;
        break;
    case SCTP_EVENT_CLOSED:
        e->closed = true;
        break;
    case SCTP_EVENT_ABORTED:
        e->aborted = true;
        break;
    default:
        break;
    }
}

static void take(sctp_end_t *e, const sctp_message_t *m)
{
    sctp_pair_stream_t *s = &e->rx[m->stream % SCTP_PAIR_STREAMS];
    s->pieces++;
    if (m->aborted) {
        s->aborted++;
        s->current = 0;
        return;
    }
    s->bytes += m->len;
    s->crc = zq_crc32_update(s->crc, m->data, m->len);
    s->current = m->first ? m->len : s->current + m->len;
    if (m->last) {
        s->messages++;
        e->unordered_messages += m->unordered;
        s->current = 0;
    }
}

void sctp_pair_read(sctp_pair_t *p, int side)
{
    sctp_end_t *e = &p->end[side];
    sctp_message_t m;
    while (sctp_read(&e->assoc, &m)) {
        take(e, &m);
    }
}

/* RFC 9260 Appendix B: the CRC32c over the packet with its checksum field zero, stored least
 * significant byte first. */
static void reseal(uint8_t *pkt, size_t len)
{
    memset(pkt + 8, 0, 4);
    uint32_t crc = sctp_crc32c(pkt, len);
    for (int i = 0; i < 4; i++) {
        pkt[8 + i] = (uint8_t)(crc >> (8 * i));
    }
}

static bool filtered(sctp_pair_t *p, int side, uint8_t *pkt, size_t len)
{
    if (p->filter == NULL) {
        return false;
    }
    bool drop = p->filter(p, side, pkt, len, p->filter_ctx);
    reseal(pkt, len);
    return drop;
}

static void transmit(sctp_pair_t *p, int side)
{
    sctp_end_t *e = &p->end[side];
    uint8_t pkt[ZQ_UDP_MAX_DATAGRAM];
    size_t n;
    while ((n = sctp_poll_transmit(&e->assoc, p->now, pkt, sizeof pkt)) > 0) {
        if (!filtered(p, side, pkt, n) && !e->mute) {
            simnet_send(&p->net, p->now, &e->addr, &p->end[1 - side].addr, pkt, n);
        }
    }
}

void sctp_pair_flush(sctp_pair_t *p, int side)
{
    sctp_end_t *e = &p->end[side];
    if (e->app != NULL) {
        e->app(p, side, e->app_ctx);
        transmit(p, side);
        return;
    }
    transmit(p, side);
    sctp_event_t ev;
    while (sctp_poll_event(&e->assoc, &ev)) {
        sctp_pair_log_event(e, &ev);
    }
}

void sctp_pair_connect(sctp_pair_t *p, bool both)
{
    for (int i = 0; i < (both ? 2 : 1); i++) {
        if (sctp_connect(&p->end[i].assoc, p->now) != ZQ_OK) {
            abort();
        }
        sctp_pair_flush(p, i);
    }
}

static void deliver(sctp_pair_t *p, const simnet_packet_t *pkt)
{
    int side = zq_addr_equal(&pkt->to, &p->end[0].addr) ? 0 : 1;
    sctp_end_t *e = &p->end[side];
    if (e->deaf || e->drop_next > 0) {
        e->drop_next -= e->drop_next > 0;
        return;
    }
    (void)sctp_handle_packet(&e->assoc, p->now, pkt->data, pkt->len);
    if (!e->stalled && e->app == NULL) {
        sctp_pair_read(p, side);
    }
    sctp_pair_flush(p, side);
}

bool sctp_pair_run(sctp_pair_t *p, uint64_t until, bool (*done)(sctp_pair_t *p))
{
    unsigned spins = 0;
    while (!(done != NULL && done(p))) {
        uint64_t t = simnet_next_delivery(&p->net);
        for (int i = 0; i < 2; i++) {
            t = zq_time_min(t, sctp_next_timeout(&p->end[i].assoc));
        }
        if (t > until) {
            p->now = until;
            return done != NULL && done(p);
        }
        if (t > p->now) {
            p->now = t;
            spins = 0;
        } else if (++spins > 100000) {
            fprintf(stderr, "sctp pair: a deadline stays due at %llu\n",
                    (unsigned long long)p->now);
            abort();
        }
        simnet_packet_t pkt;
        while (simnet_receive(&p->net, p->now, &pkt)) {
            deliver(p, &pkt);
        }
        for (int i = 0; i < 2; i++) {
            if (sctp_next_timeout(&p->end[i].assoc) <= p->now) {
                sctp_handle_timeout(&p->end[i].assoc, p->now);
                if (!p->end[i].stalled && p->end[i].app == NULL) {
                    sctp_pair_read(p, i);
                }
                sctp_pair_flush(p, i);
            }
        }
    }
    return true;
}

bool sctp_pair_established(sctp_pair_t *p)
{
    return p->end[0].connected && p->end[1].connected;
}

zq_err_t sctp_pair_send(sctp_pair_t *p, int side, uint16_t stream, const uint8_t *data,
                        size_t len, const sctp_send_opts_t *opts)
{
    zq_err_t err = sctp_send(&p->end[side].assoc, p->now, stream, 53, data, len, opts);
    sctp_pair_flush(p, side);
    return err;
}

bool sctp_pair_saw(const sctp_pair_t *p, int side, sctp_event_type_t type, uint16_t stream)
{
    const sctp_end_t *e = &p->end[side];
    for (int i = 0; i < e->n_events; i++) {
        if (e->events[i].type == type && (stream == 0xFFFF || e->events[i].stream == stream)) {
            return true;
        }
    }
    return false;
}
