/* Stub of ESP-IDF's examples/common_components/protocol_examples_common/include/
 * protocol_examples_common.h: example_connect, declared the same at v5.5.5 (line 104) and
 * v6.0.2 (line 101): "Configure Wi-Fi or Ethernet, connect, wait for IP; returns ESP_OK on
 * successful connection". It includes sdkconfig.h, esp_err.h and esp_netif.h, as this does. */
#ifndef ZQ_STUB_PROTOCOL_EXAMPLES_COMMON_H
#define ZQ_STUB_PROTOCOL_EXAMPLES_COMMON_H

#include "esp_err.h"
#include "esp_netif.h"
#include "sdkconfig.h"

esp_err_t example_connect(void);

#endif
