/* quantile.h - the quantile of a sample, for the benchmarks' C programs that print a median
 * and quartiles themselves (pingpong_paired.c, pingpong_plain.c). */
#ifndef BENCH_QUANTILE_H
#define BENCH_QUANTILE_H
#include <stdlib.h>

static int by_value(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

/* The q-quantile of xs[0..n) (sorts xs), linear between neighbours. */
static double quantile(double *xs, int n, double q)
{
    qsort(xs, (size_t) n, sizeof *xs, by_value);
    double at = q * (n - 1);
    int i = (int) at;
    return i + 1 < n ? xs[i] + (at - i) * (xs[i + 1] - xs[i]) : xs[i];
}
#endif
