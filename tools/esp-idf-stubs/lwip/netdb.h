/* Stub of lwIP's lwip/netdb.h as ESP-IDF ships it: getaddrinfo() and freeaddrinfo() (lwIP's
 * DNS client, https://www.nongnu.org/lwip/2_1_x/group__netdbapi.html; supported per
 * https://docs.espressif.com/projects/esp-idf/en/stable/esp32/api-guides/lwip.html). */
#ifndef ZQ_STUB_LWIP_NETDB_H
#define ZQ_STUB_LWIP_NETDB_H

#include "lwip/sockets.h"

struct addrinfo {
    int ai_flags;
    int ai_family;
    int ai_socktype;
    int ai_protocol;
    socklen_t ai_addrlen;
    struct sockaddr *ai_addr;
    char *ai_canonname;
    struct addrinfo *ai_next;
};

int getaddrinfo(const char *nodename, const char *servname, const struct addrinfo *hints,
                struct addrinfo **res);
void freeaddrinfo(struct addrinfo *ai);

#endif
