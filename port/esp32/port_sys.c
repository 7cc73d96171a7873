/* The ESP32 port's clock, random source and log sink (port/zq_port.h). */
#include "esp_log.h"
#include "esp_random.h"
#include "esp_timer.h"
#include "port/zq_port.h"
#include "zq/log.h"

uint64_t zq_port_now_ms(void)
{
    /* Microseconds since boot from the esp_timer's 64-bit counter: monotonic, never adjusted
     * by SNTP, and good for ~290,000 years. */
    return (uint64_t)esp_timer_get_time() / 1000u;
}

/* zq's levels onto ESP-IDF's (the tag is zq's module name): the lines join the rest of the
 * firmware's log, filtered by CONFIG_LOG_DEFAULT_LEVEL and esp_log_level_set() as usual. */
static void esp_sink(int level, const char *module, const char *line)
{
    switch (level) {
    case ZQ_LOG_ERROR:
        ESP_LOGE(module, "%s", line);
        break;
    case ZQ_LOG_WARN:
        ESP_LOGW(module, "%s", line);
        break;
    case ZQ_LOG_INFO:
        ESP_LOGI(module, "%s", line);
        break;
    default:
        ESP_LOGD(module, "%s", line);
        break;
    }
}

zq_err_t zq_port_init(void)
{
    zq_log_set_sink(esp_sink);
    return ZQ_OK;
}

/* mbedTLS's f_rng convention: 0 on success. esp_fill_random() cannot fail; its bytes are
 * true random numbers once Wi-Fi or Bluetooth runs (the RF subsystem feeds the RNG), which is
 * why the runner makes the node's key only after the station got an address. */
static int fill(void *ctx, unsigned char *out, size_t len)
{
    (void)ctx;
    esp_fill_random(out, len);
    return 0;
}

zq_rand_t zq_port_rand(void)
{
    zq_rand_t r = {fill, NULL};
    return r;
}
