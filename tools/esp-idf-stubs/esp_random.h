/* Stub of ESP-IDF's esp_random.h, as documented in
 * https://docs.espressif.com/projects/esp-idf/en/stable/esp32/api-reference/system/random.html:
 * "void esp_fill_random(void *buf, size_t len): Fill a buffer with random bytes from hardware
 * RNG" (true random numbers while Wi-Fi or Bluetooth is enabled). */
#ifndef ZQ_STUB_ESP_RANDOM_H
#define ZQ_STUB_ESP_RANDOM_H

#include <stddef.h>

void esp_fill_random(void *buf, size_t len);

#endif
