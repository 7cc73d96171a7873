/* Stub of ESP-IDF's driver/temperature_sensor.h (component esp_driver_tsens), as documented in
 * https://docs.espressif.com/projects/esp-idf/en/stable/esp32c3/api-reference/peripherals/temp_sensor.html:
 * temperature_sensor_install, temperature_sensor_enable, temperature_sensor_get_celsius and
 * TEMPERATURE_SENSOR_CONFIG_DEFAULT(min, max). Chips with SOC_TEMP_SENSOR_SUPPORTED only. */
#ifndef ZQ_STUB_TEMPERATURE_SENSOR_H
#define ZQ_STUB_TEMPERATURE_SENSOR_H

#include "esp_err.h"

typedef struct temperature_sensor_obj_t *temperature_sensor_handle_t;

typedef struct {
    int range_min;
    int range_max;
} temperature_sensor_config_t;

#define TEMPERATURE_SENSOR_CONFIG_DEFAULT(min, max) {.range_min = (min), .range_max = (max)}

esp_err_t temperature_sensor_install(const temperature_sensor_config_t *tsens_config,
                                     temperature_sensor_handle_t *ret_tsens);
esp_err_t temperature_sensor_enable(temperature_sensor_handle_t tsens);
esp_err_t temperature_sensor_get_celsius(temperature_sensor_handle_t tsens, float *out_celsius);

#endif
