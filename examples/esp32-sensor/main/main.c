/* The demo's sensor device on an ESP32: app/sensor.c (the code `zq device sensor` runs on
 * Linux) on zq's ESP-IDF runner. It joins the network (Wi-Fi, Ethernet or QEMU's OpenCores
 * Ethernet, ESP-IDF's protocol_examples_common), then the room of menuconfig through the
 * signalling server, publishes {"temperature","humidity","uptime"} on sensors.<name> every
 * period and answers `status`. The temperature is the chip's own sensor where it has one;
 * everything else is app/sensor.c's simulation. */
#include <stdbool.h>

#include "app/sensor.h"
#include "esp_err.h"
#include "esp_event.h"
#include "esp_log.h"
#include "esp_netif.h"
#include "nvs_flash.h"
#include "protocol_examples_common.h"
#include "sdkconfig.h"
#include "zq_esp32.h"

#if CONFIG_EXAMPLE_CONNECT_WIFI
#include "esp_wifi.h"
#endif

#ifdef CONFIG_EXAMPLE_USE_CHIP_TEMPERATURE
#include "driver/temperature_sensor.h"
#endif

static const char *TAG = "sensor";

typedef struct {
    sensor_t sensor;
#ifdef CONFIG_EXAMPLE_USE_CHIP_TEMPERATURE
    temperature_sensor_handle_t tsens; /* NULL if it did not start */
#endif
} app_t;

static app_t app;
static zq_esp32_runner_t runner; /* large (node, broker, WebSocket buffers): static */

/* ---- The reading --------------------------------------------------------------------------- */

#ifdef CONFIG_EXAMPLE_USE_CHIP_TEMPERATURE
static void start_chip_sensor(app_t *a)
{
    /* The range the sensor is calibrated for; -10..80 °C covers a device indoors. */
    temperature_sensor_config_t cfg = TEMPERATURE_SENSOR_CONFIG_DEFAULT(-10, 80);
    if (temperature_sensor_install(&cfg, &a->tsens) != ESP_OK ||
        temperature_sensor_enable(a->tsens) != ESP_OK) {
        ESP_LOGW(TAG, "the chip's temperature sensor did not start: simulated readings");
        a->tsens = NULL;
    }
}
#endif

/* sensor_read_fn: app/sensor.c's simulated reading, with the chip's temperature in it. */
static bool read_sensor(void *ctx, uint64_t now, sensor_reading_t *out)
{
    app_t *a = ctx;
    (void)a;
    bool ok = sensor_simulated_read(NULL, now, out);
#ifdef CONFIG_EXAMPLE_USE_CHIP_TEMPERATURE
    float celsius;
    if (a->tsens != NULL && temperature_sensor_get_celsius(a->tsens, &celsius) == ESP_OK) {
        /* Hundredths, rounded half away from zero, in single precision (the chip's FPU). */
        out->temperature_centi = (int32_t)(celsius * 100.0f + (celsius < 0.0f ? -0.5f : 0.5f));
    }
#endif
    return ok;
}

/* ---- The runner's callbacks ---------------------------------------------------------------- */

static zq_err_t on_start(void *ctx, brk_t *brk, uint64_t now)
{
    app_t *a = ctx;
    zq_err_t err = sensor_init(&a->sensor, brk, now, CONFIG_EXAMPLE_SENSOR_NAME,
                               CONFIG_EXAMPLE_PERIOD_MS, read_sensor, a);
    if (err != ZQ_OK) {
        ESP_LOGE(TAG, "sensor name '%s': 1-31 of A-Z a-z 0-9 _ -", CONFIG_EXAMPLE_SENSOR_NAME);
        return err;
    }
    return sensor_start(&a->sensor, now); /* serves `status` */
}

static void on_event(void *ctx, brk_t *brk, uint64_t now, const brk_event_t *ev)
{
    app_t *a = ctx;
    (void)brk;
    if (ev->type == BRK_EVENT_PEER_UP) {
        ESP_LOGI(TAG, "peer ready (%s)", ev->zq ? "zq" : "ZeroQ");
    }
    (void)sensor_handle_event(&a->sensor, now, ev);
}

static void on_idle(void *ctx, brk_t *brk, uint64_t now)
{
    app_t *a = ctx;
    (void)brk;
    sensor_tick(&a->sensor, now);
}

static uint64_t next_timeout(void *ctx)
{
    const app_t *a = ctx;
    return sensor_next_timeout(&a->sensor);
}

/* ---- Start-up ------------------------------------------------------------------------------- */

static void init_nvs(void)
{
    esp_err_t err = nvs_flash_init();
    if (err == ESP_ERR_NVS_NO_FREE_PAGES || err == ESP_ERR_NVS_NEW_VERSION_FOUND) {
        /* A partition from another layout or version: start it afresh (the node's identity
         * is then new, which peers that pinned the old one will notice). */
        ESP_ERROR_CHECK(nvs_flash_erase());
        err = nvs_flash_init();
    }
    ESP_ERROR_CHECK(err);
}

/* ESP-IDF's entry point, called from its main task once the system runs. */
void app_main(void);

void app_main(void)
{
    init_nvs();
    ESP_ERROR_CHECK(esp_netif_init());
    ESP_ERROR_CHECK(esp_event_loop_create_default());
    /* Returns once the interface of menuconfig has an IPv4 address; with
     * CONFIG_EXAMPLE_WIFI_CONN_MAX_RETRY -1 (sdkconfig.defaults) it rejoins Wi-Fi after every
     * disconnection, for ever. zq's runner then takes the address of whichever is up. */
    ESP_ERROR_CHECK(example_connect());
#if CONFIG_EXAMPLE_CONNECT_WIFI
    /* Modem sleep would hold every incoming datagram until the next beacon. */
    ESP_ERROR_CHECK(esp_wifi_set_ps(WIFI_PS_NONE));
#endif
#ifdef CONFIG_EXAMPLE_USE_CHIP_TEMPERATURE
    start_chip_sensor(&app);
#endif
    static const zq_esp32_callbacks_t cb = {on_start, on_event, on_idle, next_timeout};
    const zq_esp32_options_t opt = {.signal_url = CONFIG_EXAMPLE_SIGNAL_URL,
                                    .room = CONFIG_EXAMPLE_ROOM};
    ESP_ERROR_CHECK(zq_esp32_runner_start(&runner, &opt, &cb, &app));
    ESP_LOGI(TAG, "'%s' joins room '%s' through %s", CONFIG_EXAMPLE_SENSOR_NAME,
             CONFIG_EXAMPLE_ROOM, CONFIG_EXAMPLE_SIGNAL_URL);
}
