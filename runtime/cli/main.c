/* sbrun: parse the global options as runc does, then hand over to one command. */
#include "config.h"
#include "git_commit.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/log.h"
#include "runtime/cli/commands.h"
#include "runtime/host/rootless.h"
#include "runtime/sandbox/bwrap_binary.h"

#include <errno.h>
#include <getopt.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct command {
        const char *name;
        command_fn fn;
        const char *summary;
};

static const struct command commands[] = {
        { "create", cmd_create, "create a container" },
        { "start", cmd_start, "start the user process of a created container" },
        { "run", cmd_run, "create and start a container" },
        { "state", cmd_state, "print the state of a container" },
        { "kill", cmd_kill, "send a signal to the container process" },
        { "delete", cmd_delete, "delete a container and everything it holds" },
        { "list", cmd_list, "list the containers" },
        { "spec", cmd_spec, "write a new config.json" },
        { "features", cmd_features, "print what this build supports" },
        { "exec", cmd_exec, "run a new process in a running container" },
        { "ps", cmd_ps, "list a container's processes" },
        { "pause", cmd_pause, "freeze all processes of a container" },
        { "resume", cmd_resume, "thaw a paused container" },
        { "update", cmd_update, "change a running container's resource limits" },
        { "policy", cmd_policy, "show the policy floor, or explain it for a bundle" },
        { "events", cmd_events, "container stats and OOM events (from its cgroup)" },
        { "audit", cmd_audit, "read the audit trail: creates, execs, kills, deletes, verdicts" },
        { "check", cmd_check, "tell whether this host can run confined containers, and why not" },
        { "checkpoint", cmd_not_implemented, "checkpoint (not implemented)" },
        { "restore", cmd_not_implemented, "restore (not implemented)" },
};

/* runc's --rootless auto|true|false. What sbrun may do follows from who
 * runs it (runtime/host/rootless.h), not from the flag, so a value that
 * contradicts the caller is an error rather than a promise sbrun cannot
 * keep: "false" from a user cannot get root, "true" from real root would
 * not drop it. */
static int check_rootless(const char *value, struct sb_error *err)
{
        bool rootless = rootless_detect();

        if (strcmp(value, "auto") == 0)
                return 0;
        if (strcmp(value, "true") != 0 && strcmp(value, "false") != 0)
                return sb_fail(err, 0, "--rootless: unknown value \"%s\" (auto, true or false)",
                               value);
        if ((strcmp(value, "true") == 0) != rootless)
                return sb_fail(
                        err, 0,
                        "--rootless %s: sbrun runs %s here (euid %u%s); leave it out or say auto",
                        value, rootless ? "rootless" : "as real root", (unsigned)geteuid(),
                        rootless_in_user_namespace() ? ", in a user namespace" : "");
        return 0;
}

static void usage(FILE *out)
{
        fprintf(out,
                "usage: sbrun [global options] COMMAND [options] [ID]\n\n"
                "A hardened OCI runtime: bubblewrap, cgroup v2 and seccomp under a policy floor.\n\n"
                "Global options:\n"
                "  --root DIR            state directory (default " SBRUN_STATEDIR "; rootless:\n"
                "                        $XDG_RUNTIME_DIR/sbrun)\n"
                "  --log FILE            append log lines to FILE\n"
                "  --log-format FORMAT   text or json\n"
                "  --debug               log debug messages\n"
                "  --policy FILE         operator policy (default " SBRUN_CONFDIR "/policy.json)\n"
                "  --systemd-cgroup      the cgroup is a systemd scope (also --cgroup-manager systemd)\n"
                "  --cgroup-manager M    cgroupfs (default) or systemd\n"
                "  --rootless MODE       auto (default), true or false: whether the caller is\n"
                "                        rootless; sbrun finds out, a contradicting value fails\n"
                "  --version, -v         print the version\n\n"
                "Commands:\n");
        for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
                fprintf(out, "  %-11s %s\n", commands[i].name, commands[i].summary);
}

/* As runc and crun: what was built, and the two programs whose behaviour
 * sbrun's depends on, as this host has them now. */
static void print_version(void)
{
        const struct scmp_version *seccomp = seccomp_version();
        _cleanup_free_ char *bwrap = NULL, *why = NULL;
        struct sb_error err = { 0 };

        printf("sbrun version %s\ncommit: %s\nspec: %s\n", PACKAGE_VERSION, SBRUN_GIT_COMMIT,
               SBRUN_OCI_VERSION);
        printf("libseccomp: %u.%u.%u\n", seccomp->major, seccomp->minor, seccomp->micro);
        /* bwrap is run only once judged fit to run as root, as by sbrun check. */
        if (access(sbrun_bwrap_path, F_OK) < 0 && errno == ENOENT)
                printf("bubblewrap: not found\n");
        else if (bwrap_binary_check(sbrun_bwrap_path, rootless_host_root_uid(), &err) < 0 ||
                 bwrap_binary_version(sbrun_bwrap_path, &bwrap, &err) < 0) {
                why = sb_error_text(&err);
                printf("bubblewrap: unusable: %s\n", why ? why : "(no memory)");
                sb_error_clear(&err);
        } else
                printf("bubblewrap: %s\n",
                       strncmp(bwrap, "bubblewrap ", 11) == 0 ? bwrap + 11 : bwrap);
#ifdef SBRUN_FAULT_INJECTION
        /* tests/faults/ runs only against such a build. */
        printf("fault-injection: on\n");
#endif
}

enum {
        OPT_ROOT = 256,
        OPT_LOG,
        OPT_LOG_FORMAT,
        OPT_DEBUG,
        OPT_SYSTEMD_CGROUP,
        OPT_ROOTLESS,
        OPT_CGROUP_MANAGER,
        OPT_CRIU,
        OPT_POLICY,
};

static int parse_global(int argc, char **argv, struct global_options *global, struct sb_error *err)
{
        static const struct option options[] = {
                { "root", required_argument, NULL, OPT_ROOT },
                { "log", required_argument, NULL, OPT_LOG },
                { "log-format", required_argument, NULL, OPT_LOG_FORMAT },
                { "debug", no_argument, NULL, OPT_DEBUG },
                { "systemd-cgroup", no_argument, NULL, OPT_SYSTEMD_CGROUP },
                { "rootless", required_argument, NULL, OPT_ROOTLESS },
                { "cgroup-manager", required_argument, NULL, OPT_CGROUP_MANAGER },
                { "criu", required_argument, NULL, OPT_CRIU },
                { "policy", required_argument, NULL, OPT_POLICY },
                { "version", no_argument, NULL, 'v' },
                { "help", no_argument, NULL, 'h' },
                { NULL, 0, NULL, 0 },
        };
        int c;

        /* "+" stops at the command name: its own options are parsed later. */
        opterr = 0;
        while ((c = getopt_long(argc, argv, "+vh", options, NULL)) != -1) {
                switch (c) {
                case OPT_ROOT:
                        global->root = optarg;
                        break;
                case OPT_LOG:
                        global->log_path = optarg;
                        break;
                case OPT_LOG_FORMAT:
                        if (strcmp(optarg, "json") == 0)
                                global->log_json = true;
                        else if (strcmp(optarg, "text") == 0)
                                global->log_json = false;
                        else
                                return sb_fail(err, 0, "--log-format: unknown format \"%s\"",
                                               optarg);
                        break;
                case OPT_DEBUG:
                        global->debug = true;
                        break;
                case OPT_SYSTEMD_CGROUP:
                        global->systemd_cgroup = true;
                        break;
                case OPT_ROOTLESS:
                        if (check_rootless(optarg, err) < 0)
                                return -1;
                        break;
                case OPT_CGROUP_MANAGER:
                        if (strcmp(optarg, "cgroupfs") != 0 && strcmp(optarg, "systemd") != 0)
                                return sb_fail(err, 0, "--cgroup-manager: unknown manager \"%s\"",
                                               optarg);
                        global->systemd_cgroup = strcmp(optarg, "systemd") == 0;
                        break;
                case OPT_CRIU:
                        break;
                case OPT_POLICY:
                        global->policy_path = optarg;
                        break;
                case 'v':
                        print_version();
                        exit(0);
                case 'h':
                        usage(stdout);
                        exit(0);
                default:
                        return sb_fail(err, 0, "unknown global option \"%s\"", argv[optind - 1]);
                }
        }
        return optind;
}

int main(int argc, char **argv)
{
        struct global_options global = { .root = NULL };
        _cleanup_free_ char *default_root = NULL;
        struct sb_error err = { 0 };
        int first;
        int status;

        first = parse_global(argc, argv, &global, &err);
        if (first < 0) {
                sb_log_error(&err);
                return 1;
        }
        global.rootless = rootless_detect();
        global.in_userns = rootless_in_user_namespace();
        global.host_root = rootless_host_root_uid();
        if (global.root == NULL) {
                default_root = rootless_state_root();
                if (default_root == NULL) {
                        sb_fail(&err, ENOMEM, "state root");
                        sb_log_error(&err);
                        return 1;
                }
                global.root = default_root;
        }
        if (sb_log_open(global.log_path, global.log_json ? SB_LOG_JSON : SB_LOG_TEXT, global.debug,
                        &err) < 0) {
                sb_log_error(&err);
                return 1;
        }
        if (first >= argc) {
                usage(stderr);
                return 1;
        }
        const char *name = argv[first];
        if (strcmp(name, "version") == 0) {
                print_version();
                return 0;
        }
        if (strcmp(name, "help") == 0) {
                usage(stdout);
                return 0;
        }
        for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
                if (strcmp(commands[i].name, name) != 0)
                        continue;
                status = commands[i].fn(&global, argc - first, argv + first, &err);
                if (err.msg != NULL) {
                        sb_log_error(&err);
                        if (status == 0)
                                status = 1;
                }
                sb_error_clear(&err);
                sb_log_close();
                return status;
        }
        sb_fail(&err, 0, "unknown command \"%s\"", name);
        sb_log_error(&err);
        return 1;
}
