/* The audit trail's settings and what a failure to write it means
 * (docs/policy.md#the-audit-trail). The operator's policy file:
 *
 *   "audit": {
 *     "log": "/var/log/sbrun/audit.jsonl",  a path, "journald" or "off"
 *     "fsync": false,                        fsync(2) after every line
 *     "max_size": "64M",                     rotate when the file passes it
 *     "keep": 4                              rotated files kept (.1 newest)
 *   }
 *
 * runtime/audit/ carries the lines out; what they hold is decided there
 * from what each command did. */
#ifndef SB_SPEC_AUDIT_POLICY_H
#define SB_SPEC_AUDIT_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "spec/policy_profile_id.h"

#include "oci/json_read.h"

struct sb_error;

#include "config.h" /* SBRUN_LOGDIR: configure's --localstatedir, /var by default */

#define AUDIT_DEFAULT_LOG SBRUN_LOGDIR "/audit.jsonl"
/* A user's own log, beneath $XDG_STATE_HOME (or ~/.local/state): the
 * operator's directory is root's, and a user is the auditor of their own
 * containers. */
#define AUDIT_USER_LOG "sbrun/audit.jsonl"
#define AUDIT_DEFAULT_MAX_SIZE (64ll << 20)
#define AUDIT_DEFAULT_KEEP 4
#define AUDIT_MAX_KEEP 100

enum audit_sink { AUDIT_FILE, AUDIT_JOURNALD, AUDIT_OFF };

struct audit_settings {
        enum audit_sink sink;
        char *path; /* AUDIT_FILE: the operator's path; NULL: the default */
        bool fsync;
        int64_t max_size;
        int keep;
};

void audit_settings_defaults(struct audit_settings *a);
void audit_settings_release(struct audit_settings *a);
/* One member of the policy's "audit" object; ctx is a struct audit_settings. */
int audit_settings_member(const char *key, json_val value, struct jpath *p, void *ctx,
                          struct sb_error *err);

/* The events of the trail. */
enum audit_event {
        AUDIT_CREATE,
        AUDIT_EXEC,
        AUDIT_KILL,
        AUDIT_DELETE,
        AUDIT_VERDICT,
        AUDIT_CHECKPOINT,
        AUDIT_RESTORE,
};
const char *audit_event_name(enum audit_event event);

/* Whether a line that cannot be written fails the command: a create, a
 * restore or an exec under strict (an unrecorded container is not one
 * strict runs), never a kill, a delete or a checkpoint (stopping must
 * always work), nothing under standard, which warns. */
bool audit_failure_fatal(enum policy_profile profile, enum audit_event event);

/* For `policy explain`: the line a create would append, where (a path,
 * "journald" or "off"), and what its failure would mean, recorded as an
 * "added audit" change of report. */
struct floor_report;
int audit_explain(struct floor_report *report, enum policy_profile profile, const char *where,
                  struct sb_error *err);

#endif
