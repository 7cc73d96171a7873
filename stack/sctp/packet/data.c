/* DATA chunk (RFC 9260 §3.3.1; the I bit is RFC 7053).
 *
 *      0                   1                   2                   3
 *      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |   Type = 0    |  Res  |I|U|B|E|            Length             |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |                              TSN                              |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |      Stream Identifier S      |   Stream Sequence Number n    |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |                  Payload Protocol Identifier                  |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     \                 User Data (seq n of Stream S)                 /
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * The flags are kept whole, reserved bits included, so a chunk re-serializes as it came.
 */
#include "stack/sctp/packet/sctp_packet.h"

#define DATA_FIXED_LEN (SCTP_DATA_HEADER_LEN - SCTP_CHUNK_HEADER_LEN)

zq_err_t sctp_data_parse(const sctp_chunk_t *c, sctp_data_chunk_t *out)
{
    zq_reader_t r = zq_reader(c->value, c->value_len);
    out->flags = c->flags;
    out->tsn = zq_read_be32(&r);
    out->stream = zq_read_be16(&r);
    out->ssn = zq_read_be16(&r);
    out->ppid = zq_read_be32(&r);
    if (r.failed) {
        return ZQ_ERR_MALFORMED;
    }
    /* §3.3.1 requires user data, but an empty chunk still parses: §6.2 has the receiver
     * answer it with ABORT and a "No User Data" cause, which needs its TSN. */
    out->len = zq_reader_left(&r);
    out->data = zq_read_bytes(&r, out->len);
    return ZQ_OK;
}

void sctp_data_write(zq_writer_t *w, const sctp_data_chunk_t *d)
{
    sctp_chunk_write_header(w, SCTP_CHUNK_DATA, d->flags, DATA_FIXED_LEN + d->len);
    zq_write_be32(w, d->tsn);
    zq_write_be16(w, d->stream);
    zq_write_be16(w, d->ssn);
    zq_write_be32(w, d->ppid);
    zq_write_bytes(w, d->data, d->len);
    zq_write_fill(w, 0, sctp_padding(d->len));
}

size_t sctp_data_size(size_t payload)
{
    return SCTP_DATA_HEADER_LEN + payload + sctp_padding(payload);
}
