/**
 * @file replay_ring.h
 * @brief A publisher's recent messages in one caller buffer (PROTOCOL.md §5, §7): the replay
 *        ring for late or returning subscribers, and the store of QoS 1 messages not yet
 *        acknowledged by every receiver. No allocation.
 *
 * Entries are appended in seq order (seq strictly increasing) and removed only from the
 * oldest end. Each entry holds its seq, a 32-bit mask of the receivers (peer slots) that still
 * owe an ack, and the message's frame text (the envelope exactly as sent, so a replay or a
 * resend is a copy). Making room evicts the oldest entries whose mask is 0; an entry still
 * owed an ack stops eviction there, and the append fails with ZQ_ERR_WOULD_BLOCK: that is the
 * publisher's high-water mark.
 */
#ifndef ZQ_BRK_REPLAY_RING_H
#define ZQ_BRK_REPLAY_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zq/err.h"

typedef struct {
    uint64_t seq;
    uint32_t pending;  /**< receivers that owe an ack (bit = peer slot) */
    const char *text;  /**< the frame text, inside the ring's buffer */
    uint32_t len;
} brk_ring_entry_t;

typedef struct {
    uint8_t *buf;   /* the caller's */
    uint32_t cap;
    uint32_t head;  /* offset of the oldest entry */
    uint32_t tail;  /* offset where the next entry goes */
    uint32_t used;  /* bytes in use, headers and padding included */
    uint32_t count; /* entries */
    uint64_t first_seq; /* oldest entry's seq (0 when empty) */
    uint64_t last_seq;  /* newest entry's seq (0 when none was ever appended) */
} brk_ring_t;

/** Uses @p buf (@p cap bytes, 4-byte aligned) for the ring. */
void brk_ring_init(brk_ring_t *r, uint8_t *buf, uint32_t cap);

/**
 * Appends the message @p seq (greater than every earlier one) with its frame @p text and the
 * receivers @p pending that must ack it, evicting the oldest acknowledged entries as needed.
 * @return ZQ_OK; ZQ_ERR_WOULD_BLOCK (the room is held by entries still owed acks);
 *         ZQ_ERR_TOO_LONG (the text could never fit the ring); ZQ_ERR_INVALID_ARG (seq not
 *         increasing).
 */
zq_err_t brk_ring_append(brk_ring_t *r, uint64_t seq, const char *text, uint32_t len,
                         uint32_t pending);

/** Clears @p receivers' bits in every entry with seq <= @p upto (an ack). */
void brk_ring_ack(brk_ring_t *r, uint32_t receivers, uint64_t upto);

/** Clears @p receivers' bits everywhere (a receiver given up on). @return how many entries
 *  that receiver still owed. */
uint32_t brk_ring_forget(brk_ring_t *r, uint32_t receivers);

/** Whether an append of @p len bytes would succeed now. */
bool brk_ring_has_room(const brk_ring_t *r, uint32_t len);

/** Walks the entries oldest first: start with @p cursor 0; returns false at the end. Entries
 *  stay valid until the next append. */
bool brk_ring_next(const brk_ring_t *r, uint32_t *cursor, brk_ring_entry_t *out);

/** The first entry with seq > @p after (for a resume), as a cursor for brk_ring_next();
 *  false if none. */
bool brk_ring_find_after(const brk_ring_t *r, uint64_t after, uint32_t *cursor);

#endif /* ZQ_BRK_REPLAY_RING_H */
