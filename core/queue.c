/* The event queue of every layer (include/zq/queue.h). No division: on a Cortex-M4 the index
 * wraps with a compare, as the capacity need not be a power of two. */
#include <string.h>

#include "zq/queue.h"

static size_t wrap(size_t index, size_t cap)
{
    return index >= cap ? index - cap : index;
}

void *zq_queue_push(zq_queue_t *q, void *slots, size_t slot_size, size_t cap)
{
    if (q->count >= cap) {
        q->refused++;
        return NULL;
    }
    uint8_t *slot = (uint8_t *)slots + wrap((size_t)q->head + q->count, cap) * slot_size;
    q->count++;
    memset(slot, 0, slot_size);
    return slot;
}

void *zq_queue_pop(zq_queue_t *q, void *slots, size_t slot_size, size_t cap)
{
    if (q->count == 0) {
        return NULL;
    }
    uint8_t *slot = (uint8_t *)slots + (size_t)q->head * slot_size;
    q->head = (uint16_t)wrap((size_t)q->head + 1, cap);
    q->count--;
    return slot;
}

void *zq_queue_at(const zq_queue_t *q, void *slots, size_t slot_size, size_t cap, size_t i)
{
    if (i >= q->count) {
        return NULL;
    }
    return (uint8_t *)slots + wrap((size_t)q->head + i, cap) * slot_size;
}

size_t zq_queue_count(const zq_queue_t *q)
{
    return q->count;
}

uint32_t zq_queue_refused(const zq_queue_t *q)
{
    return q->refused;
}
