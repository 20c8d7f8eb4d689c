#include "common/log.h"

#include "common/caller_file.h"
#include "common/error.h"
#include "common/json_escape.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int log_fd = -1;
static enum sb_log_format log_format = SB_LOG_TEXT;
static bool log_debug;

static const char *const level_names[] = {
        [SB_LOG_ERROR] = "error",
        [SB_LOG_WARNING] = "warning",
        [SB_LOG_INFO] = "info",
        [SB_LOG_DEBUG] = "debug",
};

int sb_log_open(const char *path, enum sb_log_format format, bool debug, struct sb_error *err)
{
        log_format = format;
        log_debug = debug;
        if (path == NULL || *path == '\0')
                return 0;
        /* Engines pass a log that may hold earlier lines: appended to,
         * never through a symlink or a second link (common/caller_file.h). */
        log_fd = caller_file_append("--log", path, 0640, err);
        return log_fd < 0 ? -1 : 0;
}

void sb_log_close(void)
{
        if (log_fd >= 0)
                close(log_fd);
        log_fd = -1;
}

bool sb_log_debug_enabled(void)
{
        return log_debug;
}

bool sb_log_has_file(void)
{
        return log_fd >= 0;
}

static void format_time(char *buf, size_t len)
{
        struct timespec ts;
        struct tm tm;
        char base[32];

        clock_gettime(CLOCK_REALTIME, &ts);
        gmtime_r(&ts.tv_sec, &tm);
        strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(buf, len, "%s.%09ldZ", base, ts.tv_nsec);
}

static void write_log_line(enum sb_log_level level, const char *msg)
{
        char when[64];
        char *line = NULL;
        int n;

        if (log_fd < 0)
                return;
        format_time(when, sizeof(when));
        if (log_format == SB_LOG_JSON) {
                char *escaped = sb_json_escape(msg);
                n = asprintf(&line, "{\"level\":\"%s\",\"msg\":\"%s\",\"time\":\"%s\"}\n",
                             level_names[level], escaped ? escaped : "", when);
                free(escaped);
        } else {
                char *escaped = sb_json_escape(msg);
                n = asprintf(&line, "time=\"%s\" level=%s msg=\"%s\"\n", when, level_names[level],
                             escaped ? escaped : "");
                free(escaped);
        }
        if (n > 0 && write(log_fd, line, (size_t)n) < 0) {
                /* Nothing sensible to do when the log itself fails. */
        }
        free(line);
}

void sb_log(enum sb_log_level level, const char *fmt, ...)
{
        char *msg = NULL;
        va_list ap;

        if (level == SB_LOG_DEBUG && !log_debug)
                return;
        va_start(ap, fmt);
        if (vasprintf(&msg, fmt, ap) < 0)
                msg = NULL;
        va_end(ap);
        if (msg == NULL)
                return;
        write_log_line(level, msg);
        /* Warnings reach the user's terminal only when no log file takes
         * them: engines pass --log and show stderr as the container's. */
        if (log_fd < 0 && (level <= SB_LOG_WARNING || log_debug))
                fprintf(stderr, "sbrun: %s: %s\n", level_names[level], msg);
        free(msg);
}

void sb_log_error(const struct sb_error *err)
{
        char *text = sb_error_text(err);
        const char *msg = text ? text : "unknown error";

        write_log_line(SB_LOG_ERROR, msg);
        fprintf(stderr, "sbrun: %s\n", msg);
        free(text);
}
