/* What every bench/ program shares for its figures: medians and quantiles of a few runs, and
 * the attribute that keeps a counted function's symbol for callgrind's --toggle-collect. */
#ifndef ZQ_BENCH_STATS_H
#define ZQ_BENCH_STATS_H

#include <stdlib.h>
#include <string.h>

#if defined(__clang__)
#define BENCH_NOT_INLINED __attribute__((noinline))
#else
#define BENCH_NOT_INLINED __attribute__((noipa)) /* keeps the symbol callgrind looks for */
#endif

/** Values a median is taken over, at most. */
#define BENCH_MAX_VALUES 64

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a;
    double y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline void bench_sort(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
}

/** The median of @p n (1 to BENCH_MAX_VALUES) values; @p v is left as it is. */
static inline double bench_median(const double *v, int n)
{
    double sorted[BENCH_MAX_VALUES];
    memcpy(sorted, v, (size_t)n * sizeof *v);
    bench_sort(sorted, n);
    return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

#endif /* ZQ_BENCH_STATS_H */
