/* The WebSocket opening handshake (RFC 6455 §4): an HTTP/1.1 Upgrade whose answer proves,
 * through Sec-WebSocket-Accept, that the server read this very request. */
#include <string.h>

#include "signal/http_internal.h"
#include "signal/ws.h"
#include "zq/base64.h"
#include "zq/crypto.h"

/* §1.3: the GUID appended to the key before hashing. */
static const char ws_guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

void ws_accept_key(const char *key, size_t key_len, char out[WS_ACCEPT_LEN + 1])
{
    uint8_t digest[ZQ_SHA1_LEN];
    psa_hash_operation_t sha = psa_hash_operation_init();
    size_t n;
    (void)psa_hash_setup(&sha, PSA_ALG_SHA_1);
    (void)psa_hash_update(&sha, (const uint8_t *)key, key_len);
    (void)psa_hash_update(&sha, (const uint8_t *)ws_guid, sizeof ws_guid - 1);
    (void)psa_hash_finish(&sha, digest, sizeof digest, &n);
    (void)zq_base64_encode(digest, sizeof digest, out, WS_ACCEPT_LEN + 1, NULL);
}

static void put_str(zq_writer_t *w, const char *s)
{
    zq_write_bytes(w, s, strlen(s));
}

static void put_field(zq_writer_t *w, const char *name, const char *value)
{
    put_str(w, name);
    put_str(w, ": ");
    put_str(w, value);
    put_str(w, "\r\n");
}

/* A field value of the caller's: non-empty, no control characters (so no CR or LF). */
static bool value_ok(const char *s)
{
    if (s == NULL || *s == '\0') {
        return false;
    }
    for (; *s != '\0'; s++) {
        if ((uint8_t)*s < 0x20 || *s == 0x7F) {
            return false;
        }
    }
    return true;
}

/* RFC 9112 §3.2.1: an origin-form target, visible ASCII only. */
static bool path_ok(const char *s)
{
    if (s == NULL || *s != '/') {
        return false;
    }
    for (; *s != '\0'; s++) {
        if (*s < 0x21 || *s > 0x7E) {
            return false;
        }
    }
    return true;
}

static bool extra_ok(const char *line)
{
    http_header_t h;
    return line == NULL ||
           (value_ok(line) && http_parse_field(line, strlen(line), &h) == ZQ_OK);
}

zq_err_t ws_client_request(zq_writer_t *w, const ws_client_handshake_t *hs)
{
    if (!value_ok(hs->host) || !path_ok(hs->path) ||
        (hs->origin != NULL && !value_ok(hs->origin)) || !extra_ok(hs->extra_header)) {
        return ZQ_ERR_INVALID_ARG;
    }
    char key[WS_KEY_LEN + 1];
    (void)zq_base64_encode(hs->nonce, sizeof hs->nonce, key, sizeof key, NULL);
    put_str(w, "GET ");
    put_str(w, hs->path);
    put_str(w, " HTTP/1.1\r\n");
    put_field(w, "Host", hs->host);
    put_str(w, "Upgrade: websocket\r\nConnection: Upgrade\r\n");
    put_field(w, "Sec-WebSocket-Key", key);
    put_str(w, "Sec-WebSocket-Version: 13\r\n");
    if (hs->origin != NULL) {
        put_field(w, "Origin", hs->origin);
    }
    if (hs->extra_header != NULL) {
        put_str(w, hs->extra_header);
        put_str(w, "\r\n");
    }
    put_str(w, "\r\n");
    return w->failed ? ZQ_ERR_NO_SPACE : ZQ_OK;
}

static bool has_field(const http_response_t *res, const char *name)
{
    const char *v;
    size_t len;
    return http_response_header(res, name, &v, &len);
}

zq_err_t ws_client_check_response(const char *buf, size_t len, const uint8_t nonce[16],
                                  size_t *consumed, int *status)
{
    http_response_t res;
    zq_err_t err = http_parse_response(buf, len, &res);
    if (err != ZQ_OK) {
        return err;
    }
    if (status != NULL) {
        *status = res.status;
    }
    /* §4.1 steps 1-3: 101, then Upgrade and Connection naming the WebSocket protocol. */
    if (res.status != 101 ||
        !http_headers_have_token(res.headers, res.n_headers, "Upgrade", "websocket") ||
        !http_headers_have_token(res.headers, res.n_headers, "Connection", "upgrade")) {
        return ZQ_ERR_UNSUPPORTED;
    }
    /* Steps 5-6: no extension or subprotocol was offered, so none may be chosen. */
    if (has_field(&res, "Sec-WebSocket-Extensions") || has_field(&res, "Sec-WebSocket-Protocol")) {
        return ZQ_ERR_UNSUPPORTED;
    }
    /* Step 4: the accept value for the key sent. */
    char key[WS_KEY_LEN + 1], want[WS_ACCEPT_LEN + 1];
    (void)zq_base64_encode(nonce, 16, key, sizeof key, NULL);
    ws_accept_key(key, WS_KEY_LEN, want);
    const char *got;
    size_t got_len;
    if (!http_response_header(&res, "Sec-WebSocket-Accept", &got, &got_len) ||
        got_len != WS_ACCEPT_LEN || memcmp(got, want, WS_ACCEPT_LEN) != 0) {
        return ZQ_ERR_INTEGRITY;
    }
    *consumed = res.head_len;
    return ZQ_OK;
}

zq_err_t ws_server_response(zq_writer_t *w, const http_request_t *req, const char *extra_headers)
{
    const char *key;
    size_t key_len;
    if (!http_is_websocket_upgrade(req) || !http_header(req, "Sec-WebSocket-Key", &key, &key_len) ||
        (extra_headers != NULL && !http_field_lines_ok(extra_headers))) {
        return ZQ_ERR_INVALID_ARG;
    }
    char accept[WS_ACCEPT_LEN + 1];
    ws_accept_key(key, key_len, accept);
    /* §4.2.2 step 5. */
    put_str(w, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n");
    put_field(w, "Sec-WebSocket-Accept", accept);
    if (extra_headers != NULL) {
        put_str(w, extra_headers);
    }
    put_str(w, "\r\n");
    return w->failed ? ZQ_ERR_NO_SPACE : ZQ_OK;
}
