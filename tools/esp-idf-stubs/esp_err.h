/* Stub of ESP-IDF's esp_err.h, as documented in
 * https://docs.espressif.com/projects/esp-idf/en/stable/esp32/api-reference/system/esp_err.html
 * (error codes from components/esp_common/include/esp_err.h). */
#ifndef ZQ_STUB_ESP_ERR_H
#define ZQ_STUB_ESP_ERR_H

#include <stdint.h>

typedef int esp_err_t;

#define ESP_OK 0
#define ESP_FAIL -1
#define ESP_ERR_NO_MEM 0x101
#define ESP_ERR_INVALID_ARG 0x102

const char *esp_err_to_name(esp_err_t code);

void _esp_error_check_failed(esp_err_t rc, const char *file, int line, const char *function,
                             const char *expression) __attribute__((__noreturn__));

#define ESP_ERROR_CHECK(x)                                                          \
    do {                                                                            \
        esp_err_t err_rc_ = (x);                                                    \
        if (err_rc_ != ESP_OK) {                                                    \
            _esp_error_check_failed(err_rc_, __FILE__, __LINE__, __func__, #x);     \
        }                                                                           \
    } while (0)

#endif
