/* What the demo's device apps share (app/sensor.c, app/actuator.c). */
#ifndef ZQ_APP_H
#define ZQ_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "broker/brk.h"
#include "zq/bytes.h"

/** A device name: 1-31 characters of [A-Za-z0-9_-] (it goes into topics). */
bool app_name_ok(const char *name);

/** Appends @p centi / 100 with two decimals ("-3.07"): readings without printf's floating
 *  point, which newlib-nano leaves out. */
void app_write_centi(zq_writer_t *w, int32_t centi);

/** The text of a JSON string payload ("\"on\"" -> on) compared with @p word, or the string
 *  member @p key of an object payload ({"state":"on"}). */
bool app_payload_says(brk_str_t payload, const char *key, const char *word);

/** Answers a `status` request with the JSON object in @p json (a WOULD_BLOCK is answered by
 *  the requester's retry). */
void app_reply_status(brk_t *brk, uint64_t now, uint32_t handle, const char *json, size_t len);

#endif /* ZQ_APP_H */
