#include "runtime/checkpoint/restore_spawn.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"
#include "runtime/cgroup/cgroup_manager.h"
#include "runtime/checkpoint/checkpoint_record.h"
#include "runtime/checkpoint/criu_run.h"
#include "runtime/checkpoint/restore_verify.h"
#include "runtime/container/create_ctx.h"
#include "runtime/sandbox/rootfs_path.h"
#include "spec/policy_profiles.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* The /dev nodes bwrap binds from the host, and what they must be. */
static const struct {
        const char *path;
        unsigned major, minor;
} host_nodes[] = {
        { "/dev/null", 1, 3 },   { "/dev/zero", 1, 5 },    { "/dev/full", 1, 7 },
        { "/dev/random", 1, 8 }, { "/dev/urandom", 1, 9 }, { "/dev/tty", 5, 0 },
};

static const char *host_node(const char *path, struct sb_error *err)
{
        struct stat st;

        for (size_t i = 0; i < sizeof(host_nodes) / sizeof(host_nodes[0]); i++) {
                if (strcmp(path, host_nodes[i].path) != 0)
                        continue;
                if (lstat(path, &st) < 0 || !S_ISCHR(st.st_mode) ||
                    major(st.st_rdev) != host_nodes[i].major ||
                    minor(st.st_rdev) != host_nodes[i].minor) {
                        sb_fail(err, 0, "restore: the host's %s is not the %u:%u device", path,
                                host_nodes[i].major, host_nodes[i].minor);
                        return NULL;
                }
                return host_nodes[i].path;
        }
        return NULL;
}

static bool listed(char *const *paths, size_t n, const char *point)
{
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *clean = NULL;
                struct sb_error ignored = { 0 };
                bool same = paths[i][0] == '/' &&
                            rootfs_clean_path(paths[i], &clean, &ignored) == 0 &&
                            strcmp(clean, point) == 0;
                sb_error_clear(&ignored);
                if (same)
                        return true;
        }
        return false;
}

/* Each mount the checkpoint names as external, mapped to a source this
 * restore judged: the config's bind at that place (its held fd), a
 * standard /dev node, or /dev/null over a masked path. The record comes
 * with the images and is not trusted: a place the config does not bind
 * is refused, never taken from the images. */
static int map_externals(const struct create_ctx *c, const struct checkpoint_record *rec,
                         struct strv *args, struct sb_error *err)
{
        const struct oci_linux *lx = c->config->linux_;

        for (size_t e = 0; e < rec->n_externals; e++) {
                const char *point = rec->externals[e];
                const char *source = NULL;
                bool found = false;

                for (size_t i = 0; i < c->config->n_mounts && !found; i++) {
                        _cleanup_free_ char *clean = NULL;
                        struct sb_error ignored = { 0 };
                        if (c->binds.fds[i] < 0 || c->binds.paths[i] == NULL ||
                            rootfs_clean_path(c->config->mounts[i].destination, &clean, &ignored) <
                                    0) {
                                sb_error_clear(&ignored);
                                continue;
                        }
                        if (strcmp(clean, point) != 0)
                                continue;
                        /* By its canonical path: CRIU binds it from inside
                         * the mount namespace it makes, where the held fd's
                         * mount is foreign. restore_verify checks that what
                         * was mounted is the judged source. */
                        strv_addf(args, "--external=mnt[%s]:%s", point, c->binds.paths[i]);
                        found = true;
                }
                if (found)
                        continue;
                sb_error_clear(err);
                if ((source = host_node(point, err)) == NULL && err->msg != NULL)
                        return -1;
                if (source == NULL && lx != NULL &&
                    listed(lx->masked_paths, lx->n_masked_paths, point) &&
                    (source = host_node("/dev/null", err)) == NULL)
                        return -1;
                if (source == NULL)
                        return sb_fail(err, 0,
                                       "restore: the checkpoint has a mount from outside the "
                                       "container at %s, which the config does not bind",
                                       point);
                strv_addf(args, "--external=mnt[%s]:%s", point, source);
        }
        return 0;
}

static int read_pid_file(const char *path, int *pid, struct sb_error *err)
{
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        char *end = NULL;

        if (sb_read_file(path, 64, &text, &len, err) < 0)
                return sb_error_prefix(err, "restore: criu's pid file");
        long v = strtol(text, &end, 10);
        if (end == text || v <= 1 || v > INT_MAX)
                return sb_fail(err, 0, "restore: %s does not hold a pid", path);
        *pid = (int)v;
        return 0;
}

static int build_args(struct create_ctx *c, const struct restore_request *r,
                      const struct checkpoint_record *rec, const char *image, const char *work,
                      const char *pid_file, struct criu_call *call, struct sb_error *err)
{
        struct strv *a = &call->argv;

        strv_add(a, "restore");
        strv_addf(a, "--images-dir=%s", image);
        strv_addf(a, "--work-dir=%s", work);
        strv_add(a, "--log-file=restore.log");
        strv_add(a, "-v4");
        /* The root this restore judged, by the canonical path of the fd it
         * holds (see map_externals). */
        _cleanup_free_ char *root = sb_fd_path(c->rootfs_fd);
        if (root == NULL)
                return sb_fail(err, errno, "root.path: %s", c->rootfs);
        strv_addf(a, "--root=%s", root);
        strv_add(a, "--restore-detached");
        /* Checked before they run (restore_verify.h). */
        strv_add(a, "--leave-stopped");
        strv_addf(a, "--pidfile=%s", pid_file);
        strv_addf(a, "--manage-cgroups=%s",
                  r->manage_cgroups_mode ? r->manage_cgroups_mode : "soft");
        if (c->cgroup.rel != NULL)
                strv_addf(a, "--cgroup-root=%s%s", c->cgroup.rel[0] == '/' ? "" : "/",
                          c->cgroup.rel);
        if (r->tcp_established)
                strv_add(a, "--tcp-established");
        if (r->ext_unix_sk)
                strv_add(a, "--ext-unix-sk");
        if (r->shell_job)
                strv_add(a, "--shell-job");
        if (r->file_locks)
                strv_add(a, "--file-locks");
        if (r->auto_dedup)
                strv_add(a, "--auto-dedup");
        if (r->empty_ns != NULL)
                strv_add(a, "--empty-ns=net");
        if (map_externals(c, rec, a, err) < 0)
                return -1;
        /* The container's stdio was the checkpointed caller's pipes; the
         * restored one gets ours, as runc's restore gives it. */
        for (int fd = 0; fd < 3; fd++)
                if (rec->stdio[fd] != NULL && (strncmp(rec->stdio[fd], "pipe:[", 6) == 0 ||
                                               strncmp(rec->stdio[fd], "socket:[", 8) == 0))
                        strv_addf(a, "--inherit-fd=fd[%d]:%s", fd, rec->stdio[fd]);
        if (rec->netns_external) {
                int fd = c->ns.join_fds[OCI_NS_NETWORK];
                if (fd < 0)
                        return sb_fail(err, 0,
                                       "restore: the checkpointed container joined a network "
                                       "namespace; the config joins none (linux.namespaces)");
                strv_addf(a, "--inherit-fd=fd[%d]:extRootNetNS", fd);
                call->keep[call->n_keep++] = fd;
        }
        if (a->failed)
                return sb_fail(err, ENOMEM, "restore: criu arguments");
        return 0;
}

int restore_spawn(struct create_ctx *c, const struct restore_request *r, const char *state_dir,
                  struct sb_error *err)
{
        struct checkpoint_record rec = { 0 };
        struct criu_call call = { .program = criu_program(r->criu), .no_new_privs = true };
        const char *image_arg = r->image_path ? r->image_path : "checkpoint";
        _cleanup_free_ char *image = realpath(image_arg, NULL);
        _cleanup_free_ char *work = NULL, *pid_file = NULL, *log = NULL;
        int ret = -1;

        if (image == NULL)
                return sb_fail(err, errno, "--image-path %s", image_arg);
        /* CRIU writes its log and pid file there when --work-path is not
         * given: judged as checkpoint judges it. */
        if (criu_dir_check("--image-path", image_arg, err) < 0)
                return -1;
        /* As runc: the work path is made when missing. */
        if (r->work_path != NULL && criu_dir_prepare("--work-path", r->work_path, err) < 0)
                return -1;
        work = realpath(r->work_path ? r->work_path : image_arg, NULL);
        if (work == NULL)
                return sb_fail(err, errno, "--work-path %s", r->work_path);
        _cleanup_close_ int dir = open(image, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir < 0)
                return sb_fail(err, errno, "--image-path %s", image);
        if (checkpoint_record_read(dir, image, &rec, err) < 0)
                return -1;
        /* The floor decided Landlock for this config (strict does, where
         * the kernel has it): CRIU cannot give a restored process a
         * Landlock domain, so it would run with less than the floor. */
        if (c->landlock.mode != LANDLOCK_OFF) {
                sb_fail(err, 0,
                        "restore: the floor puts this container under Landlock (%s profile): "
                        "CRIU cannot restore a Landlock domain; refused",
                        policy_profile_get(c->profile)->name);
                goto out;
        }
        if (c->config->process != NULL && c->config->process->terminal) {
                sb_fail(err, 0,
                        "restore: process.terminal: sbrun does not restore a container "
                        "with a terminal");
                goto out;
        }
        if (asprintf(&pid_file, "%s/restore.pid", work) < 0 ||
            asprintf(&log, "%s/restore.log", work) < 0) {
                sb_fail(err, ENOMEM, "restore");
                goto out;
        }
        unlink(pid_file);
        if (build_args(c, r, &rec, image, work, pid_file, &call, err) < 0)
                goto out;
        call.log_path = log;
        call.cgroup_mount = c->cgroup.cg.path != NULL ? c->cgroup.root.mount : NULL;
        call.yard_dir = state_dir;
        if (criu_call_run(&call, "restore", err) < 0)
                goto out;
        if (read_pid_file(pid_file, &c->container_pid, err) < 0)
                goto out;
        /* The restored tasks are in the cgroup: a systemd scope's holder
         * goes before they are checked, as after create's init joins. */
        container_cgroup_joined(&c->cgroup);
        /* A checkpoint of a paused container (containerd pauses it for the
         * dump) may come back frozen: thawed here, the tasks stay stopped
         * (--leave-stopped) for the checks, which ptrace cannot make on a
         * frozen task. */
        if (c->cgroup.cg.path != NULL && cgroup_path_frozen(c->cgroup.cg.path) == 1 &&
            cgroup_freeze(&c->cgroup.cg, false, err) < 0)
                goto out;
        if (restore_verify(c, &rec, err) < 0 || restore_resume(c, err) < 0)
                goto out;
        ret = 0;
out:
        strv_release(&call.argv);
        checkpoint_record_release(&rec);
        return ret;
}
