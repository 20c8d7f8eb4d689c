#include "runtime/sandbox/plan_build.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"
#include "common/log.h"
#include "common/strv.h"
#include "oci/config.h"
#include "runtime/sandbox/launcher.h"
#include "runtime/sandbox/mount_translate.h"
#include "runtime/sandbox/plan_sched.h"
#include "runtime/seccomp/floor_seccomp.h"
#include "runtime/seccomp/seccomp_setup.h"
#include "spec/floor_landlock.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

static char **copy_strv(char *const *v, size_t n)
{
        struct strv out = { 0 };
        for (size_t i = 0; i < n; i++)
                strv_add(&out, v[i]);
        if (out.failed) {
                strv_release(&out);
                return NULL;
        }
        return strv_steal(&out);
}

/* The environment as the process gets it: config env, with LISTEN_FDS and
 * LISTEN_PID for socket activation when fds are passed that way (as crun). */
static char **build_env(const struct oci_process *process, int listen_fds)
{
        struct strv env = { 0 };

        for (size_t i = 0; i < process->n_env; i++) {
                if (listen_fds > 0 && (strncmp(process->env[i], "LISTEN_FDS=", 11) == 0 ||
                                       strncmp(process->env[i], "LISTEN_PID=", 11) == 0))
                        continue;
                strv_add(&env, process->env[i]);
        }
        if (listen_fds > 0) {
                strv_addf(&env, "LISTEN_FDS=%d", listen_fds);
                strv_add(&env, "LISTEN_PID=1");
        }
        if (env.failed) {
                strv_release(&env);
                return NULL;
        }
        return strv_steal(&env);
}

static int add_path_mounts(struct init_mount_list *mounts, char **paths, size_t n,
                           enum init_mount_kind kind, struct sb_error *err)
{
        for (size_t i = 0; i < n; i++) {
                /* A path missing on this kernel (/proc/kcore on some) is
                 * skipped, not an error (docs/design.md#bwrap-cannot-mask-paths). */
                if (init_mount_list_add(mounts, kind, NULL, paths[i], NULL,
                                        kind == INIT_MOUNT_READONLY ? MS_RDONLY : 0, NULL,
                                        true) < 0)
                        return sb_fail(err, ENOMEM, "linux paths");
        }
        return 0;
}

static int build_devices(const struct oci_linux *linux_, struct init_plan *plan,
                         struct sb_error *err)
{
        if (linux_ == NULL || linux_->n_devices == 0)
                return 0;
        plan->devices = calloc(linux_->n_devices, sizeof(*plan->devices));
        if (plan->devices == NULL)
                return sb_fail(err, ENOMEM, "linux.devices");
        for (size_t i = 0; i < linux_->n_devices; i++) {
                const struct oci_device *d = &linux_->devices[i];
                struct init_device *out = &plan->devices[plan->n_devices++];
                mode_t type = d->type == 'b' ? S_IFBLK : d->type == 'p' ? S_IFIFO : S_IFCHR;
                out->path = strdup(d->path);
                if (out->path == NULL)
                        return sb_fail(err, ENOMEM, "linux.devices");
                out->mode = type | (d->has_file_mode ? (d->file_mode & 07777) : 0666);
                out->major = d->major < 0 ? 0 : (uint32_t)d->major;
                out->minor = d->minor < 0 ? 0 : (uint32_t)d->minor;
                out->uid = d->has_uid ? d->uid : 0;
                out->gid = d->has_gid ? d->gid : 0;
        }
        return 0;
}

/* The kernel raises an ambient capability only if it is permitted and
 * inheritable (and still in the bounding set): runc and crun skip the ones
 * it would refuse, with a warning, rather than failing the container. */
static void skip_unraisable_ambient(struct init_plan *plan)
{
        uint64_t raisable = plan->cap_permitted & plan->cap_inheritable & plan->cap_bounding;
        uint64_t refused = plan->cap_ambient & ~raisable;

        for (int cap = 0; cap < 64 && refused != 0; cap++) {
                if (!(refused & (UINT64_C(1) << cap)))
                        continue;
                const char *name = oci_capability_name(cap);
                sb_warn("process.capabilities.ambient: %s is not in the permitted, inheritable "
                        "and bounding sets, so the kernel cannot raise it: skipped, as runc does",
                        name ? name : "an unknown capability");
        }
        plan->cap_ambient &= raisable;
}

/* The process half of a plan, shared by create and exec: what to run, as
 * whom, with which capabilities, on which fds. */
static int fill_process(struct init_plan *plan, const struct oci_process *process,
                        const char *exec_path, const struct plan_inputs *in, struct sb_error *err)
{
        const char *cwd = in->cwd;
        int listen_fds = in->listen_fds;

        plan->args = copy_strv(process->args, process->n_args);
        plan->env = build_env(process, listen_fds);
        plan->exec_path = exec_path ? strdup(exec_path) : NULL;
        plan->cwd = strdup(cwd);
        if (plan->args == NULL || plan->env == NULL || (exec_path && plan->exec_path == NULL) ||
            plan->cwd == NULL)
                return sb_fail(err, ENOMEM, "init plan");
        plan->uid = process->user.uid;
        plan->gid = process->user.gid;
        if (process->user.n_additional_gids > 0) {
                plan->additional_gids = calloc(process->user.n_additional_gids, sizeof(uint32_t));
                if (plan->additional_gids == NULL)
                        return sb_fail(err, ENOMEM, "process.user.additionalGids");
                memcpy(plan->additional_gids, process->user.additional_gids,
                       process->user.n_additional_gids * sizeof(uint32_t));
                plan->n_additional_gids = process->user.n_additional_gids;
        }
        plan->has_umask = process->user.has_umask;
        plan->umask = process->user.umask;
        plan->has_capabilities = process->has_capabilities;
        plan->cap_bounding = process->capabilities.bounding;
        plan->cap_effective = process->capabilities.effective;
        plan->cap_inheritable = process->capabilities.inheritable;
        plan->cap_permitted = process->capabilities.permitted;
        plan->cap_ambient = process->capabilities.ambient;
        if (process->has_capabilities)
                skip_unraisable_ambient(plan);
        plan->no_new_privileges = process->no_new_privileges;
        /* Empty means none, as in runc; a label the host cannot carry out
         * was dropped, with a warning, by floor_lsm_decide. */
        if ((process->apparmor_profile && *process->apparmor_profile &&
             (plan->apparmor_profile = strdup(process->apparmor_profile)) == NULL) ||
            (process->selinux_label && *process->selinux_label &&
             (plan->selinux_label = strdup(process->selinux_label)) == NULL))
                return sb_fail(err, ENOMEM, "init plan");
        plan->cgroup_procs_fd = -1;
        plan->terminal = process->terminal;
        if (process->has_console_size) {
                plan->console_height = process->console_size.height;
                plan->console_width = process->console_size.width;
        }
        plan->ready_fd = in->ready_fd;
        plan->fifo_fd = in->fifo_fd;
        plan->stderr_fd = in->stderr_fd;
        plan->console_fd = plan->terminal ? in->console_fd : -1;
        plan->preserve_fds = in->preserve_fds;
        return 0;
}

/* linux.mountLabel as runc's label.FormatMountLabel puts it: context="LABEL"
 * on the filesystems the init mounts whose files have no label of their own
 * (tmpfs, devpts, the tmpfs that masks a directory); bwrap's own mounts get
 * it through --file-label (bwrap_args.c). sysfs and cgroup2 keep theirs. */
static int label_mounts(struct init_plan *plan, const char *label, struct sb_error *err)
{
        if (label == NULL || *label == '\0')
                return 0;
        for (size_t i = 0; i < plan->n_mounts; i++) {
                struct init_mount *m = &plan->mounts[i];
                const char *base;
                char *data;

                if (m->kind == INIT_MOUNT_MASK)
                        base = "mode=0555";
                else if (m->kind == INIT_MOUNT_FS && m->fstype &&
                         (strcmp(m->fstype, "tmpfs") == 0 || strcmp(m->fstype, "devpts") == 0))
                        base = m->data;
                else
                        continue;
                if (asprintf(&data, "%s%scontext=\"%s\"", base ? base : "", base ? "," : "",
                             label) < 0)
                        return sb_fail(err, ENOMEM, "linux.mountLabel");
                free(m->data);
                m->data = data;
        }
        return 0;
}

int plan_build(const struct oci_config *config, const struct plan_inputs *in,
               struct init_plan *plan, struct sb_error *err)
{
        const struct oci_linux *linux_ = config->linux_;

        memset(plan, 0, sizeof(*plan));
        if (fill_process(plan, config->process, NULL, in, err) < 0 ||
            plan_sched(plan, config->process, NULL, linux_ ? linux_->personality : NULL, err) < 0)
                return -1;
        if (linux_ != NULL) {
                if (add_path_mounts(in->mounts, linux_->masked_paths, linux_->n_masked_paths,
                                    INIT_MOUNT_MASK, err) < 0 ||
                    add_path_mounts(in->mounts, linux_->readonly_paths, linux_->n_readonly_paths,
                                    INIT_MOUNT_READONLY, err) < 0)
                        return -1;
        }
        plan->mounts = in->mounts->items;
        plan->n_mounts = in->mounts->n;
        memset(in->mounts, 0, sizeof(*in->mounts));
        if (linux_ != NULL && label_mounts(plan, linux_->mount_label, err) < 0)
                return -1;
        if (build_devices(linux_, plan, err) < 0)
                return -1;
        plan->readonly_root = config->root.readonly;
        if (in->session_keyring != NULL &&
            (plan->session_keyring = strdup(in->session_keyring)) == NULL)
                return sb_fail(err, ENOMEM, "init plan");
        return 0;
}

int plan_build_exec(const struct oci_config *container, const struct oci_process *process,
                    const char *exec_path, const struct plan_inputs *in, struct init_plan *plan,
                    struct sb_error *err)
{
        const struct oci_linux *linux_ = container->linux_;

        memset(plan, 0, sizeof(*plan));
        if (fill_process(plan, process, exec_path, in, err) < 0)
                return -1;
        return plan_sched(plan, process, container->process, linux_ ? linux_->personality : NULL,
                          err);
}

static int landlock_to_plan(const struct landlock_rules *r, struct init_plan *plan,
                            struct sb_error *err)
{
        if (r == NULL || r->mode == LANDLOCK_OFF)
                return 0;
        plan->landlock_mode = (uint32_t)r->mode;
        plan->landlock_abi = (uint32_t)r->abi;
        plan->landlock_exec_writable = r->exec_writable;
        plan->landlock_no_tcp = r->no_tcp;
        plan->landlock_writable = copy_strv(r->writable, r->n_writable);
        return plan->landlock_writable ? 0 : sb_fail(err, ENOMEM, "landlock");
}

int plan_seal(struct init_plan *plan, const struct plan_confinement *conf, const char *name,
              struct sb_error *err)
{
        _cleanup_free_ uint8_t *encoded = NULL;
        size_t len = 0;

        if (conf->cgroup)
                plan->cgroup_procs_fd = launcher_fd_number(plan->preserve_fds, LFD_CGROUP);
        /* The floor's filters first, the spec's stacked on top: the kernel
         * runs every filter and the most restrictive action wins, so the
         * spec's can narrow the floor, never widen it. */
        if (floor_seccomp_to_plan(conf->floor, plan, err) < 0 ||
            seccomp_setup_to_plan(conf->seccomp,
                                  launcher_fd_number(plan->preserve_fds, LFD_SECCOMP), plan,
                                  err) < 0)
                return -1;
        if (landlock_to_plan(conf->landlock, plan, err) < 0 ||
            init_plan_encode(plan, &encoded, &len, err) < 0)
                return -1;
        return sb_memfd_with(name, encoded, len, err);
}
