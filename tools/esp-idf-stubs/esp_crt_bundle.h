/* Stub of ESP-IDF's esp_crt_bundle.h (components/mbedtls/esp_crt_bundle/include, the same in
 * v5.5.5 and v6.0.2; API reference, "ESP x509 Certificate Bundle"): "esp_err_t
 * esp_crt_bundle_attach(void *conf): Attach and enable use of a bundle for certificate
 * verification", which sets the configuration's verification callback and a CA source.
 * Compiled against only where a check sets CONFIG_ZQ_ESP32_WSS (scripts/esp32-check's host
 * target). */
#ifndef ZQ_STUB_ESP_CRT_BUNDLE_H
#define ZQ_STUB_ESP_CRT_BUNDLE_H

#include "esp_err.h"

esp_err_t esp_crt_bundle_attach(void *conf);

#endif
