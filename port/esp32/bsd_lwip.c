/* What lwIP does its own way under port/bsd/'s shared socket code (see bsd_socket.h). */
#include <fcntl.h>
#include <sys/select.h>

#include "port/bsd/bsd_socket.h"

/* lwIP's socket() takes no SOCK_NONBLOCK flag: fcntl() sets O_NONBLOCK, as ESP-IDF's lwIP
 * guide says, and lwIP then checks it in every send, recv, accept and connect. */
static int set_nonblocking(int fd)
{
    int flags = fcntl(fd, F_GETFL, 0);
    return flags < 0 ? -1 : fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

/* Closes @p fd if it cannot be made non-blocking. @return @p fd, or -1 with errno set. */
static int nonblocking_or_close(int fd)
{
    if (fd >= 0 && set_nonblocking(fd) != 0) {
        int saved = errno;
        (void)close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int zq_bsd_socket(int family, int type)
{
    int proto = type == SOCK_STREAM ? IPPROTO_TCP : IPPROTO_UDP;
    return nonblocking_or_close(socket(family, type, proto));
}

/* lwIP has no accept4(): an accepted socket is made non-blocking right after accept(). */
int zq_bsd_accept(int listener, struct sockaddr *sa, socklen_t *len)
{
    return nonblocking_or_close(accept(listener, sa, len));
}

/* select(): ESP-IDF's VFS has it for lwIP's sockets (and lwIP's fds are few and small). */
int zq_bsd_poll(int fd, bool write, uint64_t timeout_ms)
{
    fd_set set;
    FD_ZERO(&set);
    FD_SET(fd, &set);
    struct timeval tv = {.tv_sec = (time_t)(timeout_ms / 1000u),
                         .tv_usec = (suseconds_t)((timeout_ms % 1000u) * 1000u)};
    return select(fd + 1, write ? NULL : &set, write ? &set : NULL, NULL, &tv);
}

/* lwIP says ENOMEM when it is out of packet buffers for the moment: like a full socket buffer,
 * data the caller sends again later (a datagram the protocols above retransmit). */
bool zq_bsd_send_busy(int e)
{
    return e == EAGAIN || e == EWOULDBLOCK || e == ENOMEM;
}
