/**
 * @file config.h
 * @brief Compile-time capacities and defaults of zq, in one place.
 *
 * Every capacity of zq is a macro here. To change one, define it in your own header and build
 * with `-DZQ_CONFIG_FILE="my_zq_config.h"` (or define it on the command line): your values are
 * read first, and each `#ifndef` below only fills in what you left out. The `_Static_assert`s
 * at the end reject combinations that cannot work, at compile time, with the reason.
 *
 * Nothing in zq allocates: each capacity below becomes an array inside a caller-owned context,
 * and running out of one is an ordinary error (ZQ_ERR_CAPACITY), never a crash.
 */
#ifndef ZQ_CONFIG_H
#define ZQ_CONFIG_H

#if defined(ZQ_CONFIG_FILE)
#include ZQ_CONFIG_FILE
#endif

/* ---- Logging ------------------------------------------------------------------------------ */

/** 0 = off (every log macro compiles to nothing), 1 = errors, 2 = warnings, 3 = info, 4 = debug. */
#ifndef ZQ_LOG_LEVEL
#define ZQ_LOG_LEVEL 0
#endif

/** Longest formatted log line, in bytes, including the terminating NUL (a stack buffer). */
#ifndef ZQ_LOG_LINE_MAX
#define ZQ_LOG_LINE_MAX 160
#endif

/* ---- UDP ---------------------------------------------------------------------------------- */

/** Largest UDP datagram zq sends or accepts. Longer datagrams are dropped and counted. */
#ifndef ZQ_UDP_MAX_DATAGRAM
#define ZQ_UDP_MAX_DATAGRAM 1500
#endif

/** Largest DTLS record datagram zq sends (the DTLS "MTU"): 1200 keeps clear of IPv6 and tunnels. */
#ifndef ZQ_DTLS_MTU
#define ZQ_DTLS_MTU 1200
#endif

/* ---- STUN (RFC 8489) ---------------------------------------------------------------------- */

/** Largest STUN message zq builds. Requests carry USERNAME (two ufrags), PRIORITY, a role
 *  attribute, USE-CANDIDATE, MESSAGE-INTEGRITY and FINGERPRINT; see the assert below. */
#ifndef ZQ_STUN_MAX_MESSAGE
#define ZQ_STUN_MAX_MESSAGE 160
#endif

/** Unknown comprehension-required attributes remembered per message (for a 420 answer). */
#ifndef ZQ_STUN_MAX_UNKNOWN_ATTRS
#define ZQ_STUN_MAX_UNKNOWN_ATTRS 8
#endif

/** 1: STUN's FINGERPRINT CRC-32 (core/crc32.c) takes a byte at a time from a 1 KiB table;
 *  0: a nibble at a time from a 64-byte one, half the speed over messages of ~100 bytes, for a
 *  device that counts its flash (tools/footprint/device_config.h). */
#ifndef ZQ_CRC32_BYTE_TABLE
#define ZQ_CRC32_BYTE_TABLE 1
#endif

/* ---- ICE (RFC 8445) ----------------------------------------------------------------------- */

/** Longest ICE username fragment accepted or generated (RFC 8839 allows 4..256 characters). */
#ifndef ZQ_ICE_UFRAG_MAX
#define ZQ_ICE_UFRAG_MAX 32
#endif

/** Longest ICE password accepted or generated (RFC 8839 allows 22..256 characters). */
#ifndef ZQ_ICE_PWD_MAX
#define ZQ_ICE_PWD_MAX 64
#endif

/** Local candidates per agent: host candidates plus server-reflexive and peer-reflexive ones. */
#ifndef ZQ_ICE_MAX_LOCAL_CANDIDATES
#define ZQ_ICE_MAX_LOCAL_CANDIDATES 4
#endif

/** Remote candidates per agent, signalled or learned as peer-reflexive (RFC 8445 §7.3.1.3). */
#ifndef ZQ_ICE_MAX_REMOTE_CANDIDATES
#define ZQ_ICE_MAX_REMOTE_CANDIDATES 8
#endif

/** Candidate pairs per agent (the check list plus the valid list, RFC 8445 §6.1.2). */
#ifndef ZQ_ICE_MAX_PAIRS
#define ZQ_ICE_MAX_PAIRS 16
#endif

/** Outstanding STUN transactions per agent (checks, consent, server-reflexive gathering). */
#ifndef ZQ_ICE_MAX_TRANSACTIONS
#define ZQ_ICE_MAX_TRANSACTIONS 8
#endif

/** Datagrams an agent can hold between an input and the caller draining them. */
#ifndef ZQ_ICE_TX_QUEUE
#define ZQ_ICE_TX_QUEUE 4
#endif

/** Events an agent can hold between an input and the caller draining them. */
#ifndef ZQ_ICE_EVENT_QUEUE
#define ZQ_ICE_EVENT_QUEUE 8
#endif

/** Longest candidate foundation (RFC 8445 §5.1.1.3: 1 to 32 ice-chars). */
#define ZQ_ICE_FOUNDATION_MAX 32

/* ---- Cross-checks ------------------------------------------------------------------------- */

_Static_assert(ZQ_LOG_LEVEL >= 0 && ZQ_LOG_LEVEL <= 4, "ZQ_LOG_LEVEL must be 0..4");
_Static_assert(ZQ_LOG_LINE_MAX >= 32, "ZQ_LOG_LINE_MAX is too small to hold a useful line");
_Static_assert(ZQ_UDP_MAX_DATAGRAM >= 576 && ZQ_UDP_MAX_DATAGRAM <= 65507,
               "ZQ_UDP_MAX_DATAGRAM must be between the IPv4 minimum and the UDP maximum");
_Static_assert(ZQ_DTLS_MTU <= ZQ_UDP_MAX_DATAGRAM, "a DTLS datagram must fit a UDP datagram");
_Static_assert(ZQ_STUN_MAX_MESSAGE <= ZQ_UDP_MAX_DATAGRAM, "a STUN message must fit a datagram");
_Static_assert(ZQ_STUN_MAX_MESSAGE % 4 == 0, "STUN messages are multiples of 4 bytes");
_Static_assert(ZQ_ICE_UFRAG_MAX >= 4 && ZQ_ICE_PWD_MAX >= 22,
               "RFC 8839 §5.4: a ufrag has at least 4 characters and a password at least 22");
/* The largest request zq builds: header 20, USERNAME "remote:local" padded, PRIORITY 8,
 * ICE-CONTROLLING 12, USE-CANDIDATE 4, MESSAGE-INTEGRITY 24, FINGERPRINT 8. */
_Static_assert(20 + 4 + ((2 * ZQ_ICE_UFRAG_MAX + 1 + 3) / 4) * 4 + 8 + 12 + 4 + 24 + 8 <=
                   ZQ_STUN_MAX_MESSAGE,
               "ZQ_STUN_MAX_MESSAGE cannot hold a connectivity check with the longest ufrags");
_Static_assert(ZQ_ICE_MAX_LOCAL_CANDIDATES >= 1 && ZQ_ICE_MAX_REMOTE_CANDIDATES >= 1,
               "an ICE agent needs room for at least one candidate on each side");
_Static_assert(ZQ_ICE_MAX_PAIRS >= 1 && ZQ_ICE_MAX_PAIRS <= 255, "pairs are indexed by a byte");
_Static_assert(ZQ_ICE_MAX_LOCAL_CANDIDATES <= 255 && ZQ_ICE_MAX_REMOTE_CANDIDATES <= 255,
               "candidates are indexed by a byte");
_Static_assert(ZQ_ICE_MAX_TRANSACTIONS >= 2, "an agent needs a check and a consent transaction");
_Static_assert(ZQ_ICE_TX_QUEUE >= 2, "one input can produce a response and a triggered check");

#endif /* ZQ_CONFIG_H */
