/* -ERR <error message> (protocol doc, "-ERR"): the server reports a problem. Most errors close
 * the connection; after 'Invalid Subject' and 'Permissions Violation for Subscription to ...'
 * / '... for Publish to ...' it stays open, and only that command was refused. The server
 * quotes the text ('Authorization Violation'); the event gives it without the quotes. */
#include <string.h>

#include "stack/nats/nats.h"
#include "stack/nats/nats_internal.h"
#include "zq/ascii.h"

static bool starts_with(const char *s, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    if (len < n) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (zq_ascii_lower(s[i]) != zq_ascii_lower(prefix[i])) {
            return false;
        }
    }
    return true;
}

static bool keeps_connection(const char *text, size_t len)
{
    return starts_with(text, len, "Invalid Subject") ||
           starts_with(text, len, "Permissions Violation");
}

void nats_on_err(nats_client_t *c, const char *args, size_t len)
{
    while (len > 0 && (args[len - 1] == ' ' || args[len - 1] == '\t')) {
        len--;
    }
    if (len >= 2 && args[0] == '\'' && args[len - 1] == '\'') {
        args++;
        len -= 2;
    }
    c->server_errors++;
    nats_raise_err(c, args, len, !keeps_connection(args, len));
}
