/* A JSON table of tests/web/fixtures/, which the C tests and zq.js's read alike. */
#ifndef ZQ_TEST_FIXTURE_TABLE_H
#define ZQ_TEST_FIXTURE_TABLE_H

#include <stddef.h>

#include "zq/json.h"

/** Reads @p path into @p text (@p cap bytes) and parses it into @p table, which borrows
 *  @p text. @return 0, or -1 with the reason printed (a cmocka group setup's result). */
int fixture_table_load(const char *path, char *text, size_t cap, json_value_t *table);

/** Member @p key of @p obj; fails the test if the table has none there. */
json_value_t fixture_member(json_value_t obj, const char *key);

#endif
