/* libFuzzer target for session descriptions (stack/sdp): arbitrary text must be rejected with a
 * reason, or read into a description that sdp_write() writes, that sdp_parse() reads back to
 * the same fields, and that writes again to the same text. A buffer one byte short must be
 * refused without a write past it. Seeds: the Chromium and aiortc captures in
 * tests/fuzz/corpus/fuzz_sdp/. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stack/sdp/sdp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(bool ok)
{
    if (!ok) {
        __builtin_trap();
    }
}

static size_t terminated_len(const char *field, size_t size)
{
    const char *end = memchr(field, '\0', size);
    require(end != NULL);
    return (size_t)(end - field);
}

static bool is_family(uint8_t family)
{
    return family == ZQ_AF_INET4 || family == ZQ_AF_INET6;
}

/* What every accepted description holds, whatever the text was. */
static void check_accepted(const sdp_t *s)
{
    size_t ufrag = terminated_len(s->ice_ufrag, sizeof s->ice_ufrag);
    size_t pwd = terminated_len(s->ice_pwd, sizeof s->ice_pwd);
    size_t mid = terminated_len(s->mid, sizeof s->mid);
    require(ufrag >= SDP_ICE_UFRAG_MIN && pwd >= SDP_ICE_PWD_MIN);
    require(s->has_fingerprint && s->sctp_port != 0);
    require(s->setup <= SDP_SETUP_PASSIVE);
    require(!s->bundle || mid > 0);
    require(s->n_candidates <= ZQ_SDP_MAX_CANDIDATES);
    for (uint8_t i = 0; i < s->n_candidates; i++) {
        const ice_candidate_t *c = &s->candidates[i];
        require(c->component == 1 && is_family(c->addr.family));
    }
}

static void require_same_candidate(const ice_candidate_t *a, const ice_candidate_t *b)
{
    require(strcmp(a->foundation, b->foundation) == 0);
    require(a->component == b->component && a->priority == b->priority && a->type == b->type);
    require(zq_addr_equal(&a->addr, &b->addr));
    require(a->related.family == b->related.family);
    require(a->related.family == ZQ_AF_NONE || zq_addr_equal(&a->related, &b->related));
}

/* @p back is what sdp_parse() made of sdp_write(@p s, @p kind). */
static void require_same(const sdp_t *s, sdp_kind_t kind, const sdp_t *back)
{
    require(strcmp(s->ice_ufrag, back->ice_ufrag) == 0 && strcmp(s->ice_pwd, back->ice_pwd) == 0);
    require(s->ice_lite == back->ice_lite && s->ice_trickle == back->ice_trickle);
    require(back->has_fingerprint);
    require(memcmp(s->fingerprint.bytes, back->fingerprint.bytes, DTLS_FINGERPRINT_LEN) == 0);
    sdp_setup_t setup = s->setup;
    if (setup == SDP_SETUP_NONE) {
        setup = kind == SDP_OFFER ? SDP_SETUP_ACTPASS : SDP_SETUP_ACTIVE;
    }
    require(back->setup == setup);
    require(strcmp(s->mid, back->mid) == 0 && s->bundle == back->bundle);
    require(s->sctp_port == back->sctp_port && s->max_message_size == back->max_message_size);
    require(s->legacy_sctpmap == back->legacy_sctpmap);
    require(s->n_candidates == back->n_candidates && back->candidates_skipped == 0);
    for (uint8_t i = 0; i < s->n_candidates; i++) {
        require_same_candidate(&s->candidates[i], &back->candidates[i]);
    }
    require(s->end_of_candidates == back->end_of_candidates);
    require(s->session_id == back->session_id && s->session_version == back->session_version);
    /* The default destination comes from the first candidate (port 0 reads as 9). */
    zq_addr_t want = zq_addr_v4(0, 0, 0, 0, 9);
    if (s->n_candidates > 0) {
        want = s->candidates[0].addr;
        want.port = want.port != 0 ? want.port : 9;
    }
    require(zq_addr_equal(&back->connection, &want));
}

/* The exact-size heap block lets AddressSanitizer see any write past a short buffer. */
static void check_short_buffer(const sdp_t *s, sdp_kind_t kind, size_t len)
{
    char *small = malloc(len);
    require(small != NULL);
    require(sdp_write(s, kind, small, len) == 0);
    require(small[0] == '\0');
    free(small);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char text[SDP_TEXT_MAX];
    static char again[SDP_TEXT_MAX];
    sdp_t s;
    const char *why = NULL;
    zq_err_t err = sdp_parse((const char *)data, size, &s, &why);
    require(why != NULL && why[0] != '\0');
    require(err == ZQ_OK || err == ZQ_ERR_MALFORMED || err == ZQ_ERR_TOO_LONG ||
            err == ZQ_ERR_UNSUPPORTED);
    if (err != ZQ_OK) {
        sdp_t fresh;
        sdp_init(&fresh);
        require(memcmp(&s, &fresh, sizeof s) == 0);
        return 0;
    }
    check_accepted(&s);
    sdp_kind_t kind =
        s.setup == SDP_SETUP_ACTPASS || s.setup == SDP_SETUP_NONE ? SDP_OFFER : SDP_ANSWER;
    size_t n = sdp_write(&s, kind, text, sizeof text);
    require(n > 0 && n < sizeof text && strlen(text) == n);
    check_short_buffer(&s, kind, n);
    sdp_t back;
    require(sdp_parse(text, n, &back, &why) == ZQ_OK);
    require_same(&s, kind, &back);
    require(sdp_write(&back, kind, again, sizeof again) == n && memcmp(text, again, n) == 0);
    return 0;
}
