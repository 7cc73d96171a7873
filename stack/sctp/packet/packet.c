/* SCTP packets: the common header with its CRC32c, the chunk walk, the packet builder, and the
 * TLV framing that chunks, parameters and error causes share (RFC 9260 §3, §3.1, §3.2, §3.2.1,
 * §6.8, Appendix B).
 *
 *      0                   1                   2                   3
 *      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |     Source Port Number        |     Destination Port Number   |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |                      Verification Tag                         |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |                           Checksum                            |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * A chunk (§3.2) and a parameter or error cause (§3.2.1) have the same 4-byte header: 16 bits
 * of type (for a chunk: 8 of type, 8 of flags) and a 16-bit Length that counts the header and
 * the value but not the 0-3 zero bytes of padding that follow:
 *
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |   Chunk Type  | Chunk  Flags  |        Chunk Length           |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     \                          Chunk Value                          /
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 */
#include "stack/sctp/packet/sctp_packet.h"

#define CHECKSUM_OFFSET 8

/* Appendix B: the CRC32c is the one field SCTP does not send most significant byte first: the
 * appendix byte-swaps the reflected CRC and stores that in network order, so the wire carries
 * the CRC's least significant byte first (as iSCSI does). Getting this wrong passes every
 * self-test and fails against usrsctp, Linux and Chromium. */
static uint32_t load_checksum(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void store_checksum(uint8_t *p, uint32_t crc)
{
    p[0] = (uint8_t)crc;
    p[1] = (uint8_t)(crc >> 8);
    p[2] = (uint8_t)(crc >> 16);
    p[3] = (uint8_t)(crc >> 24);
}

/* §6.8: the CRC covers the whole packet with the checksum field taken as zero; feeding four
 * zero bytes in its place avoids copying a received (const) packet. */
static uint32_t packet_crc(const uint8_t *packet, size_t len)
{
    static const uint8_t zeros[4];
    uint32_t crc = sctp_crc32c_update(0, packet, CHECKSUM_OFFSET);
    crc = sctp_crc32c_update(crc, zeros, sizeof zeros);
    return sctp_crc32c_update(crc, packet + SCTP_COMMON_HEADER_LEN, len - SCTP_COMMON_HEADER_LEN);
}

zq_err_t sctp_packet_parse(const uint8_t *packet, size_t len, bool check_crc,
                           sctp_common_header_t *header, zq_reader_t *chunks)
{
    *chunks = zq_reader(packet, 0);
    if (len < SCTP_COMMON_HEADER_LEN) {
        return ZQ_ERR_TRUNCATED;
    }
    header->src_port = zq_load_be16(packet);
    header->dst_port = zq_load_be16(packet + 2);
    header->vtag = zq_load_be32(packet + 4);
    header->checksum = load_checksum(packet + CHECKSUM_OFFSET);
    if (check_crc && packet_crc(packet, len) != header->checksum) {
        return ZQ_ERR_INTEGRITY;
    }
    *chunks = zq_reader(packet + SCTP_COMMON_HEADER_LEN, len - SCTP_COMMON_HEADER_LEN);
    return ZQ_OK;
}

/* The framing shared by chunks and TLVs: a 16-bit head, a Length of at least 4 that fits, and
 * padding. The padding is skipped as far as it is there: §3.2 lets a chunk's Length leave out
 * its last parameter's padding, and a missing final chunk padding is accepted (robustness).
 * Errors leave the reader failed, so the walk stays stopped. */
static zq_err_t take_tlv(zq_reader_t *r, uint16_t *head, const uint8_t **value, size_t *len)
{
    if (r->failed) {
        return ZQ_ERR_MALFORMED;
    }
    if (zq_reader_left(r) == 0) {
        return ZQ_ERR_NOT_FOUND;
    }
    *head = zq_read_be16(r);
    uint16_t length = zq_read_be16(r);
    if (r->failed || length < 4) {
        r->failed = true;
        return ZQ_ERR_MALFORMED; /* a partial header, or a length that cannot hold its header */
    }
    *len = (size_t)length - 4;
    *value = zq_read_bytes(r, *len);
    if (*value == NULL) {
        return ZQ_ERR_MALFORMED; /* runs past the end */
    }
    size_t pad = sctp_padding(length);
    (void)zq_read_bytes(r, pad < zq_reader_left(r) ? pad : zq_reader_left(r));
    return ZQ_OK;
}

zq_err_t sctp_packet_next_chunk(zq_reader_t *chunks, sctp_chunk_t *chunk)
{
    uint16_t head = 0;
    const uint8_t *value = NULL;
    size_t len = 0;
    zq_err_t err = take_tlv(chunks, &head, &value, &len);
    if (err != ZQ_OK) {
        return err;
    }
    chunk->type = (uint8_t)(head >> 8);
    chunk->flags = (uint8_t)head;
    chunk->length = (uint16_t)(len + 4);
    chunk->value = value;
    chunk->value_len = len;
    return ZQ_OK;
}

zq_err_t sctp_tlv_next(zq_reader_t *r, sctp_tlv_t *tlv)
{
    return take_tlv(r, &tlv->type, &tlv->value, &tlv->len);
}

void sctp_packet_begin(sctp_packet_builder_t *b, uint8_t *buf, size_t cap, uint16_t src_port,
                       uint16_t dst_port, uint32_t vtag)
{
    b->w = zq_writer(buf, cap);
    zq_write_be16(&b->w, src_port);
    zq_write_be16(&b->w, dst_port);
    zq_write_be32(&b->w, vtag);
    zq_write_be32(&b->w, 0); /* the checksum, filled in by sctp_packet_finish() */
}

size_t sctp_packet_space(const sctp_packet_builder_t *b)
{
    return b->w.failed ? 0 : b->w.cap - b->w.len;
}

size_t sctp_packet_finish(sctp_packet_builder_t *b)
{
    sctp_write_padding(&b->w);
    if (b->w.failed) {
        return 0;
    }
    store_checksum(b->w.data + CHECKSUM_OFFSET, packet_crc(b->w.data, b->w.len));
    return b->w.len;
}

/* A value that would overflow the 16-bit Length fails the writer instead of wrapping. */
static bool length_fits(zq_writer_t *w, size_t value_len)
{
    if (value_len > UINT16_MAX - 4u) {
        w->failed = true;
        return false;
    }
    return true;
}

void sctp_chunk_write_header(zq_writer_t *w, uint8_t type, uint8_t flags, size_t value_len)
{
    if (length_fits(w, value_len)) {
        zq_write_u8(w, type);
        zq_write_u8(w, flags);
        zq_write_be16(w, (uint16_t)(value_len + 4));
    }
}

void sctp_write_padding(zq_writer_t *w)
{
    zq_write_fill(w, 0, sctp_padding(w->len));
}

void sctp_tlv_write_header(zq_writer_t *w, uint16_t type, size_t len)
{
    if (length_fits(w, len)) {
        zq_write_be16(w, type);
        zq_write_be16(w, (uint16_t)(len + 4));
    }
}

void sctp_tlv_write(zq_writer_t *w, uint16_t type, const void *value, size_t len)
{
    sctp_tlv_write_header(w, type, len);
    zq_write_bytes(w, value, len);
    zq_write_fill(w, 0, sctp_padding(len));
}
