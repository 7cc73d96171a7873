/* Shared by the SDP reader (sdp_parse.c, sdp_attr.c) and writer (sdp_write.c): text spans, the
 * line walker, and the character rules both sides must agree on, so that whatever zq writes
 * it also reads back. Not a public header. */
#ifndef ZQ_SDP_INTERNAL_H
#define ZQ_SDP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stack/sdp/sdp.h"

/* A piece of the caller's text: not NUL-terminated, borrowed for the call only. */
typedef struct {
    const char *p;
    size_t len;
} sdp_span_t;

/* ---- Text helpers (sdp_text.c) ------------------------------------------------------------ */

/* ASCII case-insensitive equality with a lower-case literal: RFC 5234 §2.3 makes ABNF
 * literals ("IN", "UDP/DTLS/SCTP", "actpass") case-insensitive. */
bool sdp_span_ieq(sdp_span_t s, const char *word);

/* Byte-exact equality with a NUL-terminated string (mids, which are case-sensitive). */
bool sdp_span_eq(sdp_span_t s, const char *str);

/* Takes the next SP-separated field off the front of @p rest; false when none is left.
 * RFC 8866 §9 separates fields by one SP; a run of them is tolerated. */
bool sdp_next_field(sdp_span_t *rest, sdp_span_t *field);

/* 1*DIGIT with a value <= @p max; no sign, no space. @p saturate: a larger value is taken as
 * @p max instead of refused. */
bool sdp_parse_decimal(sdp_span_t s, uint64_t max, bool saturate, uint64_t *out);

/* RFC 8839 §5.1: ice-char = ALPHA / DIGIT / "+" / "/". */
bool sdp_is_ice_chars(const char *p, size_t len);

/* RFC 8866 §9: token = 1*token-char. */
bool sdp_is_token(const char *p, size_t len);

/* ---- The line walker (sdp_text.c) --------------------------------------------------------- */

typedef struct {
    const char *text;
    size_t len;
    size_t off; /* start of the next line */
} sdp_lines_t;

/* The next line without its CRLF or LF: ZQ_OK with line->p == NULL at the end of the text;
 * ZQ_ERR_TOO_LONG or ZQ_ERR_MALFORMED (a control byte) with @p reason set. */
zq_err_t sdp_next_line(sdp_lines_t *it, sdp_span_t *line, const char **reason);

/* ---- The reader's state, shared by sdp_parse.c and sdp_attr.c ----------------------------- */

/* Which fingerprints one level held (RFC 8122 §5 allows one line per hash function). */
typedef enum { SDP_FP_NONE = 0, SDP_FP_OTHER_HASH, SDP_FP_SHA256 } sdp_fp_seen_t;

/* The attributes that may sit at session or media level; resolved when the text ends. */
typedef struct {
    sdp_span_t ufrag; /* p == NULL: absent */
    sdp_span_t pwd;
    bool lite;
    bool has_options;
    bool trickle;
    sdp_fp_seen_t fp_seen;
    dtls_fingerprint_t fingerprint; /* the first sha-256 one */
    sdp_setup_t setup;              /* SDP_SETUP_NONE: absent */
    bool end_of_candidates;
    bool has_connection;
    zq_addr_t connection;
} sdp_level_t;

typedef enum {
    SDP_AT_SESSION, /* before the first m= line */
    SDP_AT_DATA,    /* in the data section zq uses */
    SDP_AT_OTHER,   /* in a section zq skips, before the data section */
    SDP_AT_REST,    /* after the data section: everything is skipped */
} sdp_where_t;

typedef struct {
    sdp_t *out;
    const char *reason;
    sdp_where_t where;
    sdp_level_t session;
    sdp_level_t media;
    bool has_origin;
    size_t session_len;   /* bytes of text before the first m= line */
    uint16_t media_port;  /* the data section's m= port */
    bool has_mid;
    bool has_sctp_port;
    bool has_max_message_size;
    bool has_sctpmap;
} sdp_parser_t;

/* Records why the text is rejected and returns @p err. */
zq_err_t sdp_fail(sdp_parser_t *p, zq_err_t err, const char *reason);

/* One a= line (RFC 8866 §5.13) at the parser's current level; unknown attributes are ZQ_OK. */
zq_err_t sdp_parse_attribute(sdp_parser_t *p, sdp_span_t line);

/* True when an a=group:BUNDLE line among @p text's session-level lines lists @p mid. */
bool sdp_bundle_lists(const char *text, size_t session_len, const char *mid);

/* The writer's and the reader's shared judgement of the credentials and the mid. */
bool sdp_ufrag_ok(const char *p, size_t len);
bool sdp_pwd_ok(const char *p, size_t len);
bool sdp_mid_ok(const char *p, size_t len);

#endif /* ZQ_SDP_INTERNAL_H */
