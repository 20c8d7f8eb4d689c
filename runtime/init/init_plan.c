#include "runtime/init/init_plan.h"

#include "common/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Every field travels in a fixed order: integers as 8 little-endian-agnostic
 * host-order bytes (both ends are the same machine), strings as a length
 * (UINT64_MAX for NULL) and their bytes, arrays as a count and their items. */

struct writer {
        uint8_t *buf;
        size_t len, cap;
        bool failed;
};

struct reader {
        const uint8_t *buf;
        size_t len, pos;
        bool failed;
};

#define NULL_STRING UINT64_MAX

static void put_bytes(struct writer *w, const void *data, size_t len)
{
        if (w->failed)
                return;
        if (w->len + len > w->cap) {
                size_t cap = w->cap ? w->cap * 2 : 4096;
                while (cap < w->len + len)
                        cap *= 2;
                uint8_t *grown = realloc(w->buf, cap);
                if (grown == NULL) {
                        w->failed = true;
                        return;
                }
                w->buf = grown;
                w->cap = cap;
        }
        memcpy(w->buf + w->len, data, len);
        w->len += len;
}

static void put_u64(struct writer *w, uint64_t v)
{
        put_bytes(w, &v, sizeof(v));
}

static void put_str(struct writer *w, const char *s)
{
        if (s == NULL) {
                put_u64(w, NULL_STRING);
                return;
        }
        size_t len = strlen(s);
        put_u64(w, len);
        put_bytes(w, s, len);
}

static void put_strv(struct writer *w, char *const *v)
{
        size_t n = 0;
        if (v == NULL) {
                put_u64(w, NULL_STRING);
                return;
        }
        while (v[n] != NULL)
                n++;
        put_u64(w, n);
        for (size_t i = 0; i < n; i++)
                put_str(w, v[i]);
}

static void get_bytes(struct reader *r, void *out, size_t len)
{
        if (r->failed || r->len - r->pos < len) {
                r->failed = true;
                memset(out, 0, len);
                return;
        }
        memcpy(out, r->buf + r->pos, len);
        r->pos += len;
}

static uint64_t get_u64(struct reader *r)
{
        uint64_t v;
        get_bytes(r, &v, sizeof(v));
        return v;
}

static char *get_str(struct reader *r)
{
        uint64_t len = get_u64(r);
        if (r->failed || len == NULL_STRING)
                return NULL;
        if (len > r->len - r->pos) {
                r->failed = true;
                return NULL;
        }
        char *s = malloc(len + 1);
        if (s == NULL) {
                r->failed = true;
                return NULL;
        }
        get_bytes(r, s, len);
        s[len] = '\0';
        return s;
}

/* Bounds a count read from the wire so a corrupt plan cannot make us
 * allocate without limit: each item takes at least 8 bytes. */
static size_t get_count(struct reader *r)
{
        uint64_t n = get_u64(r);
        if (r->failed)
                return 0;
        if (n > (r->len - r->pos) / 8 + 1) {
                r->failed = true;
                return 0;
        }
        return (size_t)n;
}

static char **get_strv(struct reader *r)
{
        uint64_t n = get_u64(r);
        if (r->failed || n == NULL_STRING)
                return NULL;
        if (n > (r->len - r->pos) / 8) {
                r->failed = true;
                return NULL;
        }
        char **v = calloc(n + 1, sizeof(char *));
        if (v == NULL) {
                r->failed = true;
                return NULL;
        }
        for (size_t i = 0; i < n; i++)
                v[i] = get_str(r);
        return v;
}

static void free_strv(char **v)
{
        if (v == NULL)
                return;
        for (char **p = v; *p; p++)
                free(*p);
        free(v);
}

int init_plan_encode(const struct init_plan *plan, uint8_t **out, size_t *out_len,
                     struct sb_error *err)
{
        struct writer w = { 0 };

        put_strv(&w, plan->args);
        put_strv(&w, plan->env);
        put_str(&w, plan->exec_path);
        put_str(&w, plan->cwd);

        put_u64(&w, plan->n_mounts);
        for (size_t i = 0; i < plan->n_mounts; i++) {
                const struct init_mount *m = &plan->mounts[i];
                put_u64(&w, m->kind);
                put_str(&w, m->source);
                put_str(&w, m->destination);
                put_str(&w, m->fstype);
                put_u64(&w, m->flags);
                put_str(&w, m->data);
                put_u64(&w, m->skip_missing);
        }
        put_u64(&w, plan->n_devices);
        for (size_t i = 0; i < plan->n_devices; i++) {
                const struct init_device *d = &plan->devices[i];
                put_str(&w, d->path);
                put_u64(&w, d->mode);
                put_u64(&w, d->major);
                put_u64(&w, d->minor);
                put_u64(&w, d->uid);
                put_u64(&w, d->gid);
        }
        put_u64(&w, plan->readonly_root);
        put_str(&w, plan->domainname);

        put_u64(&w, plan->uid);
        put_u64(&w, plan->gid);
        put_u64(&w, plan->n_additional_gids);
        for (size_t i = 0; i < plan->n_additional_gids; i++)
                put_u64(&w, plan->additional_gids[i]);
        put_u64(&w, plan->has_umask);
        put_u64(&w, plan->umask);
        put_u64(&w, plan->has_capabilities);
        put_u64(&w, plan->cap_bounding);
        put_u64(&w, plan->cap_effective);
        put_u64(&w, plan->cap_inheritable);
        put_u64(&w, plan->cap_permitted);
        put_u64(&w, plan->cap_ambient);
        put_u64(&w, plan->no_new_privileges);
        put_u64(&w, plan->n_seccomp_programs);
        for (size_t i = 0; i < plan->n_seccomp_programs; i++) {
                put_u64(&w, plan->seccomp_program_sizes[i]);
                put_bytes(&w, plan->seccomp_programs[i], plan->seccomp_program_sizes[i]);
        }

        put_u64(&w, (uint64_t)(int64_t)plan->ready_fd);
        put_u64(&w, (uint64_t)(int64_t)plan->fifo_fd);
        put_u64(&w, (uint64_t)(int64_t)plan->stderr_fd);
        put_u64(&w, (uint64_t)(int64_t)plan->console_fd);
        put_u64(&w, (uint64_t)(int64_t)plan->preserve_fds);
        put_u64(&w, plan->terminal);
        put_u64(&w, plan->console_height);
        put_u64(&w, plan->console_width);
        put_str(&w, plan->session_keyring);
        for (size_t i = 0; i < plan->n_seccomp_programs; i++)
                put_u64(&w, plan->seccomp_program_flags ? plan->seccomp_program_flags[i] : 0);
        put_u64(&w, (uint64_t)(int64_t)plan->seccomp_notify_fd);
        put_str(&w, plan->apparmor_profile);
        put_str(&w, plan->selinux_label);
        put_u64(&w, (uint64_t)(int64_t)plan->cgroup_procs_fd);
        put_u64(&w, plan->unshare_cgroupns);
        put_u64(&w, plan->landlock_mode);
        put_u64(&w, plan->landlock_abi);
        put_u64(&w, plan->landlock_exec_writable);
        put_u64(&w, plan->landlock_no_tcp);
        put_strv(&w, plan->landlock_writable);
        put_u64(&w, plan->has_ioprio);
        put_u64(&w, plan->ioprio);
        put_u64(&w, plan->has_scheduler);
        put_u64(&w, plan->sched_policy);
        put_u64(&w, (uint64_t)(int64_t)plan->sched_nice);
        put_u64(&w, plan->sched_priority);
        put_u64(&w, plan->sched_flags);
        put_u64(&w, plan->sched_runtime);
        put_u64(&w, plan->sched_deadline);
        put_u64(&w, plan->sched_period);
        put_str(&w, plan->cpu_affinity_initial);
        put_str(&w, plan->cpu_affinity_final);
        put_u64(&w, plan->has_personality);
        put_u64(&w, plan->personality);

        if (w.failed) {
                free(w.buf);
                return sb_fail(err, ENOMEM, "encode init plan");
        }
        *out = w.buf;
        *out_len = w.len;
        return 0;
}

int init_plan_decode(const uint8_t *buf, size_t len, struct init_plan *plan, struct sb_error *err)
{
        struct reader r = { .buf = buf, .len = len };

        memset(plan, 0, sizeof(*plan));
        plan->args = get_strv(&r);
        plan->env = get_strv(&r);
        plan->exec_path = get_str(&r);
        plan->cwd = get_str(&r);

        plan->n_mounts = get_count(&r);
        plan->mounts = calloc(plan->n_mounts + 1, sizeof(*plan->mounts));
        for (size_t i = 0; plan->mounts && i < plan->n_mounts; i++) {
                struct init_mount *m = &plan->mounts[i];
                m->kind = (uint32_t)get_u64(&r);
                m->source = get_str(&r);
                m->destination = get_str(&r);
                m->fstype = get_str(&r);
                m->flags = get_u64(&r);
                m->data = get_str(&r);
                m->skip_missing = get_u64(&r) != 0;
        }
        plan->n_devices = get_count(&r);
        plan->devices = calloc(plan->n_devices + 1, sizeof(*plan->devices));
        for (size_t i = 0; plan->devices && i < plan->n_devices; i++) {
                struct init_device *d = &plan->devices[i];
                d->path = get_str(&r);
                d->mode = (uint32_t)get_u64(&r);
                d->major = (uint32_t)get_u64(&r);
                d->minor = (uint32_t)get_u64(&r);
                d->uid = (uint32_t)get_u64(&r);
                d->gid = (uint32_t)get_u64(&r);
        }
        plan->readonly_root = get_u64(&r) != 0;
        plan->domainname = get_str(&r);

        plan->uid = (uint32_t)get_u64(&r);
        plan->gid = (uint32_t)get_u64(&r);
        plan->n_additional_gids = get_count(&r);
        plan->additional_gids = calloc(plan->n_additional_gids + 1, sizeof(uint32_t));
        for (size_t i = 0; plan->additional_gids && i < plan->n_additional_gids; i++)
                plan->additional_gids[i] = (uint32_t)get_u64(&r);
        plan->has_umask = get_u64(&r) != 0;
        plan->umask = (uint32_t)get_u64(&r);
        plan->has_capabilities = get_u64(&r) != 0;
        plan->cap_bounding = get_u64(&r);
        plan->cap_effective = get_u64(&r);
        plan->cap_inheritable = get_u64(&r);
        plan->cap_permitted = get_u64(&r);
        plan->cap_ambient = get_u64(&r);
        plan->no_new_privileges = get_u64(&r) != 0;
        plan->n_seccomp_programs = get_count(&r);
        plan->seccomp_programs = calloc(plan->n_seccomp_programs + 1, sizeof(uint8_t *));
        plan->seccomp_program_sizes = calloc(plan->n_seccomp_programs + 1, sizeof(size_t));
        for (size_t i = 0;
             plan->seccomp_programs && plan->seccomp_program_sizes && i < plan->n_seccomp_programs;
             i++) {
                uint64_t size = get_u64(&r);
                if (r.failed || size > r.len - r.pos) {
                        r.failed = true;
                        break;
                }
                plan->seccomp_programs[i] = malloc(size ? size : 1);
                plan->seccomp_program_sizes[i] = size;
                if (plan->seccomp_programs[i] == NULL) {
                        r.failed = true;
                        break;
                }
                get_bytes(&r, plan->seccomp_programs[i], size);
        }

        plan->ready_fd = (int)(int64_t)get_u64(&r);
        plan->fifo_fd = (int)(int64_t)get_u64(&r);
        plan->stderr_fd = (int)(int64_t)get_u64(&r);
        plan->console_fd = (int)(int64_t)get_u64(&r);
        plan->preserve_fds = (int)(int64_t)get_u64(&r);
        plan->terminal = get_u64(&r) != 0;
        plan->console_height = (uint32_t)get_u64(&r);
        plan->console_width = (uint32_t)get_u64(&r);
        plan->session_keyring = get_str(&r);
        plan->seccomp_program_flags = calloc(plan->n_seccomp_programs + 1, sizeof(uint32_t));
        for (size_t i = 0; plan->seccomp_program_flags && i < plan->n_seccomp_programs; i++)
                plan->seccomp_program_flags[i] = (uint32_t)get_u64(&r);
        plan->seccomp_notify_fd = (int)(int64_t)get_u64(&r);
        plan->apparmor_profile = get_str(&r);
        plan->selinux_label = get_str(&r);
        plan->cgroup_procs_fd = (int)(int64_t)get_u64(&r);
        plan->unshare_cgroupns = get_u64(&r) != 0;
        plan->landlock_mode = (uint32_t)get_u64(&r);
        plan->landlock_abi = (uint32_t)get_u64(&r);
        plan->landlock_exec_writable = get_u64(&r) != 0;
        plan->landlock_no_tcp = get_u64(&r) != 0;
        plan->landlock_writable = get_strv(&r);
        plan->landlock_ruleset_fd = -1;
        plan->has_ioprio = get_u64(&r) != 0;
        plan->ioprio = (uint32_t)get_u64(&r);
        plan->has_scheduler = get_u64(&r) != 0;
        plan->sched_policy = (uint32_t)get_u64(&r);
        plan->sched_nice = (int32_t)(int64_t)get_u64(&r);
        plan->sched_priority = (uint32_t)get_u64(&r);
        plan->sched_flags = get_u64(&r);
        plan->sched_runtime = get_u64(&r);
        plan->sched_deadline = get_u64(&r);
        plan->sched_period = get_u64(&r);
        plan->cpu_affinity_initial = get_str(&r);
        plan->cpu_affinity_final = get_str(&r);
        plan->has_personality = get_u64(&r) != 0;
        plan->personality = (uint32_t)get_u64(&r);

        if (r.failed || plan->mounts == NULL || plan->devices == NULL ||
            plan->additional_gids == NULL || plan->seccomp_programs == NULL ||
            plan->seccomp_program_sizes == NULL || plan->seccomp_program_flags == NULL ||
            plan->args == NULL) {
                init_plan_release(plan);
                return sb_fail(err, EINVAL, "init plan is truncated or corrupt");
        }
        return 0;
}

void init_plan_release(struct init_plan *plan)
{
        free_strv(plan->args);
        free_strv(plan->env);
        free(plan->exec_path);
        free(plan->cwd);
        for (size_t i = 0; plan->mounts && i < plan->n_mounts; i++) {
                free(plan->mounts[i].source);
                free(plan->mounts[i].destination);
                free(plan->mounts[i].fstype);
                free(plan->mounts[i].data);
        }
        free(plan->mounts);
        for (size_t i = 0; plan->devices && i < plan->n_devices; i++)
                free(plan->devices[i].path);
        free(plan->devices);
        free(plan->domainname);
        free(plan->session_keyring);
        free(plan->apparmor_profile);
        free(plan->selinux_label);
        free(plan->additional_gids);
        for (size_t i = 0; plan->seccomp_programs && i < plan->n_seccomp_programs; i++)
                free(plan->seccomp_programs[i]);
        free(plan->seccomp_programs);
        free(plan->seccomp_program_sizes);
        free(plan->seccomp_program_flags);
        free_strv(plan->landlock_writable);
        free(plan->cpu_affinity_initial);
        free(plan->cpu_affinity_final);
        memset(plan, 0, sizeof(*plan));
}
