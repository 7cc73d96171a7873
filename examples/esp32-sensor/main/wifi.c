/* The Wi-Fi station of the example (see wifi.h): ESP-IDF's usual sequence (ESP-NETIF, event
 * loop, esp_wifi_init/set_mode/set_config/start, connect on STA_START and after every
 * disconnection), then a wait on an event group for IP_EVENT_STA_GOT_IP. */
#include "wifi.h"

#include <string.h>

#include "esp_event.h"
#include "esp_log.h"
#include "esp_netif.h"
#include "esp_wifi.h"
#include "freertos/FreeRTOS.h"
#include "freertos/event_groups.h"
#include "sdkconfig.h"

static const char *TAG = "wifi";

#define GOT_IP_BIT ((EventBits_t)1) /* bit 0 of the event group */

static EventGroupHandle_t wifi_events;

static void on_event(void *arg, esp_event_base_t base, int32_t id, void *data)
{
    (void)arg;
    if (base == WIFI_EVENT && id == WIFI_EVENT_STA_START) {
        (void)esp_wifi_connect();
    } else if (base == WIFI_EVENT && id == WIFI_EVENT_STA_DISCONNECTED) {
        ESP_LOGW(TAG, "disconnected from '%s'; trying again", CONFIG_EXAMPLE_WIFI_SSID);
        (void)esp_wifi_connect(); /* zq's peers time out and reconnect through signalling */
    } else if (base == IP_EVENT && id == IP_EVENT_STA_GOT_IP) {
        const ip_event_got_ip_t *got = data;
        ESP_LOGI(TAG, "station address " IPSTR, IP2STR(&got->ip_info.ip));
        xEventGroupSetBits(wifi_events, GOT_IP_BIT);
    }
}

/* Copies a menuconfig string into a fixed Wi-Fi field (not NUL-terminated when full, as the
 * driver allows for a 32-byte SSID or a 64-byte password). */
static void set_field(uint8_t *field, size_t cap, const char *value)
{
    size_t n = strlen(value);
    memcpy(field, value, n < cap ? n : cap);
}

void wifi_join(void)
{
    wifi_events = xEventGroupCreate();
    ESP_ERROR_CHECK(esp_netif_init());
    ESP_ERROR_CHECK(esp_event_loop_create_default());
    (void)esp_netif_create_default_wifi_sta();
    wifi_init_config_t init = WIFI_INIT_CONFIG_DEFAULT();
    ESP_ERROR_CHECK(esp_wifi_init(&init));
    ESP_ERROR_CHECK(esp_event_handler_instance_register(WIFI_EVENT, ESP_EVENT_ANY_ID, on_event,
                                                        NULL, NULL));
    ESP_ERROR_CHECK(esp_event_handler_instance_register(IP_EVENT, IP_EVENT_STA_GOT_IP, on_event,
                                                        NULL, NULL));
    wifi_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    set_field(cfg.sta.ssid, sizeof cfg.sta.ssid, CONFIG_EXAMPLE_WIFI_SSID);
    set_field(cfg.sta.password, sizeof cfg.sta.password, CONFIG_EXAMPLE_WIFI_PASSWORD);
    ESP_ERROR_CHECK(esp_wifi_set_mode(WIFI_MODE_STA));
    ESP_ERROR_CHECK(esp_wifi_set_config(WIFI_IF_STA, &cfg));
    ESP_ERROR_CHECK(esp_wifi_start());
    /* Modem sleep holds incoming datagrams until the next beacon (~100-300 ms): a peer's ICE
     * checks and SCTP acks wait that long. A mains-powered sensor keeps the radio awake. */
    ESP_ERROR_CHECK(esp_wifi_set_ps(WIFI_PS_NONE));
    ESP_LOGI(TAG, "joining '%s'", CONFIG_EXAMPLE_WIFI_SSID);
    (void)xEventGroupWaitBits(wifi_events, GOT_IP_BIT, pdFALSE, pdTRUE, portMAX_DELAY);
}
