/* Stub of ESP-IDF's esp_log.h, as documented in
 * https://docs.espressif.com/projects/esp-idf/en/stable/esp32/api-reference/system/log.html:
 * esp_log_write(), esp_log_timestamp() and the ESP_LOGx(tag, format, ...) macros, whose format
 * must be a string literal (ESP-IDF pastes a prefix onto it, as this stub does). */
#ifndef ZQ_STUB_ESP_LOG_H
#define ZQ_STUB_ESP_LOG_H

#include <inttypes.h>
#include <stdint.h>

typedef enum {
    ESP_LOG_NONE,
    ESP_LOG_ERROR,
    ESP_LOG_WARN,
    ESP_LOG_INFO,
    ESP_LOG_DEBUG,
    ESP_LOG_VERBOSE
} esp_log_level_t;

void esp_log_write(esp_log_level_t level, const char *tag, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

uint32_t esp_log_timestamp(void);

/* A statement, as ESP-IDF's (do { ... } while (0)): a use inside an expression fails here too. */
#define ZQ_STUB_LOG(level, letter, tag, format, ...)                                            \
    do {                                                                                        \
        esp_log_write(level, tag, letter " (%" PRIu32 ") %s: " format "\n",                    \
                      esp_log_timestamp(), tag, ##__VA_ARGS__);                                 \
    } while (0)

#define ESP_LOGE(tag, format, ...) ZQ_STUB_LOG(ESP_LOG_ERROR, "E", tag, format, ##__VA_ARGS__)
#define ESP_LOGW(tag, format, ...) ZQ_STUB_LOG(ESP_LOG_WARN, "W", tag, format, ##__VA_ARGS__)
#define ESP_LOGI(tag, format, ...) ZQ_STUB_LOG(ESP_LOG_INFO, "I", tag, format, ##__VA_ARGS__)
#define ESP_LOGD(tag, format, ...) ZQ_STUB_LOG(ESP_LOG_DEBUG, "D", tag, format, ##__VA_ARGS__)

#endif
