/* One line of the audit trail (docs/policy.md#the-audit-trail): every line
 * has "time", "event", "id" and "caller"; each command adds what it did,
 * then commits the line to the log its container's policy names. */
#ifndef SB_AUDIT_LINE_H
#define SB_AUDIT_LINE_H

#include <stdbool.h>

#include "spec/audit_policy.h"
#include "spec/policy_profile_id.h"

struct sb_error;
struct json_writer;
struct floor_report;
struct operator_policy;
struct global_options;

struct audit_line {
        struct json_writer *w; /* the object, open: add members with jw_kv_* */
        enum audit_event event;
        char *id;
};

#define AUDIT_LINE_INIT \
        {               \
                0       \
        }

int audit_line_begin(struct audit_line *l, enum audit_event event, const char *id,
                     struct sb_error *err);
void audit_line_release(struct audit_line *l);

static inline void audit_line_releasep(struct audit_line *l)
{
        audit_line_release(l);
}
#define _cleanup_audit_line_ __attribute__((cleanup(audit_line_releasep)))

/* "policy": {"file": PATH or null (the built-in default), "sha256": of
 * its text as read}; without "file" when with_file is false (a command
 * that reads the container's saved copy, whose path says nothing). */
void audit_line_policy(struct audit_line *l, const struct operator_policy *policy, bool with_file);
/* "changes": the floor's, [{"action", "field", "requested", "effective", "rule"}]. */
void audit_line_changes(struct audit_line *l, const struct floor_report *report);
/* "peaks": what the cgroup at path counted (memory.peak, pids.peak,
 * cpu.stat's usage_usec, memory.events' oom_kill, and "io": io.stat's
 * totals and io.pressure's, runtime/cgroup/io_totals.h), each where the
 * kernel has it; nothing without a cgroup. */
void audit_line_peaks(struct audit_line *l, const char *cgroup_path);
/* "error": what failed. */
void audit_line_error(struct audit_line *l, const struct sb_error *e);

/* Ends the line and appends it to the trail policy names. A line that
 * cannot be written fails the command where audit_failure_fatal says so
 * (*err names the log and why), else it is a warning and 0. */
int audit_line_commit(struct audit_line *l, const struct operator_policy *policy,
                      const struct global_options *global, enum policy_profile profile,
                      struct sb_error *err);

#endif
