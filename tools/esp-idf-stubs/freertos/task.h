/* Stub of ESP-IDF's freertos/task.h, as documented in
 * https://docs.espressif.com/projects/esp-idf/en/stable/esp32/api-reference/system/freertos_idf.html:
 * xTaskCreate (ESP-IDF's usStackDepth is in bytes, not words), vTaskDelete, vTaskDelay;
 * xTaskGetCurrentTaskHandle as components/freertos/FreeRTOS-Kernel/include/freertos/task.h
 * declares it at v5.5.5 and v6.0.2 (line 2893). */
#ifndef ZQ_STUB_FREERTOS_TASK_H
#define ZQ_STUB_FREERTOS_TASK_H

/* As ESP-IDF's: FreeRTOS.h must come first, it is not included from here. */
#ifndef ZQ_STUB_FREERTOS_H
#error "include FreeRTOS.h must appear in source files before include task.h"
#endif

typedef struct tskTaskControlBlock *TaskHandle_t;
typedef void (*TaskFunction_t)(void *);

BaseType_t xTaskCreate(TaskFunction_t pvTaskCode, const char *const pcName,
                       const uint32_t usStackDepth, void *const pvParameters,
                       UBaseType_t uxPriority, TaskHandle_t *const pvCreatedTask);
void vTaskDelete(TaskHandle_t xTaskToDelete);
void vTaskDelay(const TickType_t xTicksToDelay);
TaskHandle_t xTaskGetCurrentTaskHandle(void);

#endif
