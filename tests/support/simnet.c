#include "simnet.h"

#include <string.h>

void simnet_init(simnet_t *net, uint64_t seed, simnet_impairment_t impair)
{
    memset(net, 0, sizeof *net);
    net->impair = impair;
    (void)test_rand(&net->rand, seed);
}

static unsigned roll(simnet_t *net, unsigned bound)
{
    /* The high bits of xorshift64* are the good ones. */
    return bound == 0 ? 0 : (unsigned)((test_rand_next(&net->rand) >> 32) % bound);
}

static void enqueue(simnet_t *net, uint64_t now, const zq_addr_t *from, const zq_addr_t *to,
                    const uint8_t *data, size_t len)
{
    if (net->count == SIMNET_MAX_IN_FLIGHT || len > ZQ_UDP_MAX_DATAGRAM) {
        net->overflowed++;
        return;
    }
    simnet_packet_t *p = &net->packets[net->count++];
    p->from = *from;
    p->to = *to;
    p->deliver_at = now + net->impair.delay_ms + roll(net, net->impair.jitter_ms + 1);
    p->order = net->next_order++;
    p->len = len;
    memcpy(p->data, data, len);
}

void simnet_send(simnet_t *net, uint64_t now, const zq_addr_t *from, const zq_addr_t *to,
                 const uint8_t *data, size_t len)
{
    net->sent++;
    if (roll(net, 100) < net->impair.loss_percent) {
        net->lost++;
        return;
    }
    enqueue(net, now, from, to, data, len);
    if (roll(net, 100) < net->impair.duplicate_percent) {
        net->duplicated++;
        enqueue(net, now, from, to, data, len);
    }
}

static bool earlier(const simnet_packet_t *a, const simnet_packet_t *b)
{
    return a->deliver_at < b->deliver_at || (a->deliver_at == b->deliver_at && a->order < b->order);
}

static size_t earliest_index(const simnet_t *net)
{
    size_t best = 0;
    for (size_t i = 1; i < net->count; i++) {
        if (earlier(&net->packets[i], &net->packets[best])) {
            best = i;
        }
    }
    return best;
}

uint64_t simnet_next_delivery(const simnet_t *net)
{
    return net->count == 0 ? UINT64_MAX : net->packets[earliest_index(net)].deliver_at;
}

bool simnet_receive(simnet_t *net, uint64_t now, simnet_packet_t *out)
{
    if (net->count == 0) {
        return false;
    }
    size_t i = earliest_index(net);
    if (net->packets[i].deliver_at > now) {
        return false;
    }
    *out = net->packets[i];
    net->packets[i] = net->packets[--net->count];
    net->delivered++;
    return true;
}
