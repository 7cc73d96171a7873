/* DATA_CHANNEL_OPEN (RFC 8832 §5.1):
 *
 *      0                   1                   2                   3
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |  Message Type |  Channel Type |            Priority           |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |                    Reliability Parameter                      |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |         Label Length          |       Protocol Length         |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     \                             Label                             /
 *     \                            Protocol                           /
 *
 * DATA_CHANNEL_ACK (§5.2) is the single byte 0x02. */
#include "stack/sctp/datachannel.h"
#include "zq/bytes.h"

static bool known_channel_type(uint8_t type)
{
    switch (type) {
    case DC_RELIABLE:
    case DC_RELIABLE_UNORDERED:
    case DC_PARTIAL_RELIABLE_REXMIT:
    case DC_PARTIAL_RELIABLE_REXMIT_UNORDERED:
    case DC_PARTIAL_RELIABLE_TIMED:
    case DC_PARTIAL_RELIABLE_TIMED_UNORDERED:
        return true;
    default:
        return false;
    }
}

zq_err_t dcep_open_parse(const uint8_t *data, size_t len, dcep_open_t *out)
{
    zq_reader_t r = zq_reader(data, len);
    uint8_t type = zq_read_u8(&r);
    out->channel_type = zq_read_u8(&r);
    out->priority = zq_read_be16(&r);
    out->reliability = zq_read_be32(&r);
    out->label_len = zq_read_be16(&r);
    out->protocol_len = zq_read_be16(&r);
    out->label = zq_read_bytes(&r, out->label_len);
    out->protocol = zq_read_bytes(&r, out->protocol_len);
    if (r.failed || type != DCEP_OPEN || !known_channel_type(out->channel_type)) {
        return ZQ_ERR_MALFORMED;
    }
    return ZQ_OK;
}

size_t dcep_open_write(const dcep_open_t *open, uint8_t *buf, size_t cap)
{
    zq_writer_t w = zq_writer(buf, cap);
    zq_write_u8(&w, DCEP_OPEN);
    zq_write_u8(&w, open->channel_type);
    zq_write_be16(&w, open->priority);
    zq_write_be32(&w, open->reliability);
    zq_write_be16(&w, open->label_len);
    zq_write_be16(&w, open->protocol_len);
    zq_write_bytes(&w, open->label, open->label_len);
    zq_write_bytes(&w, open->protocol, open->protocol_len);
    return w.failed ? 0 : w.len;
}
