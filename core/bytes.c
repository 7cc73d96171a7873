/* The external definitions of include/zq/bytes.h's inline functions (C11 §6.7.4): the one copy
 * a call that is not inlined reaches. */
#include "zq/bytes.h"

extern inline uint16_t zq_load_be16(const uint8_t *p);
extern inline uint32_t zq_load_be32(const uint8_t *p);
extern inline uint64_t zq_load_be64(const uint8_t *p);
extern inline void zq_store_be16(uint8_t *p, uint16_t v);
extern inline void zq_store_be32(uint8_t *p, uint32_t v);
extern inline void zq_store_be64(uint8_t *p, uint64_t v);
extern inline zq_reader_t zq_reader(const uint8_t *data, size_t len);
extern inline size_t zq_reader_left(const zq_reader_t *r);
extern inline const uint8_t *zq_read_bytes(zq_reader_t *r, size_t n);
extern inline uint8_t zq_read_u8(zq_reader_t *r);
extern inline uint16_t zq_read_be16(zq_reader_t *r);
extern inline uint32_t zq_read_be32(zq_reader_t *r);
extern inline uint64_t zq_read_be64(zq_reader_t *r);
extern inline zq_writer_t zq_writer(uint8_t *data, size_t cap);
extern inline uint8_t *zq_write_reserve(zq_writer_t *w, size_t n);
extern inline void zq_write_bytes(zq_writer_t *w, const void *src, size_t n);
extern inline void zq_write_fill(zq_writer_t *w, uint8_t byte, size_t n);
extern inline void zq_write_u8(zq_writer_t *w, uint8_t v);
extern inline void zq_write_be16(zq_writer_t *w, uint16_t v);
extern inline void zq_write_be32(zq_writer_t *w, uint32_t v);
extern inline void zq_write_be64(zq_writer_t *w, uint64_t v);
