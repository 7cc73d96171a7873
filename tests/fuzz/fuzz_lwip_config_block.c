/* libFuzzer target for the firmware's configuration block (port/lwip/config_block.h):
 * arbitrary bytes are read or refused with a reason and, for a line's fault, its number; what
 * is read obeys the rules (strings NUL-terminated inside their buffers, IPv4 addresses, an app
 * that exists). The input is an exact-size heap copy, so AddressSanitizer sees any read past
 * its end. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "port/lwip/config_block.h"
#include "fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_read(const zq_config_block_t *c)
{
    check(c->ip.family == ZQ_AF_INET4 && c->netmask.family == ZQ_AF_INET4);
    check(c->gw.family == ZQ_AF_NONE || c->gw.family == ZQ_AF_INET4);
    check(memchr(c->signal, '\0', sizeof c->signal) != NULL && c->signal[0] != '\0');
    check(memchr(c->room, '\0', sizeof c->room) != NULL && c->room[0] != '\0');
    check(memchr(c->name, '\0', sizeof c->name) != NULL);
    check(c->app == ZQ_FW_APP_ECHO || c->app == ZQ_FW_APP_SENSOR || c->app == ZQ_FW_APP_ACTUATOR);
    check(c->period_ms >= 1 && c->period_ms <= 3600000u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size > 0 ? size : 1);
    check(text != NULL);
    if (size > 0) {
        memcpy(text, data, size);
    }
    zq_config_block_t c;
    const char *why = NULL;
    unsigned line = 99;
    zq_err_t err = zq_config_block_parse(text, size, &c, &why, &line);
    if (err == ZQ_OK) {
        check(line == 0);
        check_read(&c);
    } else {
        check(why != NULL);
        check(err == ZQ_ERR_MALFORMED || err == ZQ_ERR_TOO_LONG || err == ZQ_ERR_NOT_FOUND);
    }
    free(text);
    return 0;
}
