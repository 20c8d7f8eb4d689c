#include "spec/audit_policy.h"

#include "common/error.h"
#include "common/size_parse.h"
#include "spec/floor.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

void audit_settings_defaults(struct audit_settings *a)
{
        memset(a, 0, sizeof(*a));
        a->sink = AUDIT_FILE;
        a->max_size = AUDIT_DEFAULT_MAX_SIZE;
        a->keep = AUDIT_DEFAULT_KEEP;
}

void audit_settings_release(struct audit_settings *a)
{
        free(a->path);
        a->path = NULL;
}

static int set_log(struct audit_settings *a, json_val value, struct jpath *p, struct sb_error *err)
{
        const char *log = json_string_value(value);

        if (log == NULL)
                return jfail(p, err, "expected a path, \"journald\" or \"off\"");
        if (strcmp(log, "journald") == 0 || strcmp(log, "off") == 0) {
                a->sink = log[0] == 'j' ? AUDIT_JOURNALD : AUDIT_OFF;
                return 0;
        }
        /* Absolute and clean: the directory is created and locked by this
         * name, and the floor refuses binds of it by this name. */
        if (log[0] != '/' || strstr(log, "/../") != NULL || strstr(log, "/./") != NULL ||
            strstr(log, "//") != NULL || log[strlen(log) - 1] == '/' ||
            strlen(log) >= PATH_MAX - 16)
                return jfail(p, err, "\"%s\" is not a clean absolute path of a file", log);
        free(a->path);
        a->path = strdup(log);
        if (a->path == NULL)
                return sb_fail(err, ENOMEM, "audit.log");
        a->sink = AUDIT_FILE;
        return 0;
}

int audit_settings_member(const char *key, json_val value, struct jpath *p, void *ctx,
                          struct sb_error *err)
{
        struct audit_settings *a = ctx;
        int64_t n;

        if (strcmp(key, "log") == 0)
                return set_log(a, value, p, err);
        if (strcmp(key, "fsync") == 0) {
                if (!json_is_true(value) && !json_is_false(value))
                        return jfail(p, err, "expected true or false");
                a->fsync = json_is_true(value);
                return 0;
        }
        if (strcmp(key, "max_size") == 0) {
                const char *text =
                        json_is_string(value) ? json_string_value(value) : json_number_text(value);
                /* Below a page a rotation would follow every line. */
                if (text == NULL || size_parse(text, SIZE_TERA, &n) < 0 || n < 4096)
                        return jfail(p, err, "expected a size of at least 4096 bytes");
                a->max_size = n;
                return 0;
        }
        if (strcmp(key, "keep") == 0) {
                if (!json_integer_value(value, &n) || n < 1 || n > AUDIT_MAX_KEEP)
                        return jfail(p, err, "expected a number of files from 1 to %d",
                                     AUDIT_MAX_KEEP);
                a->keep = (int)n;
                return 0;
        }
        return jfail(p, err, "unknown setting");
}

const char *audit_event_name(enum audit_event event)
{
        static const char *const names[] = {
                [AUDIT_CREATE] = "create",   [AUDIT_EXEC] = "exec",
                [AUDIT_KILL] = "kill",       [AUDIT_DELETE] = "delete",
                [AUDIT_VERDICT] = "verdict", [AUDIT_CHECKPOINT] = "checkpoint",
                [AUDIT_RESTORE] = "restore",
        };
        return names[event];
}

int audit_explain(struct floor_report *report, enum policy_profile profile, const char *where,
                  struct sb_error *err)
{
        const char *rule = audit_failure_fatal(profile, AUDIT_CREATE) ?
                                   "strict: a create the audit trail cannot record is refused" :
                                   "standard: a create the audit trail cannot record warns";

        if (strcmp(where, "off") == 0)
                rule = "audit.log \"off\" in the operator's policy: no trail";
        return floor_record(report, err, FLOOR_ADDED, "audit", "(none)", where, rule);
}

bool audit_failure_fatal(enum policy_profile profile, enum audit_event event)
{
        return profile == POLICY_STRICT &&
               (event == AUDIT_CREATE || event == AUDIT_RESTORE || event == AUDIT_EXEC);
}
