/* INFO {...} (protocol doc, "INFO"): the server's identity, limits and security needs, sent as
 * soon as a client connects and again whenever the cluster changes (the client's CONNECT says
 * protocol:1, asking for those updates: "connect_urls" then lists the servers to reconnect
 * to). The first one is answered with CONNECT (nats_connect.c). Each replaces the last. */
#include <limits.h>
#include <string.h>

#include "stack/nats/nats.h"
#include "stack/nats/nats_internal.h"
#include "zq/json.h"

enum { K_SERVER_ID, K_MAX_PAYLOAD, K_TLS_REQUIRED, K_TLS_AVAILABLE, K_AUTH_REQUIRED, K_HEADERS,
       K_PROTO, K_CONNECT_URLS, K_NONCE, K_COUNT };

static const char *const keys[K_COUNT] = {
    "server_id", "max_payload", "tls_required", "tls_available", "auth_required", "headers",
    "proto",     "connect_urls", "nonce",
};

static bool present(json_value_t v)
{
    return v.p != NULL;
}

/* A string into buf[cap], or false (and "") if it does not fit or holds a NUL. */
static bool copy_string(json_value_t v, char *buf, size_t cap)
{
    size_t len = 0;
    if (json_get_string(v, buf, cap, &len) != ZQ_OK || strlen(buf) != len) {
        buf[0] = '\0';
        return false;
    }
    return true;
}

static const char *read_urls(json_value_t urls, nats_info_t *info, uint32_t *dropped)
{
    if (json_type(urls) != JSON_ARRAY) {
        return "INFO connect_urls is not an array";
    }
    json_iter_t it;
    json_value_t url;
    json_iter_init(&it, urls);
    while (json_iter_next(&it, NULL, &url)) {
        if (json_type(url) != JSON_STRING) {
            return "INFO connect_urls holds a non-string";
        }
        if (info->url_count == ZQ_NATS_URLS_MAX ||
            !copy_string(url, info->connect_urls[info->url_count], ZQ_NATS_URL_MAX)) {
            (*dropped)++;
            continue;
        }
        info->url_count++;
    }
    return NULL;
}

static const char *read_numbers(const json_value_t *v, nats_info_t *info)
{
    if (present(v[K_MAX_PAYLOAD]) &&
        json_get_count(v[K_MAX_PAYLOAD], &info->max_payload) != ZQ_OK) {
        return "INFO max_payload is not a count";
    }
    int64_t proto = 0;
    if (present(v[K_PROTO]) &&
        (json_get_int64(v[K_PROTO], &proto) != ZQ_OK || proto < INT_MIN || proto > INT_MAX)) {
        return "INFO proto is not an integer";
    }
    info->proto = (int)proto;
    return NULL;
}

static const char *read_bools(const json_value_t *v, nats_info_t *info)
{
    static const int which[] = {K_TLS_REQUIRED, K_TLS_AVAILABLE, K_AUTH_REQUIRED, K_HEADERS};
    bool *dst[] = {&info->tls_required, &info->tls_available, &info->auth_required,
                   &info->headers};
    for (size_t i = 0; i < sizeof which / sizeof which[0]; i++) {
        if (present(v[which[i]]) && !json_get_bool(v[which[i]], dst[i])) {
            return "INFO flag is not true or false";
        }
    }
    return NULL;
}

const char *nats_info_parse(const char *json, size_t len, nats_info_t *info, uint32_t *dropped)
{
    json_value_t doc, v[K_COUNT];
    memset(info, 0, sizeof *info);
    if (json_parse(json, len, &doc) != ZQ_OK || json_type(doc) != JSON_OBJECT) {
        return "INFO is not a JSON object";
    }
    json_object_pick(doc, keys, K_COUNT, v);
    if (present(v[K_SERVER_ID])) {
        if (json_type(v[K_SERVER_ID]) != JSON_STRING) {
            return "INFO server_id is not a string";
        }
        if (!copy_string(v[K_SERVER_ID], info->server_id, sizeof info->server_id)) {
            (*dropped)++;
        }
    }
    const char *why = read_numbers(v, info);
    why = why != NULL ? why : read_bools(v, info);
    if (why == NULL && present(v[K_NONCE]) &&
        (json_type(v[K_NONCE]) != JSON_STRING ||
         !copy_string(v[K_NONCE], info->nonce, sizeof info->nonce))) {
        why = "INFO nonce is not a string of up to NATS_NONCE_MAX characters";
    }
    if (why == NULL && present(v[K_CONNECT_URLS])) {
        why = read_urls(v[K_CONNECT_URLS], info, dropped);
    }
    return why;
}

void nats_on_info(nats_client_t *c, const char *args, size_t len)
{
    const char *why = nats_info_parse(args, len, &c->info, &c->info_dropped);
    if (why != NULL) {
        nats_protocol_error(c, why);
        return;
    }
    if (c->state == NATS_STATE_WAIT_INFO) {
        /* A server that requires TLS must not get CONNECT, with its credentials, in the clear. */
        if (c->info.tls_required && !c->opt.tls_required) {
            nats_fail(c, "the server requires TLS (a tls:// URL): CONNECT not sent");
            return;
        }
        if (c->opt.tls_required && !c->info.tls_required && !c->info.tls_available) {
            nats_fail(c, "the server offers no TLS: CONNECT not sent");
            return;
        }
        if (c->opt.nkey != NULL && c->info.nonce[0] == '\0') {
            nats_fail(c, "the server sent no nonce for the nkey to sign: CONNECT not sent");
            return;
        }
        /* CONNECT first, so that the INFO event may already subscribe and publish. */
        if (nats_queue_connect(c) != ZQ_OK) {
            return; /* nats_queue_connect() raised the fatal error */
        }
        if (c->opt.tls_required) {
            c->state = NATS_STATE_TLS; /* CONNECT waits for the caller's TLS */
        }
    }
    nats_event_t ev = {.type = NATS_EV_INFO};
    nats_emit(c, &ev);
}
