/* libFuzzer target for the SCTP packet codec (RFC 9260 §3, RFC 3758, RFC 6525): an arbitrary
 * datagram is parsed with and without its CRC32c check, every chunk is walked and handed to its
 * parser, and each chunk that parses is written again into a fresh packet (through the builder,
 * so the CRC is computed and checked too) and parsed back: the fields must come back equal.
 * Any violation aborts with a message. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stack/sctp/packet/sctp_packet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_sctp_packet: invariant violated: %s\n", what);
        abort();
    }
}

static bool same_bytes(const uint8_t *a, const uint8_t *b, size_t len)
{
    return len == 0 || memcmp(a, b, len) == 0;
}

/* ---- Writing one chunk into a fresh packet and reading it back ------------------------------- */

typedef void (*write_fn)(zq_writer_t *w, const void *arg);

static uint8_t out[SCTP_COMMON_HEADER_LEN + 65536];

/* false: the writer refused (a value that no longer fits a 16-bit Length). */
static bool round_trip(const sctp_common_header_t *h, write_fn write, const void *arg,
                       sctp_chunk_t *back)
{
    sctp_packet_builder_t b;
    sctp_packet_begin(&b, out, sizeof out, h->src_port, h->dst_port, h->vtag);
    write(&b.w, arg);
    size_t len = sctp_packet_finish(&b);
    if (len == 0) {
        return false;
    }
    require(len % 4 == 0, "a built packet is padded to 4 bytes");
    sctp_common_header_t h2;
    zq_reader_t r;
    require(sctp_packet_parse(out, len, true, &h2, &r) == ZQ_OK, "a built packet verifies");
    require(h2.src_port == h->src_port && h2.dst_port == h->dst_port && h2.vtag == h->vtag,
            "the common header round-trips");
    require(sctp_packet_next_chunk(&r, back) == ZQ_OK, "a built chunk walks");
    sctp_chunk_t extra;
    require(sctp_packet_next_chunk(&r, &extra) == ZQ_ERR_NOT_FOUND, "one chunk was built");
    return true;
}

/* ---- DATA, SACK, FORWARD TSN ----------------------------------------------------------------- */

static void write_data(zq_writer_t *w, const void *arg)
{
    sctp_data_write(w, arg);
}

static void check_data(const sctp_common_header_t *h, const sctp_chunk_t *c)
{
    sctp_data_chunk_t d;
    if (sctp_data_parse(c, &d) != ZQ_OK) {
        require(c->value_len < 12, "DATA fails only when shorter than its header");
        return;
    }
    require(d.len == c->value_len - 12 && d.data == c->value + 12, "DATA payload in place");
    sctp_chunk_t back;
    require(round_trip(h, write_data, &d, &back), "a parsed DATA chunk fits again");
    sctp_data_chunk_t d2;
    require(sctp_data_parse(&back, &d2) == ZQ_OK, "a written DATA chunk parses");
    require(d2.flags == d.flags && d2.tsn == d.tsn && d2.stream == d.stream &&
                d2.ssn == d.ssn && d2.ppid == d.ppid && d2.len == d.len &&
                same_bytes(d2.data, d.data, d.len),
            "DATA round-trips");
    require(sctp_data_size(d.len) == back.length + sctp_padding(back.length),
            "sctp_data_size() is the written size");
}

static void write_sack(zq_writer_t *w, const void *arg)
{
    sctp_sack_write(w, arg);
}

static void check_sack(const sctp_common_header_t *h, const sctp_chunk_t *c)
{
    sctp_sack_chunk_t s;
    if (sctp_sack_parse(c, &s) != ZQ_OK) {
        return;
    }
    require(s.n_gaps <= ZQ_SCTP_MAX_GAP_BLOCKS && s.n_dups <= ZQ_SCTP_MAX_DUP_TSNS,
            "SACK lists within capacity");
    sctp_chunk_t back;
    require(round_trip(h, write_sack, &s, &back), "a parsed SACK fits again");
    sctp_sack_chunk_t s2;
    require(sctp_sack_parse(&back, &s2) == ZQ_OK, "a written SACK parses");
    require(s2.cum_tsn == s.cum_tsn && s2.a_rwnd == s.a_rwnd && s2.n_gaps == s.n_gaps &&
                s2.n_dups == s.n_dups && !s2.truncated,
            "SACK fixed part round-trips");
    require(memcmp(s2.gaps, s.gaps, s.n_gaps * sizeof s.gaps[0]) == 0 &&
                memcmp(s2.dups, s.dups, s.n_dups * sizeof s.dups[0]) == 0,
            "SACK lists round-trip");
}

static void write_forward_tsn(zq_writer_t *w, const void *arg)
{
    sctp_forward_tsn_write(w, arg);
}

static void check_forward_tsn(const sctp_common_header_t *h, const sctp_chunk_t *c)
{
    sctp_forward_tsn_chunk_t f;
    if (sctp_forward_tsn_parse(c, &f) != ZQ_OK) {
        return;
    }
    require(f.n_streams <= ZQ_SCTP_MAX_FWD_STREAMS, "FORWARD TSN streams within capacity");
    sctp_chunk_t back;
    require(round_trip(h, write_forward_tsn, &f, &back), "a parsed FORWARD TSN fits again");
    sctp_forward_tsn_chunk_t f2;
    require(sctp_forward_tsn_parse(&back, &f2) == ZQ_OK, "a written FORWARD TSN parses");
    require(f2.new_cum_tsn == f.new_cum_tsn && f2.n_streams == f.n_streams &&
                memcmp(f2.streams, f.streams, f.n_streams * sizeof f.streams[0]) == 0,
            "FORWARD TSN round-trips");
}

/* ---- INIT, INIT ACK -------------------------------------------------------------------------- */

typedef struct {
    uint8_t type;
    const sctp_init_chunk_t *init;
} init_args_t;

static void write_init(zq_writer_t *w, const void *arg)
{
    const init_args_t *a = arg;
    sctp_init_write(w, a->type, a->init);
}

static size_t count_reported(const sctp_init_chunk_t *init)
{
    zq_reader_t r = zq_reader(init->unrecognized, init->unrecognized_len);
    const uint8_t *tlv;
    size_t len;
    size_t n = 0;
    zq_err_t err;
    while ((err = sctp_init_next_unrecognized(&r, &tlv, &len)) == ZQ_OK) {
        require(tlv >= init->unrecognized &&
                    tlv + len <= init->unrecognized + init->unrecognized_len,
                "a reported parameter lies inside the span");
        n++;
    }
    require(err == ZQ_ERR_NOT_FOUND, "the span of reported parameters is well-formed");
    require(init->unrecognized_len == 0 || n > 0, "a span holds a parameter to report");
    return n;
}

/* Each reported parameter comes back, in order, as the value of an Unrecognized Parameter. */
static void check_echoes(const sctp_init_chunk_t *init, const sctp_chunk_t *back)
{
    zq_reader_t reported = zq_reader(init->unrecognized, init->unrecognized_len);
    zq_reader_t params = zq_reader(back->value + 16, back->value_len - 16);
    sctp_tlv_t p;
    const uint8_t *tlv;
    size_t len;
    while (sctp_tlv_next(&params, &p) == ZQ_OK) {
        if (p.type != SCTP_PARAM_UNRECOGNIZED) {
            continue;
        }
        require(sctp_init_next_unrecognized(&reported, &tlv, &len) == ZQ_OK,
                "no more echoes than reported parameters");
        require(p.len == len && same_bytes(p.value, tlv, len), "each echo is the parameter");
    }
    require(sctp_init_next_unrecognized(&reported, &tlv, &len) == ZQ_ERR_NOT_FOUND,
            "every reported parameter is echoed");
}

static void check_init(const sctp_common_header_t *h, const sctp_chunk_t *c)
{
    sctp_init_chunk_t init;
    if (sctp_init_parse(c, &init) != ZQ_OK) {
        return;
    }
    require(init.initiate_tag != 0, "a parsed INIT has a tag");
    size_t reported = count_reported(&init);
    init_args_t a = {c->type, &init};
    sctp_chunk_t back;
    if (!round_trip(h, write_init, &a, &back)) {
        /* Only growth past 65535 may refuse: extensions, padding, a header per echo. */
        require(c->length + 15u + 7u * reported > 65535u, "a parsed INIT fits again");
        return;
    }
    sctp_init_chunk_t i2;
    require(sctp_init_parse(&back, &i2) == ZQ_OK, "a written INIT parses");
    require(back.type == c->type, "INIT or INIT ACK stays what it was");
    require(i2.initiate_tag == init.initiate_tag && i2.a_rwnd == init.a_rwnd &&
                i2.outbound_streams == init.outbound_streams &&
                i2.inbound_streams == init.inbound_streams &&
                i2.initial_tsn == init.initial_tsn,
            "INIT fixed part round-trips");
    require(i2.forward_tsn == init.forward_tsn && i2.reconfig == init.reconfig,
            "INIT extensions round-trip");
    require(i2.cookie_len == init.cookie_len && same_bytes(i2.cookie, init.cookie,
                                                           init.cookie_len),
            "State Cookie round-trips");
    require(i2.unrecognized_len == 0, "echoes are not themselves reported");
    check_echoes(&init, &back);
}

/* ---- HEARTBEAT, ABORT, ERROR, SHUTDOWN family, COOKIE ECHO ----------------------------------- */

typedef struct {
    uint8_t type;
    uint8_t flags;
    const uint8_t *bytes;
    size_t len;
} raw_args_t;

static void write_heartbeat(zq_writer_t *w, const void *arg)
{
    const raw_args_t *a = arg;
    sctp_heartbeat_write(w, a->type, a->bytes, a->len);
}

static void check_heartbeat(const sctp_common_header_t *h, const sctp_chunk_t *c)
{
    raw_args_t a = {c->type, 0, NULL, 0};
    if (sctp_heartbeat_parse(c, &a.bytes, &a.len) != ZQ_OK) {
        return;
    }
    sctp_chunk_t back;
    require(round_trip(h, write_heartbeat, &a, &back), "a parsed HEARTBEAT fits again");
    const uint8_t *info = NULL;
    size_t len = 0;
    require(back.type == c->type && sctp_heartbeat_parse(&back, &info, &len) == ZQ_OK,
            "a written HEARTBEAT parses");
    require(len == a.len && same_bytes(info, a.bytes, len), "Heartbeat Info round-trips");
}

/* Error causes: returns their count, or -1 if they do not walk to the end. */
static long count_causes(const uint8_t *value, size_t len, size_t *written)
{
    zq_reader_t r = zq_reader(value, len);
    sctp_tlv_t cause;
    zq_err_t err;
    long n = 0;
    *written = 0;
    while ((err = sctp_tlv_next(&r, &cause)) == ZQ_OK) {
        *written += sctp_cause_size(cause.len);
        n++;
    }
    return err == ZQ_ERR_NOT_FOUND ? n : -1;
}

static void write_causes(zq_writer_t *w, const void *arg)
{
    const raw_args_t *a = arg;
    size_t causes_len;
    (void)count_causes(a->bytes, a->len, &causes_len);
    if (a->type == SCTP_CHUNK_ABORT) {
        sctp_abort_write_header(w, (a->flags & SCTP_FLAG_T) != 0, causes_len);
    } else {
        sctp_error_write_header(w, causes_len);
    }
    zq_reader_t r = zq_reader(a->bytes, a->len);
    sctp_tlv_t cause;
    while (sctp_tlv_next(&r, &cause) == ZQ_OK) {
        sctp_cause_write(w, cause.type, cause.value, cause.len);
    }
}

static void check_causes(const sctp_common_header_t *h, const sctp_chunk_t *c)
{
    size_t causes_len;
    if (count_causes(c->value, c->value_len, &causes_len) < 0) {
        return;
    }
    raw_args_t a = {c->type, c->flags, c->value, c->value_len};
    sctp_chunk_t back;
    if (!round_trip(h, write_causes, &a, &back)) {
        require(causes_len > 65531u, "a parsed ABORT/ERROR fits again");
        return;
    }
    require(back.type == c->type, "ABORT or ERROR stays what it was");
    if (c->type == SCTP_CHUNK_ABORT) {
        require((back.flags & SCTP_FLAG_T) == (c->flags & SCTP_FLAG_T), "the T bit round-trips");
    }
    zq_reader_t r1 = zq_reader(c->value, c->value_len);
    zq_reader_t r2 = zq_reader(back.value, back.value_len);
    sctp_tlv_t t1;
    sctp_tlv_t t2;
    while (sctp_tlv_next(&r1, &t1) == ZQ_OK) {
        require(sctp_tlv_next(&r2, &t2) == ZQ_OK, "as many causes come back");
        require(t1.type == t2.type && t1.len == t2.len && same_bytes(t1.value, t2.value, t1.len),
                "each cause round-trips");
    }
    require(sctp_tlv_next(&r2, &t2) == ZQ_ERR_NOT_FOUND, "no extra cause comes back");
}

static void write_shutdown(zq_writer_t *w, const void *arg)
{
    sctp_shutdown_write(w, *(const uint32_t *)arg);
}

static void check_shutdown(const sctp_common_header_t *h, const sctp_chunk_t *c)
{
    uint32_t cum_tsn;
    if (sctp_shutdown_parse(c, &cum_tsn) != ZQ_OK) {
        require(c->value_len != 4, "SHUTDOWN fails only on a wrong length");
        return;
    }
    sctp_chunk_t back;
    require(round_trip(h, write_shutdown, &cum_tsn, &back), "a SHUTDOWN fits again");
    uint32_t again;
    require(sctp_shutdown_parse(&back, &again) == ZQ_OK && again == cum_tsn,
            "SHUTDOWN round-trips");
}

static void write_empty(zq_writer_t *w, const void *arg)
{
    const raw_args_t *a = arg;
    sctp_empty_chunk_write(w, a->type, a->flags);
}

static void check_empty(const sctp_common_header_t *h, const sctp_chunk_t *c)
{
    raw_args_t a = {c->type, c->flags, NULL, 0};
    sctp_chunk_t back;
    require(round_trip(h, write_empty, &a, &back), "an empty chunk fits");
    require(back.type == c->type && back.flags == c->flags && back.value_len == 0,
            "an empty chunk round-trips");
}

static void write_cookie_echo(zq_writer_t *w, const void *arg)
{
    const raw_args_t *a = arg;
    sctp_cookie_echo_write(w, a->bytes, a->len);
}

static void check_cookie_echo(const sctp_common_header_t *h, const sctp_chunk_t *c)
{
    raw_args_t a = {c->type, 0, c->value, c->value_len};
    sctp_chunk_t back;
    require(round_trip(h, write_cookie_echo, &a, &back), "a COOKIE ECHO fits again");
    require(back.type == SCTP_CHUNK_COOKIE_ECHO && back.value_len == c->value_len &&
                same_bytes(back.value, c->value, c->value_len),
            "COOKIE ECHO round-trips");
}

/* ---- RE-CONFIG ------------------------------------------------------------------------------- */

static void write_reconfig(zq_writer_t *w, const void *arg)
{
    sctp_reconfig_write(w, arg);
}

static bool same_param(const sctp_reconfig_param_t *a, const sctp_reconfig_param_t *b)
{
    if (a->kind != b->kind || a->type != b->type || a->n_streams != b->n_streams ||
        memcmp(a->streams, b->streams, a->n_streams * sizeof a->streams[0]) != 0) {
        return false;
    }
    switch (a->kind) {
    case SCTP_RECONFIG_OUTGOING_RESET:
        return a->request_seq == b->request_seq && a->response_seq == b->response_seq &&
               a->last_tsn == b->last_tsn;
    case SCTP_RECONFIG_INCOMING_RESET:
        return a->request_seq == b->request_seq;
    default:
        return a->response_seq == b->response_seq && a->result == b->result;
    }
}

static void check_reconfig(const sctp_common_header_t *h, const sctp_chunk_t *c)
{
    sctp_reconfig_chunk_t rc;
    if (sctp_reconfig_parse(c, &rc) != ZQ_OK) {
        return;
    }
    require(rc.n_params == 1 || rc.n_params == 2, "one or two RE-CONFIG parameters");
    bool other = false;
    for (uint8_t i = 0; i < rc.n_params; i++) {
        require(rc.params[i].n_streams <= ZQ_SCTP_MAX_RESET_STREAMS, "streams within capacity");
        other = other || rc.params[i].kind == SCTP_RECONFIG_OTHER;
    }
    sctp_chunk_t back;
    bool written = round_trip(h, write_reconfig, &rc, &back);
    require(written == !other, "RE-CONFIG is written unless it holds a request zq never makes");
    if (!written) {
        return;
    }
    sctp_reconfig_chunk_t r2;
    require(sctp_reconfig_parse(&back, &r2) == ZQ_OK, "a written RE-CONFIG parses");
    require(r2.n_params == rc.n_params, "as many RE-CONFIG parameters come back");
    for (uint8_t i = 0; i < rc.n_params; i++) {
        require(same_param(&rc.params[i], &r2.params[i]), "each RE-CONFIG parameter round-trips");
    }
}

/* ---- The walk -------------------------------------------------------------------------------- */

static void check_chunk(const sctp_common_header_t *h, const sctp_chunk_t *c)
{
    switch (c->type) {
    case SCTP_CHUNK_DATA:
        check_data(h, c);
        break;
    case SCTP_CHUNK_INIT:
    case SCTP_CHUNK_INIT_ACK:
        check_init(h, c);
        break;
    case SCTP_CHUNK_SACK:
        check_sack(h, c);
        break;
    case SCTP_CHUNK_HEARTBEAT:
    case SCTP_CHUNK_HEARTBEAT_ACK:
        check_heartbeat(h, c);
        break;
    case SCTP_CHUNK_ABORT:
    case SCTP_CHUNK_ERROR:
        check_causes(h, c);
        break;
    case SCTP_CHUNK_SHUTDOWN:
        check_shutdown(h, c);
        break;
    case SCTP_CHUNK_SHUTDOWN_ACK:
    case SCTP_CHUNK_COOKIE_ACK:
    case SCTP_CHUNK_SHUTDOWN_COMPLETE:
        check_empty(h, c);
        break;
    case SCTP_CHUNK_COOKIE_ECHO:
        check_cookie_echo(h, c);
        break;
    case SCTP_CHUNK_FORWARD_TSN:
        check_forward_tsn(h, c);
        break;
    case SCTP_CHUNK_RE_CONFIG:
        check_reconfig(h, c);
        break;
    default:
        break; /* the association applies §3.2's top-two-bits rule */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sctp_common_header_t h;
    zq_reader_t chunks;
    zq_err_t checked = sctp_packet_parse(data, size, true, &h, &chunks);
    require(checked == ZQ_OK || checked == ZQ_ERR_TRUNCATED || checked == ZQ_ERR_INTEGRITY,
            "parse with the CRC check answers OK, TRUNCATED or INTEGRITY");
    zq_err_t unchecked = sctp_packet_parse(data, size, false, &h, &chunks);
    require(unchecked == (size < SCTP_COMMON_HEADER_LEN ? ZQ_ERR_TRUNCATED : ZQ_OK),
            "without the check only a short packet fails");
    if (unchecked != ZQ_OK) {
        return 0;
    }
    sctp_chunk_t c;
    zq_err_t err;
    while ((err = sctp_packet_next_chunk(&chunks, &c)) == ZQ_OK) {
        require(c.value >= data + SCTP_COMMON_HEADER_LEN && c.value + c.value_len <= data + size,
                "a chunk lies inside the packet");
        require(c.length == c.value_len + 4, "a chunk's length counts its header");
        check_chunk(&h, &c);
    }
    require(err == ZQ_ERR_NOT_FOUND || err == ZQ_ERR_MALFORMED, "the walk ends or stops");
    return 0;
}
