/* config.json `process` (also the standalone `exec --process` document):
 * user, args, env, cwd, capabilities, rlimits, consoleSize, ioPriority,
 * scheduler, execCPUAffinity. */
#include "oci/config.h"
#include "oci/config_parse_internal.h"

#include "common/cleanup.h"
#include "common/error.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const ioprio_classes[] = {
        "IOPRIO_CLASS_RT",
        "IOPRIO_CLASS_BE",
        "IOPRIO_CLASS_IDLE",
        NULL,
};

static const char *const sched_policies[] = {
        "SCHED_OTHER", "SCHED_FIFO", "SCHED_RR",       "SCHED_BATCH",
        "SCHED_ISO",   "SCHED_IDLE", "SCHED_DEADLINE", NULL,
};

static const char *const sched_flags[] = {
        "SCHED_FLAG_RESET_ON_FORK",  "SCHED_FLAG_RECLAIM",
        "SCHED_FLAG_DL_OVERRUN",     "SCHED_FLAG_KEEP_POLICY",
        "SCHED_FLAG_KEEP_PARAMS",    "SCHED_FLAG_UTIL_CLAMP_MIN",
        "SCHED_FLAG_UTIL_CLAMP_MAX", NULL,
};

/* Runs a check over each string of an array member that was already read. */
static int check_each_known(char **v, size_t n, const char *const *known, struct jpath *p,
                            const char *key, const char *what, struct sb_error *err)
{
        size_t saved = jpath_key(p, key);

        for (size_t i = 0; i < n; i++) {
                size_t at = jpath_index(p, i);
                if (oci_check_known(v[i], known, p, what, err) < 0) {
                        jpath_pop(p, saved);
                        return -1;
                }
                jpath_pop(p, at);
        }
        jpath_pop(p, saved);
        return 0;
}

static int parse_console_size(yajl_val obj, struct jpath *p, struct oci_process *proc,
                              struct sb_error *err)
{
        yajl_val v = NULL;
        size_t saved;
        int r = json_get_object(obj, "consoleSize", p, &v, err);

        if (r <= 0)
                return r;
        saved = jpath_key(p, "consoleSize");
        r = json_get_u32(v, "height", p, &proc->console_size.height, err);
        if (r == 0)
                r = json_fail_required(p, "height", err);
        if (r > 0) {
                r = json_get_u32(v, "width", p, &proc->console_size.width, err);
                if (r == 0)
                        r = json_fail_required(p, "width", err);
        }
        jpath_pop(p, saved);
        if (r < 0)
                return -1;
        proc->has_console_size = true;
        return 0;
}

static int parse_additional_gids(yajl_val obj, struct jpath *p, struct oci_user *user,
                                 struct sb_error *err)
{
        yajl_val arr = NULL;
        size_t saved, len;
        int r = json_get_array(obj, "additionalGids", p, &arr, err);

        if (r <= 0)
                return r;
        len = arr->u.array.len;
        user->additional_gids = calloc(len ? len : 1, sizeof(uint32_t));
        if (user->additional_gids == NULL)
                return sb_fail(err, ENOMEM, "additionalGids");
        user->n_additional_gids = len;
        saved = jpath_key(p, "additionalGids");
        for (size_t i = 0; i < len; i++) {
                size_t at = jpath_index(p, i);
                uint64_t gid;

                if (json_to_uint(arr->u.array.values[i], p, UINT32_MAX, &gid, err) < 0) {
                        jpath_pop(p, saved);
                        return -1;
                }
                user->additional_gids[i] = (uint32_t)gid;
                jpath_pop(p, at);
        }
        jpath_pop(p, saved);
        return 0;
}

/* An absent user, uid or gid means 0, as runc reads it. */
static int parse_user(yajl_val obj, struct jpath *p, struct oci_user *user, struct sb_error *err)
{
        yajl_val v = NULL;
        size_t saved;
        int r = json_get_object(obj, "user", p, &v, err);

        if (r <= 0)
                return r;
        saved = jpath_key(p, "user");
        r = 0;
        if (json_get_u32(v, "uid", p, &user->uid, err) < 0 ||
            json_get_u32(v, "gid", p, &user->gid, err) < 0 ||
            parse_additional_gids(v, p, user, err) < 0 ||
            json_get_string(v, "username", p, &user->username, err) < 0)
                r = -1;
        if (r == 0) {
                int has = json_get_u32(v, "umask", p, &user->umask, err);
                if (has < 0)
                        r = -1;
                user->has_umask = has > 0;
        }
        jpath_pop(p, saved);
        return r;
}

static int parse_cap_set(yajl_val obj, const char *key, struct jpath *p, uint64_t *mask, bool *has,
                         struct sb_error *err)
{
        yajl_val arr = NULL;
        size_t saved;
        int r = json_get_array(obj, key, p, &arr, err);

        if (r <= 0)
                return r;
        saved = jpath_key(p, key);
        for (size_t i = 0; i < arr->u.array.len; i++) {
                size_t at = jpath_index(p, i);
                _cleanup_free_ char *name = NULL;
                _cleanup_free_ char *shown = NULL;
                int cap;

                if (json_to_string(arr->u.array.values[i], p, &name, err) < 0) {
                        jpath_pop(p, saved);
                        return -1;
                }
                cap = oci_capability_from_name(name);
                if (cap < 0) {
                        shown = json_describe_string(name);
                        jfail(p, err, "unknown capability %s", shown ? shown : "?");
                        jpath_pop(p, saved);
                        return -1;
                }
                *mask |= UINT64_C(1) << cap;
                jpath_pop(p, at);
        }
        jpath_pop(p, saved);
        *has = true;
        return 0;
}

static int parse_capabilities(yajl_val obj, struct jpath *p, struct oci_process *proc,
                              struct sb_error *err)
{
        struct oci_capabilities *c = &proc->capabilities;
        yajl_val v = NULL;
        size_t saved;
        int r = json_get_object(obj, "capabilities", p, &v, err);

        if (r <= 0)
                return r;
        saved = jpath_key(p, "capabilities");
        r = 0;
        if (parse_cap_set(v, "bounding", p, &c->bounding, &c->has_bounding, err) < 0 ||
            parse_cap_set(v, "effective", p, &c->effective, &c->has_effective, err) < 0 ||
            parse_cap_set(v, "inheritable", p, &c->inheritable, &c->has_inheritable, err) < 0 ||
            parse_cap_set(v, "permitted", p, &c->permitted, &c->has_permitted, err) < 0 ||
            parse_cap_set(v, "ambient", p, &c->ambient, &c->has_ambient, err) < 0)
                r = -1;
        jpath_pop(p, saved);
        proc->has_capabilities = true;
        return r;
}

static int parse_rlimit(yajl_val v, struct jpath *p, void *item, struct sb_error *err)
{
        struct oci_rlimit *rl = item;
        size_t saved;
        int r;

        if (json_require_string(v, "type", p, &rl->type, err) < 0)
                return -1;
        rl->resource = oci_rlimit_from_name(rl->type);
        if (rl->resource < 0) {
                _cleanup_free_ char *shown = json_describe_string(rl->type);
                saved = jpath_key(p, "type");
                jfail(p, err, "unknown rlimit %s", shown ? shown : "?");
                jpath_pop(p, saved);
                return -1;
        }
        r = json_get_u64(v, "soft", p, &rl->soft, err);
        if (r == 0)
                r = json_fail_required(p, "soft", err);
        if (r < 0)
                return -1;
        r = json_get_u64(v, "hard", p, &rl->hard, err);
        if (r == 0)
                r = json_fail_required(p, "hard", err);
        if (r < 0)
                return -1;
        /* setrlimit() would refuse it later with a bare EINVAL. */
        if (rl->soft > rl->hard) {
                saved = jpath_key(p, "soft");
                jfail(p, err, "%" PRIu64 " exceeds the hard limit %" PRIu64, rl->soft, rl->hard);
                jpath_pop(p, saved);
                return -1;
        }
        return 0;
}

static int parse_rlimits(yajl_val obj, struct jpath *p, struct oci_process *proc,
                         struct sb_error *err)
{
        int r = oci_each_element(obj, "rlimits", p, &proc->rlimits, sizeof(struct oci_rlimit),
                                 &proc->n_rlimits, parse_rlimit, err);

        if (r <= 0)
                return r;
        for (size_t i = 0; i < proc->n_rlimits; i++) {
                for (size_t j = 0; j < i; j++) {
                        if (proc->rlimits[j].resource != proc->rlimits[i].resource)
                                continue;
                        size_t saved = jpath_key(p, "rlimits");
                        jpath_index(p, i);
                        jpath_key(p, "type");
                        jfail(p, err, "duplicate %s", proc->rlimits[i].type);
                        jpath_pop(p, saved);
                        return -1;
                }
        }
        return 0;
}

static int parse_io_priority(yajl_val obj, struct jpath *p, struct oci_process *proc,
                             struct sb_error *err)
{
        struct oci_io_priority *io;
        yajl_val v = NULL;
        size_t saved;
        int64_t prio = 0;
        int r = json_get_object(obj, "ioPriority", p, &v, err);

        if (r <= 0)
                return r;
        io = proc->io_priority = calloc(1, sizeof(*io));
        if (io == NULL)
                return sb_fail(err, ENOMEM, "ioPriority");
        saved = jpath_key(p, "ioPriority");
        r = 0;
        if (json_require_string(v, "class", p, &io->klass, err) < 0 ||
            oci_check_known_member(io->klass, ioprio_classes, p, "class", "I/O priority class",
                                   err) < 0)
                r = -1;
        /* The kernel's IOPRIO_PRIO_DATA levels are 0 (highest) to 7. */
        if (r == 0 && json_get_int(v, "priority", p, 0, 7, &prio, err) < 0)
                r = -1;
        io->priority = (int32_t)prio;
        jpath_pop(p, saved);
        return r;
}

static int parse_scheduler(yajl_val obj, struct jpath *p, struct oci_process *proc,
                           struct sb_error *err)
{
        struct oci_scheduler *s;
        yajl_val v = NULL;
        size_t saved;
        int r = json_get_object(obj, "scheduler", p, &v, err);

        if (r <= 0)
                return r;
        s = proc->scheduler = calloc(1, sizeof(*s));
        if (s == NULL)
                return sb_fail(err, ENOMEM, "scheduler");
        saved = jpath_key(p, "scheduler");
        r = 0;
        if (json_require_string(v, "policy", p, &s->policy, err) < 0 ||
            oci_check_known_member(s->policy, sched_policies, p, "policy", "scheduler policy",
                                   err) < 0 ||
            json_get_i32(v, "nice", p, &s->nice, err) < 0 ||
            json_get_i32(v, "priority", p, &s->priority, err) < 0 ||
            json_get_strv(v, "flags", p, &s->flags, &s->n_flags, err) < 0 ||
            check_each_known(s->flags, s->n_flags, sched_flags, p, "flags", "scheduler flag", err) <
                    0 ||
            json_get_u64(v, "runtime", p, &s->runtime, err) < 0 ||
            json_get_u64(v, "deadline", p, &s->deadline, err) < 0 ||
            json_get_u64(v, "period", p, &s->period, err) < 0)
                r = -1;
        jpath_pop(p, saved);
        return r;
}

static int parse_exec_cpu_affinity(yajl_val obj, struct jpath *p, struct oci_process *proc,
                                   struct sb_error *err)
{
        struct oci_exec_cpu_affinity *a;
        yajl_val v = NULL;
        size_t saved;
        int r = json_get_object(obj, "execCPUAffinity", p, &v, err);

        if (r <= 0)
                return r;
        a = proc->exec_cpu_affinity = calloc(1, sizeof(*a));
        if (a == NULL)
                return sb_fail(err, ENOMEM, "execCPUAffinity");
        saved = jpath_key(p, "execCPUAffinity");
        r = 0;
        if (json_get_string(v, "initial", p, &a->initial, err) < 0 ||
            json_get_string(v, "final", p, &a->final, err) < 0)
                r = -1;
        jpath_pop(p, saved);
        return r;
}

static int parse_args_cwd(yajl_val v, struct jpath *p, struct oci_process *proc,
                          struct sb_error *err)
{
        int r = json_get_strv(v, "args", p, &proc->args, &proc->n_args, err);

        if (r < 0)
                return -1;
        if (r == 0)
                return json_fail_required(p, "args", err);
        if (proc->n_args == 0) {
                size_t saved = jpath_key(p, "args");
                jfail(p, err, "must not be empty");
                jpath_pop(p, saved);
                return -1;
        }
        if (json_require_string(v, "cwd", p, &proc->cwd, err) < 0 ||
            oci_check_absolute(proc->cwd, p, "cwd", err) < 0)
                return -1;
        return 0;
}

/* Linux allows -1000 (never kill) to 1000 (kill first). */
static int parse_oom_score_adj(yajl_val v, struct jpath *p, struct oci_process *proc,
                               struct sb_error *err)
{
        int64_t adj;
        int r = json_get_int(v, "oomScoreAdj", p, -1000, 1000, &adj, err);

        if (r > 0) {
                proc->has_oom_score_adj = true;
                proc->oom_score_adj = (int)adj;
        }
        return r < 0 ? -1 : 0;
}

int oci_parse_process_obj(yajl_val v, struct jpath *p, struct oci_process *proc,
                          struct sb_error *err)
{
        int r;

        if (json_get_bool(v, "terminal", p, &proc->terminal, err) < 0 ||
            parse_console_size(v, p, proc, err) < 0 || parse_user(v, p, &proc->user, err) < 0 ||
            parse_args_cwd(v, p, proc, err) < 0 ||
            json_get_string(v, "commandLine", p, &proc->command_line, err) < 0 ||
            json_get_strv(v, "env", p, &proc->env, &proc->n_env, err) < 0 ||
            parse_capabilities(v, p, proc, err) < 0 || parse_rlimits(v, p, proc, err) < 0)
                return -1;
        r = json_get_bool(v, "noNewPrivileges", p, &proc->no_new_privileges, err);
        if (r < 0)
                return -1;
        proc->has_no_new_privileges = r > 0;
        if (json_get_string(v, "apparmorProfile", p, &proc->apparmor_profile, err) < 0 ||
            parse_oom_score_adj(v, p, proc, err) < 0 ||
            json_get_string(v, "selinuxLabel", p, &proc->selinux_label, err) < 0 ||
            parse_io_priority(v, p, proc, err) < 0 || parse_scheduler(v, p, proc, err) < 0 ||
            parse_exec_cpu_affinity(v, p, proc, err) < 0)
                return -1;
        return 0;
}
