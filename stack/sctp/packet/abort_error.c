/* ABORT and ERROR chunks and their error causes (RFC 9260 §3.3.7, §3.3.10).
 *
 *      0                   1                   2                   3
 *      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |   Type = 6    |  Reserved   |T|            Length             |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     \               zero or more Error Causes                       \
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |   Type = 9    | Chunk  Flags  |            Length             |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     \               one or more Error Causes                        \
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * An error cause is a TLV like a parameter (§3.3.10), read with sctp_tlv_next():
 *
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |          Cause Code           |         Cause Length          |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     /                    Cause-Specific Information                 /
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * The T bit says the packet carries the receiver's own tag, reflected (§8.5.1): an ABORT sent
 * without knowing the peer's tag, e.g. in answer to an out-of-the-blue packet.
 */
#include "stack/sctp/packet/sctp_packet.h"

void sctp_abort_write_header(zq_writer_t *w, bool t_flag, size_t causes_len)
{
    sctp_chunk_write_header(w, SCTP_CHUNK_ABORT, t_flag ? SCTP_FLAG_T : 0, causes_len);
}

void sctp_error_write_header(zq_writer_t *w, size_t causes_len)
{
    sctp_chunk_write_header(w, SCTP_CHUNK_ERROR, 0, causes_len);
}

void sctp_cause_write(zq_writer_t *w, uint16_t code, const void *info, size_t len)
{
    sctp_tlv_write(w, code, info, len);
}

size_t sctp_cause_size(size_t len)
{
    return 4 + len + sctp_padding(len);
}
