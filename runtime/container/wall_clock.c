#include "runtime/container/wall_clock.h"

#include <stdio.h>
#include <time.h>

int64_t wall_clock_now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

char *wall_clock_rfc3339(void)
{
        struct timespec ts;
        struct tm tm;
        char base[32];
        char *out = NULL;

        clock_gettime(CLOCK_REALTIME, &ts);
        gmtime_r(&ts.tv_sec, &tm);
        strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
        if (asprintf(&out, "%s.%09ldZ", base, ts.tv_nsec) < 0)
                return NULL;
        return out;
}
