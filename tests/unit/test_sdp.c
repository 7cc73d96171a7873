/* SDP for one data channel (stack/sdp): the real offers and answers of Chromium 156, aiortc 1.4
 * and Pion 3.1.56 (tests/fixtures/sdp/, embedded below byte for byte), then one test per rule
 * of the reader, then the writer: exact text, Chromium's line order, round trips through the
 * reader, and guard bytes around the output at every capacity. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "stack/sdp/sdp.h"

/* ---- The captures of tests/fixtures/sdp/ ------------------------------------------------- */

static const char chromium_offer_gathered[] = /* chromium156-offer-gathered.sdp */
    "v=0\r\n"
    "o=- 5142315552985827675 2 IN IP4 127.0.0.1\r\n"
    "s=-\r\n"
    "t=0 0\r\n"
    "a=group:BUNDLE 0\r\n"
    "a=extmap-allow-mixed\r\n"
    "a=msid-semantic: WMS\r\n"
    "m=application 42993 UDP/DTLS/SCTP webrtc-datachannel\r\n"
    "c=IN IP4 127.0.0.1\r\n"
    "a=candidate:35077654 1 udp 2122260223 127.0.0.1 42993 typ host generation 0 network-id 1 "
    "network-cost 50\r\n"
    "a=candidate:4240304770 1 tcp 1518280447 127.0.0.1 9 typ host tcptype active generation 0 "
    "network-id 1 network-cost 50\r\n"
    "a=ice-ufrag:wSZt\r\n"
    "a=ice-pwd:GIXJzEKMKGeq87ucWhE1Qm3Z\r\n"
    "a=ice-options:trickle\r\n"
    "a=fingerprint:sha-256 24:3F:47:C0:4F:94:B7:0C:33:AE:53:89:5B:54:E7:5D:8C:14:EF:9A:EE:30:"
    "84:EB:2A:6E:C3:DC:67:79:77:E8\r\n"
    "a=setup:actpass\r\n"
    "a=mid:0\r\n"
    "a=sctp-port:5000\r\n"
    "a=max-message-size:262144\r\n";

static const char chromium_offer_to_aiortc[] = /* chromium156-offer-to-aiortc.sdp */
    "v=0\r\n"
    "o=- 613458183532406418 2 IN IP4 127.0.0.1\r\n"
    "s=-\r\n"
    "t=0 0\r\n"
    "a=group:BUNDLE 0\r\n"
    "a=extmap-allow-mixed\r\n"
    "a=msid-semantic: WMS\r\n"
    "m=application 52274 UDP/DTLS/SCTP webrtc-datachannel\r\n"
    "c=IN IP4 127.0.0.1\r\n"
    "a=candidate:1869553834 1 udp 2122260223 127.0.0.1 52274 typ host generation 0 network-id 1 "
    "network-cost 50\r\n"
    "a=candidate:2445669438 1 tcp 1518280447 127.0.0.1 9 typ host tcptype active generation 0 "
    "network-id 1 network-cost 50\r\n"
    "a=ice-ufrag:fQxq\r\n"
    "a=ice-pwd:tyTgZKV0D3A1AVE69VKFmQ2h\r\n"
    "a=ice-options:trickle\r\n"
    "a=fingerprint:sha-256 48:57:2B:D2:AF:55:F5:45:DB:00:13:A6:1B:D4:CB:5C:1C:77:B2:78:47:FF:"
    "87:A2:3D:BE:E4:1D:0B:EA:FB:AC\r\n"
    "a=setup:actpass\r\n"
    "a=mid:0\r\n"
    "a=sctp-port:5000\r\n"
    "a=max-message-size:262144\r\n";

static const char chromium_answer_to_legacy[] = /* chromium156-answer-to-aiortc-legacy.sdp */
    "v=0\r\n"
    "o=- 183369880968675566 2 IN IP4 127.0.0.1\r\n"
    "s=-\r\n"
    "t=0 0\r\n"
    "a=group:BUNDLE 0\r\n"
    "a=msid-semantic: WMS\r\n"
    "m=application 45606 DTLS/SCTP 5000\r\n"
    "c=IN IP4 127.0.0.1\r\n"
    "a=candidate:3125151278 1 udp 2122260223 127.0.0.1 45606 typ host generation 0 network-id 1 "
    "network-cost 50\r\n"
    "a=ice-ufrag:X5zB\r\n"
    "a=ice-pwd:adACRca6YWP3NvdKsAdCggM+\r\n"
    "a=ice-options:trickle\r\n"
    "a=fingerprint:sha-256 16:AE:DC:2A:54:66:34:75:C8:D6:94:F8:02:F3:2A:F9:93:C4:85:FD:CC:D1:"
    "87:35:E5:8C:B4:D3:B2:21:5D:37\r\n"
    "a=setup:active\r\n"
    "a=mid:0\r\n"
    "a=sctpmap:5000 webrtc-datachannel 65535\r\n";

static const char aiortc_offer_legacy[] = /* aiortc14-offer-legacy.sdp */
    "v=0\r\n"
    "o=- 4004995501 4004995501 IN IP4 0.0.0.0\r\n"
    "s=-\r\n"
    "t=0 0\r\n"
    "a=group:BUNDLE 0\r\n"
    "a=msid-semantic:WMS *\r\n"
    "m=application 44323 DTLS/SCTP 5000\r\n"
    "c=IN IP4 127.0.0.1\r\n"
    "a=mid:0\r\n"
    "a=sctpmap:5000 webrtc-datachannel 65535\r\n"
    "a=max-message-size:65536\r\n"
    "a=candidate:16572de626da4e5384a0ce2d0d93678a 1 udp 2130706431 127.0.0.1 44323 typ host\r\n"
    "a=end-of-candidates\r\n"
    "a=ice-ufrag:7M0d\r\n"
    "a=ice-pwd:cvmoU5K5OHopEcWAi6btxa\r\n"
    "a=fingerprint:sha-256 DC:F1:57:AD:86:90:D7:EB:81:C2:89:76:CD:B6:76:8A:2C:E6:EA:81:34:EB:"
    "06:50:B5:7E:DB:21:B2:C1:C8:11\r\n"
    "a=setup:actpass\r\n";

static const char aiortc_answer[] = /* aiortc14-answer-to-chromium.sdp */
    "v=0\r\n"
    "o=- 4004995501 4004995501 IN IP4 0.0.0.0\r\n"
    "s=-\r\n"
    "t=0 0\r\n"
    "a=group:BUNDLE 0\r\n"
    "a=msid-semantic:WMS *\r\n"
    "m=application 37386 UDP/DTLS/SCTP webrtc-datachannel\r\n"
    "c=IN IP4 127.0.0.1\r\n"
    "a=mid:0\r\n"
    "a=sctp-port:5000\r\n"
    "a=max-message-size:65536\r\n"
    "a=candidate:16572de626da4e5384a0ce2d0d93678a 1 udp 2130706431 127.0.0.1 37386 typ host\r\n"
    "a=end-of-candidates\r\n"
    "a=ice-ufrag:r4pG\r\n"
    "a=ice-pwd:zBLY9sq6wiGxqZZYWlXF4H\r\n"
    "a=fingerprint:sha-256 B8:D6:74:96:F7:16:18:EE:00:FA:B5:42:3D:B6:C9:B8:0E:D8:67:80:F0:A3:"
    "DB:A3:AB:7D:C3:CB:AA:7D:69:3C\r\n"
    "a=setup:active\r\n";

/* chromium156-offer-ungathered.sdp: what a ZeroQ page sends, an offer made right after
 * createDataChannel, before any candidate was gathered (captured by the SDP work itself, with
 * Chromium 156.0.8078.108 headless, see tests/fixtures/sdp/README.md). */
static const char chromium_offer_ungathered[] =
    "v=0\r\n"
    "o=- 2360025908998105827 2 IN IP4 127.0.0.1\r\n"
    "s=-\r\n"
    "t=0 0\r\n"
    "a=group:BUNDLE 0\r\n"
    "a=extmap-allow-mixed\r\n"
    "a=msid-semantic: WMS\r\n"
    "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n"
    "c=IN IP4 0.0.0.0\r\n"
    "a=ice-ufrag:uz5K\r\n"
    "a=ice-pwd:CkNEZcvbrvewNCdgJ8wYKDT/\r\n"
    "a=ice-options:trickle\r\n"
    "a=fingerprint:sha-256 2D:4B:5E:B6:AD:4C:33:3A:B7:17:F2:DE:D8:BA:85:CF:70:CE:4E:C2:24:60:"
    "3C:9F:51:8F:E1:C9:A7:C5:F0:99\r\n"
    "a=setup:actpass\r\n"
    "a=mid:0\r\n"
    "a=sctp-port:5000\r\n"
    "a=max-message-size:262144\r\n";

/* Pion 3.1.56 (Debian 12's golang-github-pion-webrtc.v3-dev) through tests/interop/pion/, after
 * gathering on loopback alone. Pion writes a=fingerprint at session level, keeps m= port 9 and
 * c=IN IP4 0.0.0.0 even with candidates, writes each host candidate for components 1 and 2,
 * writes no a=ice-options and no a=max-message-size, and adds a=sendrecv. */
static const char pion_offer_gathered[] = /* pion3156-offer-gathered.sdp */
    "v=0\r\n"
    "o=- 7420134471047133177 1796014627 IN IP4 0.0.0.0\r\n"
    "s=-\r\n"
    "t=0 0\r\n"
    "a=fingerprint:sha-256 60:23:84:F7:10:43:FB:4F:8D:6E:5E:26:07:D9:7E:1A:65:F2:C8:B1:BF:C9:"
    "CD:F2:E2:28:C3:12:08:3B:AF:89\r\n"
    "a=extmap-allow-mixed\r\n"
    "a=group:BUNDLE 0\r\n"
    "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n"
    "c=IN IP4 0.0.0.0\r\n"
    "a=setup:actpass\r\n"
    "a=mid:0\r\n"
    "a=sendrecv\r\n"
    "a=sctp-port:5000\r\n"
    "a=ice-ufrag:OZQTxrxgesQQyslB\r\n"
    "a=ice-pwd:tiYMXwPEQzKvVhuOLlTQEpcrnmUNZkge\r\n"
    "a=candidate:2878742611 1 udp 2130706431 127.0.0.1 46645 typ host\r\n"
    "a=candidate:2878742611 2 udp 2130706431 127.0.0.1 46645 typ host\r\n"
    "a=end-of-candidates\r\n";

static const char pion_answer_to_chromium[] = /* pion3156-answer-to-chromium.sdp */
    "v=0\r\n"
    "o=- 5207025692777927525 1796014629 IN IP4 0.0.0.0\r\n"
    "s=-\r\n"
    "t=0 0\r\n"
    "a=fingerprint:sha-256 EC:6A:3B:10:A4:96:45:A4:DE:01:A9:1F:0B:E3:8F:32:23:EF:55:5F:EE:05:"
    "0B:35:32:35:28:97:08:14:78:7D\r\n"
    "a=extmap-allow-mixed\r\n"
    "a=group:BUNDLE 0\r\n"
    "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n"
    "c=IN IP4 0.0.0.0\r\n"
    "a=setup:active\r\n"
    "a=mid:0\r\n"
    "a=sendrecv\r\n"
    "a=sctp-port:5000\r\n"
    "a=ice-ufrag:xrPbNnVcGJcuPIYo\r\n"
    "a=ice-pwd:sijxnbTqiSeKACobUkmQCTCGzMkTIXlY\r\n"
    "a=candidate:2878742611 1 udp 2130706431 127.0.0.1 56135 typ host\r\n"
    "a=candidate:2878742611 2 udp 2130706431 127.0.0.1 56135 typ host\r\n"
    "a=end-of-candidates\r\n";

/* Pion answers aiortc's legacy offer (DTLS/SCTP 5000, a=sctpmap) in the RFC 8841 form. */
static const char pion_answer_to_legacy[] = /* pion3156-answer-to-aiortc-legacy.sdp */
    "v=0\r\n"
    "o=- 1449416742295924937 1796014629 IN IP4 0.0.0.0\r\n"
    "s=-\r\n"
    "t=0 0\r\n"
    "a=fingerprint:sha-256 1A:3C:4F:E4:78:E9:15:9B:89:7D:72:FF:C7:47:87:1B:58:D1:0C:58:AF:98:"
    "CE:C5:38:E8:9C:55:D7:7D:74:B4\r\n"
    "a=group:BUNDLE 0\r\n"
    "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n"
    "c=IN IP4 0.0.0.0\r\n"
    "a=setup:active\r\n"
    "a=mid:0\r\n"
    "a=sendrecv\r\n"
    "a=sctp-port:5000\r\n"
    "a=ice-ufrag:fpZhvYnrMzjMrzQt\r\n"
    "a=ice-pwd:oOgBXVivlZluqXvPzXqySPUQkuyYojRC\r\n"
    "a=candidate:2878742611 1 udp 2130706431 127.0.0.1 43443 typ host\r\n"
    "a=candidate:2878742611 2 udp 2130706431 127.0.0.1 43443 typ host\r\n"
    "a=end-of-candidates\r\n";

/* What each capture must parse to, field by field. */
typedef struct {
    const char *text;
    const char *ufrag;
    const char *pwd;
    uint8_t fingerprint[DTLS_FINGERPRINT_LEN];
    sdp_setup_t setup;
    uint32_t max_message_size;
    bool legacy;
    bool trickle;
    bool end_of_candidates;
    uint16_t skipped; /* Chromium's TCP candidate on port 9, Pion's component 2 */
    uint16_t port;    /* the one UDP candidate's, and the m= port unless dummy_destination */
    uint32_t priority;
    uint64_t session_id;
    uint64_t session_version;
    bool dummy_destination; /* m= port 9 and c=IN IP4 0.0.0.0 despite a candidate (Pion) */
} fixture_t;

static const fixture_t fx_chromium_offer_gathered = {
    chromium_offer_gathered, "wSZt", "GIXJzEKMKGeq87ucWhE1Qm3Z",
    {0x24, 0x3F, 0x47, 0xC0, 0x4F, 0x94, 0xB7, 0x0C, 0x33, 0xAE, 0x53,
     0x89, 0x5B, 0x54, 0xE7, 0x5D, 0x8C, 0x14, 0xEF, 0x9A, 0xEE, 0x30,
     0x84, 0xEB, 0x2A, 0x6E, 0xC3, 0xDC, 0x67, 0x79, 0x77, 0xE8},
    SDP_SETUP_ACTPASS, 262144, false, true, false, 1, 42993, 2122260223u,
    5142315552985827675u, 2, false};

static const fixture_t fx_chromium_offer_to_aiortc = {
    chromium_offer_to_aiortc, "fQxq", "tyTgZKV0D3A1AVE69VKFmQ2h",
    {0x48, 0x57, 0x2B, 0xD2, 0xAF, 0x55, 0xF5, 0x45, 0xDB, 0x00, 0x13,
     0xA6, 0x1B, 0xD4, 0xCB, 0x5C, 0x1C, 0x77, 0xB2, 0x78, 0x47, 0xFF,
     0x87, 0xA2, 0x3D, 0xBE, 0xE4, 0x1D, 0x0B, 0xEA, 0xFB, 0xAC},
    SDP_SETUP_ACTPASS, 262144, false, true, false, 1, 52274, 2122260223u,
    613458183532406418u, 2, false};

/* Chromium answers the legacy form in kind, and then writes no a=max-message-size. */
static const fixture_t fx_chromium_answer_to_legacy = {
    chromium_answer_to_legacy, "X5zB", "adACRca6YWP3NvdKsAdCggM+",
    {0x16, 0xAE, 0xDC, 0x2A, 0x54, 0x66, 0x34, 0x75, 0xC8, 0xD6, 0x94,
     0xF8, 0x02, 0xF3, 0x2A, 0xF9, 0x93, 0xC4, 0x85, 0xFD, 0xCC, 0xD1,
     0x87, 0x35, 0xE5, 0x8C, 0xB4, 0xD3, 0xB2, 0x21, 0x5D, 0x37},
    SDP_SETUP_ACTIVE, 65536, true, true, false, 0, 45606, 2122260223u,
    183369880968675566u, 2, false};

static const fixture_t fx_aiortc_offer_legacy = {
    aiortc_offer_legacy, "7M0d", "cvmoU5K5OHopEcWAi6btxa",
    {0xDC, 0xF1, 0x57, 0xAD, 0x86, 0x90, 0xD7, 0xEB, 0x81, 0xC2, 0x89,
     0x76, 0xCD, 0xB6, 0x76, 0x8A, 0x2C, 0xE6, 0xEA, 0x81, 0x34, 0xEB,
     0x06, 0x50, 0xB5, 0x7E, 0xDB, 0x21, 0xB2, 0xC1, 0xC8, 0x11},
    SDP_SETUP_ACTPASS, 65536, true, false, true, 0, 44323, 2130706431u,
    4004995501u, 4004995501u, false};

static const fixture_t fx_aiortc_answer = {
    aiortc_answer, "r4pG", "zBLY9sq6wiGxqZZYWlXF4H",
    {0xB8, 0xD6, 0x74, 0x96, 0xF7, 0x16, 0x18, 0xEE, 0x00, 0xFA, 0xB5,
     0x42, 0x3D, 0xB6, 0xC9, 0xB8, 0x0E, 0xD8, 0x67, 0x80, 0xF0, 0xA3,
     0xDB, 0xA3, 0xAB, 0x7D, 0xC3, 0xCB, 0xAA, 0x7D, 0x69, 0x3C},
    SDP_SETUP_ACTIVE, 65536, false, false, true, 0, 37386, 2130706431u,
    4004995501u, 4004995501u, false};

/* Pion: 16-character ufrag, 32-character password, no a=ice-options, no a=max-message-size. */
static const fixture_t fx_pion_offer_gathered = {
    pion_offer_gathered, "OZQTxrxgesQQyslB", "tiYMXwPEQzKvVhuOLlTQEpcrnmUNZkge",
    {0x60, 0x23, 0x84, 0xF7, 0x10, 0x43, 0xFB, 0x4F, 0x8D, 0x6E, 0x5E,
     0x26, 0x07, 0xD9, 0x7E, 0x1A, 0x65, 0xF2, 0xC8, 0xB1, 0xBF, 0xC9,
     0xCD, 0xF2, 0xE2, 0x28, 0xC3, 0x12, 0x08, 0x3B, 0xAF, 0x89},
    SDP_SETUP_ACTPASS, 65536, false, false, true, 1, 46645, 2130706431u,
    7420134471047133177u, 1796014627u, true};

static const fixture_t fx_pion_answer_to_chromium = {
    pion_answer_to_chromium, "xrPbNnVcGJcuPIYo", "sijxnbTqiSeKACobUkmQCTCGzMkTIXlY",
    {0xEC, 0x6A, 0x3B, 0x10, 0xA4, 0x96, 0x45, 0xA4, 0xDE, 0x01, 0xA9,
     0x1F, 0x0B, 0xE3, 0x8F, 0x32, 0x23, 0xEF, 0x55, 0x5F, 0xEE, 0x05,
     0x0B, 0x35, 0x32, 0x35, 0x28, 0x97, 0x08, 0x14, 0x78, 0x7D},
    SDP_SETUP_ACTIVE, 65536, false, false, true, 1, 56135, 2130706431u,
    5207025692777927525u, 1796014629u, true};

static const fixture_t fx_pion_answer_to_legacy = {
    pion_answer_to_legacy, "fpZhvYnrMzjMrzQt", "oOgBXVivlZluqXvPzXqySPUQkuyYojRC",
    {0x1A, 0x3C, 0x4F, 0xE4, 0x78, 0xE9, 0x15, 0x9B, 0x89, 0x7D, 0x72,
     0xFF, 0xC7, 0x47, 0x87, 0x1B, 0x58, 0xD1, 0x0C, 0x58, 0xAF, 0x98,
     0xCE, 0xC5, 0x38, 0xE8, 0x9C, 0x55, 0xD7, 0x7D, 0x74, 0xB4},
    SDP_SETUP_ACTIVE, 65536, false, false, true, 1, 43443, 2130706431u,
    1449416742295924937u, 1796014629u, true};

static const char *const captures[] = {
    chromium_offer_gathered, chromium_offer_to_aiortc, chromium_answer_to_legacy,
    aiortc_offer_legacy,     aiortc_answer,            chromium_offer_ungathered,
    pion_offer_gathered,     pion_answer_to_chromium,  pion_answer_to_legacy,
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- Helpers ------------------------------------------------------------------------------- */

static void parse_ok(const char *text, sdp_t *s)
{
    const char *why = NULL;
    zq_err_t err = sdp_parse(text, strlen(text), s, &why);
    if (err != ZQ_OK) {
        print_error("rejected (%s): %s\n%s\n", zq_errname(err), why, text);
    }
    assert_int_equal(err, ZQ_OK);
    assert_string_equal(why, "ok");
}

static void expect_rejected(const char *text, zq_err_t want, const char *reason)
{
    sdp_t s;
    const char *why = NULL;
    zq_err_t got = sdp_parse(text, strlen(text), &s, &why);
    if (got != want || why == NULL || strcmp(why, reason) != 0) {
        print_error("got %s \"%s\", want %s \"%s\" for:\n%s\n", zq_errname(got),
                    why ? why : "(null)", zq_errname(want), reason, text);
    }
    assert_int_equal(got, want);
    assert_string_equal(why, reason);
}

/* A text to edit in place: tests start from a valid description and change one line. */
typedef struct {
    char s[8192];
} text_t;

static void text_set(text_t *t, const char *s)
{
    assert_true(strlen(s) < sizeof t->s);
    strcpy(t->s, s);
}

/* Replaces the first occurrence of @p from, which must be there. */
static void text_replace(text_t *t, const char *from, const char *to)
{
    char *at = strstr(t->s, from);
    if (at == NULL) {
        print_error("\"%s\" not in:\n%s\n", from, t->s);
    }
    assert_non_null(at);
    size_t from_len = strlen(from);
    size_t to_len = strlen(to);
    size_t tail = strlen(at + from_len) + 1;
    assert_true((size_t)(at - t->s) + to_len + tail <= sizeof t->s);
    memmove(at + to_len, at + from_len, tail);
    memcpy(at, to, to_len);
}

/* Removes every line that starts with @p prefix. */
static void text_remove_lines(text_t *t, const char *prefix)
{
    char *line = t->s;
    while (*line != '\0') {
        char *end = strchr(line, '\n');
        end = end != NULL ? end + 1 : line + strlen(line);
        if (strncmp(line, prefix, strlen(prefix)) == 0) {
            memmove(line, end, strlen(end) + 1);
        } else {
            line = end;
        }
    }
}

#define FP_TEXT                                                                                  \
    "24:3F:47:C0:4F:94:B7:0C:33:AE:53:89:5B:54:E7:5D:8C:14:EF:9A:EE:30:84:EB:2A:6E:C3:DC:67:79:" \
    "77:E8"

/* The smallest description zq takes: every rule test below edits one line of it. */
static const char base[] = "v=0\r\n"
                           "o=- 1 2 IN IP4 127.0.0.1\r\n"
                           "s=-\r\n"
                           "t=0 0\r\n"
                           "a=group:BUNDLE 0\r\n"
                           "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n"
                           "c=IN IP4 0.0.0.0\r\n"
                           "a=ice-ufrag:ufrg\r\n"
                           "a=ice-pwd:pwd0pwd1pwd2pwd3pwd4pw\r\n"
                           "a=fingerprint:sha-256 " FP_TEXT "\r\n"
                           "a=setup:actpass\r\n"
                           "a=mid:0\r\n"
                           "a=sctp-port:5000\r\n";

static void parse_base_with(const char *from, const char *to, sdp_t *s)
{
    text_t t;
    text_set(&t, base);
    text_replace(&t, from, to);
    parse_ok(t.s, s);
}

static void expect_base_with_rejected(const char *from, const char *to, zq_err_t want,
                                      const char *reason)
{
    text_t t;
    text_set(&t, base);
    text_replace(&t, from, to);
    expect_rejected(t.s, want, reason);
}

static void check_fixture(const fixture_t *f)
{
    sdp_t s;
    parse_ok(f->text, &s);
    assert_string_equal(s.ice_ufrag, f->ufrag);
    assert_string_equal(s.ice_pwd, f->pwd);
    assert_false(s.ice_lite);
    assert_int_equal(s.ice_trickle, f->trickle);
    assert_true(s.has_fingerprint);
    assert_memory_equal(s.fingerprint.bytes, f->fingerprint, DTLS_FINGERPRINT_LEN);
    assert_int_equal(s.setup, f->setup);
    assert_string_equal(s.mid, "0");
    assert_true(s.bundle);
    assert_int_equal(s.sctp_port, 5000);
    assert_int_equal(s.max_message_size, f->max_message_size);
    assert_int_equal(s.legacy_sctpmap, f->legacy);
    assert_int_equal(s.n_candidates, 1);
    assert_int_equal(s.candidates_skipped, f->skipped);
    assert_int_equal(s.end_of_candidates, f->end_of_candidates);
    zq_addr_t loopback = zq_addr_v4(127, 0, 0, 1, f->port);
    assert_true(zq_addr_equal(&s.candidates[0].addr, &loopback));
    assert_int_equal(s.candidates[0].component, 1);
    assert_int_equal(s.candidates[0].priority, f->priority);
    assert_int_equal(s.candidates[0].type, ICE_CAND_HOST);
    zq_addr_t dummy = zq_addr_v4(0, 0, 0, 0, 9);
    assert_true(zq_addr_equal(&s.connection, f->dummy_destination ? &dummy : &loopback));
    assert_true(s.session_id == f->session_id);
    assert_true(s.session_version == f->session_version);
}

/* ---- The captures -------------------------------------------------------------------------- */

static void chromium_gathered_offer_parses_with_exact_values(void **state)
{
    (void)state;
    check_fixture(&fx_chromium_offer_gathered);
}

static void chromium_offer_to_aiortc_parses_with_exact_values(void **state)
{
    (void)state;
    check_fixture(&fx_chromium_offer_to_aiortc);
}

static void chromium_answer_to_legacy_offer_parses_with_exact_values(void **state)
{
    (void)state;
    check_fixture(&fx_chromium_answer_to_legacy);
}

static void aiortc_legacy_offer_parses_with_exact_values(void **state)
{
    (void)state;
    check_fixture(&fx_aiortc_offer_legacy);
}

static void aiortc_answer_parses_with_exact_values(void **state)
{
    (void)state;
    check_fixture(&fx_aiortc_answer);
}

/* Pion's component-2 twin of its one host candidate is skipped; the candidate kept is the
 * component-1 one, with Pion's foundation. */
static void check_pion_candidate(const fixture_t *f)
{
    sdp_t s;
    parse_ok(f->text, &s);
    assert_string_equal(s.candidates[0].foundation, "2878742611");
    assert_int_equal(s.candidates[0].related.family, ZQ_AF_NONE);
}

static void pion_offer_parses_with_exact_values(void **state)
{
    (void)state;
    check_fixture(&fx_pion_offer_gathered);
    check_pion_candidate(&fx_pion_offer_gathered);
}

static void pion_answer_to_chromium_parses_with_exact_values(void **state)
{
    (void)state;
    check_fixture(&fx_pion_answer_to_chromium);
    check_pion_candidate(&fx_pion_answer_to_chromium);
}

/* Pion accepts the legacy offer but answers in the RFC 8841 form: legacy_sctpmap is false. */
static void pion_answer_to_legacy_offer_parses_with_exact_values(void **state)
{
    (void)state;
    check_fixture(&fx_pion_answer_to_legacy);
    check_pion_candidate(&fx_pion_answer_to_legacy);
}

/* What a ZeroQ browser sends: its offer right after setLocalDescription, before gathering. */
static void chromium_offer_without_candidates_parses_with_none(void **state)
{
    (void)state;
    text_t t;
    text_set(&t, chromium_offer_gathered);
    text_remove_lines(&t, "a=candidate:");
    text_replace(&t, "m=application 42993 ", "m=application 9 ");
    text_replace(&t, "c=IN IP4 127.0.0.1", "c=IN IP4 0.0.0.0");
    sdp_t s;
    parse_ok(t.s, &s);
    assert_int_equal(s.n_candidates, 0);
    assert_int_equal(s.candidates_skipped, 0);
    zq_addr_t dummy = zq_addr_v4(0, 0, 0, 0, 9);
    assert_true(zq_addr_equal(&s.connection, &dummy));
    assert_string_equal(s.ice_ufrag, "wSZt");
    assert_int_equal(s.max_message_size, 262144);
}

static void chromium_offer_before_gathering_parses_with_no_candidates(void **state)
{
    (void)state;
    static const uint8_t fingerprint[DTLS_FINGERPRINT_LEN] = {
        0x2D, 0x4B, 0x5E, 0xB6, 0xAD, 0x4C, 0x33, 0x3A, 0xB7, 0x17, 0xF2,
        0xDE, 0xD8, 0xBA, 0x85, 0xCF, 0x70, 0xCE, 0x4E, 0xC2, 0x24, 0x60,
        0x3C, 0x9F, 0x51, 0x8F, 0xE1, 0xC9, 0xA7, 0xC5, 0xF0, 0x99};
    sdp_t s;
    parse_ok(chromium_offer_ungathered, &s);
    assert_string_equal(s.ice_ufrag, "uz5K");
    assert_string_equal(s.ice_pwd, "CkNEZcvbrvewNCdgJ8wYKDT/");
    assert_memory_equal(s.fingerprint.bytes, fingerprint, DTLS_FINGERPRINT_LEN);
    assert_int_equal(s.setup, SDP_SETUP_ACTPASS);
    assert_true(s.ice_trickle && s.bundle && !s.ice_lite && !s.legacy_sctpmap);
    assert_string_equal(s.mid, "0");
    assert_int_equal(s.sctp_port, 5000);
    assert_int_equal(s.max_message_size, 262144);
    assert_int_equal(s.n_candidates, 0);
    assert_int_equal(s.candidates_skipped, 0);
    assert_false(s.end_of_candidates);
    zq_addr_t dummy = zq_addr_v4(0, 0, 0, 0, 9);
    assert_true(zq_addr_equal(&s.connection, &dummy));
    assert_true(s.session_id == 2360025908998105827u && s.session_version == 2);
}

/* ---- Lines (RFC 8866 §5) ------------------------------------------------------------------- */

static void bare_lf_line_endings_are_accepted(void **state)
{
    (void)state;
    text_t t;
    text_set(&t, chromium_offer_gathered);
    char *r;
    while ((r = strchr(t.s, '\r')) != NULL) {
        memmove(r, r + 1, strlen(r + 1) + 1);
    }
    sdp_t s;
    parse_ok(t.s, &s);
    assert_string_equal(s.ice_pwd, "GIXJzEKMKGeq87ucWhE1Qm3Z");
    assert_int_equal(s.max_message_size, 262144);
}

static void last_line_without_line_end_is_accepted(void **state)
{
    (void)state;
    sdp_t s;
    char text[sizeof base];
    memcpy(text, base, sizeof base);
    text[strlen(text) - 2] = '\0'; /* drop the final CRLF */
    parse_ok(text, &s);
    assert_int_equal(s.sctp_port, 5000);
    parse_base_with("a=sctp-port:5000\r\n", "a=sctp-port:5001\r", &s); /* a lone final CR */
    assert_int_equal(s.sctp_port, 5001);
}

static void empty_lines_are_skipped(void **state)
{
    (void)state;
    sdp_t s;
    parse_base_with("s=-\r\n", "s=-\r\n\r\n\n", &s);
    assert_string_equal(s.ice_ufrag, "ufrg");
}

static void first_line_must_be_v0(void **state)
{
    (void)state;
    const char *why = "not SDP: the first line must be v=0";
    expect_base_with_rejected("v=0\r\n", "", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("v=0\r\n", "v=1\r\n", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("v=0\r\n", "\r\nv=0\r\n", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("v=0\r\n", "v=0 \r\n", ZQ_ERR_MALFORMED, why);
    expect_rejected("", ZQ_ERR_MALFORMED, why);
}

static void line_longer_than_line_max_is_rejected(void **state)
{
    (void)state;
    static char line[ZQ_SDP_LINE_MAX + 8];
    sdp_t s;
    /* Exactly ZQ_SDP_LINE_MAX: an unknown attribute, read past. */
    memset(line, 'x', ZQ_SDP_LINE_MAX);
    memcpy(line, "a=x-long:", 9);
    strcpy(line + ZQ_SDP_LINE_MAX, "\r\n");
    parse_base_with("s=-\r\n", line, &s);
    /* One more byte. */
    memset(line, 'x', ZQ_SDP_LINE_MAX + 1);
    memcpy(line, "a=x-long:", 9);
    strcpy(line + ZQ_SDP_LINE_MAX + 1, "\r\n");
    expect_base_with_rejected("s=-\r\n", line, ZQ_ERR_TOO_LONG,
                              "line longer than ZQ_SDP_LINE_MAX");
    /* The same at the very end of the text, with no line end to find. */
    text_t t;
    text_set(&t, base);
    line[ZQ_SDP_LINE_MAX + 1] = '\0';
    strcat(t.s, line);
    expect_rejected(t.s, ZQ_ERR_TOO_LONG, "line longer than ZQ_SDP_LINE_MAX");
}

static void control_byte_is_rejected(void **state)
{
    (void)state;
    const char *why = "control byte in a line";
    expect_base_with_rejected("s=-", "s=\t-", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("s=-", "s=-\r-", ZQ_ERR_MALFORMED, why); /* a bare CR */
    expect_base_with_rejected("s=-", "s=\x7f", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("s=-", "s=\x1b", ZQ_ERR_MALFORMED, why);
    /* A NUL in the middle: the length says the text goes on past it. */
    char text[sizeof base];
    memcpy(text, base, sizeof base);
    text[strlen("v=0\r\no=- 1")] = '\0';
    sdp_t s;
    const char *reason = NULL;
    assert_int_equal(sdp_parse(text, sizeof base - 1, &s, &reason), ZQ_ERR_MALFORMED);
    assert_string_equal(reason, why);
}

/* RFC 8866 §5.3: s= and other text fields may hold UTF-8. */
static void utf8_text_is_accepted(void **state)
{
    (void)state;
    sdp_t s;
    parse_base_with("s=-", "s=caf\xc3\xa9", &s);
}

static void line_that_is_not_type_equals_value_is_rejected(void **state)
{
    (void)state;
    const char *why = "malformed line: not <type>=<value>";
    expect_base_with_rejected("s=-", "s -", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("s=-", "s", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("a=mid:0", "a =mid:0", ZQ_ERR_MALFORMED, why);
}

static void unknown_attributes_and_line_types_are_ignored(void **state)
{
    (void)state;
    sdp_t s;
    parse_base_with("t=0 0\r\n",
                    "t=0 0\r\nb=AS:30\r\nz=\r\nx=anything\r\na=extmap-allow-mixed\r\n"
                    "a=msid-semantic: WMS\r\na=x-unknown:with:colons\r\na=\r\na=:\r\n",
                    &s);
    parse_base_with("a=mid:0\r\n", "a=mid:0\r\na=rtcp-mux\r\na=bundle-only\r\ni=info\r\n", &s);
    assert_string_equal(s.mid, "0");
}

/* RFC 8866 §5.2: the sess-id and sess-version zq echoes in re-offers. */
static void origin_gives_session_id_and_version(void **state)
{
    (void)state;
    sdp_t s;
    parse_base_with("o=- 1 2 ", "o=jdoe 18446744073709551615 0 ", &s);
    assert_true(s.session_id == UINT64_MAX);
    assert_true(s.session_version == 0);
}

static void bad_origin_is_rejected(void **state)
{
    (void)state;
    const char *why = "bad o= line";
    expect_base_with_rejected("o=- 1 2 IN IP4 127.0.0.1", "o=- 1 2 IN IP4", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("o=- 1 2 ", "o=- x 2 ", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("o=- 1 2 ", "o=- 1 -2 ", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("o=- 1 2 ", "o=- 18446744073709551616 2 ", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("127.0.0.1\r\ns=-", "127.0.0.1 extra\r\ns=-", ZQ_ERR_MALFORMED,
                              why);
}

static void missing_origin_leaves_ids_zero(void **state)
{
    (void)state;
    sdp_t s;
    parse_base_with("o=- 1 2 IN IP4 127.0.0.1\r\n", "", &s);
    assert_true(s.session_id == 0 && s.session_version == 0);
}

/* ---- Which section (RFC 8841 §4, RFC 3264 §6) ---------------------------------------------- */

/* A browser with audio and video puts them first; their lines are not read at all. */
static void audio_and_video_sections_are_skipped_unread(void **state)
{
    (void)state;
    sdp_t s;
    parse_base_with("m=application",
                    "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 0.0.0.0\r\n"
                    "a=ice-ufrag:audio\r\na=setup:holdconn\r\na=mid:audio-section-mid-too-long\r\n"
                    "a=candidate:broken\r\na=sctp-port:0\r\n"
                    "m=video 0 UDP/TLS/RTP/SAVPF 96\r\na=fingerprint:md5 zz\r\n"
                    "m=application",
                    &s);
    assert_string_equal(s.ice_ufrag, "ufrg");
    assert_int_equal(s.setup, SDP_SETUP_ACTPASS);
    assert_string_equal(s.mid, "0");
}

static void first_usable_data_section_is_used(void **state)
{
    (void)state;
    text_t t;
    text_set(&t, base);
    strcat(t.s, "m=application 7 UDP/DTLS/SCTP webrtc-datachannel\r\n"
                "c=IN IP4 192.0.2.1\r\na=mid:1\r\na=sctp-port:bad\r\na=setup:bad\r\n");
    sdp_t s;
    parse_ok(t.s, &s);
    assert_string_equal(s.mid, "0");
    assert_int_equal(s.sctp_port, 5000);
    assert_int_equal(s.connection.port, 9);
}

static void data_section_with_port_zero_is_not_usable(void **state)
{
    (void)state;
    expect_base_with_rejected("m=application 9 ", "m=application 0 ", ZQ_ERR_UNSUPPORTED,
                              "no usable m=application section");
    /* A rejected section before a live one: the live one is used. */
    sdp_t s;
    parse_base_with("m=application 9 ",
                    "m=application 0 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:gone\r\n"
                    "m=application 9 ",
                    &s);
    assert_string_equal(s.mid, "0");
}

static void no_usable_data_section_is_rejected(void **state)
{
    (void)state;
    const char *why = "no usable m=application section";
    expect_base_with_rejected("m=application 9 UDP/DTLS/SCTP webrtc-datachannel",
                              "m=audio 9 UDP/TLS/RTP/SAVPF 111", ZQ_ERR_UNSUPPORTED, why);
    expect_base_with_rejected("UDP/DTLS/SCTP webrtc-datachannel",
                              "TCP/DTLS/SCTP webrtc-datachannel", ZQ_ERR_UNSUPPORTED, why);
    expect_base_with_rejected("webrtc-datachannel", "bfcp", ZQ_ERR_UNSUPPORTED, why);
    expect_base_with_rejected("UDP/DTLS/SCTP webrtc-datachannel", "DTLS/SCTP webrtc-datachannel",
                              ZQ_ERR_UNSUPPORTED, why);
    expect_base_with_rejected("UDP/DTLS/SCTP webrtc-datachannel", "DTLS/SCTP 0",
                              ZQ_ERR_UNSUPPORTED, why);
    expect_base_with_rejected(" UDP/DTLS/SCTP webrtc-datachannel", "", ZQ_ERR_UNSUPPORTED, why);
    text_t t;
    text_set(&t, base);
    text_remove_lines(&t, "m=");
    expect_rejected(t.s, ZQ_ERR_UNSUPPORTED, why);
}

static void data_section_matches_proto_and_format_case_insensitively(void **state)
{
    (void)state;
    sdp_t s;
    parse_base_with("UDP/DTLS/SCTP webrtc-datachannel", "udp/dtls/sctp WebRTC-DataChannel", &s);
    parse_base_with("webrtc-datachannel", "other webrtc-datachannel", &s);
}

static void bad_port_in_data_section_is_rejected(void **state)
{
    (void)state;
    const char *why = "bad m= line: port";
    expect_base_with_rejected("m=application 9 ", "m=application 9/2 ", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("m=application 9 ", "m=application 65536 ", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("m=application 9 ", "m=application x ", ZQ_ERR_MALFORMED, why);
}

/* draft-ietf-mmusic-sctp-sdp-05, as aiortc offers it: the format is the SCTP port. */
static void legacy_section_takes_its_sctp_port_from_the_format(void **state)
{
    (void)state;
    sdp_t s;
    parse_base_with("UDP/DTLS/SCTP webrtc-datachannel\r\n",
                    "DTLS/SCTP 5001\r\na=sctpmap:5001 webrtc-datachannel 1024\r\n", &s);
    assert_true(s.legacy_sctpmap);
    assert_int_equal(s.sctp_port, 5001);
    assert_int_equal(s.max_message_size, 65536);
}

static void legacy_section_without_sctpmap_is_accepted(void **state)
{
    (void)state;
    sdp_t s;
    parse_base_with("UDP/DTLS/SCTP webrtc-datachannel", "DTLS/SCTP 5000", &s);
    assert_true(s.legacy_sctpmap);
    assert_int_equal(s.sctp_port, 5000);
}

static void bad_sctpmap_is_rejected(void **state)
{
    (void)state;
    static const char *const lines[] = {
        "a=sctpmap:5001 webrtc-datachannel 65535", /* not the format's number */
        "a=sctpmap:5000 bfcp 65535",               /* not a data channel */
        "a=sctpmap:5000",
        "a=sctpmap:5000 webrtc-datachannel 65536",
        "a=sctpmap:5000 webrtc-datachannel 65535 1",
        "a=sctpmap:x webrtc-datachannel",
    };
    for (size_t i = 0; i < COUNT(lines); i++) {
        text_t t;
        text_set(&t, base);
        text_replace(&t, "UDP/DTLS/SCTP webrtc-datachannel", "DTLS/SCTP 5000");
        text_replace(&t, "a=sctp-port:5000", lines[i]);
        expect_rejected(t.s, ZQ_ERR_MALFORMED, "bad a=sctpmap");
    }
}

/* a=sctpmap means nothing in the RFC 8841 form, nor a=sctp-port in the legacy one. */
static void attributes_of_the_other_form_are_ignored(void **state)
{
    (void)state;
    sdp_t s;
    parse_base_with("a=sctp-port:5000", "a=sctp-port:5000\r\na=sctpmap:1 bfcp", &s);
    assert_int_equal(s.sctp_port, 5000);
    text_t t;
    text_set(&t, base);
    text_replace(&t, "UDP/DTLS/SCTP webrtc-datachannel", "DTLS/SCTP 5002");
    text_replace(&t, "a=sctp-port:5000", "a=sctp-port:x\r\na=sctp-port:1");
    parse_ok(t.s, &s);
    assert_int_equal(s.sctp_port, 5002);
}

/* ---- Session and media level (RFC 8866 §5) ------------------------------------------------ */

static void session_level_transport_attributes_apply(void **state)
{
    (void)state;
    text_t t;
    text_set(&t, base);
    text_remove_lines(&t, "a=ice-");
    text_remove_lines(&t, "a=fingerprint");
    text_remove_lines(&t, "a=setup");
    text_replace(&t, "a=group:BUNDLE 0\r\n",
                 "a=group:BUNDLE 0\r\na=ice-ufrag:sess\r\na=ice-pwd:sessionsessionsession1\r\n"
                 "a=ice-options:trickle\r\na=fingerprint:sha-256 " FP_TEXT "\r\n"
                 "a=setup:passive\r\nc=IN IP4 192.0.2.7\r\n");
    text_remove_lines(&t, "c=IN IP4 0.0.0.0");
    sdp_t s;
    parse_ok(t.s, &s);
    assert_string_equal(s.ice_ufrag, "sess");
    assert_string_equal(s.ice_pwd, "sessionsessionsession1");
    assert_true(s.ice_trickle);
    assert_int_equal(s.fingerprint.bytes[0], 0x24);
    assert_int_equal(s.setup, SDP_SETUP_PASSIVE);
    zq_addr_t want = zq_addr_v4(192, 0, 2, 7, 9);
    assert_true(zq_addr_equal(&s.connection, &want));
}

static void media_level_attributes_win_over_session_level(void **state)
{
    (void)state;
    sdp_t s;
    parse_base_with("a=group:BUNDLE 0\r\n",
                    "a=group:BUNDLE 0\r\na=ice-ufrag:sess\r\na=ice-pwd:sessionsessionsession1\r\n"
                    "a=ice-options:trickle\r\na=fingerprint:sha-256 "
                    "00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:"
                    "00:00:00:00:00:00:00\r\na=setup:passive\r\n",
                    &s);
    assert_string_equal(s.ice_ufrag, "ufrg");
    assert_string_equal(s.ice_pwd, "pwd0pwd1pwd2pwd3pwd4pw");
    assert_true(s.ice_trickle); /* the media level said nothing about options */
    assert_int_equal(s.fingerprint.bytes[0], 0x24);
    assert_int_equal(s.setup, SDP_SETUP_ACTPASS);
    /* A media-level a=ice-options without trickle overrides a session-level trickle. */
    text_t t;
    text_set(&t, base);
    text_replace(&t, "a=group:BUNDLE 0\r\n", "a=group:BUNDLE 0\r\na=ice-options:trickle\r\n");
    text_replace(&t, "a=mid:0\r\n", "a=mid:0\r\na=ice-options:ice2\r\n");
    parse_ok(t.s, &s);
    assert_false(s.ice_trickle);
}

/* RFC 8839 §5.3 puts it at session level; zq also takes it from the media level. */
static void ice_lite_is_read_at_either_level(void **state)
{
    (void)state;
    sdp_t s;
    parse_ok(base, &s);
    assert_false(s.ice_lite);
    parse_base_with("t=0 0\r\n", "t=0 0\r\na=ice-lite\r\n", &s);
    assert_true(s.ice_lite);
    parse_base_with("a=mid:0\r\n", "a=mid:0\r\na=ice-lite\r\n", &s);
    assert_true(s.ice_lite);
}

static void ice_options_lists_trickle_among_others(void **state)
{
    (void)state;
    sdp_t s;
    parse_base_with("a=mid:0\r\n", "a=mid:0\r\na=ice-options:renomination  trickle\r\n", &s);
    assert_true(s.ice_trickle);
    parse_base_with("a=mid:0\r\n", "a=mid:0\r\na=ice-options:renomination\r\n", &s);
    assert_false(s.ice_trickle);
    expect_base_with_rejected("a=mid:0\r\n", "a=mid:0\r\na=ice-options:\r\n", ZQ_ERR_MALFORMED,
                              "bad a=ice-options: no option");
}

static void end_of_candidates_is_read_at_either_level(void **state)
{
    (void)state;
    sdp_t s;
    parse_ok(base, &s);
    assert_false(s.end_of_candidates);
    parse_base_with("t=0 0\r\n", "t=0 0\r\na=end-of-candidates\r\n", &s);
    assert_true(s.end_of_candidates);
    parse_base_with("a=mid:0\r\n", "a=mid:0\r\na=end-of-candidates\r\n", &s);
    assert_true(s.end_of_candidates);
}

static void media_level_connection_wins(void **state)
{
    (void)state;
    sdp_t s;
    parse_base_with("t=0 0\r\n", "c=IN IP4 192.0.2.1\r\nt=0 0\r\n", &s);
    zq_addr_t dummy = zq_addr_v4(0, 0, 0, 0, 9);
    assert_true(zq_addr_equal(&s.connection, &dummy));
    parse_base_with("c=IN IP4 0.0.0.0", "c=IN IP6 2001:db8::1", &s);
    zq_addr_t v6;
    assert_int_equal(zq_addr_parse_ip("2001:db8::1", 11, &v6), ZQ_OK);
    v6.port = 9;
    assert_true(zq_addr_equal(&s.connection, &v6));
}

/* RFC 8866 §5.7 allows a host name and a multicast /ttl; neither is an error. */
static void connection_without_an_ip_has_no_address(void **state)
{
    (void)state;
    sdp_t s;
    parse_base_with("c=IN IP4 0.0.0.0\r\n", "", &s);
    assert_int_equal(s.connection.family, ZQ_AF_NONE);
    parse_base_with("c=IN IP4 0.0.0.0", "c=IN IP4 host.example.com", &s);
    assert_int_equal(s.connection.family, ZQ_AF_NONE);
    parse_base_with("c=IN IP4 0.0.0.0", "c=IN IP4 233.252.0.1/127", &s);
    assert_int_equal(s.connection.family, ZQ_AF_INET4);
    assert_int_equal(s.connection.ip[0], 233);
}

static void bad_connection_line_is_rejected(void **state)
{
    (void)state;
    const char *why = "bad c= line";
    expect_base_with_rejected("c=IN IP4 0.0.0.0", "c=IN IP4", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("c=IN IP4 0.0.0.0", "c=TN IP4 0.0.0.0", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("c=IN IP4 0.0.0.0", "c=IN IPX 0.0.0.0", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("c=IN IP4 0.0.0.0", "c=IN IP6 0.0.0.0", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("c=IN IP4 0.0.0.0", "c=IN IP4 0.0.0.0 x", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("c=IN IP4 0.0.0.0", "c=IN IP4 0.0.0.0\r\nc=IN IP4 0.0.0.0",
                              ZQ_ERR_MALFORMED, "duplicate c= line");
}

/* ---- ICE credentials (RFC 8839 §5.4) -------------------------------------------------------- */

static void missing_ice_ufrag_is_rejected(void **state)
{
    (void)state;
    expect_base_with_rejected("a=ice-ufrag:ufrg\r\n", "", ZQ_ERR_MALFORMED, "missing a=ice-ufrag");
}

static void missing_ice_pwd_is_rejected(void **state)
{
    (void)state;
    expect_base_with_rejected("a=ice-pwd:pwd0pwd1pwd2pwd3pwd4pw\r\n", "", ZQ_ERR_MALFORMED,
                              "missing a=ice-pwd");
}

static void ice_ufrag_too_long_is_rejected(void **state)
{
    (void)state;
    char line[64 + ZQ_ICE_UFRAG_MAX];
    strcpy(line, "a=ice-ufrag:");
    memset(line + 12, 'u', ZQ_ICE_UFRAG_MAX);
    line[12 + ZQ_ICE_UFRAG_MAX] = '\0';
    sdp_t s;
    parse_base_with("a=ice-ufrag:ufrg", line, &s); /* the longest kept */
    assert_int_equal(strlen(s.ice_ufrag), ZQ_ICE_UFRAG_MAX);
    strcat(line, "u");
    expect_base_with_rejected("a=ice-ufrag:ufrg", line, ZQ_ERR_TOO_LONG, "a=ice-ufrag too long");
}

static void ice_pwd_too_long_is_rejected(void **state)
{
    (void)state;
    char line[64 + ZQ_ICE_PWD_MAX];
    strcpy(line, "a=ice-pwd:");
    memset(line + 10, 'p', ZQ_ICE_PWD_MAX);
    line[10 + ZQ_ICE_PWD_MAX] = '\0';
    sdp_t s;
    parse_base_with("a=ice-pwd:pwd0pwd1pwd2pwd3pwd4pw", line, &s);
    assert_int_equal(strlen(s.ice_pwd), ZQ_ICE_PWD_MAX);
    strcat(line, "p");
    expect_base_with_rejected("a=ice-pwd:pwd0pwd1pwd2pwd3pwd4pw", line, ZQ_ERR_TOO_LONG,
                              "a=ice-pwd too long");
}

static void credentials_shorter_than_rfc8839_or_not_ice_chars_are_rejected(void **state)
{
    (void)state;
    const char *ufrag = "bad a=ice-ufrag: needs 4 or more ice-chars";
    const char *pwd = "bad a=ice-pwd: needs 22 or more ice-chars";
    expect_base_with_rejected("a=ice-ufrag:ufrg", "a=ice-ufrag:ufr", ZQ_ERR_MALFORMED, ufrag);
    expect_base_with_rejected("a=ice-ufrag:ufrg", "a=ice-ufrag:uf-g", ZQ_ERR_MALFORMED, ufrag);
    expect_base_with_rejected("a=ice-ufrag:ufrg", "a=ice-ufrag:uf g", ZQ_ERR_MALFORMED, ufrag);
    expect_base_with_rejected("a=ice-ufrag:ufrg", "a=ice-ufrag", ZQ_ERR_MALFORMED, ufrag);
    expect_base_with_rejected("a=ice-pwd:pwd0pwd1pwd2pwd3pwd4pw", "a=ice-pwd:pwd0pwd1pwd2pwd3pwd4p",
                              ZQ_ERR_MALFORMED, pwd);
    expect_base_with_rejected("a=ice-pwd:pwd0pwd1pwd2pwd3pwd4pw",
                              "a=ice-pwd:pwd0pwd1pwd2pwd3pwd4p=", ZQ_ERR_MALFORMED, pwd);
    sdp_t s;
    parse_base_with("a=ice-ufrag:ufrg", "a=ice-ufrag:u+/9", &s); /* every ice-char class */
    assert_string_equal(s.ice_ufrag, "u+/9");
}

/* ---- DTLS (RFC 8122 §5, RFC 5763 §5) -------------------------------------------------------- */

static void missing_fingerprint_is_rejected(void **state)
{
    (void)state;
    text_t t;
    text_set(&t, base);
    text_remove_lines(&t, "a=fingerprint");
    expect_rejected(t.s, ZQ_ERR_MALFORMED, "missing a=fingerprint");
}

static void fingerprint_hash_other_than_sha256_is_not_supported(void **state)
{
    (void)state;
    const char *why = "fingerprint hash not supported";
    expect_base_with_rejected("sha-256 " FP_TEXT, "sha-1 " FP_TEXT, ZQ_ERR_UNSUPPORTED, why);
    expect_base_with_rejected("sha-256 " FP_TEXT, "sha-512 " FP_TEXT, ZQ_ERR_UNSUPPORTED, why);
    expect_base_with_rejected("sha-256 " FP_TEXT, "x-future AB:CD", ZQ_ERR_UNSUPPORTED, why);
    /* A media-level sha-1 hides a session-level sha-256: the media level wins. */
    text_t t;
    text_set(&t, base);
    text_replace(&t, "sha-256 " FP_TEXT, "sha-1 " FP_TEXT);
    text_replace(&t, "a=group:BUNDLE 0\r\n",
                 "a=group:BUNDLE 0\r\na=fingerprint:sha-256 " FP_TEXT "\r\n");
    expect_rejected(t.s, ZQ_ERR_UNSUPPORTED, why);
}

static void sha256_fingerprint_among_others_is_used(void **state)
{
    (void)state;
    sdp_t s;
    parse_base_with("a=fingerprint:", "a=fingerprint:sha-1 AA:BB\r\na=fingerprint:", &s);
    assert_true(s.has_fingerprint);
    assert_int_equal(s.fingerprint.bytes[31], 0xE8);
    /* The first sha-256 one, when two certificates are offered. */
    parse_base_with("a=setup:",
                    "a=fingerprint:sha-256 "
                    "11:11:11:11:11:11:11:11:11:11:11:11:11:11:11:11:11:11:11:11:11:11:11:11:11:11:"
                    "11:11:11:11:11:11\r\na=setup:",
                    &s);
    assert_int_equal(s.fingerprint.bytes[0], 0x24);
    parse_base_with("sha-256 " FP_TEXT, "SHA-256 " FP_TEXT, &s); /* the hash name's case */
}

static void malformed_fingerprint_is_rejected(void **state)
{
    (void)state;
    const char *why = "malformed a=fingerprint";
    expect_base_with_rejected(":77:E8\r\n", ":77\r\n", ZQ_ERR_MALFORMED, why); /* 31 bytes */
    expect_base_with_rejected(":77:E8\r\n", ":77:E8:00\r\n", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected(":77:E8\r\n", ":77:G8\r\n", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected(":77:E8\r\n", ":77:E8 x\r\n", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("sha-256 " FP_TEXT, "sha-256", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("sha-256 " FP_TEXT, "sha-1 A:BB", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("sha-256 " FP_TEXT, "sha(1) AA:BB", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("a=fingerprint:sha-256 " FP_TEXT, "a=fingerprint", ZQ_ERR_MALFORMED,
                              why);
}

static void setup_values_parse_case_insensitively(void **state)
{
    (void)state;
    sdp_t s;
    parse_ok(base, &s);
    assert_int_equal(s.setup, SDP_SETUP_ACTPASS);
    parse_base_with("a=setup:actpass", "a=setup:active", &s);
    assert_int_equal(s.setup, SDP_SETUP_ACTIVE);
    parse_base_with("a=setup:actpass", "a=setup:PASSIVE", &s);
    assert_int_equal(s.setup, SDP_SETUP_PASSIVE);
}

/* The parser does not guess: the caller applies RFC 4145's default for its side. */
static void missing_setup_is_none(void **state)
{
    (void)state;
    sdp_t s;
    parse_base_with("a=setup:actpass\r\n", "", &s);
    assert_int_equal(s.setup, SDP_SETUP_NONE);
}

static void bad_setup_value_is_rejected(void **state)
{
    (void)state;
    const char *why = "bad a=setup value";
    expect_base_with_rejected("a=setup:actpass", "a=setup:holdconn", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("a=setup:actpass", "a=setup:server", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("a=setup:actpass", "a=setup:", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("a=setup:actpass", "a=setup", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("a=setup:actpass", "a=setup:actpass ", ZQ_ERR_MALFORMED, why);
}

/* ---- SCTP (RFC 8841 §5-6) ------------------------------------------------------------------- */

static void sctp_port_defaults_to_5000(void **state)
{
    (void)state;
    sdp_t s;
    parse_base_with("a=sctp-port:5000\r\n", "", &s);
    assert_int_equal(s.sctp_port, 5000);
    parse_base_with("a=sctp-port:5000", "a=sctp-port:65535", &s);
    assert_int_equal(s.sctp_port, 65535);
}

static void bad_sctp_port_is_rejected(void **state)
{
    (void)state;
    static const char *const values[] = {"0", "65536", "-1", "+5000", "5000x", "", "50 00"};
    for (size_t i = 0; i < COUNT(values); i++) {
        char line[64];
        snprintf(line, sizeof line, "a=sctp-port:%s", values[i]);
        expect_base_with_rejected("a=sctp-port:5000", line, ZQ_ERR_MALFORMED, "bad a=sctp-port");
    }
}

static void max_message_size_defaults_to_65536(void **state)
{
    (void)state;
    sdp_t s;
    parse_ok(base, &s);
    assert_int_equal(s.max_message_size, 65536);
}

/* RFC 8841 §6: 0 is "any size"; the value has no upper bound, zq saturates at 2^32-1. */
static void max_message_size_zero_means_no_limit_and_huge_saturates(void **state)
{
    (void)state;
    sdp_t s;
    parse_base_with("a=mid:0", "a=mid:0\r\na=max-message-size:0", &s);
    assert_int_equal(s.max_message_size, 0);
    parse_base_with("a=mid:0", "a=mid:0\r\na=max-message-size:4294967295", &s);
    assert_true(s.max_message_size == UINT32_MAX);
    parse_base_with("a=mid:0", "a=mid:0\r\na=max-message-size:99999999999999999999999", &s);
    assert_true(s.max_message_size == UINT32_MAX);
}

static void bad_max_message_size_is_rejected(void **state)
{
    (void)state;
    static const char *const values[] = {"", "-1", "1k", "0x10", " 1"};
    for (size_t i = 0; i < COUNT(values); i++) {
        char line[64];
        snprintf(line, sizeof line, "a=mid:0\r\na=max-message-size:%s", values[i]);
        expect_base_with_rejected("a=mid:0", line, ZQ_ERR_MALFORMED, "bad a=max-message-size");
    }
}

/* ---- mid and BUNDLE (RFC 5888 §4-5, RFC 8843) ---------------------------------------------- */

static void mid_too_long_is_rejected(void **state)
{
    (void)state;
    char line[32 + ZQ_SDP_MID_MAX];
    strcpy(line, "a=mid:");
    memset(line + 6, 'm', ZQ_SDP_MID_MAX);
    line[6 + ZQ_SDP_MID_MAX] = '\0';
    sdp_t s;
    parse_base_with("a=mid:0", line, &s);
    assert_int_equal(strlen(s.mid), ZQ_SDP_MID_MAX);
    strcat(line, "m");
    expect_base_with_rejected("a=mid:0", line, ZQ_ERR_TOO_LONG, "a=mid too long");
}

static void mid_that_is_no_token_is_rejected(void **state)
{
    (void)state;
    const char *why = "bad a=mid: not a token";
    expect_base_with_rejected("a=mid:0", "a=mid:", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("a=mid:0", "a=mid:a b", ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("a=mid:0", "a=mid:(0)", ZQ_ERR_MALFORMED, why);
    sdp_t s;
    parse_base_with("a=mid:0", "a=mid:data~1.x", &s);
    assert_string_equal(s.mid, "data~1.x");
}

static void bundle_is_set_only_when_a_group_lists_the_mid(void **state)
{
    (void)state;
    sdp_t s;
    parse_ok(base, &s);
    assert_true(s.bundle);
    parse_base_with("a=group:BUNDLE 0", "a=group:BUNDLE audio video", &s);
    assert_false(s.bundle);
    parse_base_with("a=group:BUNDLE 0", "a=group:LS 0", &s);
    assert_false(s.bundle);
    parse_base_with("a=group:BUNDLE 0", "a=group:LS 0\r\na=group:bundle a  0", &s);
    assert_true(s.bundle);
    parse_base_with("a=group:BUNDLE 0\r\n", "", &s);
    assert_false(s.bundle);
    parse_base_with("a=mid:0\r\n", "", &s); /* no mid: nothing to bundle */
    assert_string_equal(s.mid, "");
    assert_false(s.bundle);
    /* RFC 5888 §5: a=group is session level; one inside a section says nothing. */
    text_t t;
    text_set(&t, base);
    text_replace(&t, "a=group:BUNDLE 0\r\n", "");
    text_replace(&t, "a=mid:0\r\n", "a=mid:0\r\na=group:BUNDLE 0\r\n");
    parse_ok(t.s, &s);
    assert_false(s.bundle);
}

static void duplicate_single_valued_attribute_is_rejected(void **state)
{
    (void)state;
    static const char *const lines[] = {
        "a=ice-ufrag:ufrg", "a=ice-pwd:pwd0pwd1pwd2pwd3pwd4pw", "a=setup:actpass",
        "a=mid:0",          "a=sctp-port:5000",
    };
    for (size_t i = 0; i < COUNT(lines); i++) {
        char twice[128];
        snprintf(twice, sizeof twice, "%s\r\n%s", lines[i], lines[i]);
        expect_base_with_rejected(lines[i], twice, ZQ_ERR_MALFORMED, "duplicate attribute");
    }
    expect_base_with_rejected("a=mid:0", "a=mid:0\r\na=max-message-size:1\r\na=max-message-size:1",
                              ZQ_ERR_MALFORMED, "duplicate attribute");
    text_t t;
    text_set(&t, base);
    text_replace(&t, "UDP/DTLS/SCTP webrtc-datachannel", "DTLS/SCTP 5000");
    text_replace(&t, "a=sctp-port:5000",
                 "a=sctpmap:5000 webrtc-datachannel\r\na=sctpmap:5000 webrtc-datachannel");
    expect_rejected(t.s, ZQ_ERR_MALFORMED, "duplicate attribute");
    /* Once per level: the same attribute at session and media level is no duplicate. */
    sdp_t s;
    parse_base_with("t=0 0\r\n", "t=0 0\r\na=ice-ufrag:sess\r\na=setup:active\r\n", &s);
    assert_string_equal(s.ice_ufrag, "ufrg");
}

/* ---- Candidates (RFC 8839 §5.1) ------------------------------------------------------------- */

static void candidates_beyond_capacity_are_counted_as_skipped(void **state)
{
    (void)state;
    text_t t;
    text_set(&t, base);
    for (unsigned i = 0; i < ZQ_SDP_MAX_CANDIDATES + 2; i++) {
        char line[128];
        snprintf(line, sizeof line,
                 "a=candidate:%u 1 udp 2130706431 192.0.2.%u 5000%u typ host\r\n", i, i + 1,
                 i % 10);
        strcat(t.s, line);
    }
    sdp_t s;
    parse_ok(t.s, &s);
    assert_int_equal(s.n_candidates, ZQ_SDP_MAX_CANDIDATES);
    assert_int_equal(s.candidates_skipped, 2);
    assert_string_equal(s.candidates[ZQ_SDP_MAX_CANDIDATES - 1].foundation, "7");
    assert_int_equal(s.candidates[0].addr.ip[3], 1);
}

static void tcp_mdns_and_second_component_candidates_are_skipped(void **state)
{
    (void)state;
    sdp_t s;
    parse_base_with("a=mid:0\r\n",
                    "a=mid:0\r\n"
                    "a=candidate:1 1 tcp 1518280447 192.0.2.1 9 typ host tcptype active\r\n"
                    "a=candidate:2 1 udp 2122260223 5f3c2b1a-0000-4000-8000-000000000001.local "
                    "50000 typ host\r\n"
                    "a=candidate:3 2 udp 2122260222 192.0.2.1 50001 typ host\r\n"
                    "a=candidate:4 1 udp 2122260223 192.0.2.1 50000 typ host\r\n",
                    &s);
    assert_int_equal(s.n_candidates, 1);
    assert_int_equal(s.candidates_skipped, 3);
    assert_string_equal(s.candidates[0].foundation, "4");
}

static void malformed_candidate_is_rejected(void **state)
{
    (void)state;
    const char *why = "malformed a=candidate";
    expect_base_with_rejected("a=mid:0\r\n", "a=mid:0\r\na=candidate:1 1 udp 1 192.0.2.1\r\n",
                              ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("a=mid:0\r\n",
                              "a=mid:0\r\na=candidate:1 1 tcp 1 192.0.2.1 99999 typ host\r\n",
                              ZQ_ERR_MALFORMED, why);
    expect_base_with_rejected("a=mid:0\r\n", "a=mid:0\r\na=candidate\r\n", ZQ_ERR_MALFORMED, why);
}

/* RFC 8839 §5.1: a=candidate is a media-level attribute. */
static void session_level_candidate_is_ignored(void **state)
{
    (void)state;
    sdp_t s;
    parse_base_with("t=0 0\r\n", "t=0 0\r\na=candidate:1 1 udp 1 192.0.2.1 1 typ host\r\n", &s);
    assert_int_equal(s.n_candidates, 0);
    assert_int_equal(s.candidates_skipped, 0);
}

/* ---- The API -------------------------------------------------------------------------------- */

static void rejection_leaves_out_at_defaults(void **state)
{
    (void)state;
    sdp_t s;
    parse_ok(chromium_offer_gathered, &s);
    text_t t;
    text_set(&t, chromium_offer_gathered);
    text_replace(&t, "a=setup:actpass", "a=setup:bogus");
    expect_rejected(t.s, ZQ_ERR_MALFORMED, "bad a=setup value");
    const char *why;
    assert_int_equal(sdp_parse(t.s, strlen(t.s), &s, &why), ZQ_ERR_MALFORMED);
    sdp_t fresh;
    sdp_init(&fresh);
    assert_memory_equal(&s, &fresh, sizeof s);
}

static void null_arguments_are_invalid(void **state)
{
    (void)state;
    sdp_t s;
    const char *why = NULL;
    assert_int_equal(sdp_parse(NULL, 0, &s, &why), ZQ_ERR_INVALID_ARG);
    assert_string_equal(why, "NULL argument");
    assert_int_equal(sdp_parse(base, strlen(base), NULL, &why), ZQ_ERR_INVALID_ARG);
    assert_int_equal(sdp_parse(base, strlen(base), &s, NULL), ZQ_OK); /* reason is optional */
    char out[8] = "x";
    assert_int_equal(sdp_write(NULL, SDP_OFFER, out, sizeof out), 0);
    assert_string_equal(out, "");
    assert_int_equal(sdp_write(&s, SDP_OFFER, NULL, 100), 0);
    assert_int_equal(sdp_add_candidate(NULL, &s.candidates[0]), ZQ_ERR_INVALID_ARG);
    assert_int_equal(sdp_add_candidate(&s, NULL), ZQ_ERR_INVALID_ARG);
}

static void add_candidate_stops_at_capacity(void **state)
{
    (void)state;
    sdp_t s;
    sdp_init(&s);
    ice_candidate_t c;
    memset(&c, 0, sizeof c);
    for (unsigned i = 0; i < ZQ_SDP_MAX_CANDIDATES; i++) {
        assert_int_equal(sdp_add_candidate(&s, &c), ZQ_OK);
    }
    assert_int_equal(sdp_add_candidate(&s, &c), ZQ_ERR_CAPACITY);
    assert_int_equal(s.n_candidates, ZQ_SDP_MAX_CANDIDATES);
}

static void init_sets_the_rfc8841_defaults(void **state)
{
    (void)state;
    sdp_t s;
    memset(&s, 0x5A, sizeof s);
    sdp_init(&s);
    assert_int_equal(s.sctp_port, 5000);
    assert_int_equal(s.max_message_size, 65536);
    assert_int_equal(s.setup, SDP_SETUP_NONE);
    assert_int_equal(s.n_candidates, 0);
    assert_false(s.has_fingerprint);
    assert_string_equal(s.mid, "");
    assert_string_equal(sdp_setup_name(SDP_SETUP_NONE), "");
    assert_string_equal(sdp_setup_name((sdp_setup_t)99), "");
}

/* ---- Writing -------------------------------------------------------------------------------- */

static ice_candidate_t host(const char *ip, uint16_t port, const char *foundation)
{
    ice_candidate_t c;
    memset(&c, 0, sizeof c);
    strcpy(c.foundation, foundation);
    c.component = 1;
    c.type = ICE_CAND_HOST;
    c.priority = ice_candidate_priority(ICE_CAND_HOST, 65535, 1);
    assert_int_equal(zq_addr_parse_ip(ip, strlen(ip), &c.addr), ZQ_OK);
    c.addr.port = port;
    return c;
}

/* What a zq device says about itself; each test changes what it is about. */
static void make_local(sdp_t *s)
{
    sdp_init(s);
    strcpy(s->ice_ufrag, "zqDv");
    strcpy(s->ice_pwd, "zqPasswordzqPassword22");
    s->has_fingerprint = true;
    for (uint8_t i = 0; i < DTLS_FINGERPRINT_LEN; i++) {
        s->fingerprint.bytes[i] = i;
    }
    strcpy(s->mid, "0");
    s->bundle = true;
    s->session_id = 4611686018427387904u;
    s->session_version = 2;
    s->max_message_size = 262144;
}

static size_t write_ok(const sdp_t *s, sdp_kind_t kind, char *out, size_t cap)
{
    size_t n = sdp_write(s, kind, out, cap);
    assert_true(n > 0);
    assert_int_equal(strlen(out), n);
    return n;
}

/* Every field sdp_write() writes, as sdp_parse() reads it back. */
static void expect_same_description(const sdp_t *a, const sdp_t *b)
{
    assert_string_equal(a->ice_ufrag, b->ice_ufrag);
    assert_string_equal(a->ice_pwd, b->ice_pwd);
    assert_int_equal(a->ice_lite, b->ice_lite);
    assert_int_equal(a->ice_trickle, b->ice_trickle);
    assert_int_equal(a->has_fingerprint, b->has_fingerprint);
    assert_memory_equal(a->fingerprint.bytes, b->fingerprint.bytes, DTLS_FINGERPRINT_LEN);
    assert_int_equal(a->setup, b->setup);
    assert_string_equal(a->mid, b->mid);
    assert_int_equal(a->bundle, b->bundle);
    assert_int_equal(a->sctp_port, b->sctp_port);
    assert_int_equal(a->max_message_size, b->max_message_size);
    assert_int_equal(a->legacy_sctpmap, b->legacy_sctpmap);
    assert_int_equal(a->n_candidates, b->n_candidates);
    for (uint8_t i = 0; i < a->n_candidates; i++) {
        const ice_candidate_t *x = &a->candidates[i];
        const ice_candidate_t *y = &b->candidates[i];
        assert_string_equal(x->foundation, y->foundation);
        assert_int_equal(x->component, y->component);
        assert_int_equal(x->priority, y->priority);
        assert_int_equal(x->type, y->type);
        assert_true(zq_addr_equal(&x->addr, &y->addr));
        assert_int_equal(x->related.family, y->related.family);
        assert_true(x->related.family == ZQ_AF_NONE || zq_addr_equal(&x->related, &y->related));
    }
    assert_int_equal(a->end_of_candidates, b->end_of_candidates);
    assert_true(a->session_id == b->session_id);
    assert_true(a->session_version == b->session_version);
}

/* Writes @p local, reads it back, and checks it is what was written (a=setup none written as
 * each side's default). */
static void round_trip(const sdp_t *local, sdp_kind_t kind, sdp_t *back)
{
    char text[SDP_TEXT_MAX];
    write_ok(local, kind, text, sizeof text);
    parse_ok(text, back);
    sdp_t want = *local;
    if (want.setup == SDP_SETUP_NONE) {
        want.setup = kind == SDP_OFFER ? SDP_SETUP_ACTPASS : SDP_SETUP_ACTIVE;
    }
    expect_same_description(&want, back);
    assert_int_equal(back->candidates_skipped, 0);
}

static void write_full_offer_is_exact_text(void **state)
{
    (void)state;
    sdp_t s;
    make_local(&s);
    s.ice_trickle = true;
    s.setup = SDP_SETUP_ACTPASS;
    ice_candidate_t c = host("192.0.2.1", 50000, "1");
    assert_int_equal(sdp_add_candidate(&s, &c), ZQ_OK);
    char text[SDP_TEXT_MAX];
    write_ok(&s, SDP_OFFER, text, sizeof text);
    assert_string_equal(text,
                        "v=0\r\n"
                        "o=- 4611686018427387904 2 IN IP4 127.0.0.1\r\n"
                        "s=-\r\n"
                        "t=0 0\r\n"
                        "a=group:BUNDLE 0\r\n"
                        "m=application 50000 UDP/DTLS/SCTP webrtc-datachannel\r\n"
                        "c=IN IP4 192.0.2.1\r\n"
                        "a=candidate:1 1 udp 2130706431 192.0.2.1 50000 typ host\r\n"
                        "a=ice-ufrag:zqDv\r\n"
                        "a=ice-pwd:zqPasswordzqPassword22\r\n"
                        "a=ice-options:trickle\r\n"
                        "a=fingerprint:sha-256 00:01:02:03:04:05:06:07:08:09:0A:0B:0C:0D:0E:0F:"
                        "10:11:12:13:14:15:16:17:18:19:1A:1B:1C:1D:1E:1F\r\n"
                        "a=setup:actpass\r\n"
                        "a=mid:0\r\n"
                        "a=sctp-port:5000\r\n"
                        "a=max-message-size:262144\r\n");
}

/* The sequence of line kinds ("m=", "a=ice-ufrag", ...), runs of one kind counted once. */
#define KEYS_MAX 40
typedef struct {
    char key[KEYS_MAX][32];
    size_t n;
} keys_t;

static void line_keys(const char *text, keys_t *k, const char *const *skip, size_t n_skip)
{
    k->n = 0;
    while (*text != '\0') {
        const char *end = strstr(text, "\r\n");
        assert_non_null(end);
        size_t len = text[0] == 'a' ? strcspn(text, ":\r") : 2;
        char key[32];
        assert_true(len < sizeof key);
        memcpy(key, text, len);
        key[len] = '\0';
        bool skipped = false;
        for (size_t i = 0; i < n_skip; i++) {
            skipped = skipped || strcmp(key, skip[i]) == 0;
        }
        if (!skipped && (k->n == 0 || strcmp(k->key[k->n - 1], key) != 0)) {
            assert_true(k->n < KEYS_MAX);
            strcpy(k->key[k->n++], key);
        }
        text = end + 2;
    }
}

static void expect_same_keys(const keys_t *a, const keys_t *b)
{
    for (size_t i = 0; i < a->n && i < b->n; i++) {
        if (strcmp(a->key[i], b->key[i]) != 0) {
            print_error("line %zu: %s, Chromium has %s\n", i, a->key[i], b->key[i]);
        }
        assert_string_equal(a->key[i], b->key[i]);
    }
    assert_int_equal(a->n, b->n);
}

/* Chromium's own lines zq has no use for. */
static const char *const chromium_only[] = {"a=extmap-allow-mixed", "a=msid-semantic"};

static void written_offer_has_chromium_line_order(void **state)
{
    (void)state;
    sdp_t remote;
    parse_ok(chromium_offer_gathered, &remote);
    sdp_t s;
    make_local(&s);
    s.ice_trickle = true;
    assert_int_equal(sdp_add_candidate(&s, &remote.candidates[0]), ZQ_OK);
    char text[SDP_TEXT_MAX];
    write_ok(&s, SDP_OFFER, text, sizeof text);
    keys_t ours;
    keys_t chromium;
    line_keys(text, &ours, NULL, 0);
    line_keys(chromium_offer_gathered, &chromium, chromium_only, COUNT(chromium_only));
    expect_same_keys(&ours, &chromium);
}

/* Chromium writes no a=max-message-size in the legacy form; zq adds it last, as aiortc does. */
static void written_legacy_answer_has_chromium_line_order(void **state)
{
    (void)state;
    sdp_t offer;
    parse_ok(aiortc_offer_legacy, &offer);
    sdp_t s;
    make_local(&s);
    s.ice_trickle = true;
    s.setup = SDP_SETUP_ACTIVE;
    s.legacy_sctpmap = offer.legacy_sctpmap;
    s.sctp_port = offer.sctp_port;
    ice_candidate_t c = host("127.0.0.1", 45606, "3125151278");
    assert_int_equal(sdp_add_candidate(&s, &c), ZQ_OK);
    char text[SDP_TEXT_MAX];
    write_ok(&s, SDP_ANSWER, text, sizeof text);
    keys_t ours;
    keys_t chromium;
    line_keys(text, &ours, NULL, 0);
    line_keys(chromium_answer_to_legacy, &chromium, chromium_only, COUNT(chromium_only));
    assert_true(chromium.n < KEYS_MAX);
    strcpy(chromium.key[chromium.n++], "a=max-message-size");
    expect_same_keys(&ours, &chromium);
    assert_non_null(strstr(text, "m=application 45606 DTLS/SCTP 5000\r\n"));
    assert_non_null(strstr(text, "a=sctpmap:5000 webrtc-datachannel 65535\r\n"));
    assert_null(strstr(text, "a=sctp-port"));
}

/* RFC 8839 §5.3: a=ice-lite is a session-level attribute, before the first m= line. */
static void write_lite_puts_ice_lite_at_session_level(void **state)
{
    (void)state;
    sdp_t s;
    make_local(&s);
    s.ice_lite = true;
    char text[SDP_TEXT_MAX];
    write_ok(&s, SDP_ANSWER, text, sizeof text);
    const char *lite = strstr(text, "\r\na=ice-lite\r\n");
    const char *m = strstr(text, "\r\nm=application");
    assert_non_null(lite);
    assert_non_null(m);
    assert_true(lite < m);
    assert_non_null(strstr(text, "t=0 0\r\na=group:BUNDLE 0\r\na=ice-lite\r\nm="));
}

static void write_parse_round_trip_full_ipv4(void **state)
{
    (void)state;
    sdp_t s;
    make_local(&s);
    s.ice_trickle = true;
    s.setup = SDP_SETUP_ACTPASS;
    ice_candidate_t a = host("192.0.2.1", 50000, "1");
    ice_candidate_t b = host("198.51.100.7", 61000, "2");
    b.type = ICE_CAND_SRFLX;
    b.priority = ice_candidate_priority(ICE_CAND_SRFLX, 65535, 1);
    b.related = a.addr;
    assert_int_equal(sdp_add_candidate(&s, &a), ZQ_OK);
    assert_int_equal(sdp_add_candidate(&s, &b), ZQ_OK);
    sdp_t back;
    round_trip(&s, SDP_OFFER, &back);
    assert_true(zq_addr_equal(&back.connection, &a.addr));
}

static void write_parse_round_trip_lite_ipv6(void **state)
{
    (void)state;
    sdp_t s;
    make_local(&s);
    s.ice_lite = true;
    s.setup = SDP_SETUP_PASSIVE;
    s.end_of_candidates = true;
    s.max_message_size = 0;
    ice_candidate_t a = host("2001:db8::1", 50000, "1");
    ice_candidate_t b = host("192.0.2.1", 50001, "2");
    assert_int_equal(sdp_add_candidate(&s, &a), ZQ_OK);
    assert_int_equal(sdp_add_candidate(&s, &b), ZQ_OK);
    char text[SDP_TEXT_MAX];
    write_ok(&s, SDP_ANSWER, text, sizeof text);
    assert_non_null(strstr(text, "m=application 50000 UDP/DTLS/SCTP webrtc-datachannel\r\n"
                                 "c=IN IP6 2001:db8::1\r\n"));
    sdp_t back;
    round_trip(&s, SDP_ANSWER, &back);
    assert_true(zq_addr_equal(&back.connection, &a.addr));
}

static void write_parse_round_trip_legacy(void **state)
{
    (void)state;
    sdp_t s;
    make_local(&s);
    s.legacy_sctpmap = true;
    s.sctp_port = 5001;
    s.setup = SDP_SETUP_ACTIVE;
    ice_candidate_t a = host("127.0.0.1", 44323, "16572de626da4e5384a0ce2d0d93678a");
    assert_int_equal(sdp_add_candidate(&s, &a), ZQ_OK);
    sdp_t back;
    round_trip(&s, SDP_ANSWER, &back);
}

/* Each capture, read, written and read again, keeps every field zq writes. The default
 * destination zq writes is its first candidate: for Pion, which keeps 0.0.0.0:9 after
 * gathering, that is not the destination read. */
static void fixtures_survive_write_and_parse(void **state)
{
    (void)state;
    for (size_t i = 0; i < COUNT(captures); i++) {
        sdp_t s;
        parse_ok(captures[i], &s);
        sdp_t back;
        round_trip(&s, s.setup == SDP_SETUP_ACTPASS ? SDP_OFFER : SDP_ANSWER, &back);
        const zq_addr_t *dest = s.n_candidates > 0 ? &s.candidates[0].addr : &s.connection;
        assert_true(zq_addr_equal(&back.connection, dest));
    }
}

/* RFC 8829 §5.2.1: a section with no candidate yet has port 9 and address 0.0.0.0. */
static void write_without_candidates_uses_port_9_and_0_0_0_0(void **state)
{
    (void)state;
    sdp_t s;
    make_local(&s);
    char text[SDP_TEXT_MAX];
    write_ok(&s, SDP_OFFER, text, sizeof text);
    assert_non_null(strstr(text, "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n"
                                 "c=IN IP4 0.0.0.0\r\n"));
    /* A first candidate with port 0 would reject the section: the dummy port stands in. */
    ice_candidate_t c = host("192.0.2.1", 0, "1");
    assert_int_equal(sdp_add_candidate(&s, &c), ZQ_OK);
    write_ok(&s, SDP_OFFER, text, sizeof text);
    assert_non_null(strstr(text, "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n"
                                 "c=IN IP4 192.0.2.1\r\n"));
    sdp_t back;
    round_trip(&s, SDP_OFFER, &back);
}

/* RFC 5763 §5: an offer says actpass, an answer active or passive. */
static void write_setup_none_defaults_by_kind(void **state)
{
    (void)state;
    sdp_t s;
    make_local(&s);
    char text[SDP_TEXT_MAX];
    write_ok(&s, SDP_OFFER, text, sizeof text);
    assert_non_null(strstr(text, "\r\na=setup:actpass\r\n"));
    write_ok(&s, SDP_ANSWER, text, sizeof text);
    assert_non_null(strstr(text, "\r\na=setup:active\r\n"));
    s.setup = SDP_SETUP_PASSIVE; /* a later offer may keep the role it has */
    write_ok(&s, SDP_OFFER, text, sizeof text);
    assert_non_null(strstr(text, "\r\na=setup:passive\r\n"));
}

static void write_refuses_actpass_in_answer(void **state)
{
    (void)state;
    sdp_t s;
    make_local(&s);
    s.setup = SDP_SETUP_ACTPASS;
    char text[SDP_TEXT_MAX];
    assert_int_equal(sdp_write(&s, SDP_ANSWER, text, sizeof text), 0);
    assert_string_equal(text, "");
}

static void expect_unwritable(const sdp_t *s)
{
    char text[SDP_TEXT_MAX];
    text[0] = 'x';
    assert_int_equal(sdp_write(s, SDP_OFFER, text, sizeof text), 0);
    assert_string_equal(text, "");
}

static void write_refuses_what_would_not_parse_back(void **state)
{
    (void)state;
    sdp_t s;
    make_local(&s);
    strcpy(s.ice_ufrag, "abc"); /* RFC 8839 §5.4: 4 at least */
    expect_unwritable(&s);
    make_local(&s);
    strcpy(s.ice_ufrag, "ab-d");
    expect_unwritable(&s);
    make_local(&s);
    memset(s.ice_ufrag, 'u', sizeof s.ice_ufrag); /* not terminated */
    expect_unwritable(&s);
    make_local(&s);
    strcpy(s.ice_pwd, "tooshort");
    expect_unwritable(&s);
    make_local(&s);
    s.has_fingerprint = false;
    expect_unwritable(&s);
    make_local(&s);
    strcpy(s.mid, "a b");
    expect_unwritable(&s);
    make_local(&s);
    memset(s.mid, 'm', sizeof s.mid);
    expect_unwritable(&s);
    make_local(&s);
    s.sctp_port = 0;
    expect_unwritable(&s);
    make_local(&s);
    s.setup = (sdp_setup_t)7;
    expect_unwritable(&s);
    make_local(&s);
    s.n_candidates = ZQ_SDP_MAX_CANDIDATES + 1;
    expect_unwritable(&s);
    make_local(&s);
    ice_candidate_t c = host("192.0.2.1", 1, "1");
    c.foundation[0] = '\0';
    assert_int_equal(sdp_add_candidate(&s, &c), ZQ_OK);
    expect_unwritable(&s);
    make_local(&s);
    char text[SDP_TEXT_MAX];
    assert_int_equal(sdp_write(&s, (sdp_kind_t)2, text, sizeof text), 0);
}

/* Without a mid, neither a=mid nor a=group is written, whatever bundle says. */
static void write_without_mid_writes_no_group(void **state)
{
    (void)state;
    sdp_t s;
    make_local(&s);
    s.mid[0] = '\0';
    char text[SDP_TEXT_MAX];
    write_ok(&s, SDP_OFFER, text, sizeof text);
    assert_null(strstr(text, "a=group"));
    assert_null(strstr(text, "a=mid"));
    s.mid[0] = '0';
    s.bundle = false;
    write_ok(&s, SDP_OFFER, text, sizeof text);
    assert_null(strstr(text, "a=group"));
    assert_non_null(strstr(text, "a=mid:0\r\n"));
}

/* The largest description zq can be asked to write. */
static void make_longest(sdp_t *s, bool legacy)
{
    make_local(s);
    memset(s->ice_ufrag, 'u', ZQ_ICE_UFRAG_MAX);
    s->ice_ufrag[ZQ_ICE_UFRAG_MAX] = '\0';
    memset(s->ice_pwd, 'p', ZQ_ICE_PWD_MAX);
    s->ice_pwd[ZQ_ICE_PWD_MAX] = '\0';
    memset(s->mid, 'm', ZQ_SDP_MID_MAX);
    s->mid[ZQ_SDP_MID_MAX] = '\0';
    s->ice_lite = true;
    s->ice_trickle = true;
    s->end_of_candidates = true;
    s->setup = SDP_SETUP_PASSIVE;
    s->session_id = UINT64_MAX;
    s->session_version = UINT64_MAX;
    s->max_message_size = UINT32_MAX;
    s->legacy_sctpmap = legacy;
    s->sctp_port = 65535;
    for (unsigned i = 0; i < ZQ_SDP_MAX_CANDIDATES; i++) {
        ice_candidate_t c = host("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 65535, "f");
        memset(c.foundation, 'f', ZQ_ICE_FOUNDATION_MAX);
        c.foundation[ZQ_ICE_FOUNDATION_MAX] = '\0';
        c.priority = UINT32_MAX;
        c.type = ICE_CAND_SRFLX;
        c.related = c.addr;
        assert_int_equal(sdp_add_candidate(s, &c), ZQ_OK);
    }
}

static void longest_description_fits_text_max(void **state)
{
    (void)state;
    for (int legacy = 0; legacy <= 1; legacy++) {
        sdp_t s;
        make_longest(&s, legacy != 0);
        char text[SDP_TEXT_MAX];
        size_t n = write_ok(&s, SDP_ANSWER, text, sizeof text);
        assert_true(n < SDP_TEXT_MAX);
        sdp_t back;
        round_trip(&s, SDP_ANSWER, &back);
    }
}

/* 0xA5 guard bytes on both sides of the buffer, at every capacity from 0 to one past the
 * text: nothing is written outside, and a short buffer gives 0 and an empty string. */
#define GUARD 16
static void write_never_writes_past_cap(void **state)
{
    (void)state;
    static char buf[SDP_TEXT_MAX + 2 * GUARD];
    for (int legacy = 0; legacy <= 1; legacy++) {
        sdp_t s;
        make_longest(&s, legacy != 0);
        char full[SDP_TEXT_MAX];
        size_t len = write_ok(&s, SDP_ANSWER, full, sizeof full);
        for (size_t cap = 0; cap <= len + 1; cap++) {
            memset(buf, 0xA5, sizeof buf);
            size_t n = sdp_write(&s, SDP_ANSWER, buf + GUARD, cap);
            for (size_t i = 0; i < GUARD; i++) {
                assert_int_equal((unsigned char)buf[i], 0xA5);
            }
            for (size_t i = GUARD + cap; i < sizeof buf; i++) {
                assert_int_equal((unsigned char)buf[i], 0xA5);
            }
            if (cap <= len) {
                assert_int_equal(n, 0);
                assert_true(cap == 0 || buf[GUARD] == '\0');
            } else {
                assert_int_equal(n, len);
                assert_memory_equal(buf + GUARD, full, len + 1);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chromium_gathered_offer_parses_with_exact_values),
        cmocka_unit_test(chromium_offer_to_aiortc_parses_with_exact_values),
        cmocka_unit_test(chromium_answer_to_legacy_offer_parses_with_exact_values),
        cmocka_unit_test(aiortc_legacy_offer_parses_with_exact_values),
        cmocka_unit_test(aiortc_answer_parses_with_exact_values),
        cmocka_unit_test(pion_offer_parses_with_exact_values),
        cmocka_unit_test(pion_answer_to_chromium_parses_with_exact_values),
        cmocka_unit_test(pion_answer_to_legacy_offer_parses_with_exact_values),
        cmocka_unit_test(chromium_offer_without_candidates_parses_with_none),
        cmocka_unit_test(chromium_offer_before_gathering_parses_with_no_candidates),
        cmocka_unit_test(bare_lf_line_endings_are_accepted),
        cmocka_unit_test(last_line_without_line_end_is_accepted),
        cmocka_unit_test(empty_lines_are_skipped),
        cmocka_unit_test(first_line_must_be_v0),
        cmocka_unit_test(line_longer_than_line_max_is_rejected),
        cmocka_unit_test(control_byte_is_rejected),
        cmocka_unit_test(utf8_text_is_accepted),
        cmocka_unit_test(line_that_is_not_type_equals_value_is_rejected),
        cmocka_unit_test(unknown_attributes_and_line_types_are_ignored),
        cmocka_unit_test(origin_gives_session_id_and_version),
        cmocka_unit_test(bad_origin_is_rejected),
        cmocka_unit_test(missing_origin_leaves_ids_zero),
        cmocka_unit_test(audio_and_video_sections_are_skipped_unread),
        cmocka_unit_test(first_usable_data_section_is_used),
        cmocka_unit_test(data_section_with_port_zero_is_not_usable),
        cmocka_unit_test(no_usable_data_section_is_rejected),
        cmocka_unit_test(data_section_matches_proto_and_format_case_insensitively),
        cmocka_unit_test(bad_port_in_data_section_is_rejected),
        cmocka_unit_test(legacy_section_takes_its_sctp_port_from_the_format),
        cmocka_unit_test(legacy_section_without_sctpmap_is_accepted),
        cmocka_unit_test(bad_sctpmap_is_rejected),
        cmocka_unit_test(attributes_of_the_other_form_are_ignored),
        cmocka_unit_test(session_level_transport_attributes_apply),
        cmocka_unit_test(media_level_attributes_win_over_session_level),
        cmocka_unit_test(ice_lite_is_read_at_either_level),
        cmocka_unit_test(ice_options_lists_trickle_among_others),
        cmocka_unit_test(end_of_candidates_is_read_at_either_level),
        cmocka_unit_test(media_level_connection_wins),
        cmocka_unit_test(connection_without_an_ip_has_no_address),
        cmocka_unit_test(bad_connection_line_is_rejected),
        cmocka_unit_test(missing_ice_ufrag_is_rejected),
        cmocka_unit_test(missing_ice_pwd_is_rejected),
        cmocka_unit_test(ice_ufrag_too_long_is_rejected),
        cmocka_unit_test(ice_pwd_too_long_is_rejected),
        cmocka_unit_test(credentials_shorter_than_rfc8839_or_not_ice_chars_are_rejected),
        cmocka_unit_test(missing_fingerprint_is_rejected),
        cmocka_unit_test(fingerprint_hash_other_than_sha256_is_not_supported),
        cmocka_unit_test(sha256_fingerprint_among_others_is_used),
        cmocka_unit_test(malformed_fingerprint_is_rejected),
        cmocka_unit_test(setup_values_parse_case_insensitively),
        cmocka_unit_test(missing_setup_is_none),
        cmocka_unit_test(bad_setup_value_is_rejected),
        cmocka_unit_test(sctp_port_defaults_to_5000),
        cmocka_unit_test(bad_sctp_port_is_rejected),
        cmocka_unit_test(max_message_size_defaults_to_65536),
        cmocka_unit_test(max_message_size_zero_means_no_limit_and_huge_saturates),
        cmocka_unit_test(bad_max_message_size_is_rejected),
        cmocka_unit_test(mid_too_long_is_rejected),
        cmocka_unit_test(mid_that_is_no_token_is_rejected),
        cmocka_unit_test(bundle_is_set_only_when_a_group_lists_the_mid),
        cmocka_unit_test(duplicate_single_valued_attribute_is_rejected),
        cmocka_unit_test(candidates_beyond_capacity_are_counted_as_skipped),
        cmocka_unit_test(tcp_mdns_and_second_component_candidates_are_skipped),
        cmocka_unit_test(malformed_candidate_is_rejected),
        cmocka_unit_test(session_level_candidate_is_ignored),
        cmocka_unit_test(rejection_leaves_out_at_defaults),
        cmocka_unit_test(null_arguments_are_invalid),
        cmocka_unit_test(add_candidate_stops_at_capacity),
        cmocka_unit_test(init_sets_the_rfc8841_defaults),
        cmocka_unit_test(write_full_offer_is_exact_text),
        cmocka_unit_test(written_offer_has_chromium_line_order),
        cmocka_unit_test(written_legacy_answer_has_chromium_line_order),
        cmocka_unit_test(write_lite_puts_ice_lite_at_session_level),
        cmocka_unit_test(write_parse_round_trip_full_ipv4),
        cmocka_unit_test(write_parse_round_trip_lite_ipv6),
        cmocka_unit_test(write_parse_round_trip_legacy),
        cmocka_unit_test(fixtures_survive_write_and_parse),
        cmocka_unit_test(write_without_candidates_uses_port_9_and_0_0_0_0),
        cmocka_unit_test(write_setup_none_defaults_by_kind),
        cmocka_unit_test(write_refuses_actpass_in_answer),
        cmocka_unit_test(write_refuses_what_would_not_parse_back),
        cmocka_unit_test(write_without_mid_writes_no_group),
        cmocka_unit_test(longest_description_fits_text_max),
        cmocka_unit_test(write_never_writes_past_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
