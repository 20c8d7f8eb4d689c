#include "runtime/container/container_audit.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/log.h"
#include "oci/json_write.h"
#include "runtime/audit/audit_line.h"
#include "runtime/container/global_options.h"
#include "runtime/container/state_dir.h"
#include "runtime/container/verdict.h"
#include "spec/operator_policy.h"

#include <stdlib.h>

void container_audit_commit(struct state_dir *sd, const struct global_options *global,
                            struct audit_line *l)
{
        struct operator_policy policy = { 0 };
        struct sb_error err = { 0 };

        if (state_dir_load_policy(sd, global, &policy, &err) < 0 ||
            audit_line_commit(l, &policy, global, POLICY_STANDARD, &err) < 0) {
                _cleanup_free_ char *text = sb_error_text(&err);
                sb_warn("audit trail: %s: the %s of %s is not recorded", text ? text : "no policy",
                        audit_event_name(l->event), l->id ? l->id : "(no id)");
        }
        operator_policy_release(&policy);
        sb_error_clear(&err);
}

void container_audit_kill(struct state_dir *sd, const struct global_options *global, const char *id,
                          int signo, bool all, const struct sb_error *failure)
{
        _cleanup_audit_line_ struct audit_line l = AUDIT_LINE_INIT;
        struct sb_error ignored = { 0 };

        if (audit_line_begin(&l, AUDIT_KILL, id, &ignored) == 0) {
                jw_kv_int(l.w, "signal", signo);
                jw_kv_bool(l.w, "all", all);
                jw_kv_bool(l.w, "ok", failure == NULL);
                if (failure != NULL)
                        audit_line_error(&l, failure);
                container_audit_commit(sd, global, &l);
        }
        sb_error_clear(&ignored);
}

void container_audit_verdict(const struct global_options *global, const char *id,
                             const struct verdict *v, const char *cgroup_path)
{
        _cleanup_state_dir_ struct state_dir sd = STATE_DIR_INIT;
        _cleanup_audit_line_ struct audit_line l = AUDIT_LINE_INIT;
        struct sb_error ignored = { 0 };

        if (state_dir_open(global->root, id, &sd, &ignored) == 0 &&
            audit_line_begin(&l, AUDIT_VERDICT, id, &ignored) == 0) {
                verdict_write_json(l.w, v);
                audit_line_peaks(&l, cgroup_path);
                container_audit_commit(&sd, global, &l);
        }
        sb_error_clear(&ignored);
}
