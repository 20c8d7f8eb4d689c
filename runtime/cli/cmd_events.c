/* `events [--stats] [--interval 5s] ID`: the container's cgroup usage as
 * runc prints it, one JSON event a line: {"type":"stats","id":ID,"data":
 * {...}} once with --stats, else every interval, with {"type":"oom","id":ID}
 * whenever memory.events counts another OOM kill, until the container's
 * cgroup has no process left. A container without a cgroup (the operator's
 * opt-out) has nothing to report and is refused, as by ps and pause. */
#include "common/cleanup.h"
#include "common/error.h"
#include "common/log.h"
#include "oci/json_write.h"
#include "oci/state.h"
#include "runtime/cgroup/cgroup_manager.h"
#include "runtime/cgroup/cgroup_stats.h"
#include "runtime/cgroup/container_cgroup.h"
#include "runtime/cli/cli.h"
#include "runtime/cli/cli_options.h"
#include "runtime/cli/commands.h"
#include "runtime/container/container_status.h"
#include "runtime/container/state_dir.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

/* A Go duration ("5s", "1m30s", "250ms", "1.5h") in milliseconds, rounded
 * up so that a positive one never becomes 0. */
static int parse_duration(const char *s, int64_t *ms, struct sb_error *err)
{
        static const struct {
                const char *unit;
                double ns;
        } units[] = {
                { "ns", 1 },  { "us", 1e3 }, { "\xc2\xb5s", 1e3 }, { "ms", 1e6 },
                { "s", 1e9 }, { "m", 60e9 }, { "h", 3600e9 },
        };
        double total = 0;
        const char *p = s;

        if (strcmp(s, "0") == 0) {
                *ms = 0;
                return 0;
        }
        while (*p) {
                char *end = NULL;
                if (!(*p >= '0' && *p <= '9') && *p != '.')
                        goto bad;
                double v = strtod(p, &end);
                if (end == p)
                        goto bad;
                p = end;
                size_t best = 0, best_len = 0;
                for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
                        size_t len = strlen(units[i].unit);
                        if (strncmp(p, units[i].unit, len) == 0 && len > best_len)
                                best = i, best_len = len;
                }
                if (best_len == 0)
                        goto bad;
                total += v * units[best].ns;
                p += best_len;
        }
        if (p == s || total > 1e18)
                goto bad;
        *ms = (int64_t)ceil(total / 1e6);
        return 0;
bad:
        return sb_fail(err, 0, "events: --interval: \"%s\" is not a duration like 5s or 500ms", s);
}

static int print_event(const char *type, const char *id, struct cgroup *cg, struct sb_error *err)
{
        _cleanup_jw_ struct json_writer *w = jw_new(NULL, err);

        if (w == NULL)
                return -1;
        jw_object_begin(w);
        jw_kv_string(w, "type", type);
        jw_kv_string(w, "id", id);
        if (cg != NULL) {
                jw_key(w, "data");
                if (cgroup_stats_write(cg, w, err) < 0)
                        return sb_error_prefix(err, "events: container %s", id);
        }
        jw_object_end(w);
        if (jw_print(w, stdout, err) < 0 || fflush(stdout) != 0)
                return sb_fail(err, errno, "events: write to stdout");
        return 0;
}

static int64_t now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* cgroup.events says "populated 0" once the last process has left; a
 * cgroup that is gone is empty too. */
static bool populated(struct cgroup *cg)
{
        _cleanup_free_ char *text = NULL;
        struct sb_error ignored = { 0 };

        if (cgroup_read(cg, "cgroup.events", &text, &ignored) < 0) {
                sb_error_clear(&ignored);
                return false;
        }
        return strstr(text, "populated 1") != NULL;
}

/* OOM kills are noticed as they happen (inotify on memory.events), stats
 * come every interval; a failed stats read is reported and the stream goes
 * on, as runc's does. */
static int stream(struct cgroup *cg, const char *id, int64_t interval_ms, struct sb_error *err)
{
        _cleanup_close_ int ifd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
        char path[4096];
        uint64_t ooms = 0;

        if (ifd < 0)
                return sb_fail(err, errno, "events: inotify");
        snprintf(path, sizeof(path), "%s/memory.events", cg->path);
        if (inotify_add_watch(ifd, path, IN_MODIFY) < 0)
                return sb_fail(err, errno, "events: watch %s", path);
        snprintf(path, sizeof(path), "%s/cgroup.events", cg->path);
        if (inotify_add_watch(ifd, path, IN_MODIFY) < 0)
                return sb_fail(err, errno, "events: watch %s", path);
        if (cgroup_oom_kills(cg, &ooms, err) < 0)
                return sb_error_prefix(err, "events: container %s", id);

        int64_t next = now_ms() + interval_ms;
        while (populated(cg)) {
                int64_t wait = next - now_ms();
                struct pollfd pfd = { .fd = ifd, .events = POLLIN };
                int r = poll(&pfd, 1, wait < 0 ? 0 : wait > 60000 ? 60000 : (int)wait);
                if (r < 0 && errno != EINTR)
                        return sb_fail(err, errno, "events: poll");
                if (r > 0) {
                        char buf[4096];
                        while (read(ifd, buf, sizeof(buf)) > 0)
                                ;
                        uint64_t count = ooms;
                        struct sb_error ignored = { 0 };
                        if (cgroup_oom_kills(cg, &count, &ignored) < 0)
                                sb_error_clear(&ignored);
                        if (count > ooms && print_event("oom", id, NULL, err) < 0)
                                return -1;
                        ooms = count > ooms ? count : ooms;
                }
                if (now_ms() >= next) {
                        struct sb_error stats_err = { 0 };
                        if (print_event("stats", id, cg, &stats_err) < 0) {
                                if (!populated(cg))
                                        sb_error_clear(&stats_err);
                                else
                                        sb_log_error(&stats_err);
                                sb_error_clear(&stats_err);
                        }
                        next += interval_ms;
                }
        }
        return 0;
}

int cmd_events(const struct global_options *global, int argc, char **argv, struct sb_error *err)
{
        _cleanup_state_dir_ struct state_dir sd = STATE_DIR_INIT;
        _cleanup_cgroup_ struct cgroup cg = CGROUP_INIT;
        struct oci_state *state = NULL;
        const char *interval = "5s", *id = NULL;
        bool stats_once = false;
        int64_t interval_ms = 0;
        int next, ret = 1;
        const struct cli_option options[] = {
                { "stats", 0, CLI_FLAG, .to.flag = &stats_once,
                  .help = "print one stats event and exit" },
                { "interval", 0, CLI_STRING, .to.string = &interval, .arg = "DURATION",
                  .help = "the time between two stats events, a Go duration (5s, 500ms, 1m; "
                          "default 5s)" },
                { NULL },
        };
        const struct cli_command cmd = {
                .name = "events",
                .usage = "usage: sbrun events [options] ID\n\n"
                         "Print the container's cgroup stats as JSON events, one a line: every\n"
                         "DURATION with an event for each OOM kill, until it stops.\n",
                .options = options,
        };
        int r = cli_parse(&cmd, argc, argv, &next, err);

        if (r != 0)
                return r < 0 ? 1 : 0;
        if (cli_require_id("events", argc, argv, next, &id, err) < 0 ||
            parse_duration(interval, &interval_ms, err) < 0)
                return 1;
        if (interval_ms <= 0)
                return sb_fail(err, 0, "events: --interval: the duration must be greater than 0"),
                       1;
        state = state_dir_open_state(global->root, id, &sd, err);
        if (state == NULL)
                return 1;
        if (strcmp(container_status(state), "stopped") == 0) {
                sb_fail(err, 0, "events: container %s is not running", id);
                goto out;
        }
        if (container_cgroup_open(state, "events", &cg, err) < 0)
                goto out;
        /* The stream runs as long as the container: holding the state
         * directory's lock that long would block every kill and delete of
         * it (a `kill` waited on the stream, which waited on the kill). The
         * cgroup is open; a container deleted meanwhile is an empty cgroup,
         * which ends the stream. */
        state_dir_release(&sd);
        if (stats_once ? print_event("stats", id, &cg, err) < 0 :
                         stream(&cg, id, interval_ms, err) < 0)
                goto out;
        ret = 0;
out:
        oci_state_free(state);
        return ret;
}
