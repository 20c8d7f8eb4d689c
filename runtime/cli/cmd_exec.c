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

#define USAGE                                                                                    \
        "usage: sbrun exec [options] ID COMMAND [ARGS...]\n"                                     \
        "       sbrun exec [options] --process FILE ID\n"                                        \
        "options: --cwd DIR, --env KEY=VALUE, --tty, --user UID[:GID], --additional-gids GID,\n" \
        "         --cgroup PATH, --ignore-paused,\n"                                             \
        "         --cap CAP, --no-new-privs, --preserve-fds N, --detach, --pid-file FILE,\n"     \
        "         --console-socket PATH, --pidfd-socket PATH, --apparmor PROFILE,\n"             \
        "         --process-label LABEL\n"

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
                { "process", 'p', CLI_STRING, .to.string = &process_file },
                { "cwd", 'w', CLI_STRING, .to.string = &o.cwd },
                { "env", 'e', CLI_CALL_ARG, .to.data = &o.env, .call = add_value },
                { "tty", 't', CLI_FLAG, .to.flag = &o.tty },
                { "user", 'u', CLI_STRING, .to.string = &o.user },
                { "additional-gids", 'g', CLI_CALL_ARG, .to.data = &o.additional_gids,
                  .call = add_value },
                { "cap", 'c', CLI_CALL_ARG, .to.data = &o.caps, .call = add_value },
                { "detach", 'd', CLI_FLAG, .to.flag = &opts.detach },
                { "pid-file", 0, CLI_STRING, .to.string = &opts.pid_file },
                { "console-socket", 0, CLI_STRING, .to.string = &opts.console_socket },
                { "pidfd-socket", 0, CLI_STRING, .to.string = &opts.pidfd_socket },
                { "preserve-fds", 0, CLI_INT, .to.integer = &opts.preserve_fds, .max = 1000 },
                { "no-new-privs", 0, CLI_FLAG, .to.flag = &o.no_new_privs },
                { "process-label", 0, CLI_STRING, .to.string = &o.process_label },
                { "apparmor", 0, CLI_STRING, .to.string = &o.apparmor },
                { "ignore-paused", 0, CLI_FLAG, .to.flag = &opts.ignore_paused },
                { "cgroup", 0, CLI_CALL_ARG, .to.data = &opts.cgroup, .call = one_cgroup },
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
