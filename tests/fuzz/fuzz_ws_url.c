/* libFuzzer target for the ws:// URL parser (signal/ws_url.h, RFC 6455 §3): arbitrary bytes
 * are refused with a reason, or cut into parts inside the input that obey the rules and that,
 * written back as a URL, parse to the same parts. The input is an exact-size heap copy, so
 * AddressSanitizer sees any read past its end. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "signal/ws_url.h"
#include "zq/text.h"
#include "fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool within(const char *p, size_t len, const char *base, size_t size)
{
    return p >= base && len <= size && (size_t)(p - base) <= size - len;
}

static void check_parts(const ws_url_t *u, const char *base, size_t size)
{
    check(u->host_len > 0 && within(u->host, u->host_len, base, size));
    check(within(u->target, u->target_len, base, size) || u->target_len == 0);
    check(u->port != 0);
    check(u->addr.family == ZQ_AF_NONE || u->addr.port == u->port);
    check(memchr(u->target, '#', u->target_len) == NULL);
    for (size_t i = 0; i < u->target_len; i++) {
        check(u->target[i] >= 0x21 && u->target[i] <= 0x7E);
    }
}

/* "ws://" host [":" port] target, the host in brackets if it is IPv6. */
static size_t write_back(const ws_url_t *u, char *out, size_t cap)
{
    zq_writer_t w = zq_text_writer(out, cap);
    bool v6 = u->addr.family == ZQ_AF_INET6;
    zq_write_str(&w, v6 ? "ws://[" : "ws://");
    zq_write_bytes(&w, u->host, u->host_len);
    zq_write_str(&w, v6 ? "]:" : ":");
    zq_write_udec(&w, u->port);
    zq_write_bytes(&w, u->target, u->target_len);
    return zq_text_end(&w);
}

static void check_round_trip(const ws_url_t *u, size_t size)
{
    size_t cap = size + 16; /* the port may be written where the URL left it out */
    char *text = malloc(cap);
    check(text != NULL);
    size_t n = write_back(u, text, cap);
    check(n > 0);
    ws_url_t again;
    check(ws_url_parse(text, n, &again, NULL) == ZQ_OK);
    check(again.host_len == u->host_len && memcmp(again.host, u->host, u->host_len) == 0);
    check(again.port == u->port && again.target_len == u->target_len);
    check(memcmp(again.target, u->target, u->target_len) == 0);
    check(again.addr.family == u->addr.family);
    free(text);
}

/* Copies into a buffer one byte short must be refused, leave "" and write nothing past it. */
static void check_copies(const ws_url_t *u)
{
    char *host = malloc(u->host_len + 1);
    check(host != NULL);
    check(ws_url_copy_host(u, host, u->host_len + 1) == ZQ_OK);
    check(strlen(host) == u->host_len);
    check(ws_url_copy_host(u, host, u->host_len) == ZQ_ERR_TOO_LONG && host[0] == '\0');
    free(host);
    size_t target_len = u->target_len + 1; /* the "/" an empty or "?..." path stands for */
    char *target = malloc(target_len + 1);
    check(target != NULL);
    check(ws_url_copy_target(u, target, target_len + 1) == ZQ_OK && target[0] == '/');
    free(target);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *url = malloc(size > 0 ? size : 1);
    check(url != NULL);
    if (size > 0) {
        memcpy(url, data, size);
    }
    ws_url_t u;
    const char *why = NULL;
    zq_err_t err = ws_url_parse(url, size, &u, &why);
    if (err == ZQ_OK) {
        check_parts(&u, url, size);
        check_round_trip(&u, size);
        check_copies(&u);
    } else {
        check(why != NULL && (err == ZQ_ERR_MALFORMED || err == ZQ_ERR_UNSUPPORTED));
    }
    free(url);
    return 0;
}
