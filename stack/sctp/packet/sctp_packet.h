/**
 * @file sctp_packet.h
 * @brief SCTP packets and chunks (RFC 9260 §3 and extensions): parse and serialize, no state.
 *
 * A packet is a 12-byte common header and a run of chunks, each padded to 4 bytes:
 *
 *      0                   1                   2                   3
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |     Source Port Number        |     Destination Port Number   |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |                      Verification Tag                         |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |                           Checksum (CRC32c)                   |
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     |   Chunk Type  | Chunk  Flags  |        Chunk Length           |  } repeated
 *     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     \                         Chunk Value                           /
 *
 * Each chunk type has its own file in this folder with its RFC diagram, a parse function that
 * reads a sctp_chunk_t (bounded: every length is checked before use) into a plain struct whose
 * pointers borrow the packet, and a write function that appends the chunk to a zq_writer_t
 * (sticky failure when it does not fit). Parameters inside INIT/INIT-ACK and RE-CONFIG, and
 * error causes, are TLVs with the same 4-byte padding.
 */
#ifndef ZQ_SCTP_PACKET_H
#define ZQ_SCTP_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zq/bytes.h"
#include "zq/config.h"
#include "zq/err.h"

#define SCTP_COMMON_HEADER_LEN 12
#define SCTP_CHUNK_HEADER_LEN 4
#define SCTP_DATA_HEADER_LEN 16 /* chunk header + TSN, stream, SSN, PPID */

/* Chunk types (RFC 9260 §3.2, RFC 3758, RFC 6525). */
enum {
    SCTP_CHUNK_DATA = 0,
    SCTP_CHUNK_INIT = 1,
    SCTP_CHUNK_INIT_ACK = 2,
    SCTP_CHUNK_SACK = 3,
    SCTP_CHUNK_HEARTBEAT = 4,
    SCTP_CHUNK_HEARTBEAT_ACK = 5,
    SCTP_CHUNK_ABORT = 6,
    SCTP_CHUNK_SHUTDOWN = 7,
    SCTP_CHUNK_SHUTDOWN_ACK = 8,
    SCTP_CHUNK_ERROR = 9,
    SCTP_CHUNK_COOKIE_ECHO = 10,
    SCTP_CHUNK_COOKIE_ACK = 11,
    SCTP_CHUNK_SHUTDOWN_COMPLETE = 14,
    SCTP_CHUNK_RE_CONFIG = 130,
    SCTP_CHUNK_FORWARD_TSN = 192,
};

/* DATA chunk flags (RFC 9260 §3.3.1, RFC 7053 I bit). */
enum {
    SCTP_DATA_END = 0x01,
    SCTP_DATA_BEGIN = 0x02,
    SCTP_DATA_UNORDERED = 0x04,
    SCTP_DATA_IMMEDIATE = 0x08,
};

/* The T bit of ABORT and SHUTDOWN COMPLETE: the tag is the receiver's, reflected. */
#define SCTP_FLAG_T 0x01

/* INIT/INIT-ACK parameter types (RFC 9260 §3.3.2, RFC 3758, RFC 5061, RFC 6525). */
enum {
    SCTP_PARAM_HEARTBEAT_INFO = 1,
    SCTP_PARAM_IPV4 = 5,
    SCTP_PARAM_IPV6 = 6,
    SCTP_PARAM_STATE_COOKIE = 7,
    SCTP_PARAM_UNRECOGNIZED = 8,
    SCTP_PARAM_COOKIE_PRESERVATIVE = 9,
    SCTP_PARAM_SUPPORTED_ADDRESS_TYPES = 12,
    SCTP_PARAM_OUTGOING_RESET_REQUEST = 13,
    SCTP_PARAM_INCOMING_RESET_REQUEST = 14,
    SCTP_PARAM_SSN_TSN_RESET_REQUEST = 15,
    SCTP_PARAM_RECONFIG_RESPONSE = 16,
    SCTP_PARAM_ADD_OUTGOING_STREAMS = 17,
    SCTP_PARAM_ADD_INCOMING_STREAMS = 18,
    SCTP_PARAM_ECN_CAPABLE = 0x8000,
    SCTP_PARAM_ZERO_CHECKSUM_ACCEPTABLE = 0x8001, /* RFC 9653 */
    SCTP_PARAM_RANDOM = 0x8002,                   /* RFC 4895 (AUTH) */
    SCTP_PARAM_CHUNK_LIST = 0x8003,               /* RFC 4895 */
    SCTP_PARAM_HMAC_ALGO = 0x8004,                /* RFC 4895 */
    SCTP_PARAM_PADDING = 0x8005,                  /* RFC 4820 */
    SCTP_PARAM_SUPPORTED_EXTENSIONS = 0x8008,
    SCTP_PARAM_FORWARD_TSN_SUPPORTED = 0xC000,
    SCTP_PARAM_ADAPTATION_LAYER = 0xC006,         /* RFC 5061 */
};

/* Error cause codes (RFC 9260 §3.3.10). */
enum {
    SCTP_CAUSE_INVALID_STREAM = 1,
    SCTP_CAUSE_MISSING_PARAM = 2,
    SCTP_CAUSE_STALE_COOKIE = 3,
    SCTP_CAUSE_OUT_OF_RESOURCE = 4,
    SCTP_CAUSE_UNRECOGNIZED_CHUNK = 6,
    SCTP_CAUSE_INVALID_PARAM = 7,
    SCTP_CAUSE_UNRECOGNIZED_PARAMS = 8,
    SCTP_CAUSE_NO_USER_DATA = 9,
    SCTP_CAUSE_USER_ABORT = 12,
    SCTP_CAUSE_PROTOCOL_VIOLATION = 13,
};

/* RE-CONFIG response results (RFC 6525 §4.4). */
enum {
    SCTP_RECONFIG_SUCCESS_NOTHING = 0,
    SCTP_RECONFIG_SUCCESS_PERFORMED = 1,
    SCTP_RECONFIG_DENIED = 2,
    SCTP_RECONFIG_ERROR_WRONG_SSN = 3,
    SCTP_RECONFIG_ERROR_IN_PROGRESS = 4,
    SCTP_RECONFIG_ERROR_BAD_SEQUENCE = 5,
    SCTP_RECONFIG_IN_PROGRESS = 6,
};

/* ---- Packets and the chunk walk ---------------------------------------------------------- */

typedef struct {
    uint16_t src_port;
    uint16_t dst_port;
    uint32_t vtag;
    uint32_t checksum; /**< the CRC32c as sctp_crc32c() returns it (read least significant byte
                            first, Appendix B), whether or not it was checked */
} sctp_common_header_t;

/** One chunk as found in a packet. @c value borrows the packet. */
typedef struct {
    uint8_t type;
    uint8_t flags;
    uint16_t length;      /**< as on the wire: header + value, without padding */
    const uint8_t *value; /**< length - 4 bytes */
    size_t value_len;
} sctp_chunk_t;

/**
 * RFC 9260 Appendix B: CRC32c (Castagnoli, reflected polynomial 0x82F63B78, initial value and
 * final XOR 0xFFFFFFFF), e.g. 0xE3069283 for "123456789". The packet code stores the result
 * least significant byte first (Appendix B's byte swap followed by a network-order store), the
 * way iSCSI (RFC 3720 B.4) does: callers never deal with that order themselves.
 */
uint32_t sctp_crc32c(const uint8_t *data, size_t len);
/** Continues a CRC32c over more bytes: sctp_crc32c_update(sctp_crc32c(a, n), b, m) is the CRC
 *  of a then b; sctp_crc32c_update(0, d, n) == sctp_crc32c(d, n). (Added: the packet check
 *  runs over the header with its checksum field as zeros without copying the packet.) */
uint32_t sctp_crc32c_update(uint32_t crc, const uint8_t *data, size_t len);
/** The same with the portable table code, whatever the CPU has (for tests and benches). */
uint32_t sctp_crc32c_update_portable(uint32_t crc, const uint8_t *data, size_t len);
/** Whether sctp_crc32c() runs on the CPU's CRC32c instruction here (SSE4.2, ARMv8 CRC). */
bool sctp_crc32c_hardware(void);

/**
 * Reads the common header and checks the CRC32c (skipped if @p check_crc is false).
 * @p header is filled in even when the check fails; @p chunks is set to the bytes after the
 * header on ZQ_OK (to an empty reader otherwise). The length need not be a multiple of 4: a
 * sender must pad every chunk (§3.2) but a missing final padding is accepted, as usrsctp and
 * Linux do; any other framing error is reported by sctp_packet_next_chunk().
 * @return ZQ_OK; ZQ_ERR_TRUNCATED (shorter than the header); ZQ_ERR_INTEGRITY (bad checksum).
 */
zq_err_t sctp_packet_parse(const uint8_t *packet, size_t len, bool check_crc,
                           sctp_common_header_t *header, zq_reader_t *chunks);

/**
 * Takes the next chunk from @p chunks (positioned after the common header), and its padding.
 * Padding bytes are ignored (§3.2: the receiver MUST ignore them); the final chunk's padding
 * may be missing. The walk does not look at chunk types: the caller switches on @c type and
 * applies §3.2's top-two-bits rule to types it does not know.
 * @return ZQ_OK with @p chunk set; ZQ_ERR_NOT_FOUND at the end; ZQ_ERR_MALFORMED if a length
 *         is below 4, runs past the packet, or 1-3 stray bytes follow the last chunk's padding
 *         (sticky: the rest of the packet must then be dropped).
 */
zq_err_t sctp_packet_next_chunk(zq_reader_t *chunks, sctp_chunk_t *chunk);

/** A packet being built in a caller buffer. */
typedef struct {
    zq_writer_t w;
} sctp_packet_builder_t;

void sctp_packet_begin(sctp_packet_builder_t *b, uint8_t *buf, size_t cap, uint16_t src_port,
                       uint16_t dst_port, uint32_t vtag);
/** Bytes left for more chunks. */
size_t sctp_packet_space(const sctp_packet_builder_t *b);
/** Pads to 4 bytes and fills in the CRC32c (it may be called again after more chunks).
 *  @return the packet's length, or 0 if anything did not fit. */
size_t sctp_packet_finish(sctp_packet_builder_t *b);

/** Writes a chunk header; @p value_len excludes padding (over 65531 fails the writer). Used by
 *  every chunk writer. Every chunk writer below fails the writer (sticky) rather than write
 *  past its end; after a failure the bytes written so far are garbage. */
void sctp_chunk_write_header(zq_writer_t *w, uint8_t type, uint8_t flags, size_t value_len);
/** Pads the writer to a multiple of 4 with zeros (after a chunk, parameter or cause). */
void sctp_write_padding(zq_writer_t *w);

/* ---- TLV parameters and error causes ------------------------------------------------------ */

/** A parameter or error cause: type, value (borrowed), the value's length. */
typedef struct {
    uint16_t type;
    const uint8_t *value;
    size_t len;
} sctp_tlv_t;

/** Takes the next 4-byte-aligned TLV, as sctp_packet_next_chunk() takes chunks: padding
 *  ignored, the last TLV's padding may be missing (§3.2: a chunk's Length may or may not count
 *  it). Start with zq_reader(chunk.value, chunk.value_len) or a parameter's value.
 *  @return ZQ_OK, ZQ_ERR_NOT_FOUND at the end, ZQ_ERR_MALFORMED on a bad length (sticky). */
zq_err_t sctp_tlv_next(zq_reader_t *r, sctp_tlv_t *tlv);
/** Appends a TLV with padding. */
void sctp_tlv_write(zq_writer_t *w, uint16_t type, const void *value, size_t len);
/** Appends only a TLV header announcing @p len bytes of value (added: for values written piece
 *  by piece); the caller writes the value, then zq_write_fill(w, 0, sctp_padding(len)). */
void sctp_tlv_write_header(zq_writer_t *w, uint16_t type, size_t len);
/** Padding bytes after @p len bytes to reach a multiple of 4 (added). */
static inline size_t sctp_padding(size_t len)
{
    return (4u - len % 4u) % 4u;
}

/* ---- DATA (RFC 9260 §3.3.1) --------------------------------------------------------------- */

typedef struct {
    uint8_t flags; /**< SCTP_DATA_* */
    uint32_t tsn;
    uint16_t stream;
    uint16_t ssn;
    uint32_t ppid;
    const uint8_t *data;
    size_t len;
} sctp_data_chunk_t;

/** @return ZQ_OK, ZQ_ERR_MALFORMED (shorter than its header); a chunk with no user data
 *  parses (len 0): the association answers it with a "No User Data" error. */
zq_err_t sctp_data_parse(const sctp_chunk_t *c, sctp_data_chunk_t *out);
void sctp_data_write(zq_writer_t *w, const sctp_data_chunk_t *d);
/** Bytes a DATA chunk with @p payload bytes takes in a packet, padding included. */
size_t sctp_data_size(size_t payload);

/* ---- INIT and INIT ACK (RFC 9260 §3.3.2, §3.3.3) ------------------------------------------ */

typedef struct {
    uint32_t initiate_tag;
    uint32_t a_rwnd;
    uint16_t outbound_streams;
    uint16_t inbound_streams;
    uint32_t initial_tsn;
    /* What the peer supports (from Supported Extensions or the dedicated parameters). */
    bool forward_tsn; /**< RFC 3758: FORWARD-TSN-Supported, or FORWARD-TSN in the list */
    bool reconfig;    /**< RFC 6525: RE-CONFIG in Supported Extensions */
    /** INIT ACK: the State Cookie parameter (borrowed). */
    const uint8_t *cookie;
    size_t cookie_len;
    /** Unknown parameters whose type asks for a report (RFC 9260 §3.2.1, bit 14 set), borrowed:
     *  the span of the chunk from the first such parameter to the end of the last one. Those
     *  to report need not be adjacent, so the span may also hold parameters not to report:
     *  take the reported ones out with sctp_init_next_unrecognized() (sctp_init_write() echoes
     *  them that way). NULL/0: nothing to report. */
    const uint8_t *unrecognized;
    size_t unrecognized_len;
} sctp_init_chunk_t;

/**
 * Parses INIT or INIT ACK (same layout). Unknown parameters are handled by their type's top
 * two bits (§3.2.1): 00 stop reading parameters, 01 stop and report, 10 skip, 11 skip and
 * report. Known parameters zq has no use for (addresses, Supported Address Types, Cookie
 * Preservative, ECN, AUTH's Random/Chunk List/HMAC-Algorithm, Padding, Adaptation Layer
 * Indication, Zero Checksum Acceptable, Unrecognized Parameter) are skipped. The first State
 * Cookie counts. Zero stream counts parse: §3.3.2 has the association answer them with ABORT.
 * @return ZQ_OK or ZQ_ERR_MALFORMED (fixed part missing, bad parameter length, or a
 * zero Initiate Tag, §3.3.2).
 */
zq_err_t sctp_init_parse(const sctp_chunk_t *c, sctp_init_chunk_t *out);

/**
 * Takes the next parameter to report out of an @c unrecognized span (added). Start with
 * zq_reader(init.unrecognized, init.unrecognized_len).
 * @param tlv     the whole parameter as received (type, length, value; no padding), borrowed:
 *                the value of one Unrecognized Parameter (INIT ACK, §3.3.3) or of an
 *                Unrecognized Parameters error cause (§3.3.10.8)
 * @return ZQ_OK, ZQ_ERR_NOT_FOUND at the end, ZQ_ERR_MALFORMED if the span is not TLVs.
 */
zq_err_t sctp_init_next_unrecognized(zq_reader_t *r, const uint8_t **tlv, size_t *tlv_len);

/**
 * Writes an INIT (@p type SCTP_CHUNK_INIT) or INIT ACK: the fixed part, Supported Extensions
 * (FORWARD-TSN and RE-CONFIG when set), Forward-TSN-Supported (when set), the State Cookie
 * (when cookie_len > 0: set it for INIT ACK only) and each parameter of the unrecognized span
 * that asks for a report, in its own Unrecognized Parameter (INIT ACK only, §3.3.3). The
 * Length leaves out the last parameter's padding (§3.2), as usrsctp and dcSCTP do.
 */
void sctp_init_write(zq_writer_t *w, uint8_t type, const sctp_init_chunk_t *init);

/* ---- SACK (RFC 9260 §3.3.4) ---------------------------------------------------------------- */

typedef struct {
    uint16_t start; /**< offsets from the cumulative TSN ack */
    uint16_t end;
} sctp_gap_block_t;

typedef struct {
    uint32_t cum_tsn;
    uint32_t a_rwnd;
    uint16_t n_gaps;                              /**< kept below (what the peer sent may be more) */
    uint16_t n_dups;
    sctp_gap_block_t gaps[ZQ_SCTP_MAX_GAP_BLOCKS];
    uint32_t dups[ZQ_SCTP_MAX_DUP_TSNS];
    bool truncated;                               /**< more blocks or dups than kept */
} sctp_sack_chunk_t;

/** @return ZQ_OK or ZQ_ERR_MALFORMED (fixed part missing, or the counts of gap blocks and
 *  duplicate TSNs not matching the chunk's length exactly). */
zq_err_t sctp_sack_parse(const sctp_chunk_t *c, sctp_sack_chunk_t *out);
/** Writes n_gaps blocks and n_dups TSNs (more than the arrays hold fails the writer). */
void sctp_sack_write(zq_writer_t *w, const sctp_sack_chunk_t *s);

/* ---- HEARTBEAT and HEARTBEAT ACK (§3.3.5, §3.3.6) ------------------------------------------ */

/** The Heartbeat Info parameter's value, which the peer echoes untouched. HEARTBEAT and
 *  HEARTBEAT ACK alike. @return ZQ_OK, or ZQ_ERR_MALFORMED when the first parameter is not a
 *  well-formed Heartbeat Info (parameters after it are ignored). */
zq_err_t sctp_heartbeat_parse(const sctp_chunk_t *c, const uint8_t **info, size_t *len);
void sctp_heartbeat_write(zq_writer_t *w, uint8_t type, const uint8_t *info, size_t len);

/* ---- ABORT and ERROR (§3.3.7, §3.3.10) ----------------------------------------------------- */

/** ABORT (with the T flag) or ERROR: error causes follow, walk them with sctp_tlv_next() over
 *  the chunk's value. To write one: the header with @p causes_len, the sum of sctp_cause_size()
 *  of the causes (that counts the last cause's padding, which §3.2 lets the Length include or
 *  not), then each cause with sctp_cause_write(). */
void sctp_abort_write_header(zq_writer_t *w, bool t_flag, size_t causes_len);
void sctp_error_write_header(zq_writer_t *w, size_t causes_len);
/** One error cause (a TLV with a 16-bit cause code). */
void sctp_cause_write(zq_writer_t *w, uint16_t code, const void *info, size_t len);
/** Bytes a cause with @p len bytes of information takes, padding included. */
size_t sctp_cause_size(size_t len);

/* ---- SHUTDOWN family, COOKIE ECHO/ACK (§3.3.8 - §3.3.13) ------------------------------------ */

/** @return ZQ_OK or ZQ_ERR_MALFORMED (the value is not exactly the 4-byte Cumulative TSN Ack). */
zq_err_t sctp_shutdown_parse(const sctp_chunk_t *c, uint32_t *cum_tsn);
void sctp_shutdown_write(zq_writer_t *w, uint32_t cum_tsn);
/** SHUTDOWN ACK, SHUTDOWN COMPLETE (with T flag), COOKIE ACK: no value. */
void sctp_empty_chunk_write(zq_writer_t *w, uint8_t type, uint8_t flags);
/** COOKIE ECHO: the cookie bytes. (Reading one needs no function: the cookie is the chunk's
 *  value.) */
void sctp_cookie_echo_write(zq_writer_t *w, const uint8_t *cookie, size_t len);

/* ---- FORWARD TSN (RFC 3758 §3.2) ----------------------------------------------------------- */

typedef struct {
    uint16_t stream;
    uint16_t ssn;
} sctp_fwd_stream_t;

typedef struct {
    uint32_t new_cum_tsn;
    uint16_t n_streams;
    sctp_fwd_stream_t streams[ZQ_SCTP_MAX_FWD_STREAMS];
    bool truncated;
} sctp_forward_tsn_chunk_t;

/** @return ZQ_OK or ZQ_ERR_MALFORMED (no New Cumulative TSN, or a partial stream pair). */
zq_err_t sctp_forward_tsn_parse(const sctp_chunk_t *c, sctp_forward_tsn_chunk_t *out);
/** More than ZQ_SCTP_MAX_FWD_STREAMS streams fails the writer. */
void sctp_forward_tsn_write(zq_writer_t *w, const sctp_forward_tsn_chunk_t *f);

/* ---- RE-CONFIG (RFC 6525 §3.1, §4) --------------------------------------------------------- */

typedef enum {
    SCTP_RECONFIG_NONE = 0,
    SCTP_RECONFIG_OUTGOING_RESET, /**< Outgoing SSN Reset Request (§4.1) */
    SCTP_RECONFIG_INCOMING_RESET, /**< Incoming SSN Reset Request (§4.2) */
    SCTP_RECONFIG_RESPONSE,       /**< Re-configuration Response (§4.4) */
    SCTP_RECONFIG_OTHER,          /**< a request zq does not make (§4.3, §4.5, §4.6) */
} sctp_reconfig_kind_t;

typedef struct {
    sctp_reconfig_kind_t kind;
    uint16_t type; /**< the parameter type as on the wire (set by parse; writing goes by kind) */
    uint32_t request_seq;  /**< requests: Re-configuration Request Sequence Number */
    uint32_t response_seq; /**< outgoing request, and responses: Response Sequence Number */
    uint32_t last_tsn;     /**< outgoing request: Sender's Last Assigned TSN */
    uint32_t result;       /**< response */
    uint16_t n_streams;
    uint16_t streams[ZQ_SCTP_MAX_RESET_STREAMS]; /**< empty: all streams */
    bool truncated;
} sctp_reconfig_param_t;

/** A RE-CONFIG chunk carries one or two parameters (§3.1). */
typedef struct {
    uint8_t n_params;
    sctp_reconfig_param_t params[2];
} sctp_reconfig_chunk_t;

/**
 * Parses the one or two parameters. Responses parse with or without the optional Sender's and
 * Receiver's Next TSN (§4.4); those are dropped (they answer SSN/TSN Reset Requests, which zq
 * never makes). Types 15, 17 and 18 parse as SCTP_RECONFIG_OTHER with their request_seq only,
 * so that the association can deny them (§5.2.1). Which combinations of parameters are valid
 * (§3.1) is the association's business.
 * @return ZQ_OK or ZQ_ERR_MALFORMED (no parameter or more than two, an unknown parameter type,
 *         a parameter too short for its fields, or an odd byte in a stream list).
 */
zq_err_t sctp_reconfig_parse(const sctp_chunk_t *c, sctp_reconfig_chunk_t *out);
/** Writes outgoing and incoming reset requests and responses (the 12-byte parameter, without
 *  the optional TSNs). SCTP_RECONFIG_OTHER/NONE, n_params not 1 or 2, or more than
 *  ZQ_SCTP_MAX_RESET_STREAMS streams fail the writer. */
void sctp_reconfig_write(zq_writer_t *w, const sctp_reconfig_chunk_t *r);

#endif /* ZQ_SCTP_PACKET_H */
