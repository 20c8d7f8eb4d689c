/* `run`: create and start in one go. In the foreground sbrun is the
 * container's subreaper: it forwards signals and exits with the process's
 * status (128+N for a signal), as `runc run` does.
 *
 * With a wall-clock limit the foreground `run` enforces it itself,
 * counted from its own start: at the deadline the whole container is
 * killed, and `run` returns at most DEADLINE_GRACE_MS later even if
 * something cannot be reaped. It never waits for EOF on the container's
 * stdio (inherited, not read) and the terminal proxy stops copying at
 * the same bound. The watchdog started by create is the backstop.
 *
 * With an output limit (spec/floor_runtime.h) the foreground `run` reads
 * the container's stdout and stderr through pipes instead (a terminal:
 * the pty it proxies), forwards at most the limit of each, and the first
 * byte past it ends the container as the deadline does, with the verdict
 * output_limit (runtime/container/output_cap.h). */
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
#include "runtime/container/output_cap.h"
#include "runtime/container/verdict.h"
#include "runtime/container/wall_clock.h"
#include "spec/policy_profiles.h"

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
        const struct output_cap *cap;
};

static void kill_at_deadline(void *data)
{
        struct deadline_target *t = data;
        struct sb_error err = { 0 };

        if (t->cap->tripped >= 0)
                sb_warn("run: output limit of %s reached (%lld bytes): killing the container",
                        output_stream_name((enum output_stream)t->cap->tripped),
                        (long long)t->cap->limit[t->cap->tripped]);
        else
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

/* --output-limit, --stdout-limit, --stderr-limit: a positive size. */
static int parse_size(const struct cli_option *opt, const char *value, struct sb_error *err)
{
        int64_t *bytes = opt->to.data;

        if (policy_parse_size(value, bytes) < 0)
                return sb_fail(err, 0,
                               "--%s: \"%s\" is not a positive size (bytes, or with a k, m, g "
                               "or t suffix)",
                               opt->name, value);
        return 0;
}

static int parse_options(int argc, char **argv, struct run_options *o, struct create_request *req,
                         struct sb_error *err)
{
        struct cli_option create_options[CREATE_OPTIONS_LEN];
        bool no_subreaper = false; /* runc's; sbrun is always the subreaper */
        const struct cli_option options[] = {
                { "detach", 'd', CLI_FLAG, .to.flag = &o->detach,
                  .help = "return once the container is started, without waiting for it" },
                { "keep", 0, CLI_FLAG, .to.flag = &o->keep,
                  .help = "do not delete the container when it exits (not with --detach)" },
                { "no-subreaper", 0, CLI_FLAG, .to.flag = &no_subreaper,
                  .help = "accepted, ignored: a foreground run is always the container's "
                          "subreaper" },
                { "timeout", 0, CLI_CALL_ARG, .to.data = &req->timeout_seconds,
                  .call = parse_timeout, .arg = "SECONDS",
                  .help = "kill the whole container after SECONDS of wall-clock time (may only "
                          "lower the policy's timeout.max_seconds)" },
                { "verdict-file", 0, CLI_STRING, .to.string = &o->verdict_file, .arg = "FILE",
                  .help = "write how the container ended as JSON (verdict, exit_code, signal) "
                          "to FILE (not with --detach)" },
                { "output-limit", 0, CLI_CALL_ARG, .to.data = &req->output.both, .call = parse_size,
                  .arg = "SIZE",
                  .help = "forward at most SIZE bytes of each of stdout and stderr, then kill "
                          "the container (verdict output_limit, exit 125; may only lower the "
                          "policy's limits.output)" },
                { "stdout-limit", 0, CLI_CALL_ARG, .to.data = &req->output.out, .call = parse_size,
                  .arg = "SIZE",
                  .help = "as --output-limit, for stdout alone (wins over --output-limit)" },
                { "stderr-limit", 0, CLI_CALL_ARG, .to.data = &req->output.err, .call = parse_size,
                  .arg = "SIZE",
                  .help = "as --output-limit, for stderr alone (wins over --output-limit)" },
                { NULL },
        };
        int next;

        create_options_table(req, create_options);
        const struct cli_command cmd = {
                .name = "run",
                .usage =
                        "usage: sbrun run [options] ID\n\n"
                        "Create and start container ID. In the foreground, wait for it, exit with\n"
                        "its status (128+N when killed by signal N) and delete it.\n",
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
        /* A limit only `run` in the foreground can carry out, forwarding
         * the output itself: elsewhere the output is never ours to count. */
        bool limited = req->output.both > 0 || req->output.out > 0 || req->output.err > 0;
        if (limited && o->detach)
                return sb_fail(err, 0,
                               "run: --output-limit, --stdout-limit and --stderr-limit cannot be "
                               "used with --detach (a detached container writes to the caller's "
                               "stdout and stderr itself; nothing forwards them to count)");
        if (limited && req->console_socket != NULL)
                return sb_fail(err, 0,
                               "run: --output-limit, --stdout-limit and --stderr-limit cannot be "
                               "used with --console-socket (the terminal's output goes to the "
                               "socket's holder, not through run)");
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
        req.forward_output = req.console_to_caller;
        struct create_result result;
        if (container_create(global, &req, &result, err) < 0)
                return setup_failed(&o);
        SB_FAULT_POINT("run.after-create");
        _cleanup_free_ char *cgroup_path = result.cgroup_path;
        _cleanup_close_ int out_read = result.output_read[OUTPUT_STDOUT];
        _cleanup_close_ int err_read = result.output_read[OUTPUT_STDERR];
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
        struct output_cap cap = OUTPUT_CAP_INIT;
        cap.limit[OUTPUT_STDOUT] = result.output.out;
        cap.limit[OUTPUT_STDERR] = result.output.err;
        struct deadline_target target = {
                .pidfd = pidfd, .pid = pid, .cgroup_path = cgroup_path, .cap = &cap
        };
        struct wait_deadline dl = {
                .at_ms = result.timeout_seconds > 0 ?
                                 started + (int64_t)result.timeout_seconds * 1000 :
                                 0,
                .expire = kill_at_deadline,
                .data = &target,
        };
        /* A caller that stops reading must not kill us with SIGPIPE while
         * the container lives: output_cap_wait passes EPIPE on by closing
         * the pipe. The container's disposition was fixed when create
         * forked it. (The terminal proxy is left as it was without a
         * limit: a pty cannot pass a broken pipe on.) */
        if (out_read >= 0 || err_read >= 0)
                signal(SIGPIPE, SIG_IGN);
        if (result.console_master >= 0) {
                console_proxy_wait(result.console_master, pid, &set, &dl, &cap, &status);
                close(result.console_master);
        } else if (out_read >= 0 || err_read >= 0) {
                int fds[OUTPUT_STREAMS] = { out_read, err_read };
                out_read = err_read = -1;
                output_cap_wait(&cap, fds, pid, &set, &dl, &status);
                for (int s = 0; s < OUTPUT_STREAMS; s++)
                        if (fds[s] >= 0)
                                close(fds[s]);
        } else {
                process_wait_status(pid, &set, &dl, &status);
        }

        /* A stream that tripped as the process exited on its own: the
         * rest of the container is still to be killed, now. */
        if (cap.tripped >= 0)
                wait_deadline_step(&dl);
        SB_FAULT_POINT("run.after-wait");
        _cleanup_verdict_ struct verdict v = { 0 };
        tmpfs_watch_full(&watch, &v.full, &v.n_full);
        verdict_classify(&v, status, dl.expired && cap.tripped < 0, cgroup_path);
        if (cap.tripped >= 0)
                verdict_output_limit(&v, output_stream_name((enum output_stream)cap.tripped),
                                     cap.forwarded[cap.tripped]);
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
