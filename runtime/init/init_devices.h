/* Device nodes sbrun-init creates inside the container (linux.devices). */
#ifndef SB_INIT_DEVICES_H
#define SB_INIT_DEVICES_H

#include "runtime/init/init_plan.h"

struct sb_error;

/* mknod each device, replacing a non-directory already at its path, creating
 * parent directories, then chown and chmod it (mknod is subject to umask). */
int init_create_devices(const struct init_device *devices, size_t n, struct sb_error *err);

#endif
