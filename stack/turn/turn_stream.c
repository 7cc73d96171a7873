/* TURN over TCP (RFC 8656 §3.1): STUN messages and ChannelData messages follow one another on
 * the stream with no framing of their own; each one's header gives its length. */
#include <string.h>

#include "stack/turn/turn.h"
#include "zq/bytes.h"

#define STUN_HEADER 20
#define STUN_MAGIC_COOKIE 0x2112A442u

zq_err_t turn_stream_frame_len(const uint8_t *buf, size_t len, size_t *frame_len)
{
    if (len < TURN_CHANNEL_HEADER) {
        return ZQ_ERR_TRUNCATED;
    }
    uint16_t first = zq_load_be16(buf);
    uint16_t n = zq_load_be16(buf + 2);
    if ((buf[0] & 0xC0) == 0x40) {
        if (first > TURN_CHANNEL_MAX) {
            return ZQ_ERR_MALFORMED; /* 0x5000-0x7FFF are reserved (§12) */
        }
        /* §12.5: over TCP the padding to 4 bytes is always there, and counts in the frame. */
        *frame_len = TURN_CHANNEL_HEADER + (((size_t)n + 3u) & ~(size_t)3u);
        return ZQ_OK;
    }
    if ((buf[0] & 0xC0) != 0 || (n & 3u) != 0) {
        /* RFC 8489 §5: STUN's top bits are 0, its length a multiple of 4 */
        return ZQ_ERR_MALFORMED;
    }
    if (len >= 8 && zq_load_be32(buf + 4) != STUN_MAGIC_COOKIE) {
        return ZQ_ERR_MALFORMED; /* no way to find the next frame: the stream is lost */
    }
    *frame_len = STUN_HEADER + (size_t)n;
    return ZQ_OK;
}

size_t turn_stream_feed(turn_stream_t *s, const uint8_t *data, size_t len)
{
    size_t room = sizeof s->buf - s->len;
    size_t take = len < room ? len : room;
    memcpy(s->buf + s->len, data, take);
    s->len += take;
    return take;
}

zq_err_t turn_stream_next(turn_stream_t *s, const uint8_t **frame, size_t *len)
{
    size_t need;
    zq_err_t err = turn_stream_frame_len(s->buf, s->len, &need);
    if (err == ZQ_ERR_TRUNCATED) {
        return ZQ_ERR_WOULD_BLOCK;
    }
    if (err != ZQ_OK) {
        return err;
    }
    if (need > sizeof s->buf) {
        return ZQ_ERR_TOO_LONG; /* longer than any frame this side takes: the stream is lost */
    }
    if (s->len < need) {
        return ZQ_ERR_WOULD_BLOCK;
    }
    *frame = s->buf;
    *len = need;
    return ZQ_OK;
}

void turn_stream_pop(turn_stream_t *s, size_t len)
{
    size_t n = len < s->len ? len : s->len;
    memmove(s->buf, s->buf + n, s->len - n);
    s->len -= n;
}

void turn_stream_reset(turn_stream_t *s)
{
    s->len = 0;
}
