#include "zq/log.h"

#include <stdarg.h>
#include <stdio.h>

static zq_log_sink_t log_sink;

void zq_log_set_sink(zq_log_sink_t sink)
{
    log_sink = sink;
}

void zq_log_emit(int level, const char *module, const char *fmt, ...)
{
    if (log_sink == NULL) {
        return;
    }
    char line[ZQ_LOG_LINE_MAX];
    va_list args;
    va_start(args, fmt);
    (void)vsnprintf(line, sizeof line, fmt, args);
    va_end(args);
    log_sink(level, module, line);
}
