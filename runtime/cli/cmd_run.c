/* `run`: create and start in one go. In the foreground sbrun is the
 * container's subreaper: it forwards signals and exits with the process's
 * status (128+N for a signal), as `runc run` does.
 *
 * With a wall-clock limit the foreground `run` enforces it itself,
 * counted from its own start: at the deadline the whole container is
 * killed, and `run` returns at most DEADLINE_GRACE_MS later even if
 * something cannot be reaped. It never waits for EOF on the container's
 * stdio (inherited, not read) and the terminal proxy stops copying at
 * the same bound. The watchdog started by create is the backstop. */
#include "common/cleanup.h"
#include "common/error.h"
#include "common/fault.h"
#include "common/log.h"
#include "runtime/cli/cli.h"
#include "runtime/cli/commands.h"
#include "runtime/cli/create_options.h"
#include "runtime/container/create_container.h"
#include "runtime/container/deadline_kill.h"
#include "runtime/container/delete_container.h"
#include "runtime/container/console_proxy.h"
#include "runtime/container/process_wait.h"
#include "runtime/container/start_container.h"
#include "runtime/container/container_audit.h"
#include "runtime/container/verdict.h"
#include "runtime/container/wall_clock.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct run_options {
        bool detach, keep;
        const char *verdict_file;
};

struct deadline_target {
        int pidfd, pid;
        const char *cgroup_path;
};

static void kill_at_deadline(void *data)
{
        struct deadline_target *t = data;
        struct sb_error err = { 0 };

        sb_warn("run: wall-clock limit reached: killing the container");
        if (deadline_kill(t->pidfd, t->pid, t->cgroup_path, &err) < 0) {
                _cleanup_free_ char *text = sb_error_text(&err);
                sb_warn("run: %s", text ? text : "kill at the deadline failed");
        }
        sb_error_clear(&err);
}

static void write_verdict(const char *path, const struct verdict *v)
{
        struct sb_error err = { 0 };

        if (path != NULL && verdict_write_file(path, v, &err) < 0) {
                _cleanup_free_ char *text = sb_error_text(&err);
                sb_warn("run: %s", text ? text : "--verdict-file failed");
        }
        sb_error_clear(&err);
}

/* create or start failed: nothing of the container ran. */
static int setup_failed(const struct run_options *o)
{
        struct verdict v = { .kind = VERDICT_SETUP_FAILED, .exit_code = 1, .signal = 0 };
        write_verdict(o->verdict_file, &v);
        return 1;
}

/* --timeout: a positive number of seconds. */
static int parse_timeout(const struct cli_option *opt, const char *value, struct sb_error *err)
{
        int *seconds = opt->to.data;

        if (cli_parse_int("--timeout", value, INT_MAX, seconds, err) < 0)
                return -1;
        if (*seconds == 0)
                return sb_fail(err, 0, "--timeout: must be a positive number of seconds");
        return 0;
}

static int parse_options(int argc, char **argv, struct run_options *o, struct create_request *req,
                         struct sb_error *err)
{
        struct cli_option create_options[CREATE_OPTIONS_LEN];
        bool no_subreaper = false; /* runc's; sbrun is always the subreaper */
        const struct cli_option options[] = {
                { "detach", 'd', CLI_FLAG, .to.flag = &o->detach },
                { "keep", 0, CLI_FLAG, .to.flag = &o->keep },
                { "no-subreaper", 0, CLI_FLAG, .to.flag = &no_subreaper },
                { "timeout", 0, CLI_CALL_ARG, .to.data = &req->timeout_seconds,
                  .call = parse_timeout },
                { "verdict-file", 0, CLI_STRING, .to.string = &o->verdict_file },
                { NULL },
        };
        int next;

        create_options_table(req, create_options);
        const struct cli_command cmd = {
                .name = "run",
                .usage = "usage: sbrun run [--detach] [--keep] [--timeout SECONDS] "
                         "[--verdict-file PATH] [create options] ID\n",
                .options = create_options,
                .more = options,
        };
        int r = cli_parse(&cmd, argc, argv, &next, err);
        if (r != 0)
                return r;
        if (cli_require_id("run", argc, argv, next, &req->id, err) < 0)
                return -1;
        if (o->detach && o->keep)
                return sb_fail(err, 0, "run: --keep cannot be used with --detach");
        if (o->detach && o->verdict_file)
                return sb_fail(err, 0,
                               "run: --verdict-file cannot be used with --detach "
                               "(the verdict is in the state of the stopped container)");
        return 0;
}

static void delete_after_exit(const struct global_options *global, const char *id)
{
        struct sb_error cleanup = { 0 };
        if (container_delete(global, id, true, &cleanup) < 0) {
                char *text = sb_error_text(&cleanup);
                sb_warn("run: delete after exit: %s", text ? text : "failed");
                free(text);
        }
        sb_error_clear(&cleanup);
}

int cmd_run(const struct global_options *global, int argc, char **argv, struct sb_error *err)
{
        struct run_options o = { 0 };
        struct create_request req = { 0 };
        int64_t started = wall_clock_now_ms();
        sigset_t set;
        int pid, status;

        int r = parse_options(argc, argv, &o, &req, err);
        if (r != 0)
                return r < 0 ? 1 : 0;
        if (!o.detach) {
                /* Before create: the container is reparented to us when its
                 * outer bwrap goes, and its signals must not be lost. */
                if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
                        return sb_fail(err, errno, "run: become a subreaper"), setup_failed(&o);
                process_wait_block_signals(&set);
        }
        /* runc's `run -t` with no socket: the pty is ours to proxy. */
        req.console_to_caller = !o.detach && req.console_socket == NULL;
        struct create_result result;
        if (container_create(global, &req, &result, err) < 0)
                return setup_failed(&o);
        SB_FAULT_POINT("run.after-create");
        _cleanup_free_ char *cgroup_path = result.cgroup_path;
        pid = result.pid;
        /* Before it runs: its mounts are held for the verdict to read. */
        _cleanup_tmpfs_watch_ struct tmpfs_watch watch = TMPFS_WATCH_INIT;
        if (!o.detach)
                tmpfs_watch_open(&watch, pid);
        if (container_start(global, req.id, o.detach ? 0 : getpid(), err) < 0) {
                if (result.console_master >= 0)
                        close(result.console_master);
                delete_after_exit(global, req.id);
                return setup_failed(&o);
        }
        SB_FAULT_POINT("run.after-start");
        if (o.detach)
                return 0;

        /* We are its subreaper and reap it only below: the pid is stable. */
        _cleanup_close_ int pidfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
        struct deadline_target target = { .pidfd = pidfd, .pid = pid, .cgroup_path = cgroup_path };
        struct wait_deadline dl = {
                .at_ms = result.timeout_seconds > 0 ?
                                 started + (int64_t)result.timeout_seconds * 1000 :
                                 0,
                .expire = kill_at_deadline,
                .data = &target,
        };
        if (result.console_master >= 0) {
                console_proxy_wait(result.console_master, pid, &set, &dl, &status);
                close(result.console_master);
        } else {
                process_wait_status(pid, &set, &dl, &status);
        }

        SB_FAULT_POINT("run.after-wait");
        _cleanup_verdict_ struct verdict v = { 0 };
        tmpfs_watch_full(&watch, &v.full, &v.n_full);
        verdict_classify(&v, status, dl.expired, cgroup_path);
        container_audit_verdict(global, req.id, &v, cgroup_path);
        if (o.keep) {
                struct sb_error ignored = { 0 };
                verdict_record(global->root, req.id, &v, &ignored);
                sb_error_clear(&ignored);
        }
        write_verdict(o.verdict_file, &v);
        if (!o.keep)
                delete_after_exit(global, req.id);
        return v.exit_code;
}
