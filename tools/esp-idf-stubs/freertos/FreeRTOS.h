/* Stub of ESP-IDF's freertos/FreeRTOS.h: the types and macros of
 * https://docs.espressif.com/projects/esp-idf/en/stable/esp32/api-reference/system/freertos_idf.html
 * that the port and the example use (BaseType_t and UBaseType_t are int and unsigned int in
 * ESP-IDF's Xtensa and RISC-V ports; TickType_t is 32-bit; the tick rate is CONFIG_FREERTOS_HZ). */
#ifndef ZQ_STUB_FREERTOS_H
#define ZQ_STUB_FREERTOS_H

#include <stdint.h>

#include "sdkconfig.h"

typedef int BaseType_t;
typedef unsigned int UBaseType_t;
typedef uint32_t TickType_t;

#define pdFALSE ((BaseType_t)0)
#define pdTRUE ((BaseType_t)1)
#define pdPASS (pdTRUE)
#define portMAX_DELAY ((TickType_t)0xffffffffUL)
#define configTICK_RATE_HZ CONFIG_FREERTOS_HZ
#define pdMS_TO_TICKS(xTimeInMs) \
    ((TickType_t)(((TickType_t)(xTimeInMs) * (TickType_t)configTICK_RATE_HZ) / (TickType_t)1000U))

#endif
