/* Deadlines of the wall-clock limit, which spec/floor_runtime.h decides. */
#ifndef SB_WALL_CLOCK_H
#define SB_WALL_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in milliseconds: deadlines must not move with the
 * system clock. */
int64_t wall_clock_now_ms(void);

/* CLOCK_REALTIME as RFC 3339 in UTC with nanoseconds ("…T12:00:00.000000001Z"),
 * the form of the state's "created" and the audit trail's "time", which
 * sort as strings. Allocated; NULL when out of memory. */
char *wall_clock_rfc3339(void);

#endif
