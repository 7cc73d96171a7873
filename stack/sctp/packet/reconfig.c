/* RE-CONFIG chunk (RFC 6525 §3.1) and its parameters (§4): how WebRTC closes a data channel,
 * by resetting the streams of both directions (RFC 8831 §6.7).
 *
 *      0                   1                   2                   3
 *      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     | Type = 130    |  Chunk Flags  |      Chunk Length             |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     \                  Re-configuration Parameter                   \
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     \             Re-configuration Parameter (optional)             \
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * Outgoing SSN Reset Request (§4.1) and Incoming SSN Reset Request (§4.2):
 *
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |     Parameter Type = 13       | Parameter Length = 16 + 2 * N |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |           Re-configuration Request Sequence Number            |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |           Re-configuration Response Sequence Number           |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |                Sender's Last Assigned TSN                     |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |  Stream Number 1 (optional)   |    Stream Number 2 (optional) |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     /                            ......                             /
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |     Parameter Type = 14       |  Parameter Length = 8 + 2 * N |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |          Re-configuration Request Sequence Number             |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |  Stream Number 1 (optional)   |    Stream Number 2 (optional) |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     /                            ......                             /
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * Re-configuration Response (§4.4); the two TSNs only answer an SSN/TSN Reset Request:
 *
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |     Parameter Type = 16       |      Parameter Length         |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |         Re-configuration Response Sequence Number             |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |                            Result                             |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |                   Sender's Next TSN (optional)                |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |                  Receiver's Next TSN (optional)               |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 */
#include <string.h>

#include "stack/sctp/packet/sctp_packet.h"

#define OUTGOING_FIXED_LEN 12
#define INCOMING_FIXED_LEN 4
#define RESPONSE_LEN 8
#define RESPONSE_WITH_TSNS_LEN 16

/* The rest of the parameter is a list of 16-bit stream numbers (empty: all streams). */
static zq_err_t take_streams(zq_reader_t *r, sctp_reconfig_param_t *p)
{
    size_t n = zq_reader_left(r);
    if (r->failed || n % 2 != 0) {
        return ZQ_ERR_MALFORMED;
    }
    n /= 2;
    if (n > ZQ_SCTP_MAX_RESET_STREAMS) {
        p->truncated = true;
        n = ZQ_SCTP_MAX_RESET_STREAMS;
    }
    p->n_streams = (uint16_t)n;
    for (size_t i = 0; i < n; i++) {
        p->streams[i] = zq_read_be16(r);
    }
    return ZQ_OK;
}

static zq_err_t take_response(zq_reader_t *r, sctp_reconfig_param_t *p)
{
    size_t len = zq_reader_left(r);
    if (len != RESPONSE_LEN && len != RESPONSE_WITH_TSNS_LEN) {
        return ZQ_ERR_MALFORMED;
    }
    p->response_seq = zq_read_be32(r);
    p->result = zq_read_be32(r);
    return ZQ_OK;
}

/* SSN/TSN Reset, Add Outgoing/Incoming Streams: zq denies them, which needs the request's
 * sequence number only. */
static zq_err_t take_other(zq_reader_t *r, sctp_reconfig_param_t *p)
{
    p->request_seq = zq_read_be32(r);
    return r->failed ? ZQ_ERR_MALFORMED : ZQ_OK;
}

static zq_err_t take_param(const sctp_tlv_t *tlv, sctp_reconfig_param_t *p)
{
    zq_reader_t r = zq_reader(tlv->value, tlv->len);
    p->type = tlv->type;
    switch (tlv->type) {
    case SCTP_PARAM_OUTGOING_RESET_REQUEST:
        p->kind = SCTP_RECONFIG_OUTGOING_RESET;
        p->request_seq = zq_read_be32(&r);
        p->response_seq = zq_read_be32(&r);
        p->last_tsn = zq_read_be32(&r);
        return take_streams(&r, p);
    case SCTP_PARAM_INCOMING_RESET_REQUEST:
        p->kind = SCTP_RECONFIG_INCOMING_RESET;
        p->request_seq = zq_read_be32(&r);
        return take_streams(&r, p);
    case SCTP_PARAM_RECONFIG_RESPONSE:
        p->kind = SCTP_RECONFIG_RESPONSE;
        return take_response(&r, p);
    case SCTP_PARAM_SSN_TSN_RESET_REQUEST:
    case SCTP_PARAM_ADD_OUTGOING_STREAMS:
    case SCTP_PARAM_ADD_INCOMING_STREAMS:
        p->kind = SCTP_RECONFIG_OTHER;
        return take_other(&r, p);
    default:
        return ZQ_ERR_MALFORMED; /* §3.1: a RE-CONFIG carries only these */
    }
}

zq_err_t sctp_reconfig_parse(const sctp_chunk_t *c, sctp_reconfig_chunk_t *out)
{
    memset(out, 0, sizeof *out);
    zq_reader_t r = zq_reader(c->value, c->value_len);
    sctp_tlv_t tlv;
    zq_err_t err;
    while ((err = sctp_tlv_next(&r, &tlv)) == ZQ_OK) {
        if (out->n_params == 2) {
            return ZQ_ERR_MALFORMED;
        }
        err = take_param(&tlv, &out->params[out->n_params]);
        if (err != ZQ_OK) {
            return err;
        }
        out->n_params++;
    }
    if (err != ZQ_ERR_NOT_FOUND || out->n_params == 0) {
        return ZQ_ERR_MALFORMED;
    }
    return ZQ_OK;
}

/* ---- Writing --------------------------------------------------------------------------------- */

/* The parameter's value length, 0 for one zq does not write. */
static size_t param_len(const sctp_reconfig_param_t *p)
{
    if (p->n_streams > ZQ_SCTP_MAX_RESET_STREAMS) {
        return 0;
    }
    switch (p->kind) {
    case SCTP_RECONFIG_OUTGOING_RESET:
        return OUTGOING_FIXED_LEN + 2u * p->n_streams;
    case SCTP_RECONFIG_INCOMING_RESET:
        return INCOMING_FIXED_LEN + 2u * p->n_streams;
    case SCTP_RECONFIG_RESPONSE:
        return RESPONSE_LEN;
    default:
        return 0;
    }
}

static uint16_t param_type(sctp_reconfig_kind_t kind)
{
    switch (kind) {
    case SCTP_RECONFIG_OUTGOING_RESET:
        return SCTP_PARAM_OUTGOING_RESET_REQUEST;
    case SCTP_RECONFIG_INCOMING_RESET:
        return SCTP_PARAM_INCOMING_RESET_REQUEST;
    default:
        return SCTP_PARAM_RECONFIG_RESPONSE;
    }
}

static void write_param(zq_writer_t *w, const sctp_reconfig_param_t *p, size_t len)
{
    sctp_tlv_write_header(w, param_type(p->kind), len);
    if (p->kind == SCTP_RECONFIG_RESPONSE) {
        zq_write_be32(w, p->response_seq);
        zq_write_be32(w, p->result);
        return;
    }
    zq_write_be32(w, p->request_seq);
    if (p->kind == SCTP_RECONFIG_OUTGOING_RESET) {
        zq_write_be32(w, p->response_seq);
        zq_write_be32(w, p->last_tsn);
    }
    for (uint16_t i = 0; i < p->n_streams; i++) {
        zq_write_be16(w, p->streams[i]);
    }
    zq_write_fill(w, 0, sctp_padding(len));
}

void sctp_reconfig_write(zq_writer_t *w, const sctp_reconfig_chunk_t *r)
{
    size_t len[2] = {0, 0};
    if (r->n_params < 1 || r->n_params > 2) {
        w->failed = true;
        return;
    }
    for (uint8_t i = 0; i < r->n_params; i++) {
        len[i] = param_len(&r->params[i]);
        if (len[i] == 0) {
            w->failed = true;
            return;
        }
    }
    /* §3.2: the Length counts the first parameter's padding but not the second's. */
    size_t value_len = 4 + len[0];
    if (r->n_params == 2) {
        value_len += sctp_padding(len[0]) + 4 + len[1];
    }
    sctp_chunk_write_header(w, SCTP_CHUNK_RE_CONFIG, 0, value_len);
    for (uint8_t i = 0; i < r->n_params; i++) {
        write_param(w, &r->params[i], len[i]);
    }
}
