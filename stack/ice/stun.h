/**
 * @file stun.h
 * @brief STUN (RFC 8489) messages: a bounded parser and a builder, for what ICE needs.
 *
 * Every STUN message is a 20-byte header and a run of type-length-value attributes
 * (RFC 8489 §5, §14):
 *
 *      0                   1                   2                   3
 *      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |0 0|     STUN Message Type     |         Message Length        |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |                         Magic Cookie                          |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |                     Transaction ID (96 bits)                  |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |         Type                  |            Length             |  } each attribute,
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+  } padded to 4 bytes
 *     |                         Value (variable)                ....
 *
 * Parsing does not authenticate. stun_parse() checks the structure and, when present, the
 * FINGERPRINT; the caller then calls stun_verify_integrity() with the right key before it
 * believes any value. Parsed values point into the caller's datagram and live as long as it.
 */
#ifndef ZQ_STUN_H
#define ZQ_STUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zq/addr.h"
#include "zq/bytes.h"
#include "zq/config.h"
#include "zq/err.h"

#define STUN_HEADER_LEN 20
#define STUN_MAGIC_COOKIE 0x2112A442u
#define STUN_TID_LEN 12
#define STUN_INTEGRITY_LEN 20
/* RFC 8489 §14.3: USERNAME is less than 513 bytes. */
#define STUN_USERNAME_MAX 512
/* RFC 8489 §14.8: the reason phrase is less than 128 characters (up to 763 bytes of UTF-8). */
#define STUN_REASON_MAX 763

/* Message types: the Binding method (0x001) in each class (RFC 8489 §5, §18.2). */
enum {
    STUN_BINDING_REQUEST = 0x0001,
    STUN_BINDING_INDICATION = 0x0011,
    STUN_BINDING_SUCCESS = 0x0101,
    STUN_BINDING_ERROR = 0x0111,
};

/* Attribute types (RFC 8489 §18.3, RFC 8445 §16.1). Below 0x8000 is comprehension-required. */
enum {
    STUN_ATTR_MAPPED_ADDRESS = 0x0001,
    STUN_ATTR_USERNAME = 0x0006,
    STUN_ATTR_MESSAGE_INTEGRITY = 0x0008,
    STUN_ATTR_ERROR_CODE = 0x0009,
    STUN_ATTR_UNKNOWN_ATTRIBUTES = 0x000A,
    STUN_ATTR_REALM = 0x0014,
    STUN_ATTR_NONCE = 0x0015,
    STUN_ATTR_XOR_MAPPED_ADDRESS = 0x0020,
    STUN_ATTR_PRIORITY = 0x0024,
    STUN_ATTR_USE_CANDIDATE = 0x0025,
    STUN_ATTR_SOFTWARE = 0x8022,
    STUN_ATTR_ALTERNATE_SERVER = 0x8023,
    STUN_ATTR_FINGERPRINT = 0x8028,
    STUN_ATTR_ICE_CONTROLLED = 0x8029,
    STUN_ATTR_ICE_CONTROLLING = 0x802A,
};

/* Error codes used by zq (RFC 8489 §14.8, RFC 8445 §7.3.1.1). */
enum {
    STUN_ERROR_BAD_REQUEST = 400,
    STUN_ERROR_UNAUTHORIZED = 401,
    STUN_ERROR_UNKNOWN_ATTRIBUTE = 420,
    STUN_ERROR_ROLE_CONFLICT = 487,
    STUN_ERROR_SERVER_ERROR = 500,
};

/* Which attributes a parsed message carried: bits of stun_msg_t.present. */
enum {
    STUN_HAS_USERNAME = 1u << 0,
    STUN_HAS_MESSAGE_INTEGRITY = 1u << 1,
    STUN_HAS_FINGERPRINT = 1u << 2,
    STUN_HAS_XOR_MAPPED_ADDRESS = 1u << 3,
    STUN_HAS_MAPPED_ADDRESS = 1u << 4,
    STUN_HAS_PRIORITY = 1u << 5,
    STUN_HAS_USE_CANDIDATE = 1u << 6,
    STUN_HAS_ICE_CONTROLLING = 1u << 7,
    STUN_HAS_ICE_CONTROLLED = 1u << 8,
    STUN_HAS_ERROR_CODE = 1u << 9,
    STUN_HAS_UNKNOWN_ATTRIBUTES = 1u << 10,
    STUN_HAS_REALM = 1u << 11,
    STUN_HAS_NONCE = 1u << 12,
    STUN_HAS_SOFTWARE = 1u << 13,
};

/** A borrowed byte string inside a parsed message. */
typedef struct {
    const uint8_t *data;
    uint16_t len;
} stun_bytes_t;

/** A parsed STUN message. Pointers borrow the datagram given to stun_parse(). */
typedef struct {
    uint16_t type;                 /**< STUN_BINDING_* or another method/class */
    uint8_t tid[STUN_TID_LEN];     /**< transaction id */
    const uint8_t *raw;            /**< the whole message */
    size_t raw_len;                /**< its length: the datagram's */
    uint32_t present;              /**< STUN_HAS_* bits */
    size_t integrity_offset;       /**< offset of the MESSAGE-INTEGRITY attribute header */
    stun_bytes_t username;         /**< USERNAME */
    stun_bytes_t realm;            /**< REALM (long-term credentials; not used by ICE) */
    stun_bytes_t nonce;            /**< NONCE (long-term credentials; not used by ICE) */
    stun_bytes_t software;         /**< SOFTWARE, for logs */
    zq_addr_t xor_mapped;          /**< XOR-MAPPED-ADDRESS, decoded */
    zq_addr_t mapped;              /**< MAPPED-ADDRESS (RFC 3489 servers) */
    uint32_t priority;             /**< PRIORITY */
    uint64_t tie_breaker;          /**< ICE-CONTROLLING or ICE-CONTROLLED */
    uint16_t error_code;           /**< ERROR-CODE as class*100 + number */
    stun_bytes_t error_reason;     /**< ERROR-CODE reason phrase */
    /** Comprehension-required attributes this parser does not know (answered with 420). */
    uint16_t unknown_required[ZQ_STUN_MAX_UNKNOWN_ATTRS];
    uint8_t unknown_required_count;   /**< entries stored above */
    bool unknown_required_overflow;   /**< more unknown attributes than could be stored */
    /** UNKNOWN-ATTRIBUTES listed by the peer in its own 420 answer. */
    uint16_t unknown_listed[ZQ_STUN_MAX_UNKNOWN_ATTRS];
    uint8_t unknown_listed_count;
} stun_msg_t;

/** RFC 7983 §7 and RFC 8489 §6.3: could this datagram be STUN (first byte 0..3, cookie)? */
bool stun_looks_like(const uint8_t *buf, size_t len);

/** The method of a message type, its class bits cleared (RFC 8489 §5): a request's type. */
static inline uint16_t stun_method_of(uint16_t type)
{
    return (uint16_t)(type & 0x3EEFu);
}

/** The class bits of a message type: 0 request, 1 indication, 2 success, 3 error. */
static inline unsigned stun_class_of(uint16_t type)
{
    return (unsigned)((type >> 4) & 1u) | (unsigned)((type >> 7) & 2u);
}

/**
 * Parses and checks the structure of one STUN message: header bits, cookie, length, every
 * attribute's bounds, the values of known attributes, and the FINGERPRINT if there is one.
 * Does not check MESSAGE-INTEGRITY (see stun_verify_integrity()).
 *
 * @return ZQ_OK; ZQ_ERR_TRUNCATED (shorter than its header says), ZQ_ERR_MALFORMED (not STUN,
 *         or an attribute that breaks its own rules), ZQ_ERR_FINGERPRINT (CRC mismatch).
 */
zq_err_t stun_parse(stun_msg_t *msg, const uint8_t *buf, size_t len);

/**
 * Checks MESSAGE-INTEGRITY with @p key (for ICE, the password, RFC 8445 §7.2.2).
 * @return ZQ_OK, ZQ_ERR_NOT_FOUND if the message has none, ZQ_ERR_INTEGRITY on mismatch.
 */
zq_err_t stun_verify_integrity(const stun_msg_t *msg, const uint8_t *key, size_t key_len);

/**
 * Computes the HMAC-SHA1 of the message in @p msg up to @p integrity_offset, with the header's
 * length field set as if the message ended right after the MESSAGE-INTEGRITY attribute
 * (RFC 8489 §14.5). Shared by the parser's check and the builder.
 */
void stun_compute_integrity(const uint8_t *msg, size_t integrity_offset, const uint8_t *key,
                            size_t key_len, uint8_t out[STUN_INTEGRITY_LEN]);

/** Decodes a MAPPED-ADDRESS (@p xored false) or XOR-MAPPED-ADDRESS value (RFC 8489 §14.1,
 *  §14.2), or one of TURN's XOR addresses, which share its form (RFC 8656 §18.3, §18.5).
 *  @return ZQ_OK; ZQ_ERR_MALFORMED for a bad family or length. */
zq_err_t stun_decode_address(const uint8_t *value, size_t len, bool xored,
                             const uint8_t tid[STUN_TID_LEN], zq_addr_t *out);

/** RFC 8489 §14.7: CRC-32 of the message before the FINGERPRINT attribute, XOR 0x5354554E. */
uint32_t stun_compute_fingerprint(const uint8_t *msg, size_t fingerprint_offset);

/* ---- Building ---------------------------------------------------------------------------- */

/** A message under construction in a caller buffer. Errors are sticky (see zq_writer_t). */
typedef struct {
    zq_writer_t w;
    uint8_t pad; /**< value of padding bytes: 0 by default (RFC 5769's vectors use 0x20) */
} stun_builder_t;

/** Starts a message of @p type with transaction id @p tid in @p buf. */
void stun_build_start(stun_builder_t *b, uint8_t *buf, size_t cap, uint16_t type,
                      const uint8_t tid[STUN_TID_LEN]);
/** Appends an attribute with an opaque value (padded to 4 bytes). */
void stun_put_attr(stun_builder_t *b, uint16_t type, const void *value, size_t len);
void stun_put_u32(stun_builder_t *b, uint16_t type, uint32_t value);
void stun_put_u64(stun_builder_t *b, uint16_t type, uint64_t value);
/** XOR-MAPPED-ADDRESS (RFC 8489 §14.2), IPv4 or IPv6. */
void stun_put_xor_address(stun_builder_t *b, uint16_t type, const zq_addr_t *addr);
/** ERROR-CODE (RFC 8489 §14.8); @p code is 300..699. */
void stun_put_error_code(stun_builder_t *b, uint16_t code, const char *reason);
/** UNKNOWN-ATTRIBUTES (RFC 8489 §14.9). */
void stun_put_unknown_attributes(stun_builder_t *b, const uint16_t *types, size_t count);
/** MESSAGE-INTEGRITY over everything so far; only FINGERPRINT may follow. */
void stun_put_integrity(stun_builder_t *b, const uint8_t *key, size_t key_len);
/** FINGERPRINT; must be last. */
void stun_put_fingerprint(stun_builder_t *b);
/** Ends the message. @return its length, or 0 if it did not fit the buffer. */
size_t stun_build_finish(const stun_builder_t *b);

/* ---- Client transactions (RFC 8489 §6.2.1) ---------------------------------------------- */

/** When a client transaction over UDP acts next, after its send number @p sends (1 for the
 *  first): requests go at 0, RTO, 3 RTO, 7 RTO... (@p rto doubles after each), and after the
 *  last of @p max_sends (Rc) it fails @p final_wait_factor (Rm) times @p first_rto later.
 *  @p rto holds the current interval (start it at @p first_rto). One schedule for the ICE
 *  agent's checks and `zq stun`'s Binding requests. */
uint64_t stun_next_retransmit(uint64_t now, uint8_t sends, uint8_t max_sends, uint32_t first_rto,
                              uint8_t final_wait_factor, uint32_t *rto);

#endif /* ZQ_STUN_H */
