/**
 * @file bytes.h
 * @brief The one big-endian helper of zq: raw loads/stores and bounded reader/writer cursors.
 *
 * Every parser in zq walks its input with a zq_reader_t: each read checks that the bytes are
 * there before touching them, and a failed read makes the reader sticky-failed, so a parser can
 * do a run of reads and check once. Builders use zq_writer_t the same way. Network byte order
 * is big-endian everywhere zq speaks (STUN, DTLS, SCTP, WebSocket).
 *
 * The functions are C99 inline definitions (C11 §6.7.4), not static: where the compiler
 * inlines them (-O2) nothing changes; where it does not (-Os keeps the longer ones out of line)
 * every file calls the one external copy core/bytes.c emits, instead of each carrying its own.
 */
#ifndef ZQ_BYTES_H
#define ZQ_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

inline uint16_t zq_load_be16(const uint8_t *p)
{
    return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}

inline uint32_t zq_load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

inline uint64_t zq_load_be64(const uint8_t *p)
{
    return (uint64_t)zq_load_be32(p) << 32 | zq_load_be32(p + 4);
}

inline void zq_store_be16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

inline void zq_store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

inline void zq_store_be64(uint8_t *p, uint64_t v)
{
    zq_store_be32(p, (uint32_t)(v >> 32));
    zq_store_be32(p + 4, (uint32_t)v);
}

/** A bounded read cursor over caller-owned bytes. It never reads past @c len. */
typedef struct {
    const uint8_t *data; /**< borrowed; must outlive the reader */
    size_t len;          /**< total bytes */
    size_t off;          /**< next byte to read */
    bool failed;         /**< sticky: a read went past the end */
} zq_reader_t;

inline zq_reader_t zq_reader(const uint8_t *data, size_t len)
{
    zq_reader_t r = {data, len, 0, false};
    return r;
}

inline size_t zq_reader_left(const zq_reader_t *r)
{
    return r->failed ? 0 : r->len - r->off;
}

/** Takes @p n bytes and returns a pointer to them, or NULL (and fails) if fewer are left. */
inline const uint8_t *zq_read_bytes(zq_reader_t *r, size_t n)
{
    if (r->failed || n > r->len - r->off) {
        r->failed = true;
        return NULL;
    }
    const uint8_t *p = r->data + r->off;
    r->off += n;
    return p;
}

inline uint8_t zq_read_u8(zq_reader_t *r)
{
    const uint8_t *p = zq_read_bytes(r, 1);
    return p ? p[0] : 0;
}

inline uint16_t zq_read_be16(zq_reader_t *r)
{
    const uint8_t *p = zq_read_bytes(r, 2);
    return p ? zq_load_be16(p) : 0;
}

inline uint32_t zq_read_be32(zq_reader_t *r)
{
    const uint8_t *p = zq_read_bytes(r, 4);
    return p ? zq_load_be32(p) : 0;
}

inline uint64_t zq_read_be64(zq_reader_t *r)
{
    const uint8_t *p = zq_read_bytes(r, 8);
    return p ? zq_load_be64(p) : 0;
}

/** A bounded write cursor over a caller-owned buffer. It never writes past @c cap. */
typedef struct {
    uint8_t *data; /**< borrowed; must outlive the writer */
    size_t cap;    /**< buffer size */
    size_t len;    /**< bytes written so far */
    bool failed;   /**< sticky: a write did not fit */
} zq_writer_t;

inline zq_writer_t zq_writer(uint8_t *data, size_t cap)
{
    zq_writer_t w = {data, cap, 0, false};
    return w;
}

/** Reserves @p n bytes and returns a pointer to them, or NULL (and fails) if they do not fit. */
inline uint8_t *zq_write_reserve(zq_writer_t *w, size_t n)
{
    if (w->failed || n > w->cap - w->len) {
        w->failed = true;
        return NULL;
    }
    uint8_t *p = w->data + w->len;
    w->len += n;
    return p;
}

inline void zq_write_bytes(zq_writer_t *w, const void *src, size_t n)
{
    uint8_t *p = zq_write_reserve(w, n);
    if (p != NULL && n > 0) {
        memcpy(p, src, n);
    }
}

inline void zq_write_fill(zq_writer_t *w, uint8_t byte, size_t n)
{
    uint8_t *p = zq_write_reserve(w, n);
    if (p != NULL && n > 0) {
        memset(p, byte, n);
    }
}

inline void zq_write_u8(zq_writer_t *w, uint8_t v)
{
    zq_write_bytes(w, &v, 1);
}

inline void zq_write_be16(zq_writer_t *w, uint16_t v)
{
    uint8_t *p = zq_write_reserve(w, 2);
    if (p != NULL) {
        zq_store_be16(p, v);
    }
}

inline void zq_write_be32(zq_writer_t *w, uint32_t v)
{
    uint8_t *p = zq_write_reserve(w, 4);
    if (p != NULL) {
        zq_store_be32(p, v);
    }
}

inline void zq_write_be64(zq_writer_t *w, uint64_t v)
{
    uint8_t *p = zq_write_reserve(w, 8);
    if (p != NULL) {
        zq_store_be64(p, v);
    }
}

#endif /* ZQ_BYTES_H */
