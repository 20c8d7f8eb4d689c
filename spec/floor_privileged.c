/* An engine's privileged mode, asked for by name: podman --privileged marks
 * the spec with the annotation io.podman.annotations.privileged=TRUE and
 * then asks for every host device, every capability and no seccomp filter.
 * The floor never runs such a container, so it is refused first and by
 * that name, rather than by whichever host device the floor meets first. */
#include "spec/floor.h"

#include "common/error.h"
#include "oci/config.h"

#include <stdio.h>
#include <strings.h>

#define PODMAN_PRIVILEGED "io.podman.annotations.privileged"

int floor_privileged(struct oci_config *config, const struct floor_context *ctx,
                     struct floor_report *report, struct sb_error *err)
{
        (void)ctx;
        const char *v = oci_annotation(config, PODMAN_PRIVILEGED);
        if (v == NULL || strcasecmp(v, "true") != 0)
                return 0;
        return floor_refuse(report, err, "annotations[\"" PODMAN_PRIVILEGED "\"]",
                            "TRUE (podman --privileged)", "standard: no privileged container");
}
