/* Small helpers any layer may inline: branch hints, the clock, cheap randomness. No state. */
#ifndef MPII_UTIL_H
#define MPII_UTIL_H
#include <stdint.h>
#include <time.h>

#define MPII_LIKELY(x) __builtin_expect(!!(x), 1)
#define MPII_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* CLOCK_MONOTONIC in nanoseconds (the tools' clock where the TSC is not wanted). */
static inline uint64_t mpii_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t) t.tv_sec * 1000000000u + (uint64_t) t.tv_nsec;
}

/* The next number of a xorshift64 sequence (state != 0): cheap randomness for sampling gaps. */
static inline uint64_t mpii_xorshift(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}
#endif
