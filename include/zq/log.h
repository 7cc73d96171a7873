/**
 * @file log.h
 * @brief Logging that compiles to nothing when off.
 *
 * The core never writes anywhere itself: a log line is formatted into a stack buffer and handed
 * to the sink the port installed with zq_log_set_sink() (stderr on POSIX, esp_log on ESP32).
 * With ZQ_LOG_LEVEL below a macro's level, the call sits behind `if (0)`: its arguments are still
 * type-checked (so a variable used only in a log line does not warn), and no code is emitted.
 *
 * @code
 * ZQ_LOGW("ice", "dropped %u-byte datagram: %s", (unsigned)len, zq_strerror(err));
 * @endcode
 */
#ifndef ZQ_LOG_H
#define ZQ_LOG_H

#include "zq/config.h"

enum { ZQ_LOG_ERROR = 1, ZQ_LOG_WARN = 2, ZQ_LOG_INFO = 3, ZQ_LOG_DEBUG = 4 };

/** Receives one formatted line (no newline). @p module and @p line live only during the call. */
typedef void (*zq_log_sink_t)(int level, const char *module, const char *line);

/** Installs the sink (NULL discards). Called once by the port at start-up. */
void zq_log_set_sink(zq_log_sink_t sink);

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void zq_log_emit(int level, const char *module, const char *fmt, ...);

#define ZQ_LOG_AT(level, module, ...)                  \
    do {                                               \
        if ((level) <= ZQ_LOG_LEVEL) {                 \
            zq_log_emit((level), (module), __VA_ARGS__); \
        }                                              \
    } while (0)

#define ZQ_LOGE(module, ...) ZQ_LOG_AT(ZQ_LOG_ERROR, module, __VA_ARGS__)
#define ZQ_LOGW(module, ...) ZQ_LOG_AT(ZQ_LOG_WARN, module, __VA_ARGS__)
#define ZQ_LOGI(module, ...) ZQ_LOG_AT(ZQ_LOG_INFO, module, __VA_ARGS__)
#define ZQ_LOGD(module, ...) ZQ_LOG_AT(ZQ_LOG_DEBUG, module, __VA_ARGS__)

#endif /* ZQ_LOG_H */
