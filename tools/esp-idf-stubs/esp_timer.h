/* Stub of ESP-IDF's esp_timer.h, as documented in
 * https://docs.espressif.com/projects/esp-idf/en/stable/esp32/api-reference/system/esp_timer.html:
 * "int64_t esp_timer_get_time(void): Get time in microseconds since boot." */
#ifndef ZQ_STUB_ESP_TIMER_H
#define ZQ_STUB_ESP_TIMER_H

#include <stdint.h>

int64_t esp_timer_get_time(void);

#endif
