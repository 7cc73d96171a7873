/* chunk: a piece of a frame too long for the channel (PROTOCOL.md §8), the one binary frame.
 *
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |  'Z' (0x5a)   |  'C' (0x43)   |   frame id (bits 31..16)      |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |   frame id (bits 15..0)       |            index              |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |            count              |                               |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               |
 *   /                 piece: bytes of the frame's UTF-8 text        /
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * Big-endian. The id is the same in every piece of one frame, index counts from 0, count is
 * at least 2 (a frame of one piece goes as text). Read: the whole header must be there before
 * any field is taken; the piece may be empty and is any bytes (the frame's text is checked
 * once whole). Whether a chunk comes in turn is the reassembler's rule (broker/peer.c), not
 * the codec's. */
#include <string.h>

#include "broker/frame.h"
#include "zq/bytes.h"

static const uint8_t chunk_magic[2] = {'Z', 'C'};

/* The rules a chunk's numbers keep, for reader and writer alike. */
static bool numbers_ok(uint16_t index, uint16_t count)
{
    return count >= 2 && index < count;
}

zq_err_t brk_chunk_read(const uint8_t *msg, size_t len, brk_chunk_t *out)
{
    memset(out, 0, sizeof *out);
    if (len < BRK_CHUNK_HEADER) {
        return ZQ_ERR_TRUNCATED;
    }
    zq_reader_t r = zq_reader(msg, len);
    const uint8_t *magic = zq_read_bytes(&r, sizeof chunk_magic);
    uint32_t id = zq_read_be32(&r);
    uint16_t index = zq_read_be16(&r);
    uint16_t count = zq_read_be16(&r);
    if (r.failed || memcmp(magic, chunk_magic, sizeof chunk_magic) != 0 ||
        !numbers_ok(index, count)) {
        return ZQ_ERR_MALFORMED;
    }
    out->id = id;
    out->index = index;
    out->count = count;
    out->piece_len = zq_reader_left(&r);
    out->piece = zq_read_bytes(&r, out->piece_len);
    return ZQ_OK;
}

size_t brk_chunk_write(uint8_t *buf, size_t cap, const brk_chunk_t *c)
{
    if (!numbers_ok(c->index, c->count) || (c->piece == NULL && c->piece_len != 0)) {
        return 0;
    }
    zq_writer_t w = zq_writer(buf, cap);
    zq_write_bytes(&w, chunk_magic, sizeof chunk_magic);
    zq_write_be32(&w, c->id);
    zq_write_be16(&w, c->index);
    zq_write_be16(&w, c->count);
    zq_write_bytes(&w, c->piece, c->piece_len);
    return w.failed ? 0 : w.len;
}
