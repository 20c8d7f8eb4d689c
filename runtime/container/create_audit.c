#include "runtime/container/create_audit.h"

#include "common/error.h"
#include "common/sha256.h"
#include "oci/config.h"
#include "oci/json_write.h"
#include "runtime/audit/audit_line.h"
#include "runtime/container/create_container.h"
#include "runtime/container/create_ctx.h"
#include "spec/policy_profiles.h"

#include <stdio.h>
#include <string.h>

/* Digests of what the container runs under, after the floor: two
 * containers with the same digests are confined alike, whatever their
 * configs said. seccomp: every program loaded, the floor's first, in
 * order; capabilities: the five sets; namespaces: each type and what it
 * joins. */
static void write_digests(struct json_writer *w, const struct create_ctx *c)
{
        const struct oci_capabilities *caps = &c->config->process->capabilities;
        const struct oci_linux *lx = c->config->linux_;
        char hex[SHA256_HEX_LEN + 1], text[128];
        struct sha256 s;

        jw_kv_object_begin(w, "digests");
        sha256_init(&s);
        for (size_t i = 0; i < c->floor.n; i++)
                sha256_update(&s, c->floor.bpf[i], c->floor.size[i]);
        if (c->seccomp.bpf != NULL)
                sha256_update(&s, c->seccomp.bpf, c->seccomp.size);
        sha256_final_hex(&s, hex);
        jw_kv_string(w, "seccomp", hex);
        snprintf(text, sizeof(text), "%016llx %016llx %016llx %016llx %016llx",
                 (unsigned long long)caps->bounding, (unsigned long long)caps->effective,
                 (unsigned long long)caps->permitted, (unsigned long long)caps->inheritable,
                 (unsigned long long)caps->ambient);
        sha256_hex(text, strlen(text), hex);
        jw_kv_string(w, "capabilities", hex);
        sha256_init(&s);
        for (size_t i = 0; lx != NULL && i < lx->n_namespaces; i++) {
                const char *type = oci_namespace_type_name(lx->namespaces[i].type);
                const char *path = lx->namespaces[i].path;
                sha256_update(&s, type, strlen(type) + 1);
                sha256_update(&s, path ? path : "", path ? strlen(path) + 1 : 1);
        }
        sha256_final_hex(&s, hex);
        jw_kv_string(w, "namespaces", hex);
        jw_object_end(w);
}

static int begin(struct audit_line *l, struct create_ctx *c, const struct create_request *req,
                 struct sb_error *err)
{
        if (audit_line_begin(l, req->restore ? AUDIT_RESTORE : AUDIT_CREATE, req->id, err) < 0)
                return -1;
        jw_kv_string(l->w, "bundle", c->bundle ? c->bundle : req->bundle);
        audit_line_policy(l, &c->policy, true);
        jw_kv_string(l->w, "profile", policy_profile_get(c->profile)->name);
        return 0;
}

int create_audit_created(struct create_ctx *c, const struct create_request *req,
                         struct sb_error *err)
{
        _cleanup_audit_line_ struct audit_line l = AUDIT_LINE_INIT;

        if (begin(&l, c, req, err) < 0)
                return -1;
        jw_kv_bool(l.w, "ok", true);
        jw_kv_int(l.w, "pid", c->container_pid);
        jw_kv_string(l.w, "cgroup", c->cgroup.cg.path);
        if (c->timeout > 0)
                jw_kv_int(l.w, "timeout", c->timeout);
        /* What a foreground `run` forwards at most of each stream. */
        if (c->output.out > 0)
                jw_kv_int(l.w, "stdout_limit", c->output.out);
        if (c->output.err > 0)
                jw_kv_int(l.w, "stderr_limit", c->output.err);
        audit_line_changes(&l, &c->report);
        write_digests(l.w, c);
        return audit_line_commit(&l, &c->policy, c->global, c->profile, err);
}

void create_audit_failed(struct create_ctx *c, const struct create_request *req,
                         const struct sb_error *failure)
{
        _cleanup_audit_line_ struct audit_line l = AUDIT_LINE_INIT;
        struct sb_error ignored = { 0 };

        if (begin(&l, c, req, &ignored) == 0) {
                jw_kv_bool(l.w, "ok", false);
                audit_line_error(&l, failure);
                audit_line_changes(&l, &c->report);
                /* Never fatal: the create has failed already. */
                audit_line_commit(&l, &c->policy, c->global, POLICY_STANDARD, &ignored);
        }
        sb_error_clear(&ignored);
}
