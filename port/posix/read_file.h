/**
 * @file read_file.h
 * @brief A whole small file into a caller's buffer: `zq signal`'s key files, the wss:// CA
 *        bundle; and one written whole, or not at all: `zq bridge`'s identity and resume
 *        points.
 */
#ifndef ZQ_PORT_POSIX_READ_FILE_H
#define ZQ_PORT_POSIX_READ_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "zq/err.h"

/**
 * Reads all of @p path into @p buf[0..@p cap), in as many reads as it takes (a pipe gives a
 * little at a time).
 * @return ZQ_OK with @p len set; ZQ_ERR_TOO_LONG if it holds more than @p cap bytes;
 *         ZQ_ERR_IO if it cannot be opened or read (errno says why).
 */
zq_err_t zq_posix_read_file(const char *path, uint8_t *buf, size_t cap, size_t *len);

/** As zq_posix_read_file(), for a text (a PEM file, a key file): at most @p cap - 1 bytes,
 *  then a NUL (@p len leaves it out), what mbedTLS's PEM parser asks. Same returns. */
zq_err_t zq_posix_read_text(const char *path, char *buf, size_t cap, size_t *len);

/**
 * Replaces @p path with @p len bytes of @p data, mode @p mode, all or nothing: written to
 * PATH.tmp, fsync()ed, renamed over @p path (rename(2) is atomic), so a crash leaves the old
 * file or the new one, never half of either.
 * @return ZQ_OK; ZQ_ERR_IO (errno says why).
 */
zq_err_t zq_posix_write_file(const char *path, const uint8_t *data, size_t len, unsigned mode);

#endif /* ZQ_PORT_POSIX_READ_FILE_H */
