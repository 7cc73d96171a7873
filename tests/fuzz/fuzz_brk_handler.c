/* The broker's frame handler (broker/brk.c, brk_handle_frame): every frame kind reaching a
 * broker that is mid-conversation with two peers, a zq one (slot 0, hello and sub done) and a
 * plain ZeroQ one (slot 1), between the application's own calls.
 *
 * The input is a script of NUL-separated steps; the first byte of a step picks what it is:
 *   0     a frame from slot 0       4-5   a frame from slot 1
 *   1     a text message from slot 0's channel, through the reassembler (broker/peer.c)
 *   2     a binary message from slot 0's channel, through the reassembler
 *   3     a chunk (PROTOCOL.md §8) from slot 0's channel, through the reassembler: bytes 1-3
 *         of the step less one are its id, index and count (a NUL cannot be said), the rest
 *         its piece
 *   6     subscribe to the text     7     publish the text (QoS by parity of the length)
 *   8     enqueue the text          9     consume the queue named by the text
 *   10    serve the text            11    request the text
 *   12    time passes (the text's length x 1 s) and timers run
 * (0 is also the separator: a step's first byte is taken modulo 13, so 13 says 0.) A frame the
 * reassembler completes is handled as a frame from slot 0.
 * Checked: nothing crashes or reads out of bounds (ASan, UBSan); every event's strings lie
 * within the frame or the broker; the broker keeps working (a final publish and poll). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "broker/brk_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t arena[256 * 1024];
static dtls_identity_t identity;
static dtls_context_t ctx;
static node_t node;
static brk_t brk;
static uint64_t xorshift = 0x9e3779b97f4a7c15u;

static int fill(void *c, unsigned char *out, size_t len)
{
    (void)c;
    for (size_t i = 0; i < len; i++) {
        xorshift ^= xorshift << 13;
        xorshift ^= xorshift >> 7;
        xorshift ^= xorshift << 17;
        out[i] = (uint8_t)xorshift;
    }
    return 0;
}

static void setup_once(void)
{
    static bool done;
    if (done) {
        return;
    }
    done = true;
    zq_rand_t rand = {fill, NULL};
    dtls_arena_init(arena, sizeof arena);
    dtls_config_t dcfg;
    dtls_config_default(&dcfg);
    dcfg.rand = rand;
    node_config_t ncfg;
    memset(&ncfg, 0, sizeof ncfg);
    memcpy(ncfg.room, "room", 5);
    ncfg.rand = rand;
    ncfg.dtls = &ctx;
    ncfg.hosts[0] = zq_addr_v4(127, 0, 0, 1, 5000);
    ncfg.n_hosts = 1;
    if (dtls_identity_generate(&identity, &rand) != ZQ_OK ||
        dtls_context_init(&ctx, &dcfg, &identity) != ZQ_OK || node_init(&node, &ncfg) != ZQ_OK) {
        abort();
    }
}

/* A zq peer past hello and sub, and a ZeroQ peer: the states frames arrive in. */
static void start(void)
{
    brk_config_t cfg;
    brk_config_default(&cfg);
    cfg.rand = (zq_rand_t){fill, NULL};
    if (brk_init(&brk, &node, &cfg) != ZQ_OK) {
        abort();
    }
    for (uint8_t slot = 0; slot < 2; slot++) {
        brk_peer_up(&brk, 0, slot);
        brk.peers[slot].classified = true;
    }
    brk_peer_t *zq = &brk.peers[0];
    zq->zq = true;
    zq->wants_all = false;
    zq->sub_received = true;
    zq->features = UINT32_MAX;
    zq->max_frame = ZQ_BRK_FRAME_MAX;
    zq->credit[0] = 3;
}

static void check_str(brk_str_t s, const char *text, size_t len)
{
    const char *lo = (const char *)&brk;
    const char *hi = lo + sizeof brk;
    bool in_frame = s.p >= text && s.p + s.len <= text + len;
    bool in_broker = s.p >= lo && s.p + s.len <= hi;
    bool literal = s.len <= 4; /* "null", "" */
    if (s.len > 0 && !in_frame && !in_broker && !literal) {
        abort();
    }
}

static void drain(uint64_t now, const char *text, size_t len)
{
    brk_event_t ev;
    for (int i = 0; i < 64 && brk_poll_event(&brk, now, &ev); i++) {
        check_str(ev.topic, text, len);
        check_str(ev.payload, text, len);
        check_str(ev.id, text, len);
    }
}

static char text[2 * ZQ_BRK_FRAME_MAX];

static void handle_frame(uint64_t now, uint8_t slot, const char *frame, size_t len)
{
    brk_event_t ev;
    if (brk_handle_frame(&brk, now, slot, frame, len, &ev)) {
        check_str(ev.topic, frame, len);
        check_str(ev.payload, frame, len);
        check_str(ev.id, frame, len);
    }
}

/* One whole message on slot 0's channel, as brk_peer_read_frame() takes it. */
static void take_message(uint64_t now, bool binary, const uint8_t *data, size_t len)
{
    dc_message_t m = {0, binary, true, true, false, data, len};
    brk_peer_t *p = &brk.peers[0];
    if (brk_peer_take_piece(&brk, 0, &m)) {
        handle_frame(now, 0, p->frame, p->frame_len);
    }
    if (p->asm_len + p->frame_len > ZQ_BRK_FRAME_MAX ||
        (p->chunking && p->chunk_next >= p->chunk_count)) {
        abort();
    }
}

static void take_chunk(uint64_t now, const uint8_t *s, size_t n)
{
    static uint8_t chunk[BRK_CHUNK_HEADER + sizeof text];
    if (n < 4) {
        return;
    }
    brk_chunk_t c = {(uint32_t)(s[1] - 1), (uint16_t)(s[2] - 1), (uint16_t)(s[3] - 1), s + 4,
                     n - 4};
    size_t len = brk_chunk_write(chunk, sizeof chunk, &c);
    if (len != 0) {
        take_message(now, true, chunk, len);
    }
}

static void step(uint64_t *now, const uint8_t *s, size_t n)
{
    uint8_t op = s[0] % 13;
    size_t len = n - 1 < sizeof text - 1 ? n - 1 : sizeof text - 1;
    memcpy(text, s + 1, len);
    text[len] = '\0';
    size_t clen = strlen(text); /* the API takes C strings for names */
    uint32_t handle;
    if (op == 0 || op == 4 || op == 5) {
        handle_frame(*now, op == 0 ? 0 : 1, text, len);
    } else if (op == 1 || op == 2) {
        take_message(*now, op == 2, (const uint8_t *)text, len);
    } else if (op == 3) {
        take_chunk(*now, s, n);
    } else if (op == 6) {
        (void)brk_subscribe(&brk, *now, text);
    } else if (op == 7) {
        (void)brk_publish(&brk, *now, "fz", text, clen, (brk_qos_t)(clen & 1));
    } else if (op == 8) {
        (void)brk_enqueue(&brk, *now, "q", text, clen, NULL);
    } else if (op == 9) {
        (void)brk_consume(&brk, *now, text, 2);
    } else if (op == 10) {
        (void)brk_serve(&brk, *now, text);
    } else if (op == 11) {
        (void)brk_request(&brk, *now, text, "0", 1, 100, 1, &handle);
    } else {
        *now += 1000u * (len + 1);
        brk_handle_timeout(&brk, *now);
    }
    drain(*now, text, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup_once();
    start();
    uint64_t now = 1;
    size_t begin = 0;
    for (size_t i = 0; i <= size; i++) {
        if (i == size || data[i] == 0) {
            if (i > begin) {
                step(&now, data + begin, i - begin);
            }
            begin = i + 1;
        }
    }
    if (brk_publish(&brk, now, "after", "1", 1, BRK_QOS_0) == ZQ_ERR_MALFORMED) {
        abort(); /* a plain publish must always be understood */
    }
    drain(now, "", 0);
    return 0;
}
