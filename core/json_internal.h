/* Shared between json_read.c and json_write.c; not part of the API. */
#ifndef ZQ_JSON_INTERNAL_H
#define ZQ_JSON_INTERNAL_H

/** x × 10^e10 for |e10| <= 400: one correctly rounded step when |e10| <= 22 (so exact for
 *  Clinger's fast path, x < 2^53), otherwise a few steps of 10^22. */
double json_scale10(double x, int e10);

#endif /* ZQ_JSON_INTERNAL_H */
