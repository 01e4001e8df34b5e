/* Small helpers any layer may inline: branch hints, the clock, cheap randomness, whole writes.
 * No state. */
#ifndef MPII_UTIL_H
#define MPII_UTIL_H
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

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

/* Writes all n bytes of buf to fd, at the file's position when at < 0, else at offset at (then
 * the position is left alone); retries short writes and EINTR. 0, or -1 with errno set. Used only
 * at the job's end and when a slot moves, never per call. */
static inline int mpii_write_all(int fd, const void *buf, size_t n, int64_t at)
{
    const char *p = buf;
    while (n) {
        ssize_t w = at < 0 ? write(fd, p, n) : pwrite(fd, p, n, (off_t) at);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t) w;
        if (at >= 0) at += w;
    }
    return 0;
}
#endif
