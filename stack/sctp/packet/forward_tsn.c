/* FORWARD TSN chunk (RFC 3758 §3.2): the sender gave up on messages up to New Cumulative TSN;
 * each stream pair names the last abandoned ordered message of a stream, so that the receiver
 * can deliver what waited behind it.
 *
 *      0                   1                   2                   3
 *      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |   Type = 192  |  Flags = 0x00 |        Length = Variable      |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |                      New Cumulative TSN                       |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |         Stream-1              |       Stream Sequence-1       |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     \                                                               /
 *     /                                                               \
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |         Stream-N              |       Stream Sequence-N       |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 */
#include <string.h>

#include "stack/sctp/packet/sctp_packet.h"

#define FWD_PAIR_LEN 4

zq_err_t sctp_forward_tsn_parse(const sctp_chunk_t *c, sctp_forward_tsn_chunk_t *out)
{
    memset(out, 0, sizeof *out);
    zq_reader_t r = zq_reader(c->value, c->value_len);
    out->new_cum_tsn = zq_read_be32(&r);
    if (r.failed || zq_reader_left(&r) % FWD_PAIR_LEN != 0) {
        return ZQ_ERR_MALFORMED;
    }
    size_t pairs = zq_reader_left(&r) / FWD_PAIR_LEN;
    if (pairs > ZQ_SCTP_MAX_FWD_STREAMS) {
        /* Only the stream pairs are dropped: the cumulative TSN still moves, and a stream
         * left waiting is unblocked by a later FORWARD TSN or by the data itself. */
        out->truncated = true;
        pairs = ZQ_SCTP_MAX_FWD_STREAMS;
    }
    out->n_streams = (uint16_t)pairs;
    for (size_t i = 0; i < pairs; i++) {
        out->streams[i].stream = zq_read_be16(&r);
        out->streams[i].ssn = zq_read_be16(&r);
    }
    return ZQ_OK;
}

void sctp_forward_tsn_write(zq_writer_t *w, const sctp_forward_tsn_chunk_t *f)
{
    if (f->n_streams > ZQ_SCTP_MAX_FWD_STREAMS) {
        w->failed = true;
        return;
    }
    sctp_chunk_write_header(w, SCTP_CHUNK_FORWARD_TSN, 0, 4 + (size_t)f->n_streams * FWD_PAIR_LEN);
    zq_write_be32(w, f->new_cum_tsn);
    for (uint16_t i = 0; i < f->n_streams; i++) {
        zq_write_be16(w, f->streams[i].stream);
        zq_write_be16(w, f->streams[i].ssn);
    }
}
