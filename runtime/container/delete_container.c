#include "runtime/container/delete_container.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fault.h"
#include "common/log.h"
#include "hooks/hooks.h"
#include "oci/config.h"
#include "oci/state.h"
#include "runtime/cgroup/cgroup_manager.h"
#include "runtime/cgroup/container_cgroup.h"
#include "runtime/container/global_options.h"
#include "runtime/container/container_procs.h"
#include "runtime/container/container_status.h"
#include "runtime/container/state_dir.h"
#include "runtime/container/container_audit.h"
#include "runtime/container/verdict.h"
#include "runtime/audit/audit_line.h"
#include "oci/json_write.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define KILL_WAIT_MS 10000

/* Whether process pid has an fd open on the file st describes. */
static bool holds_file(int pid, const struct stat *st)
{
        char path[64];
        struct stat fd_st;
        struct dirent *de;

        snprintf(path, sizeof(path), "/proc/%d/fd", pid);
        _cleanup_closedir_ DIR *fds = opendir(path);
        if (fds == NULL)
                return false;
        while ((de = readdir(fds)) != NULL) {
                if (de->d_name[0] == '.')
                        continue;
                if (fstatat(dirfd(fds), de->d_name, &fd_st, 0) == 0 && fd_st.st_dev == st->st_dev &&
                    fd_st.st_ino == st->st_ino)
                        return true;
        }
        return false;
}

static int kill_and_wait(const struct oci_state *state, struct sb_error *err)
{
        _cleanup_close_ int pidfd = container_pidfd(state, err);

        if (pidfd < 0) {
                if (err->errnum == ESRCH) {
                        sb_error_clear(err);
                        return 0; /* already gone */
                }
                return -1;
        }
        /* SIGKILL to the pid namespace's init ends every process in it. */
        container_procs_signal_all(state->pid, SIGKILL, err);
        sb_error_clear(err);
        if (syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0) < 0 && errno != ESRCH)
                return sb_fail(err, errno, "kill container \"%s\"", state->id);
        if (pidfd_wait_exit(pidfd, KILL_WAIT_MS) < 0)
                return sb_fail(err, ETIMEDOUT, "container \"%s\" did not exit after SIGKILL",
                               state->id);
        return 0;
}

/* One cgroup.kill ends everything in the container's cgroup, also
 * processes outside its pid namespace's tree or held in the freezer. The
 * OOM count is read first, so that an OOM kill can be told from SIGKILL. */
static int destroy_cgroup(const struct oci_state *state, struct sb_error *err)
{
        _cleanup_cgroup_ struct cgroup cg = CGROUP_INIT;
        uint64_t oom_kills = 0;

        if (state->cgroup_path == NULL)
                return 0;
        if (cgroup_open(state->cgroup_path, &cg, err) < 0) {
                if (err->errnum != ENOENT)
                        return -1;
                sb_error_clear(err);
                return 0;
        }
        if (cgroup_oom_kills(&cg, &oom_kills, err) < 0)
                sb_error_clear(err);
        else if (oom_kills > 0)
                sb_warn("container %s: OOM: the kernel's OOM killer killed %" PRIu64
                        " process(es) at the memory limit (memory.events oom_kill in %s)",
                        state->id, oom_kills, state->cgroup_path);
        return cgroup_destroy(&cg, err);
}

/* A container whose create died before it recorded the pid is found by
 * exec.fifo: until `start` its launcher, bwrap and init hold an fd of it,
 * and nothing else can (the state directory is ours, mode 0700, and not
 * visible in the container). Each holder is killed through a pidfd taken
 * while it still held the fd, so a reused pid is never signalled. */
static bool kill_fifo_holders(struct state_dir *sd)
{
        struct stat fifo;
        _cleanup_closedir_ DIR *proc = NULL;
        struct dirent *de;

        if (fstatat(sd->dir_fd, EXEC_FIFO, &fifo, AT_SYMLINK_NOFOLLOW) < 0)
                return false;
        proc = opendir("/proc");
        if (proc == NULL)
                return true;
        while ((de = readdir(proc)) != NULL) {
                int pid = atoi(de->d_name);
                if (pid <= 0 || pid == getpid() || !holds_file(pid, &fifo))
                        continue;
                _cleanup_close_ int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
                if (pidfd < 0 || !holds_file(pid, &fifo))
                        continue;
                sb_debug("delete: killing process %d, which holds %s/%s", pid, sd->path, EXEC_FIFO);
                syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
                pidfd_wait_exit(pidfd, KILL_WAIT_MS);
        }
        return true;
}

/* poststop: once the container is gone, before its record goes; a failure
 * is a warning and the delete goes on (runtime-spec config.md). */
static void run_poststop_hooks(struct state_dir *sd, const struct oci_state *state)
{
        struct sb_error hook_err = { 0 };
        struct oci_config *config = state_dir_load_config(sd, &hook_err);
        struct oci_state stopped = *state;

        stopped.pid = 0;
        if (config == NULL ||
            hooks_run(&config->hooks, HOOK_POSTSTOP, &stopped, NULL, NULL, &hook_err) < 0) {
                char *text = sb_error_text(&hook_err);
                sb_warn("poststop hooks: %s", text ? text : "failed");
                free(text);
        }
        sb_error_clear(&hook_err);
        oci_config_free(config);
}

/* The delete's line: --force, the status it found, the verdict its state
 * recorded, and the cgroup's peaks. Nothing when out of memory. */
static void begin_audit(struct audit_line *l, const char *id, bool force, const char *status,
                        const struct oci_state *state)
{
        struct sb_error ignored = { 0 };
        const char *verdict = oci_state_marker(state, VERDICT_MARKER);

        if (audit_line_begin(l, AUDIT_DELETE, id, &ignored) < 0) {
                audit_line_release(l);
                sb_error_clear(&ignored);
                return;
        }
        jw_kv_bool(l->w, "force", force);
        jw_kv_string(l->w, "status", status);
        if (verdict != NULL)
                jw_kv_string(l->w, "verdict", verdict);
        audit_line_peaks(l, state->cgroup_path);
}

int container_delete(const struct global_options *global, const char *id, bool force,
                     struct sb_error *err)
{
        _cleanup_state_dir_ struct state_dir sd = STATE_DIR_INIT;
        _cleanup_audit_line_ struct audit_line l = AUDIT_LINE_INIT;
        struct oci_state *state;
        int ret = -1;

        if (state_dir_open(global->root, id, &sd, err) < 0) {
                /* runc: --force on a container that is not there is done. */
                if (force && sd.dir_fd < 0 && err->kind == SB_ERR_NOT_FOUND) {
                        sb_error_clear(err);
                        return 0;
                }
                return -1;
        }
        state = state_dir_load(&sd, err);
        if (state == NULL) {
                /* A record that cannot be read (a create that died half-way)
                 * is removed with --force, as runc does. */
                if (!force)
                        return -1;
                _cleanup_free_ char *why = sb_error_text(err);
                sb_error_clear(err);
                /* A started container's pid was only in the record. */
                if (!kill_fifo_holders(&sd))
                        sb_warn("delete: %s; its process, if it still runs, cannot be found "
                                "without the record and is not killed",
                                why ? why : "the record cannot be read");
                return state_dir_remove(&sd, err);
        }
        const char *status = container_status(state);
        if ((strcmp(status, "running") == 0 || strcmp(status, "paused") == 0) && !force) {
                sb_fail(err, 0, "cannot delete container %s that is not stopped: %s", id, status);
                goto out;
        }
        /* Begun before the cgroup goes: its peaks are the container's last
         * numbers. */
        begin_audit(&l, id, force, status, state);
        SB_FAULT_POINT("delete.before-cgroup-removal");
        if (destroy_cgroup(state, err) < 0)
                goto out;
        /* After the kill: a stop job of a scope with processes would
         * SIGTERM them and wait systemd's stop timeout. */
        if (container_cgroup_stop_unit(state, err) < 0)
                goto out;
        SB_FAULT_POINT("delete.after-cgroup-removal");
        if (strcmp(status, "stopped") != 0 && kill_and_wait(state, err) < 0)
                goto out;
        kill_fifo_holders(&sd);
        SB_FAULT_POINT("delete.before-hooks");
        run_poststop_hooks(&sd, state);
        SB_FAULT_POINT("delete.before-state-removal");
        /* While the policy it was created under is still there to name the
         * trail. */
        if (l.w != NULL) {
                jw_kv_bool(l.w, "ok", true);
                container_audit_commit(&sd, global, &l);
                audit_line_release(&l);
        }
        ret = state_dir_remove(&sd, err);
        SB_FAULT_POINT("delete.after-state-removal");
out:
        if (ret < 0 && l.w != NULL) {
                jw_kv_bool(l.w, "ok", false);
                audit_line_error(&l, err);
                container_audit_commit(&sd, global, &l);
        }
        oci_state_free(state);
        return ret;
}
