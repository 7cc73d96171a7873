/* The a= lines zq reads (RFC 8866 §5.13: "a=<attribute-name>[:<attribute-value>]"), one
 * handler per attribute. Each checks its value as soon as it is seen, so a bad line is
 * reported by name even when a line at another level would have won; what may sit at either
 * level is kept per level and resolved when the text ends (sdp_parse.c).
 *
 *   a=fingerprint:sha-256 24:3F:47:...:77:E8      name "fingerprint", value after the ':'
 *   a=ice-lite                                    a flag: no ':' and no value
 */
#include <string.h>

#include "stack/sdp/sdp_internal.h"
#include "zq/hex.h"

typedef zq_err_t (*attr_fn)(sdp_parser_t *p, sdp_level_t *lv, sdp_span_t value,
                            sdp_span_t line);

static const char dup_reason[] = "duplicate attribute";

/* ---- ICE (RFC 8839 §5) --------------------------------------------------------------------- */

/* One credential, checked against RFC 8839 §5.4 and kept as a span until the levels are
 * resolved. Repeating it at one level would leave two passwords for one check: refused. */
static zq_err_t take_credential(sdp_parser_t *p, sdp_span_t *slot, sdp_span_t v, size_t max,
                                bool (*ok)(const char *, size_t), const char *too_long,
                                const char *bad)
{
    if (slot->p != NULL) {
        return sdp_fail(p, ZQ_ERR_MALFORMED, dup_reason);
    }
    if (v.len > max) {
        return sdp_fail(p, ZQ_ERR_TOO_LONG, too_long);
    }
    if (!ok(v.p, v.len)) {
        return sdp_fail(p, ZQ_ERR_MALFORMED, bad);
    }
    *slot = v;
    return ZQ_OK;
}

static zq_err_t attr_ice_ufrag(sdp_parser_t *p, sdp_level_t *lv, sdp_span_t v, sdp_span_t line)
{
    (void)line;
    return take_credential(p, &lv->ufrag, v, ZQ_ICE_UFRAG_MAX, sdp_ufrag_ok,
                           "a=ice-ufrag too long", "bad a=ice-ufrag: needs 4 or more ice-chars");
}

static zq_err_t attr_ice_pwd(sdp_parser_t *p, sdp_level_t *lv, sdp_span_t v, sdp_span_t line)
{
    (void)line;
    return take_credential(p, &lv->pwd, v, ZQ_ICE_PWD_MAX, sdp_pwd_ok, "a=ice-pwd too long",
                           "bad a=ice-pwd: needs 22 or more ice-chars");
}

/* RFC 8839 §5.3 puts a=ice-lite at session level; a media-level one means the same. */
static zq_err_t attr_ice_lite(sdp_parser_t *p, sdp_level_t *lv, sdp_span_t v, sdp_span_t line)
{
    (void)p;
    (void)v;
    (void)line;
    lv->lite = true;
    return ZQ_OK;
}

/* RFC 8839 §5.6: ice-options = ice-option-tag *(SP ice-option-tag). Only "trickle" (RFC 8840)
 * matters to zq; other tags ("renomination", ...) are read past. */
static zq_err_t attr_ice_options(sdp_parser_t *p, sdp_level_t *lv, sdp_span_t v, sdp_span_t line)
{
    (void)line;
    sdp_span_t tag;
    if (!sdp_next_field(&v, &tag)) {
        return sdp_fail(p, ZQ_ERR_MALFORMED, "bad a=ice-options: no option");
    }
    lv->has_options = true;
    do {
        lv->trickle = lv->trickle || sdp_span_ieq(tag, "trickle");
    } while (sdp_next_field(&v, &tag));
    return ZQ_OK;
}

/* RFC 8840: the peer has sent all its candidates, so ICE may fail early. */
static zq_err_t attr_end_of_candidates(sdp_parser_t *p, sdp_level_t *lv, sdp_span_t v,
                                       sdp_span_t line)
{
    (void)p;
    (void)v;
    (void)line;
    lv->end_of_candidates = true;
    return ZQ_OK;
}

/* RFC 8839 §5.1. A candidate zq cannot use (TCP, an mDNS name, component 2) and one beyond
 * capacity are counted, not refused: the others may well suffice. A broken line is refused. */
static zq_err_t attr_candidate(sdp_parser_t *p, sdp_level_t *lv, sdp_span_t v, sdp_span_t line)
{
    (void)lv;
    (void)v;
    sdp_t *out = p->out;
    ice_candidate_t scratch;
    ice_candidate_t *slot =
        out->n_candidates < ZQ_SDP_MAX_CANDIDATES ? &out->candidates[out->n_candidates] : &scratch;
    zq_err_t err = ice_candidate_parse(line.p, line.len, slot);
    if (err == ZQ_ERR_MALFORMED) {
        return sdp_fail(p, ZQ_ERR_MALFORMED, "malformed a=candidate");
    }
    if (err == ZQ_OK && slot != &scratch) {
        out->n_candidates++;
    } else if (out->candidates_skipped < UINT16_MAX) {
        out->candidates_skipped++;
    }
    return ZQ_OK;
}

/* ---- DTLS (RFC 8122 §5, RFC 5763 §5) ------------------------------------------------------- */

/* RFC 8122 §5: fingerprint = 2UHEX *(":" 2UHEX) (lower case tolerated, as dtls.c does). */
static bool is_hex_pairs(sdp_span_t s)
{
    if (s.len < 2 || (s.len + 1) % 3 != 0) {
        return false;
    }
    for (size_t i = 0; i < s.len; i++) {
        if (i % 3 == 2 ? s.p[i] != ':' : zq_hex_digit(s.p[i]) < 0) {
            return false;
        }
    }
    return true;
}

/* RFC 8122 §5: one a=fingerprint per hash function may appear. zq verifies sha-256 only, the
 * hash every browser sends (RFC 8827 §6.5); the first sha-256 one is kept, and a level with
 * fingerprints but no sha-256 one is refused when the levels are resolved. */
static zq_err_t attr_fingerprint(sdp_parser_t *p, sdp_level_t *lv, sdp_span_t v, sdp_span_t line)
{
    (void)line;
    sdp_span_t rest = v;
    sdp_span_t hash;
    sdp_span_t hex;
    sdp_span_t extra;
    if (!sdp_next_field(&rest, &hash) || !sdp_is_token(hash.p, hash.len) ||
        !sdp_next_field(&rest, &hex) || sdp_next_field(&rest, &extra) || !is_hex_pairs(hex)) {
        return sdp_fail(p, ZQ_ERR_MALFORMED, "malformed a=fingerprint");
    }
    if (!sdp_span_ieq(hash, "sha-256")) {
        if (lv->fp_seen == SDP_FP_NONE) {
            lv->fp_seen = SDP_FP_OTHER_HASH;
        }
        return ZQ_OK;
    }
    dtls_fingerprint_t fp;
    if (dtls_fingerprint_parse(v.p, v.len, &fp) != ZQ_OK) {
        return sdp_fail(p, ZQ_ERR_MALFORMED, "malformed a=fingerprint");
    }
    if (lv->fp_seen != SDP_FP_SHA256) {
        lv->fingerprint = fp;
        lv->fp_seen = SDP_FP_SHA256;
    }
    return ZQ_OK;
}

/* RFC 4145 §4: setup = "active" / "passive" / "actpass" / "holdconn". holdconn (no connection
 * at all) means nothing to a data channel, so it is as bad as an unknown value. */
static zq_err_t attr_setup(sdp_parser_t *p, sdp_level_t *lv, sdp_span_t v, sdp_span_t line)
{
    (void)line;
    static const sdp_setup_t values[] = {SDP_SETUP_ACTPASS, SDP_SETUP_ACTIVE, SDP_SETUP_PASSIVE};
    if (lv->setup != SDP_SETUP_NONE) {
        return sdp_fail(p, ZQ_ERR_MALFORMED, dup_reason);
    }
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        if (sdp_span_ieq(v, sdp_setup_name(values[i]))) {
            lv->setup = values[i];
            return ZQ_OK;
        }
    }
    return sdp_fail(p, ZQ_ERR_MALFORMED, "bad a=setup value");
}

/* ---- The data section (RFC 5888 §4, RFC 8841 §5-6, draft-ietf-mmusic-sctp-sdp-05) ---------- */

static zq_err_t attr_mid(sdp_parser_t *p, sdp_level_t *lv, sdp_span_t v, sdp_span_t line)
{
    (void)lv;
    (void)line;
    if (p->has_mid) {
        return sdp_fail(p, ZQ_ERR_MALFORMED, dup_reason);
    }
    if (v.len > ZQ_SDP_MID_MAX) {
        return sdp_fail(p, ZQ_ERR_TOO_LONG, "a=mid too long");
    }
    if (!sdp_mid_ok(v.p, v.len)) {
        return sdp_fail(p, ZQ_ERR_MALFORMED, "bad a=mid: not a token");
    }
    memcpy(p->out->mid, v.p, v.len);
    p->out->mid[v.len] = '\0';
    p->has_mid = true;
    return ZQ_OK;
}

/* RFC 8841 §5.2: sctp-port = 1*5(DIGIT). A legacy section names its port in the m= line, so
 * there the attribute is read past. */
static zq_err_t attr_sctp_port(sdp_parser_t *p, sdp_level_t *lv, sdp_span_t v, sdp_span_t line)
{
    (void)lv;
    (void)line;
    uint64_t port;
    if (p->out->legacy_sctpmap) {
        return ZQ_OK;
    }
    if (p->has_sctp_port) {
        return sdp_fail(p, ZQ_ERR_MALFORMED, dup_reason);
    }
    if (!sdp_parse_decimal(v, 65535, false, &port) || port == 0) {
        return sdp_fail(p, ZQ_ERR_MALFORMED, "bad a=sctp-port");
    }
    p->out->sctp_port = (uint16_t)port;
    p->has_sctp_port = true;
    return ZQ_OK;
}

/* RFC 8841 §6: max-message-size = 1*DIGIT, with no upper bound; 0 means "any size". zq's
 * messages are far below 4 GiB, so a larger limit saturates rather than fails. */
static zq_err_t attr_max_message_size(sdp_parser_t *p, sdp_level_t *lv, sdp_span_t v,
                                      sdp_span_t line)
{
    (void)lv;
    (void)line;
    uint64_t size;
    if (p->has_max_message_size) {
        return sdp_fail(p, ZQ_ERR_MALFORMED, dup_reason);
    }
    if (!sdp_parse_decimal(v, UINT32_MAX, true, &size)) {
        return sdp_fail(p, ZQ_ERR_MALFORMED, "bad a=max-message-size");
    }
    p->out->max_message_size = (uint32_t)size;
    p->has_max_message_size = true;
    return ZQ_OK;
}

/* draft-ietf-mmusic-sctp-sdp-05 §4.1: a=sctpmap:<sctpmap-number> <app> [<streams>], where the
 * number repeats the m= line's format. Chromium and aiortc put 65535 (streams) last. Only the
 * legacy form has it; in the RFC 8841 form it is an unknown attribute. */
static zq_err_t attr_sctpmap(sdp_parser_t *p, sdp_level_t *lv, sdp_span_t v, sdp_span_t line)
{
    (void)lv;
    (void)line;
    sdp_span_t number;
    sdp_span_t app;
    sdp_span_t streams;
    sdp_span_t extra;
    uint64_t n;
    if (!p->out->legacy_sctpmap) {
        return ZQ_OK;
    }
    if (p->has_sctpmap) {
        return sdp_fail(p, ZQ_ERR_MALFORMED, dup_reason);
    }
    bool ok = sdp_next_field(&v, &number) && sdp_next_field(&v, &app) &&
              sdp_parse_decimal(number, 65535, false, &n) && n == p->out->sctp_port &&
              sdp_span_ieq(app, "webrtc-datachannel");
    if (ok && sdp_next_field(&v, &streams)) {
        ok = sdp_parse_decimal(streams, 65535, false, &n) && !sdp_next_field(&v, &extra);
    }
    if (!ok) {
        return sdp_fail(p, ZQ_ERR_MALFORMED, "bad a=sctpmap");
    }
    p->has_sctpmap = true;
    return ZQ_OK;
}

/* ---- Dispatch ------------------------------------------------------------------------------ */

enum { AT_SESSION = 1, AT_MEDIA = 2, AT_BOTH = 3 };

static const struct {
    const char *name;
    uint8_t levels; /* where zq reads it; elsewhere it is ignored */
    attr_fn fn;
} attributes[] = {
    {"ice-ufrag", AT_BOTH, attr_ice_ufrag},
    {"ice-pwd", AT_BOTH, attr_ice_pwd},
    {"ice-lite", AT_BOTH, attr_ice_lite},
    {"ice-options", AT_BOTH, attr_ice_options},
    {"fingerprint", AT_BOTH, attr_fingerprint},
    {"setup", AT_BOTH, attr_setup},
    {"end-of-candidates", AT_BOTH, attr_end_of_candidates},
    {"candidate", AT_MEDIA, attr_candidate},
    {"mid", AT_MEDIA, attr_mid},
    {"sctp-port", AT_MEDIA, attr_sctp_port},
    {"max-message-size", AT_MEDIA, attr_max_message_size},
    {"sctpmap", AT_MEDIA, attr_sctpmap},
};

zq_err_t sdp_parse_attribute(sdp_parser_t *p, sdp_span_t line)
{
    sdp_span_t name = {line.p + 2, line.len - 2}; /* after "a=" */
    sdp_span_t value = {line.p + line.len, 0};
    const char *colon = memchr(name.p, ':', name.len);
    if (colon != NULL) {
        value.p = colon + 1;
        value.len = name.len - (size_t)(value.p - name.p);
        name.len = (size_t)(colon - name.p);
    }
    uint8_t level = p->where == SDP_AT_DATA ? AT_MEDIA : AT_SESSION;
    sdp_level_t *lv = p->where == SDP_AT_DATA ? &p->media : &p->session;
    for (size_t i = 0; i < sizeof attributes / sizeof attributes[0]; i++) {
        if (sdp_span_ieq(name, attributes[i].name)) {
            return (attributes[i].levels & level) ? attributes[i].fn(p, lv, value, line) : ZQ_OK;
        }
    }
    return ZQ_OK; /* RFC 8866 §5.13: unknown attributes are ignored */
}
