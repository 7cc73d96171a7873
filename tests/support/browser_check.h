/* A browser's ICE connectivity check (RFC 8445 §7.1.1), for the tests and benches that feed
 * one to a node: USERNAME "<ufrag>:Brws", PRIORITY, ICE-CONTROLLING, MESSAGE-INTEGRITY with the
 * agent's password, FINGERPRINT; a fixed transaction id. */
#ifndef ZQ_TEST_BROWSER_CHECK_H
#define ZQ_TEST_BROWSER_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "stack/ice/ice.h"

/** Writes the check to the agent with @p cred into @p buf. @return its length, 0 if no fit. */
size_t browser_check(const ice_credentials_t *cred, uint8_t *buf, size_t cap);

#endif
