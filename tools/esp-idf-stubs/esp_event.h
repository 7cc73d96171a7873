/* Stub of ESP-IDF's esp_event.h (and esp_event_base.h), as documented in
 * https://docs.espressif.com/projects/esp-idf/en/stable/esp32/api-reference/system/esp_event.html
 * (esp_event_loop_create_default, esp_event_handler_instance_register, ESP_EVENT_ANY_ID). */
#ifndef ZQ_STUB_ESP_EVENT_H
#define ZQ_STUB_ESP_EVENT_H

#include <stdint.h>

#include "esp_err.h"

typedef const char *esp_event_base_t;
typedef void *esp_event_handler_instance_t;
typedef void (*esp_event_handler_t)(void *event_handler_arg, esp_event_base_t event_base,
                                    int32_t event_id, void *event_data);

#define ESP_EVENT_DECLARE_BASE(id) extern esp_event_base_t const id
#define ESP_EVENT_ANY_ID -1

esp_err_t esp_event_loop_create_default(void);
esp_err_t esp_event_handler_instance_register(esp_event_base_t event_base, int32_t event_id,
                                              esp_event_handler_t event_handler,
                                              void *event_handler_arg,
                                              esp_event_handler_instance_t *instance);

#endif
