/* Stub of ESP-IDF's esp_netif.h (with what it includes from esp_netif_types.h and
 * esp_netif_ip_addr.h), as documented in
 * https://docs.espressif.com/projects/esp-idf/en/stable/esp32/api-reference/network/esp_netif.html:
 * esp_netif_init, esp_netif_find_if (with its predicate type), esp_netif_is_netif_up,
 * esp_netif_get_ip_info, esp_netif_ip_info_t. */
#ifndef ZQ_STUB_ESP_NETIF_H
#define ZQ_STUB_ESP_NETIF_H

#include <stdbool.h>
#include <stdint.h>

#include "esp_err.h"

typedef struct esp_netif_obj esp_netif_t;

/* esp_netif_ip_addr.h: the address in network byte order. */
typedef struct {
    uint32_t addr;
} esp_ip4_addr_t;

/* esp_netif_types.h */
typedef struct {
    esp_ip4_addr_t ip;
    esp_ip4_addr_t netmask;
    esp_ip4_addr_t gw;
} esp_netif_ip_info_t;

typedef bool (*esp_netif_find_predicate_t)(esp_netif_t *netif, void *ctx);

esp_err_t esp_netif_init(void);
esp_netif_t *esp_netif_find_if(esp_netif_find_predicate_t fn, void *ctx);
bool esp_netif_is_netif_up(esp_netif_t *esp_netif);
esp_err_t esp_netif_get_ip_info(esp_netif_t *esp_netif, esp_netif_ip_info_t *ip_info);

#endif
