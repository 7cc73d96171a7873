/* INIT and INIT ACK chunks (RFC 9260 §3.3.2, §3.3.3) and their parameters (§3.2.1; Supported
 * Extensions: RFC 5061 §4.2.7; Forward-TSN-Supported: RFC 3758 §3.1). Both chunks share one
 * layout; the State Cookie and Unrecognized Parameter parameters only appear in INIT ACK.
 *
 *      0                   1                   2                   3
 *      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |  Type = 1 (2) |  Chunk Flags  |         Chunk Length          |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |                         Initiate Tag                          |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |          Advertised Receiver Window Credit (a_rwnd)           |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |  Number of Outbound Streams   |   Number of Inbound Streams   |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |                          Initial TSN                          |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     \              Optional/Variable-Length Parameters              \
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * Supported Extensions lists one chunk type per byte:
 *
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |    Parameter Type = 0x8008    |      Parameter Length         |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     | CHUNK TYPE 1  |  CHUNK TYPE 2 |  CHUNK TYPE 3 |  CHUNK TYPE 4 |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * An unknown parameter's type says what to do with it (§3.2.1): bit 15 set means skip it and
 * go on (clear: stop reading parameters), bit 14 set means report it to the sender.
 */
#include <string.h>

#include "stack/sctp/packet/sctp_packet.h"

#define INIT_FIXED_LEN 16
#define PARAM_SKIP 0x8000u
#define PARAM_REPORT 0x4000u
#define PARAM_HEADER_LEN 4

/* The parameters zq understands, whether it uses them or knowingly ignores them. usrsctp sends
 * ECN, AUTH's three, Supported Address Types and (when set) Adaptation Layer Indication;
 * dcSCTP may send Zero Checksum Acceptable. Not recognizing them would make zq report them. */
static bool is_known_param(uint16_t type)
{
    switch (type) {
    case SCTP_PARAM_IPV4:
    case SCTP_PARAM_IPV6:
    case SCTP_PARAM_STATE_COOKIE:
    case SCTP_PARAM_UNRECOGNIZED:
    case SCTP_PARAM_COOKIE_PRESERVATIVE:
    case SCTP_PARAM_SUPPORTED_ADDRESS_TYPES:
    case SCTP_PARAM_ECN_CAPABLE:
    case SCTP_PARAM_ZERO_CHECKSUM_ACCEPTABLE:
    case SCTP_PARAM_RANDOM:
    case SCTP_PARAM_CHUNK_LIST:
    case SCTP_PARAM_HMAC_ALGO:
    case SCTP_PARAM_PADDING:
    case SCTP_PARAM_SUPPORTED_EXTENSIONS:
    case SCTP_PARAM_FORWARD_TSN_SUPPORTED:
    case SCTP_PARAM_ADAPTATION_LAYER:
        return true;
    default:
        return false;
    }
}

static void take_extensions(sctp_init_chunk_t *out, const sctp_tlv_t *p)
{
    for (size_t i = 0; i < p->len; i++) {
        if (p->value[i] == SCTP_CHUNK_FORWARD_TSN) {
            out->forward_tsn = true;
        } else if (p->value[i] == SCTP_CHUNK_RE_CONFIG) {
            out->reconfig = true;
        }
    }
}

static void take_known(sctp_init_chunk_t *out, const sctp_tlv_t *p)
{
    switch (p->type) {
    case SCTP_PARAM_STATE_COOKIE:
        if (out->cookie == NULL) {
            out->cookie = p->value;
            out->cookie_len = p->len;
        }
        break;
    case SCTP_PARAM_SUPPORTED_EXTENSIONS:
        take_extensions(out, p);
        break;
    case SCTP_PARAM_FORWARD_TSN_SUPPORTED:
        out->forward_tsn = true;
        break;
    default:
        break; /* understood, and of no use to zq */
    }
}

/* Grows the span to cover this parameter (header included, padding not). */
static void note_unrecognized(sctp_init_chunk_t *out, const sctp_tlv_t *p)
{
    const uint8_t *start = p->value - PARAM_HEADER_LEN;
    if (out->unrecognized == NULL) {
        out->unrecognized = start;
    }
    out->unrecognized_len = (size_t)(p->value + p->len - out->unrecognized);
}

static zq_err_t take_params(sctp_init_chunk_t *out, zq_reader_t *r)
{
    sctp_tlv_t p;
    zq_err_t err;
    while ((err = sctp_tlv_next(r, &p)) == ZQ_OK) {
        if (is_known_param(p.type)) {
            take_known(out, &p);
            continue;
        }
        if (p.type & PARAM_REPORT) {
            note_unrecognized(out, &p);
        }
        if (!(p.type & PARAM_SKIP)) {
            return ZQ_OK; /* 00 and 01: the rest of the parameters is not looked at */
        }
    }
    return err == ZQ_ERR_NOT_FOUND ? ZQ_OK : err;
}

zq_err_t sctp_init_parse(const sctp_chunk_t *c, sctp_init_chunk_t *out)
{
    memset(out, 0, sizeof *out);
    zq_reader_t r = zq_reader(c->value, c->value_len);
    out->initiate_tag = zq_read_be32(&r);
    out->a_rwnd = zq_read_be32(&r);
    out->outbound_streams = zq_read_be16(&r);
    out->inbound_streams = zq_read_be16(&r);
    out->initial_tsn = zq_read_be32(&r);
    /* §3.3.2: a zero Initiate Tag is not a tag at all (it is what INIT is sent with). */
    if (r.failed || out->initiate_tag == 0) {
        return ZQ_ERR_MALFORMED;
    }
    return take_params(out, &r);
}

zq_err_t sctp_init_next_unrecognized(zq_reader_t *r, const uint8_t **tlv, size_t *tlv_len)
{
    sctp_tlv_t p;
    zq_err_t err;
    while ((err = sctp_tlv_next(r, &p)) == ZQ_OK) {
        if (!is_known_param(p.type) && (p.type & PARAM_REPORT)) {
            *tlv = p.value - PARAM_HEADER_LEN;
            *tlv_len = p.len + PARAM_HEADER_LEN;
            return ZQ_OK;
        }
    }
    return err;
}

/* ---- Writing --------------------------------------------------------------------------------- */

/* The value length of the parameters written so far; §3.2: a chunk's Length counts the padding
 * of every parameter but the last, whose padding becomes the chunk's own. */
typedef struct {
    size_t len;
    size_t pad;
} param_run_t;

static void run_add(param_run_t *run, size_t value_len)
{
    run->len += run->pad + PARAM_HEADER_LEN + value_len;
    run->pad = sctp_padding(value_len);
}

/* Supported Extensions lists what zq supports among what the caller enabled (dcSCTP's order). */
static size_t extensions(const sctp_init_chunk_t *init, uint8_t types[2])
{
    size_t n = 0;
    if (init->forward_tsn) {
        types[n++] = SCTP_CHUNK_FORWARD_TSN;
    }
    if (init->reconfig) {
        types[n++] = SCTP_CHUNK_RE_CONFIG;
    }
    return n;
}

/* Adds one Unrecognized Parameter per reported parameter; false if the span is not TLVs. */
static bool run_add_unrecognized(param_run_t *run, const sctp_init_chunk_t *init)
{
    zq_reader_t r = zq_reader(init->unrecognized, init->unrecognized_len);
    const uint8_t *tlv;
    size_t tlv_len;
    zq_err_t err;
    while ((err = sctp_init_next_unrecognized(&r, &tlv, &tlv_len)) == ZQ_OK) {
        run_add(run, tlv_len);
    }
    return err == ZQ_ERR_NOT_FOUND;
}

static void write_unrecognized(zq_writer_t *w, const sctp_init_chunk_t *init)
{
    zq_reader_t r = zq_reader(init->unrecognized, init->unrecognized_len);
    const uint8_t *tlv;
    size_t tlv_len;
    while (sctp_init_next_unrecognized(&r, &tlv, &tlv_len) == ZQ_OK) {
        sctp_tlv_write(w, SCTP_PARAM_UNRECOGNIZED, tlv, tlv_len);
    }
}

void sctp_init_write(zq_writer_t *w, uint8_t type, const sctp_init_chunk_t *init)
{
    uint8_t ext[2];
    size_t n_ext = extensions(init, ext);
    param_run_t run = {INIT_FIXED_LEN, 0};
    if (n_ext > 0) {
        run_add(&run, n_ext);
    }
    if (init->forward_tsn) {
        run_add(&run, 0);
    }
    if (init->cookie_len > 0) {
        run_add(&run, init->cookie_len);
    }
    if (init->unrecognized_len > 0 && !run_add_unrecognized(&run, init)) {
        w->failed = true;
        return;
    }
    sctp_chunk_write_header(w, type, 0, run.len);
    zq_write_be32(w, init->initiate_tag);
    zq_write_be32(w, init->a_rwnd);
    zq_write_be16(w, init->outbound_streams);
    zq_write_be16(w, init->inbound_streams);
    zq_write_be32(w, init->initial_tsn);
    if (n_ext > 0) {
        sctp_tlv_write(w, SCTP_PARAM_SUPPORTED_EXTENSIONS, ext, n_ext);
    }
    if (init->forward_tsn) {
        sctp_tlv_write(w, SCTP_PARAM_FORWARD_TSN_SUPPORTED, NULL, 0);
    }
    if (init->cookie_len > 0) {
        sctp_tlv_write(w, SCTP_PARAM_STATE_COOKIE, init->cookie, init->cookie_len);
    }
    if (init->unrecognized_len > 0) {
        write_unrecognized(w, init);
    }
}
