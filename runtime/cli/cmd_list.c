#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"
#include "oci/json_write.h"
#include "oci/state.h"
#include "runtime/cli/cli_options.h"
#include "runtime/cli/commands.h"
#include "runtime/container/container_status.h"
#include "runtime/container/state_dir.h"
#include "runtime/host/user_name.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The owner as runc's list shows it: the name of the uid the record
 * belongs to, "#UID" when /etc/passwd has none. The last answer is kept:
 * a root's containers mostly share one owner. */
static char *owner_name(uid_t uid)
{
        static uid_t last_uid;
        static char last[64];

        if (last[0] == '\0' || uid != last_uid) {
                if (!host_user_name(uid, last, sizeof(last)))
                        snprintf(last, sizeof(last), "#%u", (unsigned)uid);
                last_uid = uid;
        }
        return strdup(last);
}

/* Read a record without taking the container's lock: list must not block
 * behind a create or start in progress. Records are replaced atomically.
 * A record is read into a buffer on the stack: list reads one per container,
 * and a 4 KiB heap buffer each time costs more than the read. Only a record
 * larger than that buffer (many annotations) is read again into the heap. */
static struct oci_state *peek_state(int root_fd, const char *id)
{
        char path[1100], buf[8192];
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *big = NULL;
        struct sb_error ignored = { 0 };
        struct oci_state *state;
        const char *json = buf;
        struct stat st;
        size_t len = 0;
        ssize_t n;

        snprintf(path, sizeof(path), "%s/%s", id, STATE_RECORD);
        fd = openat(root_fd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return NULL;
        /* A record is one small regular file, replaced whole by rename: one
         * read that returns less than the buffer holds has all of it, and
         * saves the read that would return 0 (a system call per container). */
        do
                n = read(fd, buf, sizeof(buf));
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return NULL;
        len = (size_t)n;
        if (len == sizeof(buf)) {
                if (lseek(fd, 0, SEEK_SET) != 0 ||
                    sb_read_fd(fd, 16 * 1024 * 1024, &big, &len, &ignored) < 0) {
                        sb_error_clear(&ignored);
                        return NULL;
                }
                json = big;
        }
        state = oci_state_from_record_json(json, len, STATE_RECORD, &ignored);
        sb_error_clear(&ignored);
        if (state != NULL) {
                free(state->status);
                state->status = strdup(container_status(state));
                if (fstat(fd, &st) == 0) {
                        free(state->owner);
                        state->owner = owner_name(st.st_uid);
                }
        }
        return state;
}

static void print_row(const struct oci_state *s)
{
        printf("%-12s %-10d %-10s %-40s %-31s %s\n", s->id,
               strcmp(s->status, "stopped") == 0 ? 0 : s->pid, s->status,
               s->bundle ? s->bundle : "", s->created ? s->created : "", s->owner ? s->owner : "");
}

/* --format table|json: json sets the flag. */
static int parse_format(const struct cli_option *opt, const char *value, struct sb_error *err)
{
        bool *json = opt->to.data;

        if (strcmp(value, "json") == 0)
                *json = true;
        else if (strcmp(value, "table") != 0)
                return sb_fail(err, 0, "list: --format: unknown format \"%s\"", value);
        return 0;
}

int cmd_list(const struct global_options *global, int argc, char **argv, struct sb_error *err)
{
        bool json = false, quiet = false;
        _cleanup_jw_ struct json_writer *w = NULL;
        _cleanup_closedir_ DIR *dir = NULL;
        struct dirent *de;
        const struct cli_option options[] = {
                { "format", 'f', CLI_CALL_ARG, .to.data = &json, .call = parse_format,
                  .arg = "table|json", .help = "a table (the default) or a JSON array of states" },
                { "quiet", 'q', CLI_FLAG, .to.flag = &quiet,
                  .help = "print the container IDs only, one a line" },
                { NULL },
        };
        const struct cli_command cmd = {
                .name = "list",
                .usage = "usage: sbrun list [options]\n\n"
                         "List the containers of the state root (--root).\n",
                .options = options,
        };
        int next, r = cli_parse(&cmd, argc, argv, &next, err);

        if (r != 0)
                return r < 0 ? 1 : 0;
        if (next < argc)
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
