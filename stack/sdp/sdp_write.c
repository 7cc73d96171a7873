/* Writing the description zq sends: one data section, lines in the order Chromium 156 writes
 * them (see tests/fixtures/sdp/chromium156-offer-gathered.sdp), so that a browser reads
 * nothing it has not seen from itself:
 *
 *   v=0
 *   o=- 4611686018427387904 2 IN IP4 127.0.0.1
 *   s=-
 *   t=0 0
 *   a=group:BUNDLE 0
 *   a=ice-lite                                   (a lite agent, RFC 8839 §5.3: session level)
 *   m=application 50000 UDP/DTLS/SCTP webrtc-datachannel
 *   c=IN IP4 192.0.2.1
 *   a=candidate:1 1 udp 2130706431 192.0.2.1 50000 typ host
 *   a=end-of-candidates
 *   a=ice-ufrag:... / a=ice-pwd:... / a=ice-options:trickle
 *   a=fingerprint:sha-256 ...
 *   a=setup:passive
 *   a=mid:0
 *   a=sctp-port:5000
 *   a=max-message-size:262144
 *
 * Everything goes through one bounded writer: a line that does not fit fails the writer, and
 * the caller gets 0 and an empty string, never a partial description.
 */
#include <string.h>

#include "stack/sdp/sdp_internal.h"
#include "zq/bytes.h"
#include "zq/text.h"

/* RFC 8829 §5.2.1: the m= port and c= address of a section with no candidate yet. */
#define DUMMY_PORT 9

static void put_line_end(zq_writer_t *w)
{
    zq_write_str(w, "\r\n");
}

/* ---- What can be written ------------------------------------------------------------------ */

/* The length of a NUL-terminated field of a fixed array, or SIZE_MAX if it is not terminated. */
static size_t field_len(const char *field, size_t size)
{
    const char *end = memchr(field, '\0', size);
    return end != NULL ? (size_t)(end - field) : SIZE_MAX;
}

/* RFC 5763 §5: the offerer says actpass (or, in a later offer, the role it has); the answerer
 * picks active or passive and never actpass. NONE takes the usual choice of each side. */
static bool resolve_setup(sdp_setup_t setup, sdp_kind_t kind, sdp_setup_t *out)
{
    switch (setup) {
    case SDP_SETUP_NONE:
        *out = kind == SDP_OFFER ? SDP_SETUP_ACTPASS : SDP_SETUP_ACTIVE;
        return true;
    case SDP_SETUP_ACTPASS:
        *out = setup;
        return kind == SDP_OFFER;
    case SDP_SETUP_ACTIVE:
    case SDP_SETUP_PASSIVE:
        *out = setup;
        return true;
    default:
        return false;
    }
}

/* Only a description sdp_parse() and a browser would take: the reader's own rules decide. */
static bool writable(const sdp_t *in, sdp_kind_t kind, sdp_setup_t *setup)
{
    size_t ufrag = field_len(in->ice_ufrag, sizeof in->ice_ufrag);
    size_t pwd = field_len(in->ice_pwd, sizeof in->ice_pwd);
    size_t mid = field_len(in->mid, sizeof in->mid);
    return (kind == SDP_OFFER || kind == SDP_ANSWER) && resolve_setup(in->setup, kind, setup) &&
           ufrag != SIZE_MAX && sdp_ufrag_ok(in->ice_ufrag, ufrag) && pwd != SIZE_MAX &&
           sdp_pwd_ok(in->ice_pwd, pwd) && mid != SIZE_MAX &&
           (mid == 0 || sdp_mid_ok(in->mid, mid)) && in->has_fingerprint && in->sctp_port != 0 &&
           in->n_candidates <= ZQ_SDP_MAX_CANDIDATES;
}

/* ---- Lines -------------------------------------------------------------------------------- */

/* RFC 8866 §5 v=, o=, s=, t=, as browsers write them (their o= address is a placeholder too). */
static void write_session(zq_writer_t *w, const sdp_t *in)
{
    zq_write_str(w, "v=0\r\no=- ");
    zq_write_udec(w, in->session_id);
    zq_write_str(w, " ");
    zq_write_udec(w, in->session_version);
    zq_write_str(w, " IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n");
    if (in->bundle && in->mid[0] != '\0') {
        zq_write_str(w, "a=group:BUNDLE "); /* RFC 8843: our one section's bundle group */
        zq_write_str(w, in->mid);
        put_line_end(w);
    }
    if (in->ice_lite) {
        zq_write_str(w, "a=ice-lite\r\n");
    }
}

/* m= and c= carry the default candidate (RFC 8829 §5.2.1): the first one
 * zq has, or the dummy 0.0.0.0:9 while it has none. */
static void write_media_line(zq_writer_t *w, const sdp_t *in)
{
    zq_addr_t addr = zq_addr_v4(0, 0, 0, 0, DUMMY_PORT);
    if (in->n_candidates > 0) {
        addr = in->candidates[0].addr;
        addr.port = addr.port != 0 ? addr.port : DUMMY_PORT; /* port 0 would reject the section */
    }
    zq_write_str(w, "m=application ");
    zq_write_udec(w, addr.port);
    if (in->legacy_sctpmap) {
        zq_write_str(w, " DTLS/SCTP "); /* draft-ietf-mmusic-sctp-sdp-05: the fmt is the SCTP port */
        zq_write_udec(w, in->sctp_port);
    } else {
        zq_write_str(w, " UDP/DTLS/SCTP webrtc-datachannel"); /* RFC 8841 §4 */
    }
    zq_write_str(w, addr.family == ZQ_AF_INET6 ? "\r\nc=IN IP6 " : "\r\nc=IN IP4 ");
    zq_addr_write_ip(w, &addr);
    put_line_end(w);
}

static void write_candidates(zq_writer_t *w, const sdp_t *in)
{
    for (uint8_t i = 0; i < in->n_candidates; i++) {
        char text[ICE_CANDIDATE_TEXT_MAX];
        size_t n = ice_candidate_format(&in->candidates[i], text, sizeof text);
        if (n == 0) {
            w->failed = true; /* a candidate no peer could parse: no description at all */
            return;
        }
        zq_write_str(w, "a=");
        zq_write_bytes(w, text, n);
        put_line_end(w);
    }
    if (in->end_of_candidates) {
        zq_write_str(w, "a=end-of-candidates\r\n");
    }
}

static void write_transport(zq_writer_t *w, const sdp_t *in, sdp_setup_t setup)
{
    zq_write_str(w, "a=ice-ufrag:");
    zq_write_str(w, in->ice_ufrag);
    zq_write_str(w, "\r\na=ice-pwd:");
    zq_write_str(w, in->ice_pwd);
    put_line_end(w);
    if (in->ice_trickle) {
        zq_write_str(w, "a=ice-options:trickle\r\n");
    }
    char fp[DTLS_FINGERPRINT_TEXT_MAX];
    size_t n = dtls_fingerprint_format(&in->fingerprint, fp, sizeof fp);
    zq_write_str(w, "a=fingerprint:");
    zq_write_bytes(w, fp, n);
    zq_write_str(w, "\r\na=setup:");
    zq_write_str(w, sdp_setup_name(setup));
    put_line_end(w);
}

static void write_sctp(zq_writer_t *w, const sdp_t *in)
{
    if (in->mid[0] != '\0') {
        zq_write_str(w, "a=mid:");
        zq_write_str(w, in->mid);
        put_line_end(w);
    }
    if (in->legacy_sctpmap) {
        /* 65535 streams, as Chromium's and aiortc's legacy lines say. */
        zq_write_str(w, "a=sctpmap:");
        zq_write_udec(w, in->sctp_port);
        zq_write_str(w, " webrtc-datachannel 65535\r\n");
    } else {
        zq_write_str(w, "a=sctp-port:");
        zq_write_udec(w, in->sctp_port);
        put_line_end(w);
    }
    zq_write_str(w, "a=max-message-size:");
    zq_write_udec(w, in->max_message_size);
    put_line_end(w);
}

size_t sdp_write(const sdp_t *in, sdp_kind_t kind, char *out, size_t cap)
{
    zq_writer_t w = zq_text_writer(out, cap);
    sdp_setup_t setup;
    if (in == NULL || !writable(in, kind, &setup)) {
        return zq_text_end(&w);
    }
    write_session(&w, in);
    write_media_line(&w, in);
    write_candidates(&w, in);
    write_transport(&w, in, setup);
    write_sctp(&w, in);
    return zq_text_end(&w);
}
