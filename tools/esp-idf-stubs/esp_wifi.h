/* Stub of ESP-IDF's esp_wifi.h (with what it includes from esp_wifi_types.h and
 * esp_wifi_default.h), as documented in
 * https://docs.espressif.com/projects/esp-idf/en/stable/esp32/api-reference/network/esp_wifi.html
 * and the station sequence of
 * https://docs.espressif.com/projects/esp-idf/en/stable/esp32/api-guides/wifi.html:
 * esp_wifi_init(WIFI_INIT_CONFIG_DEFAULT()), esp_wifi_set_mode, esp_wifi_set_config,
 * esp_wifi_start, esp_wifi_connect, esp_wifi_set_ps, esp_netif_create_default_wifi_sta, and the
 * WIFI_EVENT_STA_START / WIFI_EVENT_STA_DISCONNECTED events. Only the fields the example sets
 * are declared in the configuration structures. */
#ifndef ZQ_STUB_ESP_WIFI_H
#define ZQ_STUB_ESP_WIFI_H

#include <stdint.h>

#include "esp_err.h"
#include "esp_event.h"
#include "esp_netif.h"

typedef struct {
    int magic; /* the real one has the driver's buffer counts, callbacks, ... */
} wifi_init_config_t;

#define WIFI_INIT_CONFIG_MAGIC 0x1F2F3F4F
#define WIFI_INIT_CONFIG_DEFAULT() {.magic = WIFI_INIT_CONFIG_MAGIC}

typedef enum {
    WIFI_MODE_NULL = 0,
    WIFI_MODE_STA,
    WIFI_MODE_AP,
    WIFI_MODE_APSTA,
} wifi_mode_t;

typedef enum {
    WIFI_IF_STA = 0,
    WIFI_IF_AP = 1,
} wifi_interface_t;

typedef struct {
    uint8_t ssid[32];
    uint8_t password[64];
} wifi_sta_config_t;

typedef struct {
    uint8_t ssid[32];
    uint8_t password[64];
} wifi_ap_config_t;

typedef union {
    wifi_ap_config_t ap;
    wifi_sta_config_t sta;
} wifi_config_t;

typedef enum {
    WIFI_PS_NONE,
    WIFI_PS_MIN_MODEM,
    WIFI_PS_MAX_MODEM,
} wifi_ps_type_t;

ESP_EVENT_DECLARE_BASE(WIFI_EVENT);

typedef enum {
    WIFI_EVENT_WIFI_READY = 0,
    WIFI_EVENT_SCAN_DONE,
    WIFI_EVENT_STA_START,
    WIFI_EVENT_STA_STOP,
    WIFI_EVENT_STA_CONNECTED,
    WIFI_EVENT_STA_DISCONNECTED,
} wifi_event_t;

esp_netif_t *esp_netif_create_default_wifi_sta(void);
esp_err_t esp_wifi_init(const wifi_init_config_t *config);
esp_err_t esp_wifi_set_mode(wifi_mode_t mode);
esp_err_t esp_wifi_set_config(wifi_interface_t interface, wifi_config_t *conf);
esp_err_t esp_wifi_start(void);
esp_err_t esp_wifi_connect(void);
esp_err_t esp_wifi_set_ps(wifi_ps_type_t type);

#endif
