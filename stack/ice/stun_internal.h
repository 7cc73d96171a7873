/* Shared between the STUN parser and builder; not part of the public API. */
#ifndef ZQ_STUN_INTERNAL_H
#define ZQ_STUN_INTERNAL_H

#include "stack/ice/stun.h"

/** Decodes a (XOR-)MAPPED-ADDRESS value; @p xored selects the XOR form. */
zq_err_t stun_decode_address(const uint8_t *value, size_t len, bool xored,
                             const uint8_t tid[STUN_TID_LEN], zq_addr_t *out);

#endif
