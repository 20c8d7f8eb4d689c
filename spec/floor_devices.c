/* linux.devices: only the standard character devices (what a device node
 * gives is decided by its type and numbers, not its path, so /dev/extra-null
 * as 1:3 is fine), FIFOs, and the paths the operator allow-lists in
 * floor.devices. Anything else is refused rather than dropped: a container
 * that needs a device would otherwise fail later and obscurely. */
#include "spec/floor.h"

#include "common/error.h"
#include "oci/config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const struct {
        int64_t major, minor;
} standard_nodes[] = {
        { 1, 3 }, /* null */ { 1, 5 },   /* zero */ { 1, 7 }, /* full */
        { 1, 8 }, /* random */ { 1, 9 },                      /* urandom */
        { 5, 0 }, /* tty */ { 5, 2 },                         /* ptmx */
};

bool floor_device_allowed(char type, int64_t major, int64_t minor, const char *path,
                          const struct floor_context *ctx)
{
        if (type == 'p')
                return true;
        for (char *const *p = ctx->devices; p != NULL && *p != NULL; p++) {
                if (strcmp(*p, path) == 0)
                        return true;
        }
        if (type != 'c' && type != 'u')
                return false;
        for (size_t i = 0; i < sizeof(standard_nodes) / sizeof(standard_nodes[0]); i++) {
                if (standard_nodes[i].major == major && standard_nodes[i].minor == minor)
                        return true;
        }
        return false;
}

int floor_devices(struct oci_config *config, const struct floor_context *ctx,
                  struct floor_report *report, struct sb_error *err)
{
        const struct oci_linux *l = config->linux_;

        for (size_t i = 0; i < l->n_devices; i++) {
                const struct oci_device *d = &l->devices[i];
                char field[64], value[512];
                if (floor_device_allowed(d->type, d->major, d->minor, d->path, ctx))
                        continue;
                snprintf(field, sizeof(field), "linux.devices[%zu]", i);
                snprintf(value, sizeof(value), "%s (%c %" PRId64 ":%" PRId64 ")", d->path, d->type,
                         d->major, d->minor);
                if (floor_refuse(report, err, field, value,
                                 "standard: only standard or operator-allowed devices") < 0)
                        return -1;
        }
        return 0;
}
