#include "spec/runc_paths.h"

#include <stddef.h>

const char *const runc_masked_paths[] = {
        "/proc/acpi",
        "/proc/asound",
        "/proc/kcore",
        "/proc/keys",
        "/proc/latency_stats",
        "/proc/timer_list",
        "/proc/timer_stats",
        "/proc/sched_debug",
        "/proc/scsi",
        "/sys/firmware",
        NULL,
};

/* /proc/sysrq-trigger would let root crash or reboot the host; /proc/sys
 * holds the host's non-namespaced sysctls (bwrap leaves it writable). */
const char *const runc_readonly_paths[] = {
        "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger", NULL,
};

/* Beyond runc's: powercap's energy counters leak what other tenants run. */
const char *const sbrun_masked_extra[] = { "/sys/devices/virtual/powercap", NULL };
