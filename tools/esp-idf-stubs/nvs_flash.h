/* Stub of ESP-IDF's nvs_flash.h, as documented in
 * https://docs.espressif.com/projects/esp-idf/en/stable/esp32/api-reference/storage/nvs_flash.html
 * ("esp_err_t nvs_flash_init(void)", "esp_err_t nvs_flash_erase(void)"). */
#ifndef ZQ_STUB_NVS_FLASH_H
#define ZQ_STUB_NVS_FLASH_H

#include "nvs.h"

esp_err_t nvs_flash_init(void);
esp_err_t nvs_flash_erase(void);

#endif
