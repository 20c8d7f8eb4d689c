#include "runtime/cgroup/container_cgroup.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/log.h"
#include "oci/config.h"
#include "oci/state.h"
#include "runtime/cgroup/cgroup_path.h"
#include "runtime/cgroup/systemd_props.h"
#include "runtime/cgroup/systemd_scope.h"
#include "runtime/host/rootless.h"
#include "spec/floor.h"
#include "spec/floor_io.h"
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
        cc->holder = (struct systemd_holder)SYSTEMD_HOLDER_INIT;
}

static void warn_error(struct sb_error *e)
{
        _cleanup_free_ char *text = sb_error_text(e);

        sb_warn("%s", text ? text : "systemd: cleanup failed");
        sb_error_clear(e);
}

void container_cgroup_release(struct container_cgroup *cc)
{
        _cleanup_free_ char *path = cc->unit_started ? container_cgroup_planned_path(cc) : NULL;

        systemd_holder_end(&cc->holder);
        /* Killed and removed first: a stop job would SIGTERM and then
         * wait for systemd's stop timeout. */
        cgroup_release(&cc->cg);
        if (cc->unit_started) {
                struct sb_error e = { 0 };
                if (systemd_scope_stop(cc->unit, cc->slice, path, &e) < 0)
                        warn_error(&e);
                cc->unit_started = false;
        }
        free(cc->unit);
        free(cc->slice);
        free(cc->id);
        cc->unit = cc->slice = cc->id = NULL;
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

/* A device program takes CAP_BPF or CAP_SYS_ADMIN of the host: a rootless
 * caller's container has none. Its user namespace does most of the work
 * (no mknod; only the nodes bound into /dev can be opened), so that the
 * default rules and any allow rule hold as they are; a rule that denies a
 * particular node does not, and says so. */
static void rootless_devices(struct container_cgroup *cc, const struct oci_linux *l)
{
        const struct oci_resources *r = l ? l->resources : NULL;

        cc->no_device_program = true;
        for (size_t i = 0; r != NULL && i < r->n_devices; i++) {
                const struct oci_device_cgroup *d = &r->devices[i];
                bool all = (d->type == NULL || strcmp(d->type, "a") == 0) && !d->has_major &&
                           !d->has_minor;
                if (!d->allow && !all)
                        sb_warn("linux.resources.devices[%zu]: a deny of one device is not "
                                "enforced rootless (a user cannot attach a device program); "
                                "the container can open the nodes bound into its /dev",
                                i);
        }
}

/* A rootless caller's scope is its systemd --user's: the slices are below
 * that manager's own cgroup (user@UID.service), which is asked for. */
static int below_user_manager(struct container_cgroup *cc, struct sb_error *err)
{
        _cleanup_free_ char *base = NULL;
        char *rel = NULL;

        if (systemd_manager_cgroup(&base, err) < 0)
                return -1;
        if (asprintf(&rel, "%s/%s", base + strspn(base, "/"), cc->rel) < 0)
                return sb_fail(err, ENOMEM, "linux.cgroupsPath");
        free(cc->rel);
        cc->rel = rel;
        return 0;
}

/* The io ceiling needs the io controller where the cgroup is made
 * (spec/floor_io.h): refused without it, or its settings left unwritten
 * where the policy waives it. */
static int io_controller(struct container_cgroup *cc, const struct operator_policy *policy,
                         const struct oci_config *config, struct sb_error *err)
{
        _cleanup_free_ char *missing = NULL;
        struct floor_report report = { .log = true };
        bool drop = false;
        size_t kept = 0;

        /* Where the cgroup will be (a rootless scope is below the user's
         * manager, which may not have been given io). */
        int ret = cgroup_root_missing(&cc->root, cc->rel, "io", &missing, err);
        if (ret == 0)
                ret = floor_io_controller(policy, config, missing, &drop, &report, err);
        floor_report_release(&report);
        if (ret < 0)
                return -1;
        if (!drop)
                return 0;
        for (size_t i = 0; i < cc->settings.n; i++) {
                struct cgroup_setting *s = &cc->settings.items[i];
                if (strncmp(s->file, "io.", 3) == 0) {
                        free(s->file);
                        free(s->value);
                        free(s->field);
                        free(s->fallback_file);
                        free(s->fallback_value);
                        continue;
                }
                cc->settings.items[kept++] = *s;
        }
        cc->settings.n = kept;
        return 0;
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
        if (unusable == NULL && !systemd_cgroup &&
            cgroup_root_rootless_writable(&cc->root, &unusable, err) < 0)
                return -1;
        ret = floor_cgroups_decide(policy, config, id, unusable, &cc->unenforced, &report, err);
        floor_report_release(&report);
        if (ret < 0)
                return -1;
        if (cc->unenforced)
                return container_cgroup_check_path(config, id, err);
        if (rootless_detect())
                rootless_devices(cc, l);
        if (cgroup_path_resolve(&cc->root, l ? l->cgroups_path : NULL, id, systemd_cgroup, &cc->rel,
                                err) < 0)
                return -1;
        if (!systemd_cgroup)
                return io_controller(cc, policy, config, err);
        if (cgroup_path_systemd_unit(l ? l->cgroups_path : NULL, id, &cc->slice, &cc->unit, err) <
            0)
                return -1;
        if (rootless_detect()) {
                if (below_user_manager(cc, err) < 0)
                        return -1;
                cc->attach_by_systemd = true;
        }
        /* runc makes a slice unit for such a name; sbrun's containers are
         * scopes only (README: differences from runc). */
        size_t n = strlen(cc->unit);
        if (n < 6 || strcmp(cc->unit + n - 6, ".scope") != 0)
                return sb_fail(err, 0,
                               "linux.cgroupsPath: \"%s\": with --systemd-cgroup the container's "
                               "unit is a scope: a name that is a slice (%s) is not supported",
                               l->cgroups_path, cc->unit);
        cc->id = strdup(id);
        if (cc->id == NULL)
                return sb_fail(err, ENOMEM, "linux.cgroupsPath");
        return io_controller(cc, policy, config, err);
}

/* The scope, started with the holder as its process, then opened as the
 * container's cgroup: the limits systemd has no property for, and those it
 * has (already in force), are written as with cgroupfs. */
static int start_scope(struct container_cgroup *cc, struct sb_error *err)
{
        _cleanup_free_ char *description = NULL, *path = NULL;
        struct systemd_props props;
        int ret;

        if (systemd_props_from_settings(&cc->settings, true, &props, err) < 0)
                return -1;
        if (asprintf(&description, "sbrun container %s", cc->id) < 0 ||
            (path = container_cgroup_planned_path(cc)) == NULL) {
                systemd_props_release(&props);
                return sb_fail(err, ENOMEM, "systemd scope");
        }
        ret = systemd_holder_spawn(&cc->holder, err);
        if (ret == 0)
                ret = systemd_scope_start(cc->unit, cc->slice, description, &props, cc->holder.pid,
                                          &cc->unit_started, err);
        systemd_props_release(&props);
        if (ret < 0)
                return -1;
        if (cgroup_open(path, &cc->cg, err) < 0)
                return sb_error_prefix(err, "systemd scope %s", cc->unit);
        /* Removed by release unless kept, as a cgroup create makes. */
        cc->cg.created = true;
        return 0;
}

int container_cgroup_create(struct container_cgroup *cc, struct sb_error *err)
{
        if (cc->unenforced)
                return 0;
        if (cc->unit != NULL ? start_scope(cc, err) < 0 :
                               cgroup_create(&cc->root, cc->rel, &cc->cg, err) < 0)
                return -1;
        if (cgroup_apply(&cc->cg, &cc->settings, err) < 0)
                return -1;
        if (cc->no_device_program)
                return 0;
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

int container_cgroup_update(const struct oci_state *state, struct cgroup *cg,
                            const struct cgroup_settings *settings, struct sb_error *err)
{
        const char *unit = oci_state_marker(state, SYSTEMD_UNIT_MARKER);
        struct systemd_props props;
        int ret;

        if (cgroup_apply(cg, settings, err) < 0)
                return -1;
        if (unit == NULL)
                return 0;
        /* So that systemd, realizing the unit again, writes the new values. */
        if (systemd_props_from_settings(settings, false, &props, err) < 0)
                return -1;
        ret = props.n > 0 ? systemd_scope_update(unit, &props, err) : 0;
        systemd_props_release(&props);
        return ret;
}

int container_cgroup_stop_unit(const struct oci_state *state, struct sb_error *err)
{
        const char *unit = oci_state_marker(state, SYSTEMD_UNIT_MARKER);

        if (unit == NULL)
                return 0;
        return systemd_scope_stop(unit, oci_state_marker(state, SYSTEMD_SLICE_MARKER),
                                  state->cgroup_path, err);
}
