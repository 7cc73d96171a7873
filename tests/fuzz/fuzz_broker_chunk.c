/* The chunk frame (broker/frame_chunk.c, PROTOCOL.md §8) and the reassembler that joins the
 * chunks of one frame (broker/peer.c, brk_peer_take_piece).
 *
 * First the input is read as one chunk. What the reader accepts it must give exactly: numbers
 * within their rules, the piece the rest of the input in place, and the writer must write it
 * back byte for byte. What it refuses it must refuse for the right reason (shorter than a
 * header: truncated, else malformed), leaving nothing filled.
 *
 * Then the input is a script of messages on one peer's channel, each a flags byte (bit 0
 * binary, bit 1 sent in two pieces, bit 2 aborted by its sender), a big-endian 16-bit length
 * and that many bytes, given to the reassembler and to a model of PROTOCOL.md §8 written
 * here: the same frames must come out, with the same counts of frames, drops and messages
 * too long. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "broker/brk_internal.h"
#include "fuzz_support.h"
#include "zq/bytes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- The codec -------------------------------------------------------------------------------- */

static void fuzz_codec(const uint8_t *data, size_t size)
{
    static uint8_t again[65536 + BRK_CHUNK_HEADER];
    brk_chunk_t c;
    zq_err_t err = brk_chunk_read(data, size, &c);
    if (err != ZQ_OK) {
        check(err == (size < BRK_CHUNK_HEADER ? ZQ_ERR_TRUNCATED : ZQ_ERR_MALFORMED));
        check(c.id == 0 && c.index == 0 && c.count == 0 && c.piece == NULL && c.piece_len == 0);
        return;
    }
    check(size >= BRK_CHUNK_HEADER && data[0] == 'Z' && data[1] == 'C');
    check(c.count >= 2 && c.index < c.count);
    check(c.piece == data + BRK_CHUNK_HEADER && c.piece_len == size - BRK_CHUNK_HEADER);
    if (size > sizeof again) {
        return;
    }
    check(brk_chunk_write(again, size, &c) == size && memcmp(again, data, size) == 0);
    check(size == 0 || brk_chunk_write(again, size - 1, &c) == 0);
}

/* ---- The reassembler against a model ---------------------------------------------------------- */

typedef struct {
    bool active; /* within a sequence */
    uint32_t id;
    uint16_t next;
    uint16_t count;
    uint8_t text[ZQ_BRK_FRAME_MAX];
    size_t len;  /* of the frame so far */
    uint32_t frames, malformed, too_long;
} model_t;

static model_t model;
static brk_t brk;

/* The model's own reading of the header, apart from the codec's. */
static bool model_chunk(const uint8_t *m, size_t len, uint32_t *id, uint16_t *index,
                        uint16_t *count)
{
    if (len < BRK_CHUNK_HEADER || m[0] != 'Z' || m[1] != 'C') {
        return false;
    }
    *id = zq_load_be32(m + 2);
    *index = zq_load_be16(m + 6);
    *count = zq_load_be16(m + 8);
    return *count >= 2 && *index < *count;
}

/* A sequence broken is one drop. */
static void model_break(void)
{
    model.malformed += model.active;
    model.active = false;
    model.len = 0;
}

/* @return whether a frame is whole at model.text[0..len). */
static bool model_binary(const uint8_t *m, size_t len)
{
    uint32_t id;
    uint16_t index, count;
    bool ok = model_chunk(m, len, &id, &index, &count);
    bool in_turn = ok && (model.active ? id == model.id && index == model.next &&
                                             count == model.count
                                       : index == 0);
    if (!in_turn) {
        model.malformed += !model.active;
        model_break();
        return false;
    }
    memcpy(model.text + model.len, m + BRK_CHUNK_HEADER, len - BRK_CHUNK_HEADER);
    model.len += len - BRK_CHUNK_HEADER;
    model.active = index + 1u < count;
    model.id = id;
    model.next = (uint16_t)(index + 1u);
    model.count = count;
    return !model.active;
}

static bool model_message(const uint8_t *m, size_t len, bool binary, bool aborted)
{
    model.frames++;
    bool too_long = model.len + len > ZQ_BRK_FRAME_MAX; /* the header counts while it is read */
    if (too_long || aborted) {
        model.too_long += too_long;
        model_break();
        return false;
    }
    if (binary) {
        return model_binary(m, len);
    }
    model_break();
    memcpy(model.text, m, len);
    model.len = len;
    return true;
}

/* Gives the message to the reassembler, whole or in two pieces. */
static bool reassemble(const uint8_t *m, size_t len, bool binary, bool split, bool aborted)
{
    size_t first = split ? len / 2 : len;
    dc_message_t a = {0, binary, true, !split, !split && aborted, m, first};
    bool whole = brk_peer_take_piece(&brk, 0, &a);
    if (split) {
        check(!whole);
        dc_message_t b = {0, binary, false, true, aborted, m + first, len - first};
        whole = brk_peer_take_piece(&brk, 0, &b);
    }
    return whole;
}

static void one_message(const uint8_t *m, size_t len, uint8_t flags)
{
    bool binary = flags & 1, split = flags & 2, aborted = flags & 4;
    bool model_whole = model_message(m, len, binary, aborted);
    bool whole = reassemble(m, len, binary, split, aborted);
    const brk_peer_t *p = &brk.peers[0];
    check(whole == model_whole);
    if (whole) {
        check(p->frame_len == model.len && memcmp(p->frame, model.text, model.len) == 0);
        model.len = 0;
    }
    check(p->chunking == model.active);
    check(brk.stats.rx_frames == model.frames);
    check(brk.stats.rx_malformed == model.malformed);
    check(brk.stats.rx_too_long == model.too_long);
}

static void fuzz_reassembler(const uint8_t *data, size_t size)
{
    memset(&model, 0, sizeof model);
    memset(&brk.peers[0], 0, sizeof brk.peers[0]);
    memset(&brk.stats, 0, sizeof brk.stats);
    zq_reader_t r = zq_reader(data, size);
    for (;;) {
        uint8_t flags = zq_read_u8(&r);
        size_t len = zq_read_be16(&r);
        const uint8_t *m = zq_read_bytes(&r, len);
        if (r.failed) {
            return;
        }
        one_message(m, len, flags);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_codec(data, size);
    fuzz_reassembler(data, size);
    return 0;
}
