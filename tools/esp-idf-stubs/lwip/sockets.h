/* Stub of lwIP's lwip/sockets.h as ESP-IDF ships it (esp-lwip, lwIP 2.1): the BSD socket calls
 * and types the ESP32 port uses. ESP-IDF's lwIP guide lists them as supported
 * (https://docs.espressif.com/projects/esp-idf/en/stable/esp32/api-guides/lwip.html, "BSD
 * Sockets API"); the signatures are lwIP's (https://www.nongnu.org/lwip/2_1_x/group__socket.html)
 * and POSIX's. Structures and constant values are lwIP's (src/include/lwip/sockets.h,
 * src/include/lwip/inet.h): BSD-style sockaddr with a length byte. select(), fcntl() and
 * close() are ESP-IDF's VFS functions, declared by the C library's <sys/select.h>, <fcntl.h>
 * and <unistd.h>. */
#ifndef ZQ_STUB_LWIP_SOCKETS_H
#define ZQ_STUB_LWIP_SOCKETS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* lwipopts.h's defaults (CONFIG_LWIP_IPV4=y, CONFIG_LWIP_IPV6=y). Without IPv6, lwIP declares
 * no sockaddr_in6, IPPROTO_IPV6 or IPV6_V6ONLY: port/bsd/bsd_socket.h stops with an #error. */
#define LWIP_IPV4 1
#define LWIP_IPV6 1

typedef uint8_t sa_family_t;
typedef uint16_t in_port_t;
typedef uint32_t in_addr_t;
typedef uint32_t socklen_t;

struct in_addr {
    in_addr_t s_addr;
};

struct in6_addr {
    union {
        uint32_t u32_addr[4];
        uint8_t u8_addr[16];
    } un;
};

struct sockaddr {
    uint8_t sa_len;
    sa_family_t sa_family;
    char sa_data[14];
};

struct sockaddr_in {
    uint8_t sin_len;
    sa_family_t sin_family;
    in_port_t sin_port;
    struct in_addr sin_addr;
    char sin_zero[8];
};

struct sockaddr_in6 {
    uint8_t sin6_len;
    sa_family_t sin6_family;
    in_port_t sin6_port;
    uint32_t sin6_flowinfo;
    struct in6_addr sin6_addr;
    uint32_t sin6_scope_id;
};

struct sockaddr_storage {
    uint8_t s2_len;
    sa_family_t ss_family;
    char s2_data1[2];
    uint32_t s2_data2[3];
    uint32_t s2_data3[3];
};

struct iovec {
    void *iov_base;
    size_t iov_len;
};

struct msghdr {
    void *msg_name;
    socklen_t msg_namelen;
    struct iovec *msg_iov;
    int msg_iovlen;
    void *msg_control;
    socklen_t msg_controllen;
    int msg_flags;
};

#define AF_INET 2
#define AF_INET6 10
#define SOCK_STREAM 1
#define SOCK_DGRAM 2
#define IPPROTO_TCP 6
#define IPPROTO_UDP 17
#define IPPROTO_IPV6 41
#define SOL_SOCKET 0xfff
#define SO_REUSEADDR 0x0004
#define SO_ERROR 0x1007
#define TCP_NODELAY 0x01
#define IPV6_V6ONLY 27
#define MSG_PEEK 0x01     /* flag of recv(): read without consuming */
#define MSG_TRUNC 0x04    /* msghdr.msg_flags after recvmsg() */

uint16_t lwip_htons(uint16_t x);
#define htons(x) lwip_htons(x)
#define ntohs(x) lwip_htons(x)

int socket(int domain, int type, int protocol);
int bind(int s, const struct sockaddr *name, socklen_t namelen);
int listen(int s, int backlog);
int accept(int s, struct sockaddr *addr, socklen_t *addrlen);
int connect(int s, const struct sockaddr *name, socklen_t namelen);
int getsockname(int s, struct sockaddr *name, socklen_t *namelen);
int setsockopt(int s, int level, int optname, const void *optval, socklen_t optlen);
int getsockopt(int s, int level, int optname, void *optval, socklen_t *optlen);
ssize_t send(int s, const void *dataptr, size_t size, int flags);
ssize_t sendto(int s, const void *dataptr, size_t size, int flags, const struct sockaddr *to,
               socklen_t tolen);
ssize_t recv(int s, void *mem, size_t len, int flags);
ssize_t recvmsg(int s, struct msghdr *message, int flags);

#endif
