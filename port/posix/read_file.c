/* A whole small file into a buffer (see read_file.h). */
#include "port/posix/read_file.h"

#include <errno.h>
#include <fcntl.h>
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
