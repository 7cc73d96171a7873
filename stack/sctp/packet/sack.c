/* SACK chunk (RFC 9260 §3.3.4).
 *
 *      0                   1                   2                   3
 *      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |   Type = 3    |  Chunk Flags  |         Chunk Length          |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |                      Cumulative TSN Ack                       |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |          Advertised Receiver Window Credit (a_rwnd)           |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     | Number of Gap Ack Blocks = N  |  Number of Duplicate TSNs = M |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |    Gap Ack Block #1 Start     |     Gap Ack Block #1 End      |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     /                              ...                              /
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |    Gap Ack Block #N Start     |     Gap Ack Block #N End      |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |                        Duplicate TSN 1                        |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     /                              ...                              /
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |                        Duplicate TSN M                        |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * The counts must match the Length exactly: a SACK whose counts lie is dropped whole rather
 * than half-believed. Blocks past ZQ_SCTP_MAX_GAP_BLOCKS (dups past ZQ_SCTP_MAX_DUP_TSNS) are
 * skipped and flagged: the first blocks are the ones nearest the cumulative ack, the ones that
 * matter most for fast retransmit.
 */
#include <string.h>

#include "stack/sctp/packet/sctp_packet.h"

#define SACK_FIXED_LEN 12
#define SACK_ENTRY_LEN 4 /* one gap block, or one duplicate TSN */

static uint16_t kept(uint16_t count, uint16_t cap, bool *truncated)
{
    if (count > cap) {
        *truncated = true;
        return cap;
    }
    return count;
}

zq_err_t sctp_sack_parse(const sctp_chunk_t *c, sctp_sack_chunk_t *out)
{
    memset(out, 0, sizeof *out);
    zq_reader_t r = zq_reader(c->value, c->value_len);
    out->cum_tsn = zq_read_be32(&r);
    out->a_rwnd = zq_read_be32(&r);
    uint16_t gaps = zq_read_be16(&r);
    uint16_t dups = zq_read_be16(&r);
    if (r.failed || zq_reader_left(&r) != ((size_t)gaps + dups) * SACK_ENTRY_LEN) {
        return ZQ_ERR_MALFORMED;
    }
    out->n_gaps = kept(gaps, ZQ_SCTP_MAX_GAP_BLOCKS, &out->truncated);
    out->n_dups = kept(dups, ZQ_SCTP_MAX_DUP_TSNS, &out->truncated);
    for (uint16_t i = 0; i < out->n_gaps; i++) {
        out->gaps[i].start = zq_read_be16(&r);
        out->gaps[i].end = zq_read_be16(&r);
    }
    (void)zq_read_bytes(&r, (size_t)(gaps - out->n_gaps) * SACK_ENTRY_LEN);
    for (uint16_t i = 0; i < out->n_dups; i++) {
        out->dups[i] = zq_read_be32(&r);
    }
    return ZQ_OK;
}

void sctp_sack_write(zq_writer_t *w, const sctp_sack_chunk_t *s)
{
    if (s->n_gaps > ZQ_SCTP_MAX_GAP_BLOCKS || s->n_dups > ZQ_SCTP_MAX_DUP_TSNS) {
        w->failed = true;
        return;
    }
    size_t entries = (size_t)s->n_gaps + s->n_dups;
    sctp_chunk_write_header(w, SCTP_CHUNK_SACK, 0, SACK_FIXED_LEN + entries * SACK_ENTRY_LEN);
    zq_write_be32(w, s->cum_tsn);
    zq_write_be32(w, s->a_rwnd);
    zq_write_be16(w, s->n_gaps);
    zq_write_be16(w, s->n_dups);
    for (uint16_t i = 0; i < s->n_gaps; i++) {
        zq_write_be16(w, s->gaps[i].start);
        zq_write_be16(w, s->gaps[i].end);
    }
    for (uint16_t i = 0; i < s->n_dups; i++) {
        zq_write_be32(w, s->dups[i]);
    }
}
