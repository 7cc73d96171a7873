/* The dedup window (PROTOCOL.md §9): a FIFO of the last ZQ_BRK_DEDUP_WINDOW keys, indexed by
 * an open-addressing table with linear probing over 2 x WINDOW slots.
 *
 * Deletion leaves a tombstone (1) rather than an empty slot (0), so lookups of keys further
 * along the same probe run still find them. Tombstones are what ages a linear-probing table:
 * each one lengthens every probe that crosses it until a later insert happens to reuse it. So
 * every SWEEP_EVERY evictions the table is rebuilt in place from the FIFO (which holds exactly
 * the live keys), leaving none.
 *
 * Cost, with W = ZQ_BRK_DEDUP_WINDOW:
 * - Each eviction makes at most one tombstone, and head advances by one per eviction, so the
 *   tombstones since the last sweep are at most head's distance from a multiple of
 *   SWEEP_EVERY: no counter is needed. At most W live keys + W/4 tombstones occupy the
 *   2W slots: a load of at most 0.625, so a free slot always exists (every probe ends) and a
 *   lookup takes O(1) probes expected (about 4 for a miss at that load, Knuth 6.4).
 * - A sweep costs O(W) (clear 2W slots, reinsert W keys) once per W/4 inserts: O(1) amortised,
 *   about 12 slot writes per insert; the one insert that triggers it pays O(W).
 * - The keys are public hashes (brk_dedup_key() has no secret, so a key is the same on every
 *   target), but a key's home slot mixes in the window's secret seed: a peer that grinds ids
 *   cannot aim them at one slot. Were the seed known, the worst would be 2W probes per lookup,
 *   never a failure; a key collides with another sender's only by a 64-bit collision.
 */
#include "broker/dedup.h"

#include <string.h>

#if ZQ_BRK_ZEROQ_COMPAT /* else left out: broker/switched_off.c */

#define WINDOW ((uint32_t)ZQ_BRK_DEDUP_WINDOW)
#define SLOTS (2u * WINDOW)
#define SLOT_EMPTY 0u
#define SLOT_DELETED 1u
#define SWEEP_EVERY (WINDOW / 4u)

#define FNV64_OFFSET 0xCBF29CE484222325ULL
#define FNV64_PRIME 0x100000001B3ULL

void brk_dedup_init(brk_dedup_t *d, uint64_t seed)
{
    memset(d, 0, sizeof *d);
    d->seed = seed;
}

static uint64_t fnv1a(uint64_t h, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h = (h ^ p[i]) * FNV64_PRIME;
    }
    return h;
}

/* Little-endian, so a key is the same on every target (keys could be persisted or logged). */
static uint64_t fnv1a_u64(uint64_t h, uint64_t v)
{
    for (unsigned i = 0; i < 8; i++) {
        h = (h ^ (uint8_t)(v >> (8 * i))) * FNV64_PRIME;
    }
    return h;
}

/* splitmix64's finaliser: FNV-1a's last bytes barely reach the high bits; this spreads every
 * input bit over the whole key, which the table's index (low bits) relies on. */
static uint64_t avalanche(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* 0 and 1 mark empty and deleted slots; moving them costs a 2^-63 chance of a false duplicate. */
static uint64_t not_reserved(uint64_t key)
{
    return key < 2 ? key + 2 : key;
}

uint64_t brk_dedup_key(const uint8_t *identity, size_t identity_len, const char *id,
                       size_t id_len, uint32_t retry_count)
{
    /* Lengths go first so that fields cannot run into each other: ("ab","c") != ("a","bc"). */
    uint64_t h = fnv1a_u64(FNV64_OFFSET, identity_len);
    h = fnv1a(h, identity, identity_len);
    h = fnv1a_u64(h, id_len);
    h = fnv1a(h, (const uint8_t *)id, id_len);
    h = fnv1a_u64(h, retry_count);
    return not_reserved(avalanche(h));
}

/* The slot holding @p key (*found), else the first free slot on its probe run: the first
 * tombstone passed, or the empty slot that ended the run. The load bound (see top) guarantees
 * an empty slot, so the loop ends before its limit. */
static uint32_t probe(const brk_dedup_t *d, uint64_t key, bool *found)
{
    uint32_t free_slot = SLOTS;
    uint32_t i = (uint32_t)avalanche(key ^ d->seed) & (SLOTS - 1);
    for (uint32_t n = 0; n < SLOTS; n++, i = (i + 1) & (SLOTS - 1)) {
        uint64_t slot = d->table[i];
        if (slot == key) {
            *found = true;
            return i;
        }
        if (slot == SLOT_EMPTY) {
            break;
        }
        if (slot == SLOT_DELETED && free_slot == SLOTS) {
            free_slot = i;
        }
    }
    *found = false;
    return free_slot != SLOTS ? free_slot : i;
}

static void forget_oldest(brk_dedup_t *d)
{
    bool found;
    uint32_t slot = probe(d, d->fifo[d->head], &found);
    if (found) {
        d->table[slot] = SLOT_DELETED;
    }
    d->head = (d->head + 1) & (WINDOW - 1);
    d->count--;
}

/* Rebuilds the table from the FIFO, in place: no tombstones afterwards. */
static void sweep_tombstones(brk_dedup_t *d)
{
    memset(d->table, 0, sizeof d->table);
    for (uint32_t n = 0; n < d->count; n++) {
        uint64_t key = d->fifo[(d->head + n) & (WINDOW - 1)];
        bool found;
        d->table[probe(d, key, &found)] = key;
    }
}

bool brk_dedup_seen(brk_dedup_t *d, uint64_t key)
{
    key = not_reserved(key);
    bool found;
    uint32_t slot = probe(d, key, &found);
    if (found) {
        return true;
    }
    bool evicted = d->count == WINDOW;
    if (evicted) {
        forget_oldest(d); /* only turns a live slot into a tombstone: @c slot stays free */
    }
    d->table[slot] = key;
    d->fifo[(d->head + d->count) & (WINDOW - 1)] = key;
    d->count++;
    if (evicted && (d->head & (SWEEP_EVERY - 1)) == 0) {
        sweep_tombstones(d);
    }
    return false;
}

#endif /* ZQ_BRK_ZEROQ_COMPAT */
