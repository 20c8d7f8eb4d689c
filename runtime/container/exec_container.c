#include "runtime/container/exec_container.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fault.h"
#include "common/fs_util.h"
#include "common/log.h"
#include "oci/config.h"
#include "oci/json_write.h"
#include "runtime/audit/audit_line.h"
#include "spec/effective.h"
#include "spec/floor_lsm.h"
#include "spec/floor_volumes.h"
#include "spec/operator_policy.h"
#include "oci/state.h"
#include "runtime/cgroup/cgroup_manager.h"
#include "runtime/cgroup/sub_cgroup.h"
#include "runtime/cgroup/systemd_scope.h"
#include "runtime/host/landlock_host.h"
#include "runtime/host/rootless.h"
#include "runtime/container/global_options.h"
#include "runtime/container/console.h"
#include "runtime/container/console_proxy.h"
#include "runtime/container/container_status.h"
#include "runtime/host/lsm_host.h"
#include "runtime/init/exec_lookup.h"
#include "runtime/sandbox/init_image.h"
#include "runtime/sandbox/launcher.h"
#include "runtime/sandbox/namespaces.h"
#include "runtime/container/pid_file.h"
#include "runtime/container/pidfd_socket.h"
#include "runtime/sandbox/plan_build.h"
#include "runtime/container/process_wait.h"
#include "runtime/seccomp/floor_seccomp.h"
#include "runtime/seccomp/seccomp_setup.h"
#include "runtime/container/state_dir.h"
#include "runtime/init/handshake.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct exec_ctx {
        struct oci_state *state;
        struct oci_process *process;
        struct init_plan plan;
        int pidfd, root_fd, image_fd, plan_fd;
        int cgroup_fd;        /* the container's cgroup.procs (O_WRONLY), for the init */
        int console_fd;       /* the socket the init sends the pty master on */
        int console_receiver; /* our end, when sbrun proxies the pty itself */
        int report[2];        /* the first child reports "P<pid>" or "E<message>" */
        int ready[2];         /* the init: HANDSHAKE_READY once in the cgroup and set up */
        int attach[2];        /* rootless systemd: HANDSHAKE_ATTACHED once the first child
                               * is in the container's scope (systemd_scope_attach) */
        const char *unit;     /* that scope */
        char *exec_path;
        struct oci_config *config;     /* the container's, from its state dir */
        struct operator_policy policy; /* the one it was created under, from there too */
        enum policy_profile profile;   /* the floor's choice for the process */
        struct floor_seccomp floor;
        struct landlock_rules landlock; /* the container's, for this process too */
        struct seccomp_setup seccomp;
        int seccomp_channel;
};

static void exec_ctx_release(struct exec_ctx *x)
{
        floor_seccomp_release(&x->floor);
        landlock_rules_release(&x->landlock);
        seccomp_setup_release(&x->seccomp);
        oci_config_free(x->config);
        operator_policy_release(&x->policy);
        if (x->seccomp_channel >= 0)
                close(x->seccomp_channel);
        oci_state_free(x->state);
        oci_process_free(x->process);
        init_plan_release(&x->plan);
        free(x->exec_path);
        int fds[] = { x->pidfd,     x->root_fd,   x->image_fd,   x->plan_fd,          x->cgroup_fd,
                      x->report[0], x->report[1], x->console_fd, x->console_receiver, x->ready[0],
                      x->ready[1],  x->attach[0], x->attach[1] };
        for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
                if (fds[i] >= 0)
                        close(fds[i]);
        }
}

static _Noreturn void child_die(int report_fd, const char *what, int errnum)
{
        char buf[512];
        int n = snprintf(buf, sizeof(buf), "%c%s: %s", HANDSHAKE_ERROR, what, strerror(errnum));
        if (n > 0)
                sb_write_all(report_fd, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
        _exit(1);
}

/* The grandchild: already in the container's pid namespace; becomes
 * sbrun-init with fds at the numbers the plan names. */
static _Noreturn void become_init(const struct exec_ctx *x, int preserve_fds)
{
        int floor = launcher_fd_number(preserve_fds, LFD_COUNT) + 1;
        int image_target = launcher_fd_number(preserve_fds, LFD_INIT_IMAGE);
        int plan_target = launcher_fd_number(preserve_fds, LFD_PLAN);
        char argv0[64], plan_arg[16];
        /* Every source is lifted above every target before the first dup2,
         * so that no dup2 overwrites a source still to be moved. */
        struct {
                int source;
                enum launcher_fd target;
        } moves[] = {
                { x->image_fd, LFD_INIT_IMAGE }, { x->plan_fd, LFD_PLAN },
                { x->console_fd, LFD_CONSOLE },  { x->seccomp_channel, LFD_SECCOMP },
                { x->ready[1], LFD_READY },      { x->cgroup_fd, LFD_CGROUP },
        };
        const size_t n_moves = sizeof(moves) / sizeof(moves[0]);

        for (size_t i = 0; i < n_moves; i++) {
                if (moves[i].source >= 0 &&
                    (moves[i].source = fcntl(moves[i].source, F_DUPFD_CLOEXEC, floor)) < 0)
                        child_die(x->report[1], "exec: arrange fds", errno);
        }
        for (size_t i = 0; i < n_moves; i++) {
                if (moves[i].source >= 0 &&
                    dup2(moves[i].source, launcher_fd_number(preserve_fds, moves[i].target)) < 0)
                        child_die(x->report[1], "exec: arrange fds", errno);
        }
        for (int fd = 3; fd < 3 + preserve_fds; fd++) {
                int flags = fcntl(fd, F_GETFD);
                if (flags < 0 || fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC) < 0)
                        child_die(x->report[1], "--preserve-fds: fd is not open", errno);
        }
        snprintf(argv0, sizeof(argv0), "/proc/self/fd/%d", image_target);
        snprintf(plan_arg, sizeof(plan_arg), "%d", plan_target);
        char *const argv[] = { argv0, plan_arg, NULL };
        char *const envp[] = { NULL };
        syscall(SYS_execveat, image_target, "", argv, envp, AT_EMPTY_PATH);
        child_die(x->report[1], "exec: run sbrun-init", errno);
}

static void apply_rlimits(const struct exec_ctx *x)
{
        for (size_t i = 0; i < x->process->n_rlimits; i++) {
                const struct oci_rlimit *r = &x->process->rlimits[i];
                struct rlimit rl = { .rlim_cur = r->soft, .rlim_max = r->hard };
                if (setrlimit(r->resource, &rl) < 0)
                        child_die(x->report[1], r->type, errno);
        }
}

/* The first child: joins the namespaces, forks the process that will be in
 * the container's pid namespace, reports its pid and goes. The cgroup is
 * joined by that process's sbrun-init (init_main.c), so that neither this
 * fork of sbrun nor the init's exec is charged to a container that may be
 * at its memory limit; as with runc's exec, the process is then moved
 * into the cgroup rather than forked there, so pids.max counts it but
 * does not refuse it. */
static _Noreturn void join_and_fork(const struct exec_ctx *x, int preserve_fds)
{
        sigset_t none;
        char buf[32];

        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        /* From here on the container's processes can see us: a dumpable
         * process with the host's binary and full capabilities is what
         * CVE-2016-9962 and CVE-2019-5736 opened through /proc/<pid>/mem and
         * /proc/<pid>/exe. The init repeats this after its execve. */
        if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
                child_die(x->report[1], "exec: make the process non-dumpable", errno);
        apply_rlimits(x);
        if (ns_join_process(x->pidfd, x->state->pid) < 0)
                child_die(x->report[1], "exec: join the container's namespaces", errno);
        /* Our copy of the write end goes, so that an exec that dies ends the wait. */
        if (x->attach[1] >= 0)
                close(x->attach[1]);
        if (x->attach[0] >= 0 && (read(x->attach[0], buf, 1) != 1 || buf[0] != HANDSHAKE_ATTACHED))
                child_die(x->report[1], "exec: not moved into the container's scope", 0);
        pid_t pid = fork();
        if (pid < 0)
                child_die(x->report[1], "exec: fork", errno);
        if (pid == 0)
                become_init(x, preserve_fds);
        int n = snprintf(buf, sizeof(buf), "%c%d", HANDSHAKE_EXEC_PID, (int)pid);
        sb_write_all(x->report[1], buf, (size_t)n);
        _exit(0);
}

/* `exec` returns once the process is in the container's cgroup (its init
 * joins it) and set up, as `create` does: a caller that lists the cgroup
 * right after finds it. The wait has a way out: EOF when the init died
 * (the OOM killer, say; the caller then reports its status) and a pending
 * SIGINT or SIGTERM, which kills it. */
static int wait_init_ready(struct exec_ctx *x, int pid, struct sb_error *err)
{
        char buf[600];
        ssize_t n;

        int r = process_wait_readable(x->ready[0], 0, NULL);
        if (r == -2)
                return sb_fail(err, errno, "exec: wait for the process's setup");
        if (r > 0) {
                kill(pid, SIGKILL);
                return sb_fail(err, EINTR, "exec: setup interrupted by signal %d (%s)", r,
                               strsignal(r));
        }
        do
                n = read(x->ready[0], buf, sizeof(buf) - 1);
        while (n < 0 && errno == EINTR);
        if (n > 0 && buf[0] == HANDSHAKE_READY)
                return 0;
        if (n > 0 && buf[0] == HANDSHAKE_ERROR) {
                buf[n] = '\0';
                return sb_fail(err, 0, "exec: %s", buf + 1);
        }
        /* EOF: the init went before it was set up; its status tells why. */
        return 0;
}

static int start_process(struct exec_ctx *x, int preserve_fds, int *pid, struct sb_error *err)
{
        char buf[600];
        ssize_t n;
        pid_t child = fork();

        if (child < 0)
                return sb_fail(err, errno, "exec: fork");
        if (child == 0)
                join_and_fork(x, preserve_fds);
        SB_FAULT_POINT("exec.after-fork");
        if (x->attach[1] >= 0) {
                const char attached = HANDSHAKE_ATTACHED;
                /* The init's own join would be a move across user@UID.service's
                 * root-owned top (systemd_scope.h): systemd moves the child. */
                if (systemd_scope_attach(x->unit, child, err) < 0 ||
                    write(x->attach[1], &attached, 1) != 1) {
                        kill(child, SIGKILL);
                        while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
                                ;
                        return err->msg ? -1 : sb_fail(err, errno, "exec: release the child");
                }
        }
        close(x->report[1]);
        x->report[1] = -1;
        close(x->ready[1]);
        x->ready[1] = -1;
        /* Only the init may hold the other end, or a failed init would leave
         * us waiting for a pty master forever. */
        if (x->console_fd >= 0) {
                close(x->console_fd);
                x->console_fd = -1;
        }
        close(x->seccomp_channel);
        x->seccomp_channel = -1;
        n = read(x->report[0], buf, sizeof(buf) - 1);
        while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
                ;
        if (n <= 0)
                return sb_fail(err, 0, "exec: setting up the process failed");
        buf[n] = '\0';
        if (buf[0] == HANDSHAKE_ERROR)
                return sb_fail(err, 0, "%s", buf + 1);
        *pid = atoi(buf + 1);
        SB_FAULT_POINT("exec.after-join");
        return wait_init_ready(x, *pid, err);
}

/* memory.events oom_kill of the container's cgroup; 0 without one. */
static uint64_t oom_kills_now(const struct oci_state *state)
{
        _cleanup_cgroup_ struct cgroup cg = CGROUP_INIT;
        struct sb_error ignored = { 0 };
        uint64_t kills = 0;

        if (state->cgroup_path != NULL && cgroup_open(state->cgroup_path, &cg, &ignored) == 0)
                cgroup_oom_kills(&cg, &kills, &ignored);
        sb_error_clear(&ignored);
        return kills;
}

/* An exec'd process killed with SIGKILL while the cgroup counted a new OOM
 * kill was, most likely, the OOM killer's victim: say so, since the init
 * or the process itself had no chance to. */
static void note_oom_kill(const struct oci_state *state, uint64_t before, int code)
{
        uint64_t after = oom_kills_now(state);

        if (code == 128 + SIGKILL && after > before)
                sb_warn("exec: container %s: OOM: the kernel's OOM killer killed %" PRIu64
                        " process(es) at the memory limit while the process ran "
                        "(memory.events oom_kill in %s)",
                        state->id, after - before, state->cgroup_path);
}

static int check_process(const struct oci_process *p, const struct exec_options *opts,
                         struct sb_error *err)
{
        if (p->terminal && opts->console_socket == NULL && opts->detach)
                return sb_fail(
                        err, 0,
                        "process.terminal: a detached exec with a terminal needs --console-socket");
        if (!p->terminal && opts->console_socket != NULL)
                return sb_fail(err, 0,
                               "--console-socket: cannot be used without a terminal (--tty)");
        return 0;
}

/* The process's own AppArmor profile and SELinux label, else the
 * container's, as this host can carry them out (spec/floor_lsm.h). */
static int decide_lsm(struct oci_process *process, const struct oci_process *container,
                      struct sb_error *err)
{
        struct lsm_host_facts host;
        int ret = lsm_host_probe(&host, err);

        if (ret == 0)
                ret = floor_lsm_decide(&host, process, container, NULL, NULL, err);
        lsm_host_facts_release(&host);
        return ret;
}

static int prepare(struct exec_ctx *x, const struct exec_options *opts,
                   const struct global_options *global, struct sb_error *err)
{
        char path[64];

        /* bwrap always sets no_new_privs for the first process
         * (docs/design.md#bwrap-always-sets-no_new_privs): so does every exec. */
        x->process->no_new_privileges = true;
        x->pidfd = container_pidfd(x->state, err);
        if (x->pidfd < 0)
                return -1;
        snprintf(path, sizeof(path), "/proc/%d/root", x->state->pid);
        x->root_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (x->root_fd < 0 || !container_process_alive(x->state))
                return sb_fail(err, ESRCH, "container \"%s\" is not running", x->state->id);
        const char *cwd = x->process->cwd ? x->process->cwd : "/";
        if (exec_lookup(x->root_fd, x->process->args[0], cwd, x->process->env, &x->exec_path, err) <
            0)
                return -1;
        const struct plan_inputs in = {
                .cwd = cwd,
                .preserve_fds = opts->preserve_fds,
                .ready_fd = launcher_fd_number(opts->preserve_fds, LFD_READY),
                .fifo_fd = -1,
                .stderr_fd = -1,
                .console_fd = launcher_fd_number(opts->preserve_fds, LFD_CONSOLE),
        };
        if (plan_build_exec(x->config, x->process, x->exec_path, &in, &x->plan, err) < 0)
                return -1;
        /* The floor and the container's seccomp filter hold for every exec
         * too. */
        struct landlock_host landlock_host;
        landlock_host_probe(&landlock_host);
        if (floor_seccomp_prepare(
                    x->profile, floor_locks_file_attrs(&x->policy, policy_profile_get(x->profile)),
                    false, global->root, &x->floor, err) < 0 ||
            seccomp_setup_prepare(x->config, global->root, &x->seccomp, err) < 0 ||
            floor_landlock_decide(&x->policy, policy_profile_get(x->profile), x->config, NULL,
                                  &landlock_host, &x->landlock, NULL, err) < 0)
                return -1;
        x->seccomp_channel = seccomp_setup_open_channel(&x->seccomp, err);
        if (x->seccomp_channel < 0)
                return -1;
        if (x->process->terminal) {
                int rc = opts->console_socket ?
                                 (x->console_fd =
                                          console_socket_connect(opts->console_socket, err)) :
                                 console_socket_pair(&x->console_receiver, &x->console_fd, err);
                if (rc < 0)
                        return -1;
        }
        if (opts->cgroup != NULL && x->state->cgroup_path == NULL)
                return sb_fail(err, 0,
                               "--cgroup: \"%s\": container %s has no cgroup (this host has no "
                               "cgroup v2 controllers and the policy opted out)",
                               opts->cgroup, opts->id);
        if (x->state->cgroup_path != NULL) {
                _cleanup_close_ int dir =
                        open(x->state->cgroup_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
                _cleanup_close_ int sub = -1;
                if (dir >= 0 && opts->cgroup != NULL) {
                        sub = sub_cgroup_open(dir, x->state->cgroup_path, opts->cgroup, err);
                        if (sub < 0)
                                return -1;
                }
                int join = sub >= 0 ? sub : dir;
                x->cgroup_fd = join >= 0 ? openat(join, "cgroup.procs", O_WRONLY | O_CLOEXEC) : -1;
                if (x->cgroup_fd < 0)
                        return sb_fail(err, errno, "exec: open %s%s%s/cgroup.procs",
                                       x->state->cgroup_path, opts->cgroup ? "/" : "",
                                       opts->cgroup ? opts->cgroup : "");
        }
        const struct plan_confinement conf = {
                .floor = &x->floor,
                .seccomp = &x->seccomp,
                .cgroup = x->cgroup_fd >= 0,
                .landlock = &x->landlock,
        };
        x->plan_fd = plan_seal(&x->plan, &conf, "sbrun-exec-plan", err);
        if (x->plan_fd < 0)
                return -1;
        x->image_fd = init_image_memfd(err);
        if (x->image_fd < 0)
                return -1;
        x->unit = x->cgroup_fd >= 0 && rootless_detect() ?
                          oci_state_marker(x->state, SYSTEMD_UNIT_MARKER) :
                          NULL;
        if (x->unit != NULL && pipe2(x->attach, O_CLOEXEC) < 0)
                return sb_fail(err, errno, "exec: pipe");
        if (pipe2(x->report, O_CLOEXEC) < 0 || pipe2(x->ready, O_CLOEXEC) < 0)
                return sb_fail(err, errno, "pipe");
        return 0;
}

/* The exec's line of the audit trail, before the process exists: under
 * strict a process the trail cannot record is not started. */
static int audit_exec(const struct exec_ctx *x, const char *id, const struct global_options *global,
                      struct sb_error *err)
{
        _cleanup_audit_line_ struct audit_line l = AUDIT_LINE_INIT;
        const struct oci_process *p = x->process;

        if (audit_line_begin(&l, AUDIT_EXEC, id, err) < 0)
                return -1;
        jw_kv_strv(l.w, "args", (const char *const *)p->args);
        jw_kv_uint(l.w, "uid", p->user.uid);
        jw_kv_uint(l.w, "gid", p->user.gid);
        jw_kv_string(l.w, "cwd", p->cwd);
        jw_kv_bool(l.w, "terminal", p->terminal);
        audit_line_policy(&l, &x->policy, false);
        jw_kv_string(l.w, "profile", policy_profile_get(x->profile)->name);
        return audit_line_commit(&l, &x->policy, global, x->profile, err);
}

int container_exec(const struct global_options *global, const struct exec_options *opts,
                   struct oci_process *process, struct sb_error *err)
{
        _cleanup_state_dir_ struct state_dir sd = STATE_DIR_INIT;
        struct exec_ctx x = { .process = process,
                              .pidfd = -1,
                              .root_fd = -1,
                              .image_fd = -1,
                              .plan_fd = -1,
                              .cgroup_fd = -1,
                              .report = { -1, -1 },
                              .ready = { -1, -1 },
                              .attach = { -1, -1 },
                              .console_fd = -1,
                              .console_receiver = -1,
                              .seccomp_channel = -1 };
        seccomp_setup_init(&x.seccomp);
        sigset_t signals;
        int pid = 0, ret = 1;
        _cleanup_close_ int pidfd_sock = -1;

        if (check_process(process, opts, err) < 0)
                goto out;
        if (opts->pidfd_socket != NULL &&
            (pidfd_sock = pidfd_socket_connect(opts->pidfd_socket, err)) < 0)
                goto out;
        x.state = state_dir_open_state(global->root, opts->id, &sd, err);
        if (x.state == NULL)
                goto out;
        const char *status = container_status(x.state);
        if (strcmp(status, "stopped") == 0 || strcmp(status, "creating") == 0) {
                sb_fail(err, 0, "cannot exec in a %s container", status);
                goto out;
        }
        /* runc's: the process would join a frozen cgroup and wait there,
         * and exec with it, until resume. */
        if (strcmp(status, "paused") == 0 && !opts->ignore_paused) {
                sb_fail(err, 0,
                        "cannot exec in a paused container (use --ignore-paused to override)");
                goto out;
        }
        x.config = state_dir_load_config(&sd, err);
        if (x.config == NULL)
                goto out;
        /* exec --cap or a process.json must not reach above the floor. */
        if (state_dir_load_policy(&sd, global, &x.policy, err) < 0 ||
            effective_process_apply(x.config, x.process, &x.policy, &x.profile, err) < 0)
                goto out;
        if (decide_lsm(x.process, x.config->process, err) < 0)
                goto out;
        if (prepare(&x, opts, global, err) < 0) {
                /* The shell's and runc's exit codes for a program that is
                 * not there (127) or may not be run (126). */
                if (err->kind == SB_ERR_NOT_FOUND)
                        ret = 127;
                else if (err->kind == SB_ERR_DENIED)
                        ret = 126;
                goto out;
        }
        /* The process is reparented to us when the first child goes: as
         * subreaper we wait for it in the foreground, and in the background
         * hand it on to our own subreaper (conmon, the containerd shim). */
        if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
                sb_fail(err, errno, "exec: become a subreaper");
                goto out;
        }
        process_wait_block_signals(&signals);
        uint64_t oom_kills = oom_kills_now(x.state);
        if (audit_exec(&x, opts->id, global, err) < 0)
                goto out;
        /* Frozen, the process stops on joining the cgroup, before it says
         * ready, until `resume`, which takes this lock: let it go first. */
        if (strcmp(status, "paused") == 0)
                state_dir_release(&sd);
        if (start_process(&x, opts->preserve_fds, &pid, err) < 0)
                goto out;
        if (seccomp_setup_notify(&x.seccomp, x.config, opts->id, pid, x.state->bundle, err) < 0)
                goto out;
        /* We are its subreaper and have not reaped it: the pid is stable. */
        if (pidfd_sock >= 0 &&
            pidfd_socket_send(SB_STEAL_FD(pidfd_sock), pid, PIDFD_KIND_EXEC, err) < 0)
                goto out;
        state_dir_release(&sd);
        if (opts->pid_file && pid_file_write(opts->pid_file, pid, err) < 0)
                goto out;
        if (opts->detach) {
                ret = 0;
                goto out;
        }
        if (x.console_receiver >= 0) {
                _cleanup_close_ int master = console_receive_master(x.console_receiver, err);
                if (master < 0)
                        goto out;
                ret = console_proxy_run(master, pid, &signals);
        } else {
                ret = process_wait_forward(pid, &signals);
        }
        note_oom_kill(x.state, oom_kills, ret);
out:
        exec_ctx_release(&x);
        return ret;
}
