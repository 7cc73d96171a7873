/* What Linux does its own way under port/bsd/'s shared socket code (see bsd_socket.h). */
#define _GNU_SOURCE /* accept4(): the accepted socket is non-blocking from its first moment */
#include <poll.h>

#include "port/bsd/bsd_socket.h"

/* SOCK_CLOEXEC: no child process the program starts (--exec) inherits a socket. */
int zq_bsd_socket(int family, int type)
{
    return socket(family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
}

int zq_bsd_accept(int listener, struct sockaddr *sa, socklen_t *len)
{
    socklen_t cap = *len;
    int fd;
    do {
        *len = cap;
        fd = accept4(listener, sa, len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    return fd;
}

/* poll(), not select(): a server's fds may be numbered past FD_SETSIZE. */
int zq_bsd_poll(int fd, bool write, uint64_t timeout_ms)
{
    struct pollfd p = {.fd = fd, .events = write ? POLLOUT : POLLIN};
    return poll(&p, 1, (int)timeout_ms);
}

bool zq_bsd_send_busy(int e)
{
    return e == EAGAIN || e == EWOULDBLOCK;
}
