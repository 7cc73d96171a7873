/* Stub of ESP-IDF's esp_wifi.h: esp_wifi_set_ps (components/esp_wifi/include/esp_wifi.h,
 * line 680 at v5.5.5 and v6.0.2) and wifi_ps_type_t (esp_wifi_types_generic.h, the same
 * three values at both). The station itself is protocol_examples_common's. */
#ifndef ZQ_STUB_ESP_WIFI_H
#define ZQ_STUB_ESP_WIFI_H

#include "esp_err.h"

typedef enum {
    WIFI_PS_NONE,
    WIFI_PS_MIN_MODEM,
    WIFI_PS_MAX_MODEM,
} wifi_ps_type_t;

esp_err_t esp_wifi_set_ps(wifi_ps_type_t type);

#endif
