/* `run`: create and start in one go. In the foreground sbrun is the
 * container's subreaper: it forwards signals and exits with the process's
 * status (128+N for a signal), as `runc run` does. */
#include "common/error.h"
#include "common/log.h"
#include "runtime/cli.h"
#include "runtime/commands.h"
#include "runtime/create_container.h"
#include "runtime/delete_container.h"
#include "runtime/console_proxy.h"
#include "runtime/process_wait.h"
#include "runtime/start_container.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

extern const struct option create_long_options[];

int cmd_run(const struct global_options *global, int argc, char **argv, struct sb_error *err)
{
        struct option options[16];
        struct create_request req = { 0 };
        bool detach = false, keep = false;
        sigset_t set;
        int opt, pid = 0, n = 0;

        for (; create_long_options[n].name != NULL; n++)
                options[n] = create_long_options[n];
        options[n++] = (struct option){ "detach", no_argument, NULL, 'd' };
        options[n++] = (struct option){ "keep", no_argument, NULL, 'k' };
        options[n++] = (struct option){ "no-subreaper", no_argument, NULL, 'S' };
        options[n] = (struct option){ NULL, 0, NULL, 0 };

        cli_reset_getopt();
        while ((opt = getopt_long(argc, argv, "+b:dh", options, NULL)) != -1) {
                if (opt == 'd') {
                        detach = true;
                        continue;
                }
                if (opt == 'k') {
                        keep = true;
                        continue;
                }
                if (opt == 'S')
                        continue;
                if (opt == 'h') {
                        printf("usage: sbrun run [--detach] [--keep] [create options] ID\n");
                        return 0;
                }
                int r = create_request_option(opt, optarg, &req, err);
                if (r < 0)
                        return 1;
                if (r == 0)
                        return sb_fail(err, 0, "run: unknown option \"%s\"", argv[optind - 1]), 1;
        }
        if (cli_require_id("run", argc, argv, optind, &req.id, err) < 0)
                return 1;
        if (detach && keep)
                return sb_fail(err, 0, "run: --keep cannot be used with --detach"), 1;

        if (!detach) {
                /* Before create: the container is reparented to us when its
                 * outer bwrap goes, and its signals must not be lost. */
                if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
                        return sb_fail(err, errno, "run: become a subreaper"), 1;
                process_wait_block_signals(&set);
        }
        /* runc's `run -t` with no socket: the pty is ours to proxy. */
        req.console_to_caller = !detach && req.console_socket == NULL;
        struct create_result result;
        if (container_create(global, &req, &result, err) < 0)
                return 1;
        pid = result.pid;
        if (container_start(global, req.id, err) < 0) {
                struct sb_error cleanup = { 0 };
                container_delete(global, req.id, true, &cleanup);
                sb_error_clear(&cleanup);
                return 1;
        }
        if (detach)
                return 0;

        int code;
        if (result.console_master >= 0) {
                code = console_proxy_run(result.console_master, pid, &set);
                close(result.console_master);
        } else {
                code = process_wait_forward(pid, &set);
        }
        if (!keep) {
                struct sb_error cleanup = { 0 };
                if (container_delete(global, req.id, true, &cleanup) < 0) {
                        char *text = sb_error_text(&cleanup);
                        sb_warn("run: delete after exit: %s", text ? text : "failed");
                        free(text);
                }
                sb_error_clear(&cleanup);
        }
        return code;
}
