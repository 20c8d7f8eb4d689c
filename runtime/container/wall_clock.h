/* The container's wall-clock limit: the smallest of the operator's
 * ceiling (policy "timeout": {"max_seconds": N}), the annotation
 * run.sbrun.timeout and `sbrun run --timeout`. The annotation and the
 * option may only lower the ceiling: a higher value is clamped with a
 * warning, never honoured. */
#ifndef SB_WALL_CLOCK_H
#define SB_WALL_CLOCK_H

#include <stdint.h>

struct sb_error;
struct oci_config;
struct operator_policy;

#define TIMEOUT_ANNOTATION "run.sbrun.timeout"

/* requested: --timeout in seconds, 0 for none. *seconds: 0 for no limit. */
int wall_clock_limit(const struct operator_policy *policy, const struct oci_config *config,
                     int requested, int *seconds, struct sb_error *err);

/* CLOCK_MONOTONIC in milliseconds: deadlines must not move with the
 * system clock. */
int64_t wall_clock_now_ms(void);

#endif
