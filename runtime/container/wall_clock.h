/* Deadlines of the wall-clock limit, which spec/floor_runtime.h decides. */
#ifndef SB_WALL_CLOCK_H
#define SB_WALL_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in milliseconds: deadlines must not move with the
 * system clock. */
int64_t wall_clock_now_ms(void);

#endif
