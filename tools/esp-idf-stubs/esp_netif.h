/* Stub of ESP-IDF's esp_netif.h (with what it includes from esp_netif_types.h and
 * esp_netif_ip_addr.h), as documented in
 * https://docs.espressif.com/projects/esp-idf/en/stable/esp32/api-reference/network/esp_netif.html:
 * esp_netif_init, esp_netif_find_if (with its predicate type), esp_netif_is_netif_up,
 * esp_netif_get_ip_info, esp_netif_ip_info_t, IP_EVENT / IP_EVENT_STA_GOT_IP /
 * ip_event_got_ip_t, IPSTR and IP2STR. */
#ifndef ZQ_STUB_ESP_NETIF_H
#define ZQ_STUB_ESP_NETIF_H

#include <stdbool.h>
#include <stdint.h>

#include "esp_err.h"
#include "esp_event.h"

typedef struct esp_netif_obj esp_netif_t;

/* esp_netif_ip_addr.h: the address in network byte order. */
typedef struct {
    uint32_t addr;
} esp_ip4_addr_t;

#define esp_ip4_addr_get_byte(ipaddr, idx) (((const uint8_t *)(&(ipaddr)->addr))[idx])
#define esp_ip4_addr1_16(ipaddr) ((uint16_t)esp_ip4_addr_get_byte(ipaddr, 0))
#define esp_ip4_addr2_16(ipaddr) ((uint16_t)esp_ip4_addr_get_byte(ipaddr, 1))
#define esp_ip4_addr3_16(ipaddr) ((uint16_t)esp_ip4_addr_get_byte(ipaddr, 2))
#define esp_ip4_addr4_16(ipaddr) ((uint16_t)esp_ip4_addr_get_byte(ipaddr, 3))
#define IPSTR "%d.%d.%d.%d"
#define IP2STR(ipaddr)                                                          \
    esp_ip4_addr1_16(ipaddr), esp_ip4_addr2_16(ipaddr), esp_ip4_addr3_16(ipaddr), \
        esp_ip4_addr4_16(ipaddr)

/* esp_netif_types.h */
typedef struct {
    esp_ip4_addr_t ip;
    esp_ip4_addr_t netmask;
    esp_ip4_addr_t gw;
} esp_netif_ip_info_t;

ESP_EVENT_DECLARE_BASE(IP_EVENT);

typedef enum {
    IP_EVENT_STA_GOT_IP,
    IP_EVENT_STA_LOST_IP,
} ip_event_t;

typedef struct {
    esp_netif_t *esp_netif;
    esp_netif_ip_info_t ip_info;
    bool ip_changed;
} ip_event_got_ip_t;

typedef bool (*esp_netif_find_predicate_t)(esp_netif_t *netif, void *ctx);

esp_err_t esp_netif_init(void);
esp_netif_t *esp_netif_find_if(esp_netif_find_predicate_t fn, void *ctx);
bool esp_netif_is_netif_up(esp_netif_t *esp_netif);
esp_err_t esp_netif_get_ip_info(esp_netif_t *esp_netif, esp_netif_ip_info_t *ip_info);

#endif
