/* Host addresses for ICE host candidates, from ESP-NETIF: the IPv4 address of every interface
 * that is up (Wi-Fi station, Ethernet, soft-AP). IPv6 is left out, as the POSIX runner leaves
 * it out: a device on a LAN reaches its browsers over IPv4. */
#include <string.h>

#include "esp_netif.h"
#include "port/zq_port.h"

#define NETIF_SCAN_MAX 8

typedef struct {
    esp_netif_t *found[NETIF_SCAN_MAX];
    size_t n;
} netif_scan_t;

/* Collects every interface and returns false so the search visits them all. It only takes the
 * handles: the questions asked of them come after the search, outside ESP-NETIF's list walk. */
static bool collect(esp_netif_t *netif, void *ctx)
{
    netif_scan_t *scan = ctx;
    if (scan->n < NETIF_SCAN_MAX) {
        scan->found[scan->n++] = netif;
    }
    return false;
}

size_t zq_port_host_addresses(zq_addr_t *out, size_t cap, bool include_loopback)
{
    netif_scan_t scan = {.n = 0};
    (void)esp_netif_find_if(collect, &scan);
    size_t n = 0;
    for (size_t i = 0; i < scan.n && n < cap; i++) {
        esp_netif_ip_info_t info;
        if (!esp_netif_is_netif_up(scan.found[i]) ||
            esp_netif_get_ip_info(scan.found[i], &info) != ESP_OK || info.ip.addr == 0) {
            continue;
        }
        zq_addr_t a;
        memset(&a, 0, sizeof a);
        a.family = ZQ_AF_INET4;
        memcpy(a.ip, &info.ip.addr, 4); /* esp_ip4_addr_t holds it in network order */
        if (include_loopback || !zq_addr_is_loopback(&a)) {
            out[n++] = a;
        }
    }
    return n;
}
