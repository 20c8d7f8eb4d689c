#include "runtime/cgroup/container_cgroup.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/log.h"
#include "oci/config.h"
#include "oci/state.h"
#include "runtime/cgroup/cgroup_path.h"
#include "spec/floor.h"
#include "spec/floor_runtime.h"
#include "spec/operator_policy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void container_cgroup_init(struct container_cgroup *cc)
{
        memset(cc, 0, sizeof(*cc));
        cc->root = (struct cgroup_root)CGROUP_ROOT_INIT;
        cc->cg = (struct cgroup)CGROUP_INIT;
}

void container_cgroup_release(struct container_cgroup *cc)
{
        cgroup_release(&cc->cg);
        cgroup_settings_release(&cc->settings);
        device_filter_release(&cc->devices);
        cgroup_root_release(&cc->root);
        free(cc->rel);
        cc->rel = NULL;
}

/* Without a cgroup the path is unused, but a bad one is still bad input. */
int container_cgroup_check_path(const struct oci_config *config, const char *id,
                                struct sb_error *err)
{
        struct cgroup_root placeholder = { .mount = (char *)"/sys/fs/cgroup", .rel = (char *)"" };
        const char *path = config->linux_ ? config->linux_->cgroups_path : NULL;
        _cleanup_free_ char *rel = NULL;

        if (path == NULL || *path == '\0' || strchr(path, ':') != NULL)
                return 0;
        return cgroup_path_resolve(&placeholder, path, id, false, &rel, err);
}

int container_cgroup_plan(struct container_cgroup *cc, bool systemd_cgroup,
                          const struct operator_policy *policy, const struct oci_config *config,
                          const char *id, struct sb_error *err)
{
        const struct oci_linux *l = config->linux_;
        struct floor_report report = { .log = true };
        _cleanup_free_ char *unusable = NULL;
        int ret;

        /* Bad resources are bad input on any host. */
        if (cgroup_resources_convert(l ? l->resources : NULL, "linux.resources", &cc->settings,
                                     err) < 0 ||
            device_filter_build(l, &cc->devices, err) < 0)
                return -1;
        if (cgroup_root_probe(&cc->root, &unusable, err) < 0)
                return -1;
        ret = floor_cgroups_decide(policy, config, id, unusable, &cc->unenforced, &report, err);
        floor_report_release(&report);
        if (ret < 0)
                return -1;
        if (cc->unenforced)
                return container_cgroup_check_path(config, id, err);
        return cgroup_path_resolve(&cc->root, l ? l->cgroups_path : NULL, id, systemd_cgroup,
                                   &cc->rel, err);
}

int container_cgroup_create(struct container_cgroup *cc, struct sb_error *err)
{
        if (cc->unenforced)
                return 0;
        if (cgroup_create(&cc->root, cc->rel, &cc->cg, err) < 0)
                return -1;
        if (cgroup_apply(&cc->cg, &cc->settings, err) < 0)
                return -1;
        /* Before any process joins: the container's first open of a device
         * node is already judged. */
        return device_filter_attach(&cc->devices, cc->cg.dir_fd, err);
}

int container_cgroup_open(const struct oci_state *state, const char *command, struct cgroup *cg,
                          struct sb_error *err)
{
        if (state->cgroup_path == NULL)
                return sb_fail(err, 0,
                               "%s: container %s has no cgroup: it runs without resource "
                               "limits (operator policy \"cgroups\": {\"enforce\": false})",
                               command, state->id);
        if (cgroup_open(state->cgroup_path, cg, err) < 0)
                return sb_error_prefix(err, "%s: container %s", command, state->id);
        return 0;
}

char *container_cgroup_planned_path(const struct container_cgroup *cc)
{
        char *path = NULL;

        if (cc->cg.path != NULL)
                return strdup(cc->cg.path);
        if (cc->unenforced || cc->root.mount == NULL || cc->rel == NULL)
                return NULL;
        if (asprintf(&path, "%s/%s", cc->root.mount, cc->rel) < 0)
                return NULL;
        return path;
}
