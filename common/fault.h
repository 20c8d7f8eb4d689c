/* Named fault points, for the crash tests in tests/faults/.
 *
 * SB_FAULT_POINT("create.after-state-dir") marks a step after which a
 * container's state on disk or in the kernel has changed. In a build made
 * with `./configure --enable-fault-injection`, sbrun kills itself with
 * SIGKILL at the point the environment variable SBRUN_FAULT names, so a
 * test can check what a crash there leaves and that `delete --force`
 * removes it. In every other build the macro is nothing at all.
 *
 * The list of points is the source itself: tests/faults/fault-points.sh
 * greps every SB_FAULT_POINT("...") so that none can be missed. The name
 * must therefore be a string literal on the macro's line. */
#ifndef SB_FAULT_H
#define SB_FAULT_H

#include "config.h"

#ifdef SBRUN_FAULT_INJECTION
void sb_fault_point(const char *name);
#define SB_FAULT_POINT(name) sb_fault_point("" name "")
#else
#define SB_FAULT_POINT(name) ((void)0)
#endif

#endif
