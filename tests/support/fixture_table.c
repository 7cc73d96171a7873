#include "fixture_table.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

int fixture_table_load(const char *path, char *text, size_t cap, json_value_t *table)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        print_error("cannot open %s\n", path);
        return -1;
    }
    size_t n = fread(text, 1, cap, f);
    (void)fclose(f);
    if (n == cap || json_parse(text, n, table) != ZQ_OK) {
        print_error("%s: not one JSON value of under %zu bytes\n", path, n);
        return -1;
    }
    return 0;
}

json_value_t fixture_member(json_value_t obj, const char *key)
{
    json_value_t v;
    if (json_object_get(obj, key, &v) != ZQ_OK) {
        fail_msg("the table has no \"%s\" here", key);
    }
    return v;
}
