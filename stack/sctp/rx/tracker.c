/* Which of the peer's TSNs arrived (RFC 9260 §6.2): the cumulative TSN, a bitmap of what came
 * above it (gap blocks), duplicates to report, and the SACK that says all that. The bitmap is
 * circular, indexed by TSN modulo its size, and covers (cumulative, cumulative + size]. */
#include <string.h>

#include "stack/sctp/sctp_internal.h"

#define WORDS (ZQ_SCTP_TRACKER_TSNS / 32)

static bool bit(const sctp_assoc_t *a, uint32_t tsn)
{
    uint32_t i = tsn % ZQ_SCTP_TRACKER_TSNS;
    return (a->tracker[i / 32] >> (i % 32)) & 1u;
}

static void set_bit(sctp_assoc_t *a, uint32_t tsn, bool on)
{
    uint32_t i = tsn % ZQ_SCTP_TRACKER_TSNS;
    uint32_t mask = 1u << (i % 32);
    a->tracker[i / 32] = on ? a->tracker[i / 32] | mask : a->tracker[i / 32] & ~mask;
}

bool sctp_tracker_has(const sctp_assoc_t *a, uint32_t tsn)
{
    if (tsn_le(tsn, a->peer_cum_tsn)) {
        return true;
    }
    return tsn - a->peer_cum_tsn <= ZQ_SCTP_TRACKER_TSNS && bit(a, tsn);
}

void sctp_tracker_mark(sctp_assoc_t *a, uint32_t tsn)
{
    set_bit(a, tsn, true);
    if (tsn_lt(a->highest_rx_tsn, tsn)) {
        a->highest_rx_tsn = tsn;
    }
}

void sctp_tracker_advance(sctp_assoc_t *a)
{
    while (bit(a, a->peer_cum_tsn + 1) && tsn_lt(a->peer_cum_tsn, a->highest_rx_tsn)) {
        set_bit(a, a->peer_cum_tsn + 1, false);
        a->peer_cum_tsn++;
    }
}

/* RFC 3758 §3.6: FORWARD TSN moves the cumulative TSN; what it skips counts as received. */
void sctp_tracker_forward(sctp_assoc_t *a, uint32_t new_cum)
{
    if (new_cum - a->peer_cum_tsn >= ZQ_SCTP_TRACKER_TSNS) {
        memset(a->tracker, 0, sizeof a->tracker);
    } else {
        for (uint32_t t = a->peer_cum_tsn + 1; t != new_cum + 1; t++) {
            set_bit(a, t, false);
        }
    }
    a->peer_cum_tsn = new_cum;
    if (tsn_lt(a->highest_rx_tsn, new_cum)) {
        a->highest_rx_tsn = new_cum;
    }
    sctp_tracker_advance(a);
}

/* Gap blocks: runs of received TSNs above the cumulative one, as offsets from it (§3.3.4). */
static uint16_t collect_gaps(const sctp_assoc_t *a, sctp_gap_block_t *gaps, bool *truncated)
{
    uint16_t n = 0;
    uint32_t cum = a->peer_cum_tsn;
    uint32_t span = a->highest_rx_tsn - cum;
    *truncated = false;
    for (uint32_t off = 2; off <= span;) {
        if (!bit(a, cum + off)) {
            off++;
            continue;
        }
        uint32_t start = off;
        while (off + 1 <= span && bit(a, cum + off + 1)) {
            off++;
        }
        if (n == ZQ_SCTP_MAX_GAP_BLOCKS) {
            *truncated = true;
            break;
        }
        gaps[n].start = (uint16_t)start;
        gaps[n].end = (uint16_t)off;
        n++;
        off++;
    }
    return n;
}

/* The window is a promise in payload bytes: RFC 9260 §6.1 B lets the peer have a_rwnd bytes
 * of payload outstanding, cut into chunks as it likes (Pion and zq count payload only; usrsctp
 * adds 256 bytes a chunk, its sctp_peer_chunk_oh). Our ring pays SCTP_CHUNK_OVERHEAD a chunk
 * besides, so the window is counted at the average chunk size seen (the ring then holds any
 * mix of that average). Before any DATA that size is 1 byte, the smallest chunk there is
 * (§6.2: no empty DATA), not the MTU: a window offered at the start for full chunks let in a
 * first flight of 10-byte chunks that take 36 bytes of ring each; the ring dropped the tail
 * of the burst, where no later chunk reports them missing (§7.2.4), and only T3-rtx recovered
 * them (a 1 s stall against Pion). Larger chunks open the window within a round trip (the
 * update goes at once, sctp_window_opened()). A peer that turns from large chunks to much
 * smaller ones can still overrun what it was offered before (so can one sending chunks under
 * 3 bytes into the first window, sctp_initial_rwnd()): per-chunk cost is not in the protocol,
 * and a window honest for 1-byte chunks at all times would be 1/28 of the ring. */
/* What the receive ring keeps for the chunk that fills the first gap (store() in
 * rx/deliver.c): the record of the largest chunk a datagram can bring. The peer's packets are
 * not bound by our MTU (dcSCTP sends 1,191 bytes against zq's 1,160): a reserve of one MTU of
 * payload, without the record's header, let out-of-order data fill the ring to where a
 * full-size gap filler no longer fit: nothing could be read, the window stayed at 0, and the
 * filler's every retransmission was dropped (a page sending to zq through 1 % loss stalled for
 * good; bench/README.md). A reserve of the largest chunk seen so far fails the same way when
 * the filler is the first of a larger size. RFC 9260 §6.2 would let the receiver drop the
 * highest TSN it holds instead (reneging), but dcSCTP never resends a chunk once a gap block
 * acknowledged it: a page's transfer stalled for good after zq reneged once. */
#define LARGEST_RX_PAYLOAD (ZQ_UDP_MAX_DATAGRAM - SCTP_COMMON_HEADER_LEN - SCTP_DATA_HEADER_LEN)

uint32_t sctp_gap_reserve(const sctp_assoc_t *a)
{
    uint32_t payload = a->max_chunk > LARGEST_RX_PAYLOAD ? a->max_chunk : LARGEST_RX_PAYLOAD;
    return payload + SCTP_CHUNK_OVERHEAD;
}

/* What a_rwnd holds back while no gap is open (below): the record of the largest chunk seen,
 * or of one as large as our MTU. Smaller than the gap reserve: the window a sender sees in
 * order decides how often it waits (a 1 MiB message through 16 KiB buffers asked for a SACK
 * in 1 packet of 12, not 1 of 190, with the whole reserve held back). */
uint32_t sctp_window_hold(const sctp_assoc_t *a)
{
    uint32_t payload = a->max_chunk > a->cfg.mtu ? a->max_chunk : a->cfg.mtu;
    return payload + SCTP_CHUNK_OVERHEAD;
}

uint32_t sctp_advertised_rwnd(const sctp_assoc_t *a)
{
    /* The free room is offered in payload bytes: what fits once each chunk's record overhead
     * is paid, at the chunk size seen so far. Its last part is kept for the chunk that fills
     * the first gap (sctp_gap_reserve()), so out-of-order data never takes the room the
     * missing chunk needs. With no gap about that much is held back from a_rwnd as well
     * (sctp_window_hold()): it absorbs
     * what the average misjudges (a burst of small chunks fills a window to the byte). While a
     * gap is open it is offered: usrsctp's sender leaves 256 bytes a chunk of any window unused
     * and learns that a fast retransmission was lost only from SACKs of data sent after it, so
     * with a 16 KiB buffer full of out-of-order data it had no room left for such data and
     * each lost retransmission cost an RTO. An out-of-order chunk that would take that part is
     * dropped unacked and resent (§6.2 lets a receiver drop what it has not acknowledged). */
    uint32_t free = a->in.cap - a->in.used;
    uint32_t held = a->highest_rx_tsn != a->peer_cum_tsn ? 0 : sctp_window_hold(a);
    if (free <= held) {
        return 0;
    }
    uint64_t usable = free - held;
    return (uint32_t)(usable * a->avg_chunk / (a->avg_chunk + SCTP_CHUNK_OVERHEAD));
}

/* §6.2: the peer hears at once when its window has grown by a good part of the buffer, as
 * reading frees room (rx/deliver.c) or larger chunks raise the size it is counted for (a
 * packet of DATA, assoc.c). */
bool sctp_window_opened(const sctp_assoc_t *a)
{
    /* A quarter of the ring or a packet, whichever is more, but never above half the ring:
     * a 2 KiB ring (a device's) holds one packet, and waiting for a packet's worth of space
     * after it was read would hold every window update back to the delayed SACK (RFC 1122
     * 4.2.3.3's rule for TCP: min(buffer / 2, MSS)). */
    uint32_t step = a->in.cap / 4 > a->cfg.mtu ? a->in.cap / 4 : a->cfg.mtu;
    step = step > a->in.cap / 2 ? (uint32_t)(a->in.cap / 2) : step;
    return a->state >= SCTP_STATE_ESTABLISHED && sctp_advertised_rwnd(a) >= a->last_rwnd + step;
}

/* A ring of a few packets (a device's 2 KiB) that this packet left without a packet's room:
 * the sender can send nothing more until it hears, and no second packet will come to make the
 * delayed SACK due, so each packet would wait out the delay (§6.2 allows a SACK at once). A
 * larger ring keeps delaying: its window still holds packets, and zero-window probes (§6.1 A)
 * are answered by the next SACK, not one each. */
bool sctp_window_nearly_shut(const sctp_assoc_t *a)
{
    return a->in.cap < 4u * a->cfg.mtu && sctp_advertised_rwnd(a) < a->cfg.mtu;
}

/* The a_rwnd of INIT and INIT ACK (§3.3.2, §3.3.3): at least 1500, which usrsctp (browsers)
 * requires, or it aborts the association (SCTP_MIN_RWND). Honest for chunks of 3 bytes or more
 * in a 16 KiB ring; SACKs then count it for the chunks that came. */
#define MIN_INIT_RWND 1500u

uint32_t sctp_initial_rwnd(const sctp_assoc_t *a)
{
    uint32_t rwnd = sctp_advertised_rwnd(a);
    return rwnd > MIN_INIT_RWND ? rwnd : MIN_INIT_RWND;
}

size_t sctp_sack_size(const sctp_assoc_t *a)
{
    sctp_gap_block_t gaps[ZQ_SCTP_MAX_GAP_BLOCKS];
    bool truncated;
    uint16_t n = collect_gaps(a, gaps, &truncated);
    return 16u + 4u * n + 4u * a->n_dups;
}

void sctp_write_sack(sctp_assoc_t *a, zq_writer_t *w)
{
    sctp_sack_chunk_t s;
    s.cum_tsn = a->peer_cum_tsn;
    s.a_rwnd = sctp_advertised_rwnd(a);
    s.n_gaps = collect_gaps(a, s.gaps, &s.truncated);
    s.n_dups = a->n_dups;
    memcpy(s.dups, a->dups, a->n_dups * sizeof a->dups[0]);
    sctp_sack_write(w, &s);
    a->n_dups = 0;
    a->sack_now = false;
    a->sack_due = false;
    a->sack_at = ZQ_TIME_NEVER;
    a->packets_since_sack = 0;
    a->last_rwnd = s.a_rwnd;
}
