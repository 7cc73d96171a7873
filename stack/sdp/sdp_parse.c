/* Reading a session description (RFC 8866) down to the one data-channel section zq uses.
 *
 *   v=0                                               must come first (RFC 8866 §5.1)
 *   o=- 5142315552985827675 2 IN IP4 127.0.0.1        session id and version (§5.2)
 *   s=- / t=0 0                                       read past
 *   a=group:BUNDLE 0                                  session level: applies to every section
 *   m=audio 9 UDP/TLS/RTP/SAVPF 111                   skipped, with all its lines
 *   m=application 42993 UDP/DTLS/SCTP webrtc-datachannel     <- the first usable one
 *   c=IN IP4 127.0.0.1                                media level: wins over session level
 *   a=candidate:... / a=ice-ufrag:... / a=mid:0 / a=sctp-port:5000 / ...
 *   m=application ...                                 a second data section: skipped
 *
 * One pass reads every line; the session-level and the data section's attributes are kept
 * apart, then resolved (media level wins) when the text ends.
 */
#include <string.h>

#include "stack/sdp/sdp_internal.h"

zq_err_t sdp_fail(sdp_parser_t *p, zq_err_t err, const char *reason)
{
    p->reason = reason;
    return err;
}

/* ---- Session lines ------------------------------------------------------------------------ */

/* RFC 8866 §5.2: o=<username> <sess-id> <sess-version> <nettype> <addrtype> <unicast-address>.
 * Browsers write a 63-bit random sess-id (RFC 8829 §5.2.1); a longer one is refused. */
static zq_err_t on_origin(sdp_parser_t *p, sdp_span_t v)
{
    sdp_span_t f[6];
    sdp_span_t extra;
    if (p->where != SDP_AT_SESSION || p->has_origin) {
        return ZQ_OK; /* only the session's first o= line means anything */
    }
    for (size_t i = 0; i < 6; i++) {
        if (!sdp_next_field(&v, &f[i])) {
            return sdp_fail(p, ZQ_ERR_MALFORMED, "bad o= line");
        }
    }
    if (sdp_next_field(&v, &extra) ||
        !sdp_parse_decimal(f[1], UINT64_MAX, false, &p->out->session_id) ||
        !sdp_parse_decimal(f[2], UINT64_MAX, false, &p->out->session_version)) {
        return sdp_fail(p, ZQ_ERR_MALFORMED, "bad o= line");
    }
    p->has_origin = true;
    return ZQ_OK;
}

/* RFC 8866 §5.7: c=<nettype> <addrtype> <connection-address>, where the address may carry a
 * multicast "/ttl" and may be a host name. ICE does not use it (RFC 8839): zq keeps it
 * as the default destination for diagnostics, so a name is kept as "no address", not refused. */
static zq_err_t on_connection(sdp_parser_t *p, sdp_span_t v)
{
    sdp_level_t *lv = p->where == SDP_AT_DATA ? &p->media : &p->session;
    sdp_span_t net;
    sdp_span_t type;
    sdp_span_t addr;
    sdp_span_t extra;
    if (lv->has_connection) {
        return sdp_fail(p, ZQ_ERR_MALFORMED, "duplicate c= line");
    }
    if (!sdp_next_field(&v, &net) || !sdp_next_field(&v, &type) || !sdp_next_field(&v, &addr) ||
        sdp_next_field(&v, &extra) || !sdp_span_ieq(net, "in")) {
        return sdp_fail(p, ZQ_ERR_MALFORMED, "bad c= line");
    }
    uint8_t family = sdp_span_ieq(type, "ip4") ? ZQ_AF_INET4
                     : sdp_span_ieq(type, "ip6") ? ZQ_AF_INET6
                                                 : ZQ_AF_NONE;
    const char *slash = memchr(addr.p, '/', addr.len);
    if (slash != NULL) {
        addr.len = (size_t)(slash - addr.p);
    }
    zq_addr_t a;
    memset(&a, 0, sizeof a);
    if (zq_addr_parse_ip(addr.p, addr.len, &a) != ZQ_OK) {
        a.family = ZQ_AF_NONE;
    }
    if (family == ZQ_AF_NONE || (a.family != ZQ_AF_NONE && a.family != family)) {
        return sdp_fail(p, ZQ_ERR_MALFORMED, "bad c= line");
    }
    lv->connection = a;
    lv->has_connection = true;
    return ZQ_OK;
}

/* ---- m= lines (RFC 8866 §5.14) ----------------------------------------------------------- */

typedef enum { SECTION_OTHER, SECTION_DATA, SECTION_LEGACY } section_kind_t;

/* The section kind from <media> <proto> <fmt>: RFC 8841 §4's "UDP/DTLS/SCTP webrtc-datachannel",
 * or the legacy "DTLS/SCTP <sctp-port>" (draft-ietf-mmusic-sctp-sdp-05 §4) whose fmt is the
 * SCTP port. TCP/DTLS/SCTP and every other proto are someone else's. */
static section_kind_t section_kind(sdp_span_t media, sdp_span_t proto, sdp_span_t fmts,
                                   uint16_t *legacy_port)
{
    sdp_span_t fmt;
    uint64_t n;
    if (!sdp_span_ieq(media, "application") || !sdp_next_field(&fmts, &fmt)) {
        return SECTION_OTHER;
    }
    if (sdp_span_ieq(proto, "udp/dtls/sctp")) {
        do {
            if (sdp_span_ieq(fmt, "webrtc-datachannel")) {
                return SECTION_DATA;
            }
        } while (sdp_next_field(&fmts, &fmt));
        return SECTION_OTHER;
    }
    if (sdp_span_ieq(proto, "dtls/sctp") && sdp_parse_decimal(fmt, 65535, false, &n) && n > 0) {
        *legacy_port = (uint16_t)n;
        return SECTION_LEGACY;
    }
    return SECTION_OTHER;
}

/* Starts the first usable data section, if this m= line is one. Its port must be a plain
 * number: "<port>/<count>" is for layered multicast (RFC 8866 §5.14). Port 0 rejects the
 * section (RFC 3264 §6), so zq looks further. */
static zq_err_t open_section(sdp_parser_t *p, sdp_span_t v)
{
    sdp_span_t media;
    sdp_span_t port_text;
    sdp_span_t proto;
    uint16_t legacy_port = 0;
    uint64_t port;
    if (!sdp_next_field(&v, &media) || !sdp_next_field(&v, &port_text) ||
        !sdp_next_field(&v, &proto)) {
        return ZQ_OK; /* not ours to judge: it cannot be a data section */
    }
    section_kind_t kind = section_kind(media, proto, v, &legacy_port);
    if (kind == SECTION_OTHER) {
        return ZQ_OK;
    }
    if (!sdp_parse_decimal(port_text, 65535, false, &port)) {
        return sdp_fail(p, ZQ_ERR_MALFORMED, "bad m= line: port");
    }
    if (port == 0) {
        return ZQ_OK;
    }
    p->where = SDP_AT_DATA;
    p->media_port = (uint16_t)port;
    p->out->legacy_sctpmap = kind == SECTION_LEGACY;
    if (kind == SECTION_LEGACY) {
        p->out->sctp_port = legacy_port;
    }
    return ZQ_OK;
}

static zq_err_t on_media(sdp_parser_t *p, sdp_span_t line, size_t line_off)
{
    switch (p->where) {
    case SDP_AT_SESSION:
        p->session_len = line_off;
        p->where = SDP_AT_OTHER;
        return open_section(p, (sdp_span_t){line.p + 2, line.len - 2});
    case SDP_AT_OTHER:
        return open_section(p, (sdp_span_t){line.p + 2, line.len - 2});
    case SDP_AT_DATA:
    case SDP_AT_REST:
    default:
        p->where = SDP_AT_REST; /* the first usable section is the one */
        return ZQ_OK;
    }
}

/* ---- Lines -------------------------------------------------------------------------------- */

static zq_err_t on_line(sdp_parser_t *p, sdp_span_t line, size_t line_off)
{
    if (line.len == 0) {
        return ZQ_OK; /* tolerated, like a bare LF */
    }
    if (line.len < 2 || line.p[1] != '=') {
        return sdp_fail(p, ZQ_ERR_MALFORMED, "malformed line: not <type>=<value>");
    }
    if (line.p[0] == 'm') {
        return on_media(p, line, line_off);
    }
    if (p->where == SDP_AT_OTHER || p->where == SDP_AT_REST) {
        return ZQ_OK; /* a section zq does not use: nothing in it is read */
    }
    sdp_span_t value = {line.p + 2, line.len - 2};
    switch (line.p[0]) {
    case 'o':
        return on_origin(p, value);
    case 'c':
        return on_connection(p, value);
    case 'a':
        return sdp_parse_attribute(p, line);
    default:
        return ZQ_OK; /* s=, t=, b=, i=, ... and unknown types: nothing zq needs */
    }
}

/* RFC 8866 §5.1: the first line is "v=0", the only version there is. */
static zq_err_t read_lines(sdp_parser_t *p, const char *text, size_t len)
{
    sdp_lines_t it = {text, len, 0};
    sdp_span_t line;
    zq_err_t err = sdp_next_line(&it, &line, &p->reason);
    if (err != ZQ_OK) {
        return err;
    }
    if (line.p == NULL || !sdp_span_eq(line, "v=0")) {
        return sdp_fail(p, ZQ_ERR_MALFORMED, "not SDP: the first line must be v=0");
    }
    p->session_len = len; /* until an m= line says otherwise */
    for (;;) {
        size_t off = it.off;
        err = sdp_next_line(&it, &line, &p->reason);
        if (err != ZQ_OK || line.p == NULL) {
            return err;
        }
        err = on_line(p, line, off);
        if (err != ZQ_OK) {
            return err;
        }
    }
}

/* ---- Resolution --------------------------------------------------------------------------- */

bool sdp_bundle_lists(const char *text, size_t session_len, const char *mid)
{
    sdp_lines_t it = {text, session_len, 0};
    sdp_span_t line;
    const char *ignored;
    if (mid[0] == '\0') {
        return false;
    }
    while (sdp_next_line(&it, &line, &ignored) == ZQ_OK && line.p != NULL) {
        static const char prefix[] = "a=group:";
        sdp_span_t head = {line.p, sizeof prefix - 1};
        sdp_span_t rest = {line.p + head.len, line.len - head.len};
        sdp_span_t tag;
        if (line.len < head.len || !sdp_span_ieq(head, prefix) || !sdp_next_field(&rest, &tag) ||
            !sdp_span_ieq(tag, "bundle")) {
            continue;
        }
        while (sdp_next_field(&rest, &tag)) {
            if (sdp_span_eq(tag, mid)) {
                return true;
            }
        }
    }
    return false;
}

static void copy_span(char *dst, sdp_span_t s)
{
    memcpy(dst, s.p, s.len);
    dst[s.len] = '\0';
}

/* ICE credentials (RFC 8839 §5.4): each may sit at either level; media level wins. */
static zq_err_t resolve_ice(sdp_parser_t *p)
{
    const sdp_level_t *s = &p->session;
    const sdp_level_t *m = &p->media;
    sdp_span_t ufrag = m->ufrag.p != NULL ? m->ufrag : s->ufrag;
    sdp_span_t pwd = m->pwd.p != NULL ? m->pwd : s->pwd;
    if (ufrag.p == NULL) {
        return sdp_fail(p, ZQ_ERR_MALFORMED, "missing a=ice-ufrag");
    }
    if (pwd.p == NULL) {
        return sdp_fail(p, ZQ_ERR_MALFORMED, "missing a=ice-pwd");
    }
    copy_span(p->out->ice_ufrag, ufrag);
    copy_span(p->out->ice_pwd, pwd);
    p->out->ice_lite = s->lite || m->lite;
    p->out->ice_trickle = m->has_options ? m->trickle : s->trickle;
    p->out->end_of_candidates = s->end_of_candidates || m->end_of_candidates;
    return ZQ_OK;
}

/* DTLS (RFC 8122 §5, RFC 5763 §5): the fingerprints of one level count together. */
static zq_err_t resolve_dtls(sdp_parser_t *p)
{
    const sdp_level_t *fp = p->media.fp_seen != SDP_FP_NONE ? &p->media : &p->session;
    switch (fp->fp_seen) {
    case SDP_FP_SHA256:
        break;
    case SDP_FP_OTHER_HASH:
        return sdp_fail(p, ZQ_ERR_UNSUPPORTED, "fingerprint hash not supported");
    case SDP_FP_NONE:
    default:
        return sdp_fail(p, ZQ_ERR_MALFORMED, "missing a=fingerprint");
    }
    p->out->has_fingerprint = true;
    p->out->fingerprint = fp->fingerprint;
    p->out->setup = p->media.setup != SDP_SETUP_NONE ? p->media.setup : p->session.setup;
    return ZQ_OK;
}

static zq_err_t resolve(sdp_parser_t *p, const char *text)
{
    if (p->where == SDP_AT_SESSION || p->where == SDP_AT_OTHER) {
        return sdp_fail(p, ZQ_ERR_UNSUPPORTED, "no usable m=application section");
    }
    zq_err_t err = resolve_ice(p);
    if (err == ZQ_OK) {
        err = resolve_dtls(p);
    }
    if (err != ZQ_OK) {
        return err;
    }
    const sdp_level_t *c = p->media.has_connection ? &p->media : &p->session;
    p->out->connection = c->connection; /* family ZQ_AF_NONE when neither had one */
    p->out->connection.port = p->media_port;
    p->out->bundle = sdp_bundle_lists(text, p->session_len, p->out->mid);
    return ZQ_OK;
}

zq_err_t sdp_parse(const char *text, size_t len, sdp_t *out, const char **reason)
{
    sdp_parser_t p;
    memset(&p, 0, sizeof p);
    p.reason = "ok";
    zq_err_t err;
    if (text == NULL || out == NULL) {
        p.reason = "NULL argument";
        err = ZQ_ERR_INVALID_ARG;
    } else {
        sdp_init(out);
        p.out = out;
        p.where = SDP_AT_SESSION;
        err = read_lines(&p, text, len);
        if (err == ZQ_OK) {
            err = resolve(&p, text);
        }
        if (err != ZQ_OK) {
            sdp_init(out);
        }
    }
    if (reason != NULL) {
        *reason = p.reason;
    }
    return err;
}
