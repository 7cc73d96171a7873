/* HEARTBEAT and HEARTBEAT ACK chunks (RFC 9260 §3.3.5, §3.3.6): one Heartbeat Info parameter
 * whose value is the sender's own business; the ACK echoes it untouched.
 *
 *      0                   1                   2                   3
 *      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |  Type = 4 (5) |  Chunk Flags  |      Heartbeat Length         |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |    Heartbeat Info Type = 1    |         HB Info Length        |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     /                  Sender-Specific Heartbeat Info               /
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 */
#include "stack/sctp/packet/sctp_packet.h"

zq_err_t sctp_heartbeat_parse(const sctp_chunk_t *c, const uint8_t **info, size_t *len)
{
    zq_reader_t r = zq_reader(c->value, c->value_len);
    sctp_tlv_t p;
    if (sctp_tlv_next(&r, &p) != ZQ_OK || p.type != SCTP_PARAM_HEARTBEAT_INFO) {
        return ZQ_ERR_MALFORMED;
    }
    *info = p.value;
    *len = p.len;
    return ZQ_OK;
}

void sctp_heartbeat_write(zq_writer_t *w, uint8_t type, const uint8_t *info, size_t len)
{
    /* The Length leaves out the parameter's padding (§3.2), which becomes the chunk's. */
    sctp_chunk_write_header(w, type, 0, 4 + len);
    sctp_tlv_write(w, SCTP_PARAM_HEARTBEAT_INFO, info, len);
}
