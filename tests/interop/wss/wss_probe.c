/* What a wss:// session takes from the mbedTLS arena (tests/interop/wss/run.sh): opens URL
 * with zq's client (port/posix/ws_client.c, the CA bundle of $SSL_CERT_FILE), joins a room,
 * closes, and prints the arena's peak during the handshake, what the open session holds, and
 * how many bundle certificates the anchor search parsed. Exits 1 unless the open succeeded and
 * the arena was back at its baseline after the close.
 *
 *   wss_probe URL */
#include <stdio.h>
#include <string.h>

#include "port/posix/loop.h"
#include "port/posix/ws_client.h"
#include "port/posix/ws_tls.h"
#include "stack/dtls/dtls.h"

static uint8_t arena[1024 * 1024];
static zq_loop_t loop;
static zq_ws_client_t ws;

static void on_text(void *ctx, uint64_t now, const char *text, size_t len)
{
    (void)ctx;
    (void)now;
    (void)text;
    (void)len;
}

static void on_closed(void *ctx, uint64_t now, uint16_t code, const char *reason)
{
    (void)ctx;
    (void)now;
    (void)fprintf(stderr, "wss_probe: closed %u %s\n", (unsigned)code, reason);
}

static size_t in_use(size_t *peak)
{
    dtls_arena_stats_t st;
    if (dtls_arena_stats(&st) != ZQ_OK) {
        return 0;
    }
    if (peak != NULL) {
        *peak = st.peak;
    }
    return st.in_use;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        (void)fprintf(stderr, "usage: wss_probe URL\n");
        return 2;
    }
    dtls_arena_init(arena, sizeof arena);
    zq_loop_init(&loop);
    tls_client_config_t *cfg;
    const char *why = "";
    if (zq_posix_tls_config(NULL, &cfg, &why) != ZQ_OK) {
        (void)fprintf(stderr, "wss_probe: %s\n", why);
        return 1;
    }
    size_t peak = 0;
    size_t baseline = in_use(NULL);
    dtls_arena_reset_peak();
    zq_ws_url_t url;
    zq_ws_client_callbacks_t cb = {.on_text = on_text, .on_closed = on_closed};
    if (zq_ws_url_parse(argv[1], &url, &why) != ZQ_OK ||
        zq_ws_client_open(&ws, &loop, &url, &cb, NULL, 5000, &why) != ZQ_OK) {
        (void)fprintf(stderr, "wss_probe: %s\n", why);
        return 1;
    }
    size_t open = in_use(&peak);
    static const char join[] = "{\"type\":\"join\",\"topicId\":\"probe\"}";
    (void)zq_ws_client_send_text(&ws, join, sizeof join - 1);
    (void)zq_loop_run(&loop, zq_loop_now(&loop) + 300);
    zq_ws_client_close(&ws);
    size_t after = in_use(NULL);
    (void)printf("wss_probe: arena peak %zu B during the handshake, %zu B while open, %zu B "
                 "after the close (baseline %zu B); %u bundle certificates parsed\n",
                 peak - baseline, open - baseline, after - baseline, baseline,
                 (unsigned)cfg->anchors_parsed);
    return after == baseline ? 0 : 1;
}
