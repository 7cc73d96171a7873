/* A whole small file into a buffer (see read_file.h). */
#include "port/posix/read_file.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* read() until @p cap bytes or the end, EINTR retried. @return the count, or -1. */
static ssize_t read_up_to(int fd, uint8_t *buf, size_t cap)
{
    size_t got = 0;
    while (got < cap) {
        ssize_t n = read(fd, buf + got, cap - got);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return n < 0 ? -1 : (ssize_t)got;
        }
        got += (size_t)n;
    }
    return (ssize_t)got;
}

zq_err_t zq_posix_read_file(const char *path, uint8_t *buf, size_t cap, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return ZQ_ERR_IO;
    }
    uint8_t more;
    ssize_t n = read_up_to(fd, buf, cap);
    ssize_t beyond = n == (ssize_t)cap ? read_up_to(fd, &more, 1) : 0;
    int err = errno;
    (void)close(fd);
    errno = err;
    if (n < 0 || beyond < 0) {
        return ZQ_ERR_IO;
    }
    if (beyond > 0) {
        return ZQ_ERR_TOO_LONG;
    }
    *len = (size_t)n;
    return ZQ_OK;
}

zq_err_t zq_posix_read_text(const char *path, char *buf, size_t cap, size_t *len)
{
    zq_err_t err = zq_posix_read_file(path, (uint8_t *)buf, cap - 1, len);
    if (err == ZQ_OK) {
        buf[*len] = '\0';
    }
    return err;
}

zq_err_t zq_posix_write_file(const char *path, const uint8_t *data, size_t len, unsigned mode)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return ZQ_ERR_IO;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, (mode_t)mode);
    if (fd < 0) {
        return ZQ_ERR_IO;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, data + done, len - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        done += (size_t)n;
    }
    bool ok = done == len && fsync(fd) == 0;
    int err = errno;
    ok = close(fd) == 0 && ok && rename(tmp, path) == 0;
    if (!ok) {
        err = err != 0 ? err : errno;
        (void)unlink(tmp);
        errno = err;
        return ZQ_ERR_IO;
    }
    return ZQ_OK;
}
