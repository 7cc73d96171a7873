/* libFuzzer target for TURN (stack/turn): TURN's attributes of any STUN message, ChannelData,
 * server URIs (turn_url_parse), and the client fed arbitrary datagrams as its server's, while
 * it allocates or once it holds an allocation with a permission and a channel (reached
 * through a scripted 401 and success), and the input as a TCP stream (turn_stream_*) read in
 * pieces: every frame it finds lies within what was fed and has its header's length.
 * Nothing fed may crash it, raise an event for data from a peer it never opened to, or leave
 * it in a state the API does not name. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "psa/crypto.h"
#include "stack/turn/turn.h"
#include "fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t rand_state;
static turn_client_t turn;
static stun_msg_t req;
static const zq_addr_t peer = {.family = ZQ_AF_INET4, .port = 5000, .ip = {198, 51, 100, 7}};

static void take_request(uint64_t now)
{
    const uint8_t *out;
    size_t len;
    check(turn_client_poll_output(&turn, now, &out, &len));
    static uint8_t copy[ZQ_TURN_DATAGRAM_MAX];
    memcpy(copy, out, len);
    check(stun_parse(&req, copy, len) == ZQ_OK);
}

static void reply(uint64_t now, uint16_t type, uint16_t error, const uint8_t *key)
{
    static const zq_addr_t relayed = {.family = ZQ_AF_INET4, .port = 49200, .ip = {203, 0, 113, 5}};
    uint8_t buf[256];
    stun_builder_t b;
    stun_build_start(&b, buf, sizeof buf, type, req.tid);
    if (error != 0) {
        stun_put_error_code(&b, error, "x");
        stun_put_attr(&b, STUN_ATTR_REALM, "r", 1);
        stun_put_attr(&b, STUN_ATTR_NONCE, "n", 1);
    } else if (type == TURN_ALLOCATE_SUCCESS) {
        stun_put_xor_address(&b, TURN_ATTR_XOR_RELAYED_ADDRESS, &relayed);
    }
    if (key != NULL) {
        stun_put_integrity(&b, key, 16);
    }
    turn_client_handle(&turn, now, buf, stun_build_finish(&b));
}

/* An allocation with a permission and channel 0x4000 for the peer. */
static void allocated(uint64_t now)
{
    static const char input[] = "u:r:p";
    uint8_t key[16];
    size_t n;
    check(psa_hash_compute(PSA_ALG_MD5, (const uint8_t *)input, sizeof input - 1, key,
                           sizeof key, &n) == PSA_SUCCESS);
    take_request(now);
    reply(now, TURN_ALLOCATE_ERROR, 401, NULL);
    take_request(now);
    reply(now, TURN_ALLOCATE_SUCCESS, 0, key);
    check(turn.state == TURN_ALLOCATED);
    check(turn_client_bind(&turn, now, &peer) == ZQ_OK);
    take_request(now);
    reply(now, TURN_CHANNEL_BIND_SUCCESS, 0, key);
}

static void drain(void)
{
    turn_event_t ev;
    while (turn_client_poll_event(&turn, &ev)) {
        check(ev.type >= TURN_EVENT_ALLOCATED && ev.type <= TURN_EVENT_REFUSED);
        if (ev.type == TURN_EVENT_DATA) {
            check(zq_addr_same_ip(&ev.peer, &peer)); /* only from the peer it opened to */
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    const uint8_t *body = data + 1;
    size_t len = size - 1;
    stun_msg_t msg;
    turn_attrs_t a;
    uint16_t ch;
    const uint8_t *payload;
    size_t n;
    if (stun_parse(&msg, body, len) == ZQ_OK && turn_parse_attrs(&msg, &a) == ZQ_OK &&
        (a.present & TURN_HAS_DATA)) {
        check(a.data >= body && a.data + a.data_len <= body + len);
    }
    if (turn_channel_data_parse(body, len, &ch, &payload, &n) == ZQ_OK) {
        check(ch >= TURN_CHANNEL_MIN && ch <= TURN_CHANNEL_MAX && payload + n <= body + len);
    }
    turn_url_t url;
    if (turn_url_parse((const char *)body, len, &url) == ZQ_OK) {
        check(url.server.port != 0 && url.server.family != ZQ_AF_NONE &&
              (url.transport == TURN_PROTOCOL_UDP || url.transport == TURN_PROTOCOL_TCP));
    }
    static turn_stream_t stream;
    turn_stream_reset(&stream);
    size_t step = (size_t)(data[0] & 15) + 1;
    for (size_t at = 0; at < len;) {
        size_t took = turn_stream_feed(&stream, body + at, len - at < step ? len - at : step);
        at += took;
        const uint8_t *frame;
        size_t flen, want;
        zq_err_t err;
        while ((err = turn_stream_next(&stream, &frame, &flen)) == ZQ_OK) {
            check(flen <= stream.len && turn_stream_frame_len(frame, flen, &want) == ZQ_OK &&
                  want == flen);
            turn_stream_pop(&stream, flen);
        }
        if (err != ZQ_ERR_WOULD_BLOCK || took == 0) {
            break; /* the stream is lost: a client closes it */
        }
    }
    turn_config_t cfg = {.server = zq_addr_v4(192, 0, 2, 1, 3478), .rto_ms = 100};
    cfg.rand = (zq_rand_t){fuzz_counter_rand, &rand_state};
    strcpy(cfg.username, "u");
    strcpy(cfg.password, "p");
    uint64_t now = 1000;
    check(turn_client_start(&turn, &cfg, now) == ZQ_OK);
    if (data[0] & 1) {
        allocated(now);
        drain();
    }
    /* The input as several datagrams: byte 0's upper bits give their size. */
    size_t piece = (size_t)(data[0] >> 1) * 8 + 4;
    for (size_t at = 0; at < len; at += piece) {
        size_t take = piece < len - at ? piece : len - at;
        turn_client_handle(&turn, now, body + at, take);
        drain();
        now = turn_client_timeout(&turn, now) != UINT64_MAX ? now + 50 : now;
        const uint8_t *out;
        size_t out_len;
        while (turn_client_poll_output(&turn, now, &out, &out_len)) {
            check(out_len <= ZQ_TURN_DATAGRAM_MAX && stun_parse(&msg, out, out_len) == ZQ_OK);
        }
    }
    check(turn.state <= TURN_FAILED);
    return 0;
}
