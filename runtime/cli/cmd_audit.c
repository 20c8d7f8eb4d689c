/* `sbrun audit [--since T] [--id ID] [--format json|table]`: the audit
 * trail the operator's policy names (docs/policy.md#the-audit-trail),
 * oldest line first. json prints the lines as written; table one row per
 * line, its cells escaped (common/text_escape.h). A line that is no record
 * is a warning naming it, and the command then fails after showing the
 * rest. --since takes an RFC 3339 time in UTC ("2026-12-05T10:00:00Z", or
 * a date "2026-12-05") or an age ("90s", "15m", "2h", "7d"). */
#include "common/cleanup.h"
#include "common/error.h"
#include "common/log.h"
#include "common/text_escape.h"
#include "oci/audit_record.h"
#include "runtime/audit/audit_log.h"
#include "runtime/audit/audit_read.h"
#include "runtime/cli/cli_options.h"
#include "runtime/cli/commands.h"
#include "spec/operator_policy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct audit_query {
        char since[40]; /* "" or the form of the lines' "time", compared as strings */
        const char *id;
        bool table;
        size_t shown;
        size_t unreadable; /* lines that are no audit record, each warned of */
};

static int format_utc(time_t t, char *out, size_t size)
{
        struct tm tm;

        if (gmtime_r(&t, &tm) == NULL)
                return -1;
        return strftime(out, size, "%Y-%m-%dT%H:%M:%S.000000000Z", &tm) > 0 ? 0 : -1;
}

static int parse_since(const char *value, char *out, size_t size, struct sb_error *err)
{
        static const struct {
                char unit;
                long seconds;
        } units[] = { { 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 } };
        struct tm tm = { 0 };
        char *end = NULL;
        long n = strtol(value, &end, 10);

        for (size_t i = 0; end != value && n >= 0 && i < sizeof(units) / sizeof(units[0]); i++) {
                if (end[0] == units[i].unit && end[1] == '\0' &&
                    n < 100000L * 86400 / units[i].seconds)
                        return format_utc(time(NULL) - n * units[i].seconds, out, size) == 0 ?
                                       0 :
                                       sb_fail(err, 0, "audit: --since: \"%s\" is out of range",
                                               value);
        }
        end = strptime(value, "%Y-%m-%d", &tm);
        if (end != NULL && *end == 'T')
                end = strptime(end + 1, "%H:%M:%S", &tm);
        if (end != NULL && (*end == '\0' || strcmp(end, "Z") == 0))
                return format_utc(timegm(&tm), out, size) == 0 ?
                               0 :
                               sb_fail(err, 0, "audit: --since: \"%s\" is out of range", value);
        return sb_fail(err, 0,
                       "audit: --since: \"%s\" is neither a UTC time (2026-12-05T10:00:00Z, "
                       "2026-12-05) nor an age (90s, 15m, 2h, 7d)",
                       value);
}

/* A line that is no record (cut by a crash or a full disk, written by an
 * older sbrun that let bytes other than UTF-8 through, or by someone
 * else): named, never passed over in silence, and the rest of the trail
 * still read. It matches no --id or --since, having neither. */
static void warn_unreadable(struct audit_query *q, const char *source, size_t lineno,
                            const struct sb_error *why)
{
        _cleanup_free_ char *text = sb_error_text(why);
        _cleanup_free_ char *shown = sb_text_escape(text ? text : "");

        q->unreadable++;
        sb_warn("audit: line %zu of %s cannot be parsed: %s", lineno, source,
                shown ? shown : "invalid");
}

/* A table cell: the line's text with no character that could end the row
 * or drive the terminal (common/text_escape.h). */
static char *cell(const char *text)
{
        return sb_text_escape(text != NULL ? text : "-");
}

static int print_row(const struct audit_record *r, struct sb_error *err)
{
        _cleanup_free_ char *time = cell(r->time), *event = cell(r->event), *id = cell(r->id),
                            *parent = cell(r->parent), *detail = cell(r->detail);

        if (time == NULL || event == NULL || id == NULL || parent == NULL || detail == NULL)
                return sb_fail(err, ENOMEM, "audit");
        printf("%-19.19s  %-7s  %-20s  %-6lld %-16s  %s\n", time, event, id, r->uid, parent,
               detail);
        return 0;
}

static int show(const char *line, size_t len, const char *source, size_t lineno, void *ctx,
                struct sb_error *err)
{
        struct audit_query *q = ctx;
        struct sb_error bad = { 0 };
        struct audit_record *r = audit_record_parse(line, len, &bad);
        int ret = 0;

        if (r == NULL) {
                warn_unreadable(q, source, lineno, &bad);
                sb_error_clear(&bad);
                return 0;
        }
        if ((q->id == NULL || (r->id != NULL && strcmp(r->id, q->id) == 0)) &&
            (q->since[0] == '\0' || (r->time != NULL && strcmp(r->time, q->since) >= 0))) {
                if (!q->table)
                        printf("%.*s\n", (int)len, line);
                else
                        ret = print_row(r, err);
                q->shown++;
        }
        audit_record_free(r);
        return ret;
}

int cmd_audit(const struct global_options *global, int argc, char **argv, struct sb_error *err)
{
        struct operator_policy policy;
        struct audit_target t = AUDIT_TARGET_INIT;
        struct audit_query q = { .since = "" };
        const char *since = NULL, *format = "json";
        const struct cli_option options[] = {
                { "since", 0, CLI_STRING, .to.string = &since, .arg = "TIME|AGE",
                  .help = "only lines from a UTC time (2026-12-05T10:00:00Z, 2026-12-05) or an "
                          "age (90s, 15m, 2h, 7d) on" },
                { "id", 0, CLI_STRING, .to.string = &q.id, .arg = "ID",
                  .help = "only the lines of container ID" },
                { "format", 0, CLI_STRING, .to.string = &format, .arg = "json|table",
                  .help = "the JSON lines as written (the default), or a table with control "
                          "characters escaped" },
                { NULL },
        };
        const struct cli_command cmd = {
                .name = "audit",
                .usage = "usage: sbrun audit [options]\n\n"
                         "Read the audit trail the operator's policy names, oldest line first:\n"
                         "creates, execs, kills, deletes, verdicts, checkpoints and restores.\n",
                .options = options,
        };
        int next, ret, r = cli_parse(&cmd, argc, argv, &next, err);

        if (r != 0)
                return r < 0 ? 1 : 0;
        if (next < argc)
                return sb_fail(err, 0, "audit: unexpected argument \"%s\"", argv[next]), 1;
        if (strcmp(format, "json") != 0 && strcmp(format, "table") != 0)
                return sb_fail(err, 0, "audit: --format: \"%s\" is not json or table", format), 1;
        q.table = strcmp(format, "table") == 0;
        if (since != NULL && parse_since(since, q.since, sizeof(q.since), err) < 0)
                return 1;
        if (operator_policy_load(global->policy_path, global->host_root, &policy, err) < 0)
                return 1;
        ret = audit_target_resolve(&policy.audit, global, &t, err);
        if (ret == 0 && q.table)
                printf("%-19s  %-7s  %-20s  %-6s %-16s  %s\n", "TIME (UTC)", "EVENT", "ID", "UID",
                       "CALLER", "DETAIL");
        if (ret == 0)
                ret = audit_read(&t, show, &q, err);
        /* Every line that could be read is shown; the status tells a
         * script that the trail also holds some that could not. */
        if (ret == 0 && q.unreadable > 0)
                ret = sb_fail(err, 0,
                              "audit: %zu line%s of the trail cannot be parsed (warned above)",
                              q.unreadable, q.unreadable == 1 ? "" : "s");
        audit_target_release(&t);
        operator_policy_release(&policy);
        return ret < 0 ? 1 : 0;
}
