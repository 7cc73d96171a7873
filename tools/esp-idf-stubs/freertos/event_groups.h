/* Stub of ESP-IDF's freertos/event_groups.h, as documented in
 * https://docs.espressif.com/projects/esp-idf/en/stable/esp32/api-reference/system/freertos_idf.html
 * (xEventGroupCreate, xEventGroupSetBits, xEventGroupWaitBits). */
#ifndef ZQ_STUB_FREERTOS_EVENT_GROUPS_H
#define ZQ_STUB_FREERTOS_EVENT_GROUPS_H

/* As ESP-IDF's: FreeRTOS.h must come first, it is not included from here. */
#ifndef ZQ_STUB_FREERTOS_H
#error "include FreeRTOS.h must appear in source files before include event_groups.h"
#endif

typedef struct EventGroupDef_t *EventGroupHandle_t;
typedef TickType_t EventBits_t;

EventGroupHandle_t xEventGroupCreate(void);
EventBits_t xEventGroupSetBits(EventGroupHandle_t xEventGroup, const EventBits_t uxBitsToSet);
EventBits_t xEventGroupWaitBits(EventGroupHandle_t xEventGroup, const EventBits_t uxBitsToWaitFor,
                                const BaseType_t xClearOnExit, const BaseType_t xWaitForAllBits,
                                TickType_t xTicksToWait);

#endif
