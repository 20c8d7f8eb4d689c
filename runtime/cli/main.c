/* sbrun: parse the global options as runc does, then hand over to one command. */
#include "config.h"
#include "git_commit.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/log.h"
#include "runtime/cli/cli_options.h"
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
        const char *const *subcommands; /* `help policy explain`; NULL: none */
};

static const char *const policy_subcommands[] = { "show", "explain", NULL };

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
        { "policy", cmd_policy, "show the policy floor, or explain it for a bundle",
          policy_subcommands },
        { "events", cmd_events, "container stats and OOM events (from its cgroup)" },
        { "audit", cmd_audit, "read the audit trail: creates, execs, kills, deletes, verdicts" },
        { "check", cmd_check, "tell whether this host can run confined containers, and why not" },
        { "checkpoint", cmd_checkpoint, "dump a running container with CRIU" },
        { "restore", cmd_restore, "restore a container from a checkpoint" },
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

static int set_log_format(const struct cli_option *opt, const char *value, struct sb_error *err)
{
        struct global_options *global = opt->to.data;

        if (strcmp(value, "json") != 0 && strcmp(value, "text") != 0)
                return sb_fail(err, 0, "--log-format: unknown format \"%s\"", value);
        global->log_json = strcmp(value, "json") == 0;
        return 0;
}

static int set_rootless(const struct cli_option *opt, const char *value, struct sb_error *err)
{
        return check_rootless(value, err);
}

static int set_cgroup_manager(const struct cli_option *opt, const char *value, struct sb_error *err)
{
        struct global_options *global = opt->to.data;

        if (strcmp(value, "cgroupfs") != 0 && strcmp(value, "systemd") != 0)
                return sb_fail(err, 0, "--cgroup-manager: unknown manager \"%s\"", value);
        global->systemd_cgroup = strcmp(value, "systemd") == 0;
        return 0;
}

#define GLOBAL_USAGE                                                                        \
        "usage: sbrun [global options] COMMAND [options] [ID]\n\n"                          \
        "A hardened OCI runtime: bubblewrap, cgroup v2 and seccomp under a policy floor.\n" \
        "`sbrun help COMMAND` or `sbrun COMMAND --help` describes a command and its\n"      \
        "options.\n"

/* runc's global options: one table for the parser and for --help
 * (runtime/cli/cli_options.h). */
static void global_table(struct global_options *global, bool *version, struct cli_option table[11])
{
        const struct cli_option options[11] = {
                { "root", 0, CLI_STRING, .to.string = &global->root, .arg = "DIR",
                  .help = "the state root (default " SBRUN_STATEDIR
                          "; rootless: $XDG_RUNTIME_DIR/sbrun)" },
                { "log", 0, CLI_STRING, .to.string = &global->log_path, .arg = "FILE",
                  .help = "append log lines to FILE instead of standard error (never through a "
                          "symlink or a second hard link)" },
                { "log-format", 0, CLI_CALL_ARG, .to.data = global, .call = set_log_format,
                  .arg = "text|json", .help = "the log's format (default text)" },
                { "debug", 0, CLI_FLAG, .to.flag = &global->debug, .help = "log debug messages" },
                { "policy", 0, CLI_STRING, .to.string = &global->policy_path, .arg = "FILE",
                  .help = "the operator policy (default " SBRUN_CONFDIR "/policy.json)" },
                { "systemd-cgroup", 0, CLI_FLAG, .to.flag = &global->systemd_cgroup,
                  .help = "the container's cgroup is a transient systemd scope (as "
                          "--cgroup-manager systemd)" },
                { "cgroup-manager", 0, CLI_CALL_ARG, .to.data = global, .call = set_cgroup_manager,
                  .arg = "MANAGER",
                  .help = "cgroupfs (the default: sbrun makes the cgroup) or systemd (a "
                          "transient scope)" },
                { "rootless", 0, CLI_CALL_ARG, .call = set_rootless, .arg = "auto|true|false",
                  .help = "whether the caller is rootless: sbrun finds out (auto, the "
                          "default), and a value that contradicts it is refused" },
                { "criu", 0, CLI_STRING, .to.string = &global->criu, .arg = "PATH",
                  .help = "the criu program checkpoint and restore run (default: criu from "
                          "PATH)" },
                { "version", 'v', CLI_FLAG, .to.flag = version,
                  .help = "print the version, the commit, and the spec, libseccomp and "
                          "bubblewrap versions" },
                { NULL },
        };

        for (int i = 0; i < 11; i++)
                table[i] = options[i];
}

static void print_commands(FILE *out)
{
        fprintf(out, "\nCommands:\n");
        for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
                fprintf(out, "  %-11s %s\n", commands[i].name, commands[i].summary);
}

static void usage(FILE *out, const struct cli_command *cmd)
{
        cli_print_help(out, cmd);
        print_commands(out);
}

static const struct command *find_command(const char *name)
{
        for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
                if (strcmp(commands[i].name, name) == 0)
                        return &commands[i];
        return NULL;
}

/* `sbrun help COMMAND [SUBCOMMAND]` is `sbrun COMMAND [SUBCOMMAND] --help`,
 * as runc's `help create`; `sbrun help` alone is `sbrun --help`. */
static int help(const struct global_options *global, const struct cli_command *global_cmd, int argc,
                char **argv, struct sb_error *err)
{
        const struct command *c;
        char *args[4];
        int n = 0;

        if (argc < 2) {
                usage(stdout, global_cmd);
                return 0;
        }
        c = find_command(argv[1]);
        if (c == NULL)
                return sb_fail(err, 0, "help: unknown command \"%s\"", argv[1]), 1;
        args[n++] = argv[1];
        if (argc > 2) {
                bool known = false;
                for (size_t i = 0; c->subcommands != NULL && c->subcommands[i] != NULL; i++)
                        known = known || strcmp(c->subcommands[i], argv[2]) == 0;
                if (!known || argc > 3)
                        return sb_fail(err, 0, "help: unexpected argument \"%s\"",
                                       argv[known ? 3 : 2]),
                               1;
                args[n++] = argv[2];
        }
        args[n++] = "--help";
        args[n] = NULL;
        return c->fn(global, n, args, err);
}

int main(int argc, char **argv)
{
        struct global_options global = { .root = NULL };
        _cleanup_free_ char *default_root = NULL;
        struct sb_error err = { 0 };
        struct cli_option options[11];
        bool version = false;
        int first;
        int status;

        global_table(&global, &version, options);
        const struct cli_command global_cmd = {
                .name = "global options",
                .usage = GLOBAL_USAGE,
                .options = options,
        };
        status = cli_parse(&global_cmd, argc, argv, &first, &err);
        if (status < 0) {
                sb_log_error(&err);
                return 1;
        }
        if (status == 1) {
                print_commands(stdout);
                return 0;
        }
        if (version) {
                print_version();
                return 0;
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
                usage(stderr, &global_cmd);
                return 1;
        }
        const char *name = argv[first];
        if (strcmp(name, "version") == 0) {
                print_version();
                return 0;
        }
        const struct command *c = find_command(name);
        if (c != NULL || strcmp(name, "help") == 0) {
                status = c != NULL ? c->fn(&global, argc - first, argv + first, &err) :
                                     help(&global, &global_cmd, argc - first, argv + first, &err);
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
