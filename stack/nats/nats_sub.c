/* SUB <subject> [queue group] <sid>\r\n and UNSUB <sid> [max_msgs]\r\n (protocol doc, "SUB",
 * "UNSUB"). zq uses neither queue groups nor max_msgs; a sid is the caller's number, which the
 * server gives back in each MSG. */
#include "stack/nats/nats.h"
#include "stack/nats/nats_internal.h"
#include "zq/text.h"

zq_err_t nats_client_sub(nats_client_t *c, const char *subject, uint32_t sid)
{
    zq_err_t err = nats_may_send(c);
    if (err != ZQ_OK) {
        return err;
    }
    if (!nats_subject_valid(subject, true)) {
        return ZQ_ERR_INVALID_ARG;
    }
    nats_out_flush_owed(c);
    zq_writer_t w = nats_out_begin(c);
    zq_write_str(&w, "SUB ");
    zq_write_str(&w, subject);
    zq_write_char(&w, ' ');
    zq_write_udec(&w, sid);
    zq_write_str(&w, "\r\n");
    return nats_out_commit(c, &w);
}

zq_err_t nats_client_unsub(nats_client_t *c, uint32_t sid)
{
    zq_err_t err = nats_may_send(c);
    if (err != ZQ_OK) {
        return err;
    }
    nats_out_flush_owed(c);
    zq_writer_t w = nats_out_begin(c);
    zq_write_str(&w, "UNSUB ");
    zq_write_udec(&w, sid);
    zq_write_str(&w, "\r\n");
    return nats_out_commit(c, &w);
}
