/* `zq signal`'s log lines on stderr: each client's connect, join and leave, and the stop. Kept
 * apart so every line goes out the same way, whole. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "server/signal_server.h"

static bool quiet;

void signal_log_quiet(bool on)
{
    quiet = on;
}

SIGNAL_PRINTF(1, 0) static void say(const char *fmt, va_list args)
{
    /* One fputs per line: stderr is unbuffered, and lines from several writers must not mix. */
    char line[512];
    int n = snprintf(line, sizeof line, "zq signal: ");
    (void)vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, args);
    size_t len = strlen(line);
    line[len] = '\n';
    line[len + 1] = '\0';
    if (!quiet) {
        (void)fputs(line, stderr);
    }
}

void signal_say(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    say(fmt, args);
    va_end(args);
}

int signal_fail(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    say(fmt, args);
    va_end(args);
    return 1;
}

/* A client's room comes from the client: a newline in it must not forge a log line. */
const char *signal_printable(const char *text, char *out, size_t cap)
{
    size_t i = 0;
    for (; text[i] != '\0' && i + 1 < cap; i++) {
        bool control = (uint8_t)text[i] < 0x20 || text[i] == 0x7f;
        out[i] = control ? '?' : text[i];
    }
    out[i] = '\0';
    return out;
}
