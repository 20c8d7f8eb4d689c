#include "common/cleanup.h"
#include "common/error.h"
#include "oci/config.h"
#include "oci/state.h"
#include "runtime/cli/cli_options.h"
#include "runtime/cli/commands.h"
#include "runtime/container/exec_container.h"
#include "runtime/container/exec_process.h"
#include "runtime/container/state_dir.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define USAGE                                                                 \
        "usage: sbrun exec [options] ID COMMAND [ARGS...]\n"                  \
        "       sbrun exec [options] --process FILE ID\n\n"                   \
        "Run a new process in a running container: its namespaces, cgroup,\n" \
        "capabilities, no_new_privs, seccomp filter and floor. Without\n"     \
        "--process, the container's config.json process is the base.\n"

/* --env, --additional-gids, --cap: each occurrence adds one. */
static int add_value(const struct cli_option *opt, const char *value, struct sb_error *err)
{
        strv_add(opt->to.data, value);
        return 0;
}

/* --cgroup: cgroup v2 has one hierarchy, so one path (runc refuses a
 * second without a controller prefix too). */
static int one_cgroup(const struct cli_option *opt, const char *value, struct sb_error *err)
{
        const char **to = opt->to.data;

        if (*to != NULL)
                return sb_fail(err, 0,
                               "--cgroup: given twice (\"%s\", \"%s\"); cgroup v2 takes one", *to,
                               value);
        *to = value;
        return 0;
}

/* The container's config.json is the base of an exec without --process,
 * as with runc. */
static struct oci_process *process_from_container(const struct global_options *global,
                                                  const char *id, const struct exec_overrides *o,
                                                  struct sb_error *err)
{
        _cleanup_state_dir_ struct state_dir sd = STATE_DIR_INIT;
        struct oci_state *state;
        struct oci_config *config;
        struct oci_process *p;

        state = state_dir_open_state(global->root, id, &sd, err);
        if (state == NULL)
                return NULL;
        config = oci_config_load_bundle(state->bundle, err);
        oci_state_free(state);
        if (config == NULL)
                return sb_error_prefix(err, "exec: the container's bundle"), NULL;
        p = exec_process_from_config(config, o, err);
        oci_config_free(config);
        return p;
}

int cmd_exec(const struct global_options *global, int argc, char **argv, struct sb_error *err)
{
        struct exec_overrides o = { 0 };
        struct exec_options opts = { 0 };
        const char *process_file = NULL;
        struct oci_process *process;
        int next, status = 1;
        const struct cli_option options[] = {
                { "process", 'p', CLI_STRING, .to.string = &process_file, .arg = "FILE",
                  .help = "the process as runtime-spec's process JSON; the process options "
                          "below (--cwd to --process-label) then do not apply, as with runc" },
                { "cwd", 'w', CLI_STRING, .to.string = &o.cwd, .arg = "DIR",
                  .help = "the working directory, an absolute path in the container" },
                { "env", 'e', CLI_CALL_ARG, .to.data = &o.env, .call = add_value,
                  .arg = "KEY=VALUE",
                  .help = "set an environment variable (replaces the config's); repeatable" },
                { "tty", 't', CLI_FLAG, .to.flag = &o.tty,
                  .help = "give the process a terminal: its pty master goes to --console-socket, "
                          "else sbrun proxies it in the foreground" },
                { "user", 'u', CLI_STRING, .to.string = &o.user, .arg = "UID[:GID]",
                  .help = "run as this numeric uid (and gid) of the container" },
                { "additional-gids", 'g', CLI_CALL_ARG, .to.data = &o.additional_gids,
                  .call = add_value, .arg = "GID",
                  .help = "add a numeric supplementary group; repeatable" },
                { "cap", 'c', CLI_CALL_ARG, .to.data = &o.caps, .call = add_value, .arg = "CAP",
                  .help = "add a capability (CAP_NET_ADMIN) to the process's bounding, "
                          "effective and permitted sets, within the floor; repeatable" },
                { "no-new-privs", 0, CLI_FLAG, .to.flag = &o.no_new_privs,
                  .help = "set no_new_privs (the floor sets it anyway)" },
                { "apparmor", 0, CLI_STRING, .to.string = &o.apparmor, .arg = "PROFILE",
                  .help = "the process's AppArmor profile (else the container's); dropped with a "
                          "warning where AppArmor is off" },
                { "process-label", 0, CLI_STRING, .to.string = &o.process_label, .arg = "LABEL",
                  .help = "the process's SELinux label (else the container's); dropped with a "
                          "warning where SELinux is off" },
                { "detach", 'd', CLI_FLAG, .to.flag = &opts.detach,
                  .help = "return once the process runs, without waiting for it" },
                { "pid-file", 0, CLI_STRING, .to.string = &opts.pid_file, .arg = "FILE",
                  .help = "write the process's host pid to FILE (a new file renamed over it)" },
                { "console-socket", 0, CLI_STRING, .to.string = &opts.console_socket,
                  .arg = "SOCKET",
                  .help = "send the pty master of a --tty process to this AF_UNIX socket" },
                { "pidfd-socket", 0, CLI_STRING, .to.string = &opts.pidfd_socket, .arg = "SOCKET",
                  .help = "send a pidfd of the process to this AF_UNIX stream socket (runc's "
                          "protocol)" },
                { "preserve-fds", 0, CLI_INT, .to.integer = &opts.preserve_fds, .max = 1000,
                  .arg = "N",
                  .help = "pass N more open file descriptors, from fd 3 on, to the process (0 "
                          "to 1000)" },
                { "ignore-paused", 0, CLI_FLAG, .to.flag = &opts.ignore_paused,
                  .help = "exec into a paused container too: the process waits frozen, and "
                          "exec with it, until resume" },
                { "cgroup", 0, CLI_CALL_ARG, .to.data = &opts.cgroup, .call = one_cgroup,
                  .arg = "PATH",
                  .help = "put the process in the cgroup PATH below the container's (cgroup v2; "
                          "it must exist)" },
                { NULL },
        };
        const struct cli_command cmd = { .name = "exec", .usage = USAGE, .options = options };
        int r = cli_parse(&cmd, argc, argv, &next, err);

        if (r != 0) {
                status = r < 0 ? 1 : 0;
                goto out;
        }
        if (next >= argc) {
                sb_fail(err, 0, "exec: container ID is required");
                goto out;
        }
        opts.id = argv[next++];
        o.args = argv + next;
        o.n_args = (size_t)(argc - next);
        if (o.env.failed || o.caps.failed || o.additional_gids.failed) {
                sb_fail(err, ENOMEM, "exec options");
                goto out;
        }
        if (process_file != NULL) {
                if (o.n_args > 0) {
                        sb_fail(err, 0, "exec: give either --process or a command, not both");
                        goto out;
                }
                process = exec_process_from_file(process_file, err);
        } else {
                process = process_from_container(global, opts.id, &o, err);
        }
        if (process == NULL)
                goto out;
        status = container_exec(global, &opts, process, err);
out:
        exec_overrides_release(&o);
        return status;
}
