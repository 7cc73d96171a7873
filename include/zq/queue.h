/**
 * @file queue.h
 * @brief The one event queue of zq: a ring of fixed-size slots over an array the caller owns,
 *        with the same overflow policy in every layer.
 *
 * ICE, DTLS, SCTP, the data channels, the peer, the node and the broker each keep their
 * events in a slot array of their own (its capacity is the layer's ZQ_*_EVENT_QUEUE) beside a
 * zq_queue_t, and reach it through the macros below, which take the slot size and the
 * capacity from the array itself. No allocation; the queue holds no pointer, so a context
 * that holds one may still be copied with memcpy.
 *
 * Overflow: a push onto a full queue is refused. It hands back NULL, leaves every queued event
 * as it was, and is counted (zq_queue_refused(), which each layer exposes), so a caller that
 * did not drain its events between inputs finds out. The pusher fills the slot the push
 * handed back and nothing else: never an index of its own into the array.
 *
 * @code
 * my_event_t *e = ZQ_QUEUE_PUSH(&m->evq, m->events);  // a zeroed slot; NULL: full, counted
 * if (e != NULL) {
 *     e->type = MY_EVENT_OPEN;
 * }
 * const my_event_t *oldest = ZQ_QUEUE_POP(&m->evq, m->events); // NULL when empty
 * if (oldest != NULL) {
 *     *ev = *oldest;                                  // the slot is valid until the next push
 * }
 * @endcode
 */
#ifndef ZQ_QUEUE_H
#define ZQ_QUEUE_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint16_t head;    /* the oldest slot */
    uint16_t count;   /* slots in use */
    uint32_t refused; /* pushes refused because every slot was in use */
} zq_queue_t;

/** The next free slot, zeroed and counted in; NULL (and one more refused) when full. */
void *zq_queue_push(zq_queue_t *q, void *slots, size_t slot_size, size_t cap);
/** Takes the oldest slot out and returns it (valid until the next push); NULL when empty. */
void *zq_queue_pop(zq_queue_t *q, void *slots, size_t slot_size, size_t cap);
/** The @p i-th oldest queued slot, left queued; NULL when @p i >= the count. */
void *zq_queue_at(const zq_queue_t *q, void *slots, size_t slot_size, size_t cap, size_t i);
size_t zq_queue_count(const zq_queue_t *q);
/** Pushes refused because the queue was full, since it was zeroed. */
uint32_t zq_queue_refused(const zq_queue_t *q);

/* The capacity of a slot array (an array, not a pointer), refused at compile time (a negative
 * array size) beyond what the 16-bit head and count reach. */
#define ZQ_QUEUE_CAP(slots)                                                                    \
    (sizeof(slots) / sizeof((slots)[0]) +                                                      \
     0 * sizeof(char[sizeof(slots) / sizeof((slots)[0]) <= UINT16_MAX ? 1 : -1]))

#define ZQ_QUEUE_PUSH(q, slots) zq_queue_push((q), (slots), sizeof((slots)[0]), ZQ_QUEUE_CAP(slots))
#define ZQ_QUEUE_POP(q, slots) zq_queue_pop((q), (slots), sizeof((slots)[0]), ZQ_QUEUE_CAP(slots))
#define ZQ_QUEUE_AT(q, slots, i)                                                               \
    zq_queue_at((q), (slots), sizeof((slots)[0]), ZQ_QUEUE_CAP(slots), (i))

#endif /* ZQ_QUEUE_H */
