#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"
#include "oci/json_write.h"
#include "oci/state.h"
#include "runtime/cli/cli.h"
#include "runtime/cli/commands.h"
#include "runtime/container/container_status.h"
#include "runtime/container/state_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Read a record without taking the container's lock: list must not block
 * behind a create or start in progress. Records are replaced atomically. */
static struct oci_state *peek_state(int root_fd, const char *id)
{
        char path[1100];
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *json = NULL;
        struct sb_error ignored = { 0 };
        struct oci_state *state;
        size_t len = 0;

        snprintf(path, sizeof(path), "%s/%s", id, STATE_RECORD);
        fd = openat(root_fd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 || sb_read_fd(fd, 16 * 1024 * 1024, &json, &len, &ignored) < 0) {
                sb_error_clear(&ignored);
                return NULL;
        }
        state = oci_state_from_record_json(json, len, STATE_RECORD, &ignored);
        sb_error_clear(&ignored);
        if (state != NULL) {
                free(state->status);
                state->status = strdup(container_status(state));
        }
        return state;
}

static void print_row(const struct oci_state *s)
{
        printf("%-12s %-10d %-10s %-40s %-31s %s\n", s->id,
               strcmp(s->status, "stopped") == 0 ? 0 : s->pid, s->status,
               s->bundle ? s->bundle : "", s->created ? s->created : "",
               s->owner && *s->owner ? s->owner : "root");
}

int cmd_list(const struct global_options *global, int argc, char **argv, struct sb_error *err)
{
        static const struct option options[] = {
                { "format", required_argument, NULL, 'f' },
                { "quiet", no_argument, NULL, 'q' },
                { "help", no_argument, NULL, 'h' },
                { NULL, 0, NULL, 0 },
        };
        bool json = false, quiet = false;
        _cleanup_jw_ struct json_writer *w = NULL;
        _cleanup_closedir_ DIR *dir = NULL;
        struct dirent *de;
        int opt;

        cli_reset_getopt();
        while ((opt = getopt_long(argc, argv, "+f:qh", options, NULL)) != -1) {
                switch (opt) {
                case 'f':
                        if (strcmp(optarg, "json") == 0)
                                json = true;
                        else if (strcmp(optarg, "table") != 0)
                                return sb_fail(err, 0, "list: --format: unknown format \"%s\"",
                                               optarg),
                                       1;
                        break;
                case 'q':
                        quiet = true;
                        break;
                case 'h':
                        printf("usage: sbrun list [--format table|json] [--quiet]\n");
                        return 0;
                default:
                        return sb_fail(err, 0, "list: unknown option \"%s\"", argv[optind - 1]), 1;
                }
        }
        if (optind < argc)
                return sb_fail(err, 0, "list: takes no arguments"), 1;
        dir = opendir(global->root);
        if (dir == NULL && errno != ENOENT)
                return sb_fail(err, errno, "open state root %s", global->root), 1;
        if (json) {
                w = jw_new(NULL, err);
                if (w == NULL)
                        return 1;
                jw_array_begin(w);
        } else if (!quiet) {
                printf("%-12s %-10s %-10s %-40s %-31s %s\n", "ID", "PID", "STATUS", "BUNDLE",
                       "CREATED", "OWNER");
        }
        while (dir != NULL && (de = readdir(dir)) != NULL) {
                if (de->d_name[0] == '.')
                        continue;
                struct oci_state *s = peek_state(dirfd(dir), de->d_name);
                if (s == NULL)
                        continue;
                if (json) {
                        if (oci_state_write(w, s, err) < 0) {
                                oci_state_free(s);
                                return 1;
                        }
                } else if (quiet) {
                        printf("%s\n", s->id);
                } else {
                        print_row(s);
                }
                oci_state_free(s);
        }
        if (json) {
                jw_array_end(w);
                if (jw_print(w, stdout, err) < 0)
                        return 1;
        }
        return 0;
}
