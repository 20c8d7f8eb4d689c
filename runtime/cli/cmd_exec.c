#include "common/cleanup.h"
#include "common/error.h"
#include "oci/config.h"
#include "oci/state.h"
#include "runtime/cli/cli.h"
#include "runtime/cli/commands.h"
#include "runtime/container/exec_container.h"
#include "runtime/container/exec_process.h"
#include "runtime/container/state_dir.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

enum {
        OPT_PID_FILE = 256,
        OPT_CONSOLE_SOCKET,
        OPT_PRESERVE_FDS,
        OPT_NO_NEW_PRIVS,
        OPT_PROCESS_LABEL,
        OPT_APPARMOR,
        OPT_IGNORE_PAUSED,
        OPT_CGROUP,
};

static const struct option options[] = {
        { "process", required_argument, NULL, 'p' },
        { "cwd", required_argument, NULL, 'w' },
        { "env", required_argument, NULL, 'e' },
        { "tty", no_argument, NULL, 't' },
        { "user", required_argument, NULL, 'u' },
        { "additional-gids", required_argument, NULL, 'g' },
        { "cap", required_argument, NULL, 'c' },
        { "detach", no_argument, NULL, 'd' },
        { "pid-file", required_argument, NULL, OPT_PID_FILE },
        { "console-socket", required_argument, NULL, OPT_CONSOLE_SOCKET },
        { "preserve-fds", required_argument, NULL, OPT_PRESERVE_FDS },
        { "no-new-privs", no_argument, NULL, OPT_NO_NEW_PRIVS },
        { "process-label", required_argument, NULL, OPT_PROCESS_LABEL },
        { "apparmor", required_argument, NULL, OPT_APPARMOR },
        { "ignore-paused", no_argument, NULL, OPT_IGNORE_PAUSED },
        { "cgroup", required_argument, NULL, OPT_CGROUP },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
};

static void usage(void)
{
        printf("usage: sbrun exec [options] ID COMMAND [ARGS...]\n"
               "       sbrun exec [options] --process FILE ID\n"
               "options: --cwd DIR, --env KEY=VALUE, --tty, --user UID[:GID], --additional-gids GID,\n"
               "         --cap CAP, --no-new-privs, --preserve-fds N, --detach, --pid-file FILE,\n"
               "         --console-socket PATH\n");
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
        int opt, status = 1;

        cli_reset_getopt();
        while ((opt = getopt_long(argc, argv, "+p:w:e:tu:g:c:dh", options, NULL)) != -1) {
                switch (opt) {
                case 'p':
                        process_file = optarg;
                        break;
                case 'w':
                        o.cwd = optarg;
                        break;
                case 'e':
                        strv_add(&o.env, optarg);
                        break;
                case 't':
                        o.tty = true;
                        break;
                case 'u':
                        o.user = optarg;
                        break;
                case 'g':
                        strv_add(&o.additional_gids, optarg);
                        break;
                case 'c':
                        strv_add(&o.caps, optarg);
                        break;
                case 'd':
                        opts.detach = true;
                        break;
                case OPT_PID_FILE:
                        opts.pid_file = optarg;
                        break;
                case OPT_CONSOLE_SOCKET:
                        opts.console_socket = optarg;
                        break;
                case OPT_PRESERVE_FDS:
                        if (cli_parse_int("--preserve-fds", optarg, 1000, &opts.preserve_fds, err) <
                            0)
                                goto out;
                        break;
                case OPT_NO_NEW_PRIVS:
                        o.no_new_privs = true;
                        break;
                case OPT_PROCESS_LABEL:
                        sb_fail(err, 0, "--process-label: SELinux is not enabled on this host");
                        goto out;
                case OPT_APPARMOR:
                        sb_fail(err, 0, "--apparmor: AppArmor is not enabled on this host");
                        goto out;
                case OPT_IGNORE_PAUSED:
                        break;
                case OPT_CGROUP:
                        sb_fail(err, 0,
                                "--cgroup: sub-cgroups for exec are not supported by sbrun");
                        goto out;
                case 'h':
                        usage();
                        status = 0;
                        goto out;
                default:
                        sb_fail(err, 0, "exec: unknown option \"%s\"", argv[optind - 1]);
                        goto out;
                }
        }
        if (optind >= argc) {
                sb_fail(err, 0, "exec: container ID is required");
                goto out;
        }
        opts.id = argv[optind++];
        o.args = argv + optind;
        o.n_args = (size_t)(argc - optind);
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
