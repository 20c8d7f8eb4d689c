/* `ps ID [--format table|json] [-- PS-ARGS]`: the container's processes,
 * from cgroup.procs of its cgroup tree. json prints the host pids (what
 * containerd reads); table filters the host's `ps` output (default -ef)
 * down to those pids, as runc does. */
#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"
#include "oci/json_write.h"
#include "oci/state.h"
#include "runtime/cgroup/cgroup_manager.h"
#include "runtime/cli/cli_options.h"
#include "runtime/cli/commands.h"
#include "runtime/cgroup/container_cgroup.h"
#include "runtime/container/state_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int print_json(const pid_t *pids, size_t n, struct sb_error *err)
{
        _cleanup_jw_ struct json_writer *w = jw_new(NULL, err);

        if (w == NULL)
                return -1;
        jw_array_begin(w);
        for (size_t i = 0; i < n; i++)
                jw_int(w, pids[i]);
        jw_array_end(w);
        return jw_print(w, stdout, err);
}

/* The host's ps, run without a shell; its whole output. */
static int run_ps(char **args, size_t n_args, char **out, struct sb_error *err)
{
        _cleanup_free_ char **argv = calloc(n_args + 2, sizeof(*argv));
        int p[2];
        int status = 0;

        if (argv == NULL)
                return sb_fail(err, ENOMEM, "ps");
        argv[0] = (char *)"ps";
        for (size_t i = 0; i < n_args; i++)
                argv[i + 1] = args[i];
        if (n_args == 0)
                argv[1] = (char *)"-ef";
        if (pipe2(p, O_CLOEXEC) < 0)
                return sb_fail(err, errno, "ps: pipe");
        pid_t child = fork();
        if (child < 0) {
                close(p[0]);
                close(p[1]);
                return sb_fail(err, errno, "ps: fork");
        }
        if (child == 0) {
                dup2(p[1], STDOUT_FILENO);
                execvp("ps", argv);
                _exit(127);
        }
        close(p[1]);
        int r = sb_read_fd(p[0], 16 * 1024 * 1024, out, NULL, err);
        close(p[0]);
        while (waitpid(child, &status, 0) < 0 && errno == EINTR)
                ;
        if (r < 0)
                return sb_error_prefix(err, "ps");
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                return sb_fail(err, 0, "ps: the host's ps failed (exit status %d)",
                               WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
        return 0;
}

/* Which whitespace-separated column of the header is "PID". */
static int pid_column(const char *header)
{
        int col = 0;

        for (const char *p = header; *p;) {
                p += strspn(p, " \t");
                size_t len = strcspn(p, " \t\n");
                if (len == 3 && strncmp(p, "PID", 3) == 0)
                        return col;
                if (len == 0)
                        break;
                p += len;
                col++;
        }
        return -1;
}

static long field_at(const char *line, int col)
{
        const char *p = line;

        for (int i = 0; i <= col; i++) {
                p += strspn(p, " \t");
                if (i == col)
                        return strtol(p, NULL, 10);
                p += strcspn(p, " \t\n");
        }
        return -1;
}

static int print_table(const pid_t *pids, size_t n, char **args, size_t n_args,
                       struct sb_error *err)
{
        _cleanup_free_ char *text = NULL;

        if (run_ps(args, n_args, &text, err) < 0)
                return -1;
        char *line = text, *next = strchr(text, '\n');
        if (next)
                *next++ = '\0';
        int col = pid_column(line);
        if (col < 0)
                return sb_fail(err, 0, "ps: the output of ps has no PID column");
        printf("%s\n", line);
        for (line = next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                long pid = field_at(line, col);
                for (size_t i = 0; i < n; i++) {
                        if (pids[i] == pid) {
                                printf("%s\n", line);
                                break;
                        }
                }
        }
        return 0;
}

int cmd_ps(const struct global_options *global, int argc, char **argv, struct sb_error *err)
{
        _cleanup_state_dir_ struct state_dir sd = STATE_DIR_INIT;
        _cleanup_cgroup_ struct cgroup cg = CGROUP_INIT;
        _cleanup_free_ pid_t *pids = NULL;
        struct oci_state *state = NULL;
        const char *format = "table";
        size_t n = 0;
        int next, ret = 1;
        const struct cli_option options[] = {
                { "format", 'f', CLI_STRING, .to.string = &format, .arg = "table|json",
                  .help = "ps(1)'s table of the processes (the default), or a JSON array of "
                          "their host pids" },
                { NULL },
        };
        const struct cli_command cmd = {
                .name = "ps",
                .usage = "usage: sbrun ps [options] ID [PS-ARGS...]\n\n"
                         "List the container's processes, from its cgroup. PS-ARGS go to ps(1)\n"
                         "(table format only).\n",
                .options = options,
        };
        int r = cli_parse(&cmd, argc, argv, &next, err);

        if (r != 0)
                return r < 0 ? 1 : 0;
        if (strcmp(format, "table") != 0 && strcmp(format, "json") != 0)
                return sb_fail(err, 0, "ps: --format: unknown format \"%s\"", format), 1;
        if (next >= argc)
                return sb_fail(err, 0, "ps: container ID is required"), 1;
        const char *id = argv[next];
        char **ps_args = argv + next + 1;
        size_t n_ps_args = (size_t)(argc - next - 1);
        if (n_ps_args > 0 && strcmp(ps_args[0], "--") == 0) {
                ps_args++;
                n_ps_args--;
        }
        if (strcmp(format, "json") == 0 && n_ps_args > 0)
                return sb_fail(err, 0, "ps: ps arguments cannot be used with --format json"), 1;
        state = state_dir_open_state(global->root, id, &sd, err);
        if (state == NULL)
                return 1;
        if (container_cgroup_open(state, "ps", &cg, err) < 0 ||
            cgroup_pids(&cg, &pids, &n, err) < 0)
                goto out;
        if (strcmp(format, "json") == 0) {
                if (print_json(pids, n, err) < 0)
                        goto out;
        } else if (print_table(pids, n, ps_args, n_ps_args, err) < 0)
                goto out;
        ret = 0;
out:
        oci_state_free(state);
        return ret;
}
