/* CONNECT {...} (protocol doc, "CONNECT"): the client's answer to the first INFO, followed by
 * a PING whose PONG says the server accepted it. What zq asks for:
 *   verbose:false   no +OK after every command (they would only be ignored);
 *   pedantic:false  no extra checks the server would close us for;
 *   protocol:1      "dynamic reconfiguration of cluster topology": later INFOs with
 *                   connect_urls;
 *   headers:false   MSG only, never HMSG: zq neither sends nor reads headers;
 *   echo            the caller's choice: whether our publishes come back to our subscriptions;
 *   tls_required    the caller's TLS under us;
 *   name, user, pass, auth_token when the caller gave them;
 *   sig             with an nkey: INFO's nonce signed (nats_nkey.h), and with it either
 *   jwt             the user's JWT (a .creds file), or
 *   nkey            the user's public key. */
#include <string.h>

#include "stack/nats/nats.h"
#include "stack/nats/nats_internal.h"
#include "zq/json.h"
#include "zq/text.h"

static void optional_string(json_writer_t *w, const char *key, const char *value)
{
    if (value != NULL) {
        json_key(w, key);
        json_string(w, value, strlen(value));
    }
}

/* "sig" and "jwt" or "nkey". @return false when this build cannot sign. */
static bool nkey_proof(json_writer_t *w, const nats_options_t *opt, const char *nonce)
{
    char sig[NATS_NKEY_SIG_LEN + 1];
    if (nats_nkey_sign(opt->nkey, nonce, strlen(nonce), sig) != ZQ_OK) {
        return false;
    }
    if (opt->jwt != NULL) {
        optional_string(w, "jwt", opt->jwt);
    } else {
        optional_string(w, "nkey", opt->nkey->public_key);
    }
    optional_string(w, "sig", sig);
    return true;
}

size_t nats_connect_json(char *buf, size_t cap, const nats_options_t *opt, const char *nonce,
                         zq_err_t *err)
{
    json_writer_t w;
    json_writer_init(&w, buf, cap);
    json_object_begin(&w);
    json_key(&w, "verbose");
    json_bool(&w, false);
    json_key(&w, "pedantic");
    json_bool(&w, false);
    json_key(&w, "tls_required");
    json_bool(&w, opt->tls_required);
    optional_string(&w, "name", opt->name);
    optional_string(&w, "user", opt->user);
    optional_string(&w, "pass", opt->pass);
    optional_string(&w, "auth_token", opt->token);
    if (opt->nkey != NULL && !nkey_proof(&w, opt, nonce)) {
        *err = ZQ_ERR_UNSUPPORTED;
        return 0;
    }
    json_key(&w, "lang");
    json_string(&w, NATS_CLIENT_LANG, strlen(NATS_CLIENT_LANG));
    json_key(&w, "version");
    json_string(&w, NATS_CLIENT_VERSION, strlen(NATS_CLIENT_VERSION));
    json_key(&w, "protocol");
    json_int64(&w, 1);
    json_key(&w, "echo");
    json_bool(&w, opt->echo);
    json_key(&w, "headers");
    json_bool(&w, false);
    json_object_end(&w);
    *err = json_writer_error(&w);
    return json_finish(&w);
}

zq_err_t nats_queue_connect(nats_client_t *c)
{
    zq_writer_t w = nats_out_begin(c);
    zq_write_str(&w, "CONNECT ");
    zq_err_t json_err = ZQ_OK;
    if (!w.failed) {
        size_t n = nats_connect_json((char *)w.data + w.len, w.cap - w.len, &c->opt,
                                     c->info.nonce, &json_err);
        w.failed = n == 0;
        w.len += n;
    }
    zq_write_str(&w, "\r\nPING\r\n");
    zq_err_t err = nats_out_commit(c, &w);
    if (json_err == ZQ_ERR_MALFORMED) {
        nats_fail(c, "CONNECT: an option is not UTF-8");
    } else if (json_err == ZQ_ERR_UNSUPPORTED) {
        nats_fail(c, "CONNECT: this build cannot sign with an nkey (no SHA-512)");
    } else if (err != ZQ_OK) {
        nats_fail(c, "CONNECT does not fit ZQ_NATS_OUT_MAX");
    } else {
        c->state = NATS_STATE_CONNECTING;
    }
    return json_err == ZQ_OK ? err : json_err;
}
