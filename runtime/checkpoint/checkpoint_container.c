#include "runtime/checkpoint/checkpoint_container.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "oci/config.h"
#include "oci/json_write.h"
#include "oci/state.h"
#include "runtime/audit/audit_line.h"
#include "runtime/cgroup/cgroup_root.h"
#include "runtime/checkpoint/checkpoint_record.h"
#include "runtime/checkpoint/criu_run.h"
#include "runtime/checkpoint/proc_task.h"
#include "runtime/container/container_audit.h"
#include "runtime/container/container_status.h"
#include "runtime/container/delete_container.h"
#include "runtime/container/global_options.h"
#include "runtime/container/state_dir.h"
#include "runtime/host/landlock_host.h"
#include "runtime/sandbox/namespaces.h"
#include "spec/effective.h"
#include "spec/floor_landlock.h"
#include "spec/operator_policy.h"
#include "spec/policy_profiles.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file systems CRIU makes anew on restore (their contents, for a
 * tmpfs, from the images), where the container has one whole (or binds
 * from one it has whole, as the masks of /proc do): every other mount is
 * a bind of something outside, handed to CRIU as an external mount. */
static bool made_fresh(const struct task_mounts *t, const struct task_mount *m)
{
        static const char *const fresh[] = {
                "proc", "sysfs", "tmpfs", "devpts", "mqueue", "cgroup2"
        };
        bool known = false;

        for (size_t i = 0; i < sizeof(fresh) / sizeof(fresh[0]) && !known; i++)
                known = strcmp(m->fstype, fresh[i]) == 0;
        if (!known)
                return false;
        if (strcmp(m->fstype, "cgroup2") == 0)
                return true; /* CRIU mounts it in the container's cgroup namespace */
        for (size_t i = 0; i < t->n; i++)
                if (t->m[i].major == m->major && t->m[i].minor == m->minor &&
                    strcmp(t->m[i].root, "/") == 0)
                        return true;
        return false;
}

/* What CRIU cannot give back as it was: refused by name before anything is
 * dumped, rather than an image that restores with less confinement. */
static int refuse_unrestorable(const struct oci_state *state, const struct global_options *global,
                               struct state_dir *sd, enum policy_profile *profile_out,
                               bool *joins_netns, struct sb_error *err)
{
        struct oci_config *config = state_dir_load_config(sd, err);
        struct operator_policy policy = { 0 };
        struct landlock_rules landlock = { 0 };
        struct landlock_host host;
        enum policy_profile profile;
        int ret = -1;

        if (config == NULL)
                return -1;
        if (state_dir_load_policy(sd, global, &policy, err) < 0)
                goto out;
        if (effective_process_apply(config, config->process, &policy, &profile, err) < 0)
                goto out;
        landlock_host_probe(&host);
        if (floor_landlock_decide(&policy, policy_profile_get(profile), config, NULL, &host,
                                  &landlock, NULL, err) < 0)
                goto out;
        if (landlock.mode != LANDLOCK_OFF) {
                sb_fail(err, 0,
                        "checkpoint: container %s runs under Landlock (%s profile): CRIU cannot "
                        "dump or restore a Landlock domain, so the restored process would run "
                        "without it; refused",
                        state->id, policy_profile_get(profile)->name);
                goto out;
        }
        if (config->process != NULL && config->process->terminal) {
                sb_fail(err, 0,
                        "checkpoint: container %s has process.terminal: sbrun does not "
                        "checkpoint a container with a terminal",
                        state->id);
                goto out;
        }
        const struct oci_linux *lx = config->linux_;
        if (lx != NULL && lx->seccomp != NULL && lx->seccomp->listener_path != NULL) {
                sb_fail(err, 0,
                        "checkpoint: container %s has linux.seccomp.listenerPath: CRIU cannot "
                        "restore a seccomp notify listener",
                        state->id);
                goto out;
        }
        for (size_t i = 0; lx != NULL && i < lx->n_namespaces; i++) {
                if (lx->namespaces[i].path != NULL && lx->namespaces[i].type == OCI_NS_NETWORK)
                        *joins_netns = true;
                if (lx->namespaces[i].path != NULL && lx->namespaces[i].type != OCI_NS_NETWORK) {
                        sb_fail(err, 0,
                                "checkpoint: container %s joins the %s namespace %s: sbrun "
                                "checkpoints only a joined network namespace",
                                state->id, oci_namespace_type_name(lx->namespaces[i].type),
                                lx->namespaces[i].path);
                        goto out;
                }
        }
        for (size_t i = 0; i < config->n_mounts; i++)
                if (config->mounts[i].n_uid_mappings > 0 || config->mounts[i].n_gid_mappings > 0) {
                        sb_fail(err, 0,
                                "checkpoint: container %s: mounts[%zu] (%s) is idmapped: CRIU "
                                "cannot restore an idmapped mount",
                                state->id, i, config->mounts[i].destination);
                        goto out;
                }
        *profile_out = profile;
        ret = 0;
out:
        landlock_rules_release(&landlock);
        operator_policy_release(&policy);
        oci_config_free(config);
        return ret;
}

static int add_external(struct checkpoint_record *r, const char *point, struct sb_error *err)
{
        /* CRIU's syntax is mnt[POINT]:KEY: a point holding "]:" would end it early. */
        if (strchr(point, ']') != NULL || strchr(point, ':') != NULL)
                return sb_fail(err, 0,
                               "checkpoint: the mount at \"%s\" cannot be named to CRIU "
                               "(']' or ':' in its path)",
                               point);
        for (size_t i = 0; i < r->n_externals; i++)
                if (strcmp(r->externals[i], point) == 0)
                        return 0;
        char **v = realloc(r->externals, (r->n_externals + 2) * sizeof(*v));
        if (v == NULL)
                return sb_fail(err, ENOMEM, "checkpoint: mounts");
        r->externals = v;
        if ((v[r->n_externals] = strdup(point)) == NULL)
                return sb_fail(err, ENOMEM, "checkpoint: mounts");
        v[++r->n_externals] = NULL;
        return 0;
}

/* The container as it is: its mounts (which are external, and the flags of
 * the topmost at each place) and its stdio. */
static int inspect(int pid, struct checkpoint_record *r, struct sb_error *err)
{
        struct task_mounts t;
        char path[64], target[PATH_MAX];

        if (task_mounts_read(pid, &t, err) < 0)
                return -1;
        r->mounts = calloc(t.n + 1, sizeof(*r->mounts));
        if (r->mounts == NULL)
                goto nomem;
        for (size_t i = 0; i < t.n; i++) {
                const struct task_mount *m = &t.m[i];
                if (strcmp(m->point, "/") != 0 && !made_fresh(&t, m) &&
                    add_external(r, m->point, err) < 0)
                        goto fail;
                if (task_mounts_top(&t, m->point) != m)
                        continue;
                r->mounts[r->n_mounts].point = strdup(m->point);
                if (r->mounts[r->n_mounts].point == NULL)
                        goto nomem;
                r->mounts[r->n_mounts++].flags = m->flags;
        }
        task_mounts_release(&t);
        for (int fd = 0; fd < 3; fd++) {
                snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
                ssize_t n = readlink(path, target, sizeof(target) - 1);
                if (n < 0)
                        continue;
                target[n] = '\0';
                if ((r->stdio[fd] = strdup(target)) == NULL)
                        return sb_fail(err, ENOMEM, "checkpoint: stdio");
        }
        return 0;
nomem:
        sb_fail(err, ENOMEM, "checkpoint: mounts");
fail:
        task_mounts_release(&t);
        return -1;
}

static int build_args(const struct checkpoint_request *req, const struct oci_state *state,
                      const struct checkpoint_record *r, const char *image, const char *work,
                      struct criu_call *call, struct sb_error *err)
{
        struct strv *a = &call->argv;
        const char *mode = req->manage_cgroups_mode ? req->manage_cgroups_mode : "soft";

        strv_add(a, req->pre_dump ? "pre-dump" : "dump");
        strv_addf(a, "--tree=%d", state->pid);
        strv_addf(a, "--images-dir=%s", image);
        strv_addf(a, "--work-dir=%s", work);
        strv_add(a, req->pre_dump ? "--log-file=pre-dump.log" : "--log-file=dump.log");
        strv_add(a, "-v4");
        strv_addf(a, "--manage-cgroups=%s", mode);
        /* cgroup.freeze stops every process at once, as runc has CRIU do. */
        if (state->cgroup_path != NULL)
                strv_addf(a, "--freeze-cgroup=%s", state->cgroup_path);
        if (req->parent_path != NULL) {
                strv_addf(a, "--prev-images-dir=%s", req->parent_path);
                strv_add(a, "--track-mem");
        }
        if (req->leave_running)
                strv_add(a, "--leave-running");
        if (req->tcp_established)
                strv_add(a, "--tcp-established");
        if (req->ext_unix_sk)
                strv_add(a, "--ext-unix-sk");
        if (req->shell_job)
                strv_add(a, "--shell-job");
        if (req->file_locks)
                strv_add(a, "--file-locks");
        if (req->auto_dedup)
                strv_add(a, "--auto-dedup");
        if (req->empty_ns != NULL)
                strv_add(a, "--empty-ns=net");
        /* Every bind from outside by its place, so that restore can bind
         * there what its own config judged, and nothing CRIU would guess. */
        for (size_t i = 0; i < r->n_externals; i++)
                strv_addf(a, "--external=mnt[%s]:%s", r->externals[i], r->externals[i]);
        /* Some mounts are slaves of the host's (bwrap makes them so). */
        strv_add(a, "--enable-external-masters");
        strv_add(a, "--enable-external-sharing");
        if (r->netns_external) {
                ino_t ino = 0;
                if (ns_inode(state->pid, "net", &ino) < 0)
                        return sb_fail(err, errno, "checkpoint: container %s: its net namespace",
                                       state->id);
                strv_addf(a, "--external=net[%lu]:extRootNetNS", (unsigned long)ino);
        }
        if (a->failed)
                return sb_fail(err, ENOMEM, "checkpoint: criu arguments");
        return 0;
}

static void audit_checkpoint(struct state_dir *sd, const struct global_options *global,
                             const struct checkpoint_request *req, const char *image,
                             const struct sb_error *failure)
{
        _cleanup_audit_line_ struct audit_line l = AUDIT_LINE_INIT;
        struct sb_error ignored = { 0 };

        if (audit_line_begin(&l, AUDIT_CHECKPOINT, req->id, &ignored) == 0) {
                jw_kv_string(l.w, "image_path", image);
                jw_kv_bool(l.w, "pre_dump", req->pre_dump);
                jw_kv_bool(l.w, "leave_running", req->leave_running);
                jw_kv_bool(l.w, "ok", failure == NULL);
                if (failure != NULL)
                        audit_line_error(&l, failure);
                container_audit_commit(sd, global, &l);
        }
        sb_error_clear(&ignored);
}

int container_checkpoint(const struct global_options *global, const struct checkpoint_request *req,
                         struct sb_error *err)
{
        _cleanup_state_dir_ struct state_dir sd = STATE_DIR_INIT;
        struct checkpoint_record record = { 0 };
        struct criu_call call = { .program = criu_program(req->criu) };
        const char *image = req->image_path ? req->image_path : "checkpoint";
        const char *work = req->work_path ? req->work_path : image;
        _cleanup_free_ char *log = NULL;
        struct oci_state *state = NULL;
        struct cgroup_root cgroups = CGROUP_ROOT_INIT;
        int ret = -1;

        /* As runc: CRIU needs the host's root to dump namespaces. */
        if (global->rootless)
                return sb_fail(err, 0,
                               "checkpoint: a rootless caller cannot checkpoint (CRIU "
                               "needs root here, as for runc)");
        state = state_dir_open_state(global->root, req->id, &sd, err);
        if (state == NULL)
                return -1;
        const char *status = container_status(state);
        if (strcmp(status, "running") != 0 && strcmp(status, "paused") != 0) {
                sb_fail(err, 0, "checkpoint: container %s is %s, not running", req->id, status);
                goto out;
        }
        enum policy_profile profile;
        if (refuse_unrestorable(state, global, &sd, &profile, &record.netns_external, err) < 0)
                goto out;
        if (criu_dir_prepare("--image-path", image, err) < 0 ||
            (work != image && criu_dir_prepare("--work-path", work, err) < 0))
                goto out;
        if (inspect(state->pid, &record, err) < 0)
                goto out;
        record.id = strdup(state->id);
        record.profile = strdup(policy_profile_get(profile)->name);
        if (record.id == NULL || record.profile == NULL) {
                sb_fail(err, ENOMEM, "checkpoint");
                goto out;
        }
        if (build_args(req, state, &record, image, work, &call, err) < 0)
                goto out;
        if (asprintf(&log, "%s/%s", work, req->pre_dump ? "pre-dump.log" : "dump.log") < 0) {
                sb_fail(err, ENOMEM, "checkpoint");
                goto out;
        }
        call.log_path = log;
        call.yard_dir = sd.path;
        if (state->cgroup_path != NULL && cgroup_root_find(&cgroups, err) < 0)
                goto out;
        call.cgroup_mount = cgroups.mount;
        if (criu_call_run(&call, "checkpoint", err) < 0) {
                sb_error_prefix(err, "container %s", req->id);
                audit_checkpoint(&sd, global, req, image, err);
                goto out;
        }
        if (!req->pre_dump && checkpoint_record_write(image, &record, err) < 0)
                goto out;
        audit_checkpoint(&sd, global, req, image, NULL);
        ret = 0;
        /* runc's: a container dumped without --leave-running is gone; its
         * processes ended with the dump, and its record goes too, so that
         * restore can take its ID. */
        if (!req->leave_running && !req->pre_dump) {
                state_dir_release(&sd);
                ret = container_delete(global, req->id, true, err);
        }
out:
        cgroup_root_release(&cgroups);
        strv_release(&call.argv);
        checkpoint_record_release(&record);
        oci_state_free(state);
        return ret;
}
