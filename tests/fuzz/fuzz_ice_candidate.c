/* libFuzzer target for candidate lines (RFC 8839 §5.1): arbitrary bytes must be rejected or
 * parsed into a candidate that formats to a line which parses back to the same candidate. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stack/ice/ice.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(bool ok)
{
    if (!ok) {
        __builtin_trap();
    }
}

static bool is_family(uint8_t family)
{
    return family == ZQ_AF_INET4 || family == ZQ_AF_INET6;
}

static void check_candidate(const ice_candidate_t *c)
{
    const char *end = memchr(c->foundation, '\0', sizeof c->foundation);
    require(end != NULL && end > c->foundation);
    require(c->component == 1 && c->type <= ICE_CAND_RELAY);
    require(is_family(c->addr.family));
    require(c->related.family == ZQ_AF_NONE || is_family(c->related.family));
}

static void check_same(const ice_candidate_t *a, const ice_candidate_t *b)
{
    require(strcmp(a->foundation, b->foundation) == 0);
    require(a->component == b->component && a->priority == b->priority && a->type == b->type);
    require(zq_addr_equal(&a->addr, &b->addr));
    require(a->related.family == b->related.family);
    require(a->related.family == ZQ_AF_NONE || zq_addr_equal(&a->related, &b->related));
}

/* A buffer one byte short of the text must be refused without a write past it: the exact-size
 * heap block lets AddressSanitizer see any overrun. */
static void check_short_buffer(const ice_candidate_t *c, size_t len)
{
    char *small = malloc(len);
    require(small != NULL);
    require(ice_candidate_format(c, small, len) == 0);
    require(len == 0 || small[0] == '\0');
    free(small);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ice_candidate_t c;
    zq_err_t err = ice_candidate_parse((const char *)data, size, &c);
    require(err == ZQ_OK || err == ZQ_ERR_UNSUPPORTED || err == ZQ_ERR_MALFORMED);
    if (err != ZQ_OK) {
        return 0;
    }
    check_candidate(&c);
    char text[ICE_CANDIDATE_TEXT_MAX];
    size_t n = ice_candidate_format(&c, text, sizeof text);
    require(n > 0 && n < sizeof text && text[n] == '\0' && strlen(text) == n);
    check_short_buffer(&c, n);
    ice_candidate_t back;
    require(ice_candidate_parse(text, n, &back) == ZQ_OK);
    check_same(&c, &back);
    return 0;
}
