/* PUB <subject> [reply-to] <#bytes>\r\n[payload]\r\n (protocol doc, "PUB"). */
#include "stack/nats/nats.h"
#include "stack/nats/nats_internal.h"
#include "zq/text.h"

zq_err_t nats_client_pub(nats_client_t *c, const char *subject, const char *reply,
                         const uint8_t *payload, size_t len)
{
    zq_err_t err = nats_may_send(c);
    if (err != ZQ_OK) {
        return err;
    }
    bool reply_ok = reply == NULL || nats_subject_valid(reply, false);
    if (!nats_subject_valid(subject, false) || !reply_ok || (payload == NULL && len > 0)) {
        return ZQ_ERR_INVALID_ARG;
    }
    /* INFO's max_payload: "the client is expected to do proper accounting of byte size to be
     * sent to the server" (protocol doc, -ERR 'Maximum Payload Violation', which closes). */
    if (c->info.max_payload > 0 && len > c->info.max_payload) {
        return ZQ_ERR_TOO_LONG;
    }
    nats_out_flush_owed(c);
    zq_writer_t w = nats_out_begin(c);
    zq_write_str(&w, "PUB ");
    zq_write_str(&w, subject);
    if (reply != NULL) {
        zq_write_char(&w, ' ');
        zq_write_str(&w, reply);
    }
    zq_write_char(&w, ' ');
    zq_write_udec(&w, len);
    zq_write_str(&w, "\r\n");
    zq_write_bytes(&w, payload, len);
    zq_write_str(&w, "\r\n");
    return nats_out_commit(c, &w);
}
