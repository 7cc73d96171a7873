/**
 * @file dedup.h
 * @brief A bounded window of recently seen message keys (PROTOCOL.md §9): delivers each message
 *        once. Keys are 64-bit hashes of (sender identity, id, retryCount); the window forgets
 *        the oldest key when full (first in, first out, as ZeroQ's 10,000-key window).
 *
 * O(1) insert and lookup: an open-addressing table of twice the window's size over a FIFO of
 * the keys in insertion order. No allocation: the caller's struct holds both.
 */
#ifndef ZQ_BRK_DEDUP_H
#define ZQ_BRK_DEDUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zq/config.h"

typedef struct {
    uint64_t fifo[ZQ_BRK_DEDUP_WINDOW];      /* keys in insertion order (a ring) */
    uint64_t table[2 * ZQ_BRK_DEDUP_WINDOW]; /* open addressing; 0 = empty, 1 = deleted */
    uint64_t seed;                           /* secret: mixed into each key's home slot */
    uint32_t head;                           /* oldest key's slot in fifo */
    uint32_t count;
} brk_dedup_t;

/** An empty window. @p seed should be random and kept secret (the broker draws it at init):
 *  it decides where keys live in the table, so that no sender can crowd one slot. */
void brk_dedup_init(brk_dedup_t *d, uint64_t seed);

/** The key of a message: a 64-bit hash (FNV-1a 64 or better, well mixed; never 0 or 1) of the
 *  sender's identity bytes, the id bytes and the retry count. */
uint64_t brk_dedup_key(const uint8_t *identity, size_t identity_len, const char *id,
                       size_t id_len, uint32_t retry_count);

/** Records @p key; returns true if it was already in the window (a duplicate: drop it), false
 *  if new (deliver it). When the window is full the oldest key is forgotten. */
bool brk_dedup_seen(brk_dedup_t *d, uint64_t key);

#endif /* ZQ_BRK_DEDUP_H */
