/* SHUTDOWN, SHUTDOWN ACK, SHUTDOWN COMPLETE (RFC 9260 §3.3.8, §3.3.9, §3.3.13) and COOKIE ECHO,
 * COOKIE ACK (§3.3.11, §3.3.12): the small chunks of setup and teardown.
 *
 *      0                   1                   2                   3
 *      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |   Type = 7    |  Chunk Flags  |          Length = 8           |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |                      Cumulative TSN Ack                       |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     | Type = 8/11/14|  Reserved   |T|          Length = 4           |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     (SHUTDOWN ACK, COOKIE ACK; the T bit is SHUTDOWN COMPLETE's only)
 *
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |   Type = 10   |  Chunk Flags  |            Length             |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     /                            Cookie                             /
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 */
#include "stack/sctp/packet/sctp_packet.h"

zq_err_t sctp_shutdown_parse(const sctp_chunk_t *c, uint32_t *cum_tsn)
{
    if (c->value_len != 4) {
        return ZQ_ERR_MALFORMED;
    }
    *cum_tsn = zq_load_be32(c->value);
    return ZQ_OK;
}

void sctp_shutdown_write(zq_writer_t *w, uint32_t cum_tsn)
{
    sctp_chunk_write_header(w, SCTP_CHUNK_SHUTDOWN, 0, 4);
    zq_write_be32(w, cum_tsn);
}

void sctp_empty_chunk_write(zq_writer_t *w, uint8_t type, uint8_t flags)
{
    sctp_chunk_write_header(w, type, flags, 0);
}

void sctp_cookie_echo_write(zq_writer_t *w, const uint8_t *cookie, size_t len)
{
    /* The cookie is the whole value, opaque: the peer made it (§5.1.3), zq only echoes it. */
    sctp_chunk_write_header(w, SCTP_CHUNK_COOKIE_ECHO, 0, len);
    zq_write_bytes(w, cookie, len);
    zq_write_fill(w, 0, sctp_padding(len));
}
