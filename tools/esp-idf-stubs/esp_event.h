/* Stub of ESP-IDF's esp_event.h: esp_event_loop_create_default, as
 * components/esp_event/include/esp_event.h declares it at v5.5.5 (line 70) and v6.0.2 (68). */
#ifndef ZQ_STUB_ESP_EVENT_H
#define ZQ_STUB_ESP_EVENT_H

#include "esp_err.h"

esp_err_t esp_event_loop_create_default(void);

#endif
