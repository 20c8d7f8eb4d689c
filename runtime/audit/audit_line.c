#include "runtime/audit/audit_line.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/log.h"
#include "common/sha256.h"
#include "oci/json_write.h"
#include "runtime/audit/audit_log.h"
#include "runtime/cgroup/cgroup_manager.h"
#include "runtime/cgroup/io_totals.h"
#include "runtime/container/global_options.h"
#include "runtime/container/wall_clock.h"
#include "spec/floor.h"
#include "spec/operator_policy.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Who asked: the parent's command name tells podman's conmon, containerd's
 * shim, kubelet's or a user's shell apart. */
static void write_caller(struct json_writer *w)
{
        char path[64], comm[64] = "";
        pid_t ppid = getppid();
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%d/comm", (int)ppid);
        f = fopen(path, "re");
        if (f != NULL) {
                if (fgets(comm, sizeof(comm), f) != NULL)
                        comm[strcspn(comm, "\n")] = '\0';
                fclose(f);
        }
        jw_kv_object_begin(w, "caller");
        jw_kv_uint(w, "uid", getuid());
        jw_kv_int(w, "pid", getpid());
        jw_kv_int(w, "ppid", ppid);
        jw_kv_string(w, "parent", comm[0] ? comm : NULL);
        jw_object_end(w);
}

int audit_line_begin(struct audit_line *l, enum audit_event event, const char *id,
                     struct sb_error *err)
{
        _cleanup_free_ char *now = wall_clock_rfc3339();

        l->event = event;
        l->id = id ? strdup(id) : NULL;
        l->w = jw_new(NULL, err);
        if (l->w == NULL)
                return -1;
        /* An argument, a path or an error of a command line may be any
         * bytes; a line that is no JSON would be lost to every reader. */
        jw_escape_invalid_utf8(l->w);
        if (now == NULL || (id != NULL && l->id == NULL))
                return sb_fail(err, ENOMEM, "audit line");
        jw_object_begin(l->w);
        jw_kv_string(l->w, "time", now);
        jw_kv_string(l->w, "event", audit_event_name(event));
        jw_kv_string(l->w, "id", id);
        write_caller(l->w);
        return 0;
}

void audit_line_release(struct audit_line *l)
{
        jw_free(l->w);
        l->w = NULL;
        free(l->id);
        l->id = NULL;
}

void audit_line_policy(struct audit_line *l, const struct operator_policy *policy, bool with_file)
{
        const char *text = operator_policy_text(policy);
        char hex[SHA256_HEX_LEN + 1];

        sha256_hex(text, strlen(text), hex);
        jw_kv_object_begin(l->w, "policy");
        if (with_file)
                jw_kv_string(l->w, "file", policy->source);
        jw_kv_string(l->w, "sha256", hex);
        jw_object_end(l->w);
}

void audit_line_changes(struct audit_line *l, const struct floor_report *report)
{
        jw_kv_array_begin(l->w, "changes");
        for (size_t i = 0; report != NULL && i < report->n; i++) {
                const struct floor_change *c = &report->changes[i];
                jw_object_begin(l->w);
                jw_kv_string(l->w, "action", floor_action_name(c->action));
                jw_kv_string(l->w, "field", c->field);
                jw_kv_string(l->w, "requested", c->requested);
                jw_kv_string(l->w, "effective", c->effective);
                jw_kv_string(l->w, "rule", c->rule);
                jw_object_end(l->w);
        }
        jw_array_end(l->w);
}

/* KEY's number in a flat-keyed cgroup file ("usage_usec 123"), or the
 * file's only number when key is NULL. */
static bool read_counter(struct cgroup *cg, const char *file, const char *key, uint64_t *out)
{
        _cleanup_free_ char *text = NULL;
        struct sb_error ignored = { 0 };
        const char *p;
        size_t klen = key ? strlen(key) : 0;

        if (cgroup_read(cg, file, &text, &ignored) < 0) {
                sb_error_clear(&ignored);
                return false;
        }
        for (p = text; key != NULL && p != NULL; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
                if (strncmp(p, key, klen) == 0 && p[klen] == ' ')
                        break;
        }
        if (p == NULL)
                return false;
        return sscanf(p + klen, "%" SCNu64, out) == 1;
}

void audit_line_peaks(struct audit_line *l, const char *cgroup_path)
{
        static const struct {
                const char *name, *file, *key;
        } counters[] = {
                { "memory_peak", "memory.peak", NULL },
                { "pids_peak", "pids.peak", NULL },
                { "cpu_usec", "cpu.stat", "usage_usec" },
                { "oom_kills", "memory.events", "oom_kill" },
        };
        _cleanup_cgroup_ struct cgroup cg = CGROUP_INIT;
        struct sb_error ignored = { 0 };
        uint64_t v;

        if (cgroup_path == NULL || cgroup_open(cgroup_path, &cg, &ignored) < 0) {
                sb_error_clear(&ignored);
                return;
        }
        jw_kv_object_begin(l->w, "peaks");
        for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
                if (read_counter(&cg, counters[i].file, counters[i].key, &v))
                        jw_kv_uint(l->w, counters[i].name, v);
        }
        struct cgroup_io_totals io;
        cgroup_io_totals_read(&cg, &io);
        cgroup_io_totals_write(l->w, &io);
        jw_object_end(l->w);
}

void audit_line_error(struct audit_line *l, const struct sb_error *e)
{
        _cleanup_free_ char *text = sb_error_text(e);

        jw_kv_string(l->w, "error", text ? text : "failed");
}

int audit_line_commit(struct audit_line *l, const struct operator_policy *policy,
                      const struct global_options *global, enum policy_profile profile,
                      struct sb_error *err)
{
        struct audit_target t = AUDIT_TARGET_INIT;
        struct sb_error why = { 0 };
        _cleanup_free_ char *line = NULL;
        int ret;

        jw_object_end(l->w);
        line = jw_to_string(l->w, &why);
        ret = line == NULL ? -1 : audit_target_resolve(&policy->audit, global, &t, &why);
        if (ret == 0)
                ret = audit_append(&t, line, strlen(line), audit_event_name(l->event), l->id, &why);
        audit_target_release(&t);
        if (ret == 0)
                return 0;
        _cleanup_free_ char *text = sb_error_text(&why);
        if (audit_failure_fatal(profile, l->event)) {
                sb_fail(err, 0,
                        "audit trail: %s: strict runs no %s it cannot record (audit.log of the "
                        "operator's policy)",
                        text ? text : "cannot write", audit_event_name(l->event));
                sb_error_clear(&why);
                return -1;
        }
        sb_warn("audit trail: %s: the %s of %s is not recorded", text ? text : "cannot write",
                audit_event_name(l->event), l->id ? l->id : "(no id)");
        sb_error_clear(&why);
        return 0;
}
