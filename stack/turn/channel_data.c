/* ChannelData (RFC 8656 §12.4): a channel number, a length, the data, over UDP padded to a
 * multiple of 4 (§12.5). */
#include <string.h>

#include "stack/turn/turn.h"
#include "zq/bytes.h"

bool turn_is_channel_data(const uint8_t *buf, size_t len)
{
    return len >= 1 && (buf[0] & 0xC0) == 0x40; /* RFC 7983 §7: 64..79 is TURN's channels */
}

zq_err_t turn_channel_data_parse(const uint8_t *buf, size_t len, uint16_t *channel,
                                 const uint8_t **data, size_t *data_len)
{
    if (len < TURN_CHANNEL_HEADER) {
        return ZQ_ERR_TRUNCATED;
    }
    uint16_t number = zq_load_be16(buf);
    uint16_t n = zq_load_be16(buf + 2);
    if (number < TURN_CHANNEL_MIN || number > TURN_CHANNEL_MAX) {
        return ZQ_ERR_MALFORMED; /* 0x5000-0x7FFF are reserved (§12) */
    }
    if ((size_t)n > len - TURN_CHANNEL_HEADER) {
        return ZQ_ERR_TRUNCATED;
    }
    /* §12.5: over UDP the padding may or may not be there; anything beyond it is not. */
    if (len - TURN_CHANNEL_HEADER - n > 3) {
        return ZQ_ERR_MALFORMED;
    }
    *channel = number;
    *data = buf + TURN_CHANNEL_HEADER;
    *data_len = n;
    return ZQ_OK;
}

size_t turn_channel_data_write(uint8_t *out, size_t cap, uint16_t channel, const uint8_t *data,
                               size_t len)
{
    size_t padded = (len + 3u) & ~(size_t)3u;
    if (len > UINT16_MAX || cap < TURN_CHANNEL_HEADER || padded > cap - TURN_CHANNEL_HEADER) {
        return 0;
    }
    zq_store_be16(out, channel);
    zq_store_be16(out + 2, (uint16_t)len);
    memcpy(out + TURN_CHANNEL_HEADER, data, len);
    memset(out + TURN_CHANNEL_HEADER + len, 0, padded - len);
    return TURN_CHANNEL_HEADER + padded;
}
