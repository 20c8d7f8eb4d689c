/* config.json `linux`, except `linux.resources` (config_parse_resources.c):
 * namespaces, id mappings, devices, seccomp, sysctl, masked/readonly paths,
 * intelRdt, personality, timeOffsets, memoryPolicy, netDevices. Which of
 * them sbrun carries out is spec/'s decision (docs/policy.md, "Every
 * field"). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* asprintf */
#endif
#include "oci/config.h"
#include "oci/config_parse_internal.h"

#include "common/cleanup.h"
#include "common/error.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const propagations[] = {
        "shared", "slave",    "private",     "unbindable", "rshared",
        "rslave", "rprivate", "runbindable", NULL,
};

static const char *const seccomp_actions[] = {
        "SCMP_ACT_KILL",        "SCMP_ACT_KILL_PROCESS",
        "SCMP_ACT_KILL_THREAD", "SCMP_ACT_TRAP",
        "SCMP_ACT_ERRNO",       "SCMP_ACT_TRACE",
        "SCMP_ACT_ALLOW",       "SCMP_ACT_LOG",
        "SCMP_ACT_NOTIFY",      NULL,
};

static const char *const seccomp_ops[] = {
        "SCMP_CMP_NE", "SCMP_CMP_LT", "SCMP_CMP_LE",        "SCMP_CMP_EQ",
        "SCMP_CMP_GE", "SCMP_CMP_GT", "SCMP_CMP_MASKED_EQ", NULL,
};

/* libseccomp's architecture names (seccomp_arch_resolve_name), in OCI form. */
static const char *const seccomp_archs[] = {
        "SCMP_ARCH_X86",     "SCMP_ARCH_X86_64",   "SCMP_ARCH_X32",         "SCMP_ARCH_ARM",
        "SCMP_ARCH_AARCH64", "SCMP_ARCH_MIPS",     "SCMP_ARCH_MIPS64",      "SCMP_ARCH_MIPS64N32",
        "SCMP_ARCH_MIPSEL",  "SCMP_ARCH_MIPSEL64", "SCMP_ARCH_MIPSEL64N32", "SCMP_ARCH_PPC",
        "SCMP_ARCH_PPC64",   "SCMP_ARCH_PPC64LE",  "SCMP_ARCH_S390",        "SCMP_ARCH_S390X",
        "SCMP_ARCH_PARISC",  "SCMP_ARCH_PARISC64", "SCMP_ARCH_RISCV64",     "SCMP_ARCH_LOONGARCH64",
        "SCMP_ARCH_M68K",    "SCMP_ARCH_SH",       "SCMP_ARCH_SHEB",        NULL,
};

static const char *const personality_domains[] = { "LINUX", "LINUX32", NULL };

static const char *const time_clocks[] = { "monotonic", "boottime", NULL };

/* Seccomp arguments are syscall registers 0..5. */
#define SECCOMP_MAX_ARG_INDEX 5

static int check_strv_absolute(char **v, size_t n, struct jpath *p, const char *key,
                               struct sb_error *err)
{
        size_t saved = jpath_key(p, key);

        for (size_t i = 0; i < n; i++) {
                if (oci_is_absolute_path(v[i]))
                        continue;
                _cleanup_free_ char *shown = json_describe_string(v[i]);
                jpath_index(p, i);
                jfail(p, err, "%s is not an absolute path", shown ? shown : "?");
                jpath_pop(p, saved);
                return -1;
        }
        jpath_pop(p, saved);
        return 0;
}

static int parse_idmap(yajl_val v, struct jpath *p, void *item, struct sb_error *err)
{
        struct oci_idmap *m = item;
        const struct {
                const char *key;
                uint32_t *field;
        } fields[] = {
                { "containerID", &m->container_id },
                { "hostID", &m->host_id },
                { "size", &m->size },
        };

        for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
                int r = json_get_u32(v, fields[i].key, p, fields[i].field, err);
                if (r == 0)
                        r = json_fail_required(p, fields[i].key, err);
                if (r < 0)
                        return -1;
        }
        return 0;
}

int oci_parse_idmaps(yajl_val obj, const char *key, struct jpath *p, struct oci_idmap **out,
                     size_t *n, struct sb_error *err)
{
        return oci_each_element(obj, key, p, out, sizeof(struct oci_idmap), n, parse_idmap, err);
}

static int parse_namespace(yajl_val v, struct jpath *p, void *item, struct sb_error *err)
{
        struct oci_namespace *ns = item;
        _cleanup_free_ char *type = NULL;
        int t;

        if (json_require_string(v, "type", p, &type, err) < 0)
                return -1;
        t = oci_namespace_type_from_name(type);
        if (t < 0) {
                _cleanup_free_ char *shown = json_describe_string(type);
                size_t saved = jpath_key(p, "type");
                jfail(p, err, "unknown namespace type %s", shown ? shown : "?");
                jpath_pop(p, saved);
                return -1;
        }
        ns->type = (enum oci_namespace_type)t;
        /* Only the text is kept: the runtime opens and checks the file, so
         * that what it checks is what it joins. */
        if (json_get_string(v, "path", p, &ns->path, err) < 0)
                return -1;
        if (ns->path != NULL && oci_check_absolute(ns->path, p, "path", err) < 0)
                return -1;
        return 0;
}

static int parse_namespaces(yajl_val obj, struct jpath *p, struct oci_linux *l,
                            struct sb_error *err)
{
        int r = oci_each_element(obj, "namespaces", p, &l->namespaces, sizeof(struct oci_namespace),
                                 &l->n_namespaces, parse_namespace, err);

        if (r <= 0)
                return r;
        for (size_t i = 0; i < l->n_namespaces; i++) {
                for (size_t j = 0; j < i; j++) {
                        if (l->namespaces[j].type != l->namespaces[i].type)
                                continue;
                        size_t saved = jpath_key(p, "namespaces");
                        jpath_index(p, i);
                        jpath_key(p, "type");
                        jfail(p, err, "duplicate namespace \"%s\"",
                              oci_namespace_type_name(l->namespaces[i].type));
                        jpath_pop(p, saved);
                        return -1;
                }
        }
        return 0;
}

static int parse_device(yajl_val v, struct jpath *p, void *item, struct sb_error *err)
{
        static const char *const types[] = { "c", "b", "u", "p", NULL };
        struct oci_device *d = item;
        _cleanup_free_ char *type = NULL;
        int r;

        d->major = d->minor = -1;
        if (json_require_string(v, "path", p, &d->path, err) < 0 ||
            oci_check_absolute(d->path, p, "path", err) < 0 ||
            json_require_string(v, "type", p, &type, err) < 0 ||
            oci_check_known_member(type, types, p, "type", "device type", err) < 0)
                return -1;
        d->type = type[0];
        /* A fifo has no device number; every other node needs both. */
        r = json_get_i64(v, "major", p, &d->major, err);
        if (r == 0 && d->type != 'p')
                r = json_fail_required(p, "major", err);
        if (r < 0)
                return -1;
        r = json_get_i64(v, "minor", p, &d->minor, err);
        if (r == 0 && d->type != 'p')
                r = json_fail_required(p, "minor", err);
        if (r < 0)
                return -1;
        r = json_get_u32(v, "fileMode", p, &d->file_mode, err);
        if (r < 0)
                return -1;
        d->has_file_mode = r > 0;
        r = json_get_u32(v, "uid", p, &d->uid, err);
        if (r < 0)
                return -1;
        d->has_uid = r > 0;
        r = json_get_u32(v, "gid", p, &d->gid, err);
        if (r < 0)
                return -1;
        d->has_gid = r > 0;
        return 0;
}

static int parse_seccomp_arg(yajl_val v, struct jpath *p, void *item, struct sb_error *err)
{
        struct oci_seccomp_arg *a = item;
        uint64_t index;
        int r;

        r = json_get_uint(v, "index", p, SECCOMP_MAX_ARG_INDEX, &index, err);
        if (r == 0)
                r = json_fail_required(p, "index", err);
        if (r < 0)
                return -1;
        a->index = (uint32_t)index;
        r = json_get_u64(v, "value", p, &a->value, err);
        if (r == 0)
                r = json_fail_required(p, "value", err);
        if (r < 0 || json_get_u64(v, "valueTwo", p, &a->value_two, err) < 0 ||
            json_require_string(v, "op", p, &a->op, err) < 0 ||
            oci_check_known_member(a->op, seccomp_ops, p, "op", "seccomp operator", err) < 0)
                return -1;
        return 0;
}

static int parse_seccomp_syscall(yajl_val v, struct jpath *p, void *item, struct sb_error *err)
{
        struct oci_seccomp_syscall *s = item;
        int r = json_get_strv(v, "names", p, &s->names, &s->n_names, err);

        if (r == 0)
                r = json_fail_required(p, "names", err);
        if (r < 0)
                return -1;
        if (s->n_names == 0) {
                size_t saved = jpath_key(p, "names");
                jfail(p, err, "must not be empty");
                jpath_pop(p, saved);
                return -1;
        }
        if (json_require_string(v, "action", p, &s->action, err) < 0 ||
            oci_check_known_member(s->action, seccomp_actions, p, "action", "seccomp action", err) <
                    0)
                return -1;
        r = json_get_u32(v, "errnoRet", p, &s->errno_ret, err);
        if (r < 0)
                return -1;
        s->has_errno_ret = r > 0;
        return oci_each_element(v, "args", p, &s->args, sizeof(struct oci_seccomp_arg), &s->n_args,
                                parse_seccomp_arg, err) < 0 ?
                       -1 :
                       0;
}

static bool seccomp_uses_notify(const struct oci_seccomp *s)
{
        if (strcmp(s->default_action, "SCMP_ACT_NOTIFY") == 0)
                return true;
        for (size_t i = 0; i < s->n_syscalls; i++)
                if (s->syscalls[i].action != NULL &&
                    strcmp(s->syscalls[i].action, "SCMP_ACT_NOTIFY") == 0)
                        return true;
        return false;
}

static int parse_seccomp_body(yajl_val v, struct jpath *p, struct oci_seccomp *s,
                              struct sb_error *err)
{
        size_t saved;
        int r;

        if (json_require_string(v, "defaultAction", p, &s->default_action, err) < 0 ||
            oci_check_known_member(s->default_action, seccomp_actions, p, "defaultAction",
                                   "seccomp action", err) < 0)
                return -1;
        r = json_get_u32(v, "defaultErrnoRet", p, &s->default_errno_ret, err);
        if (r < 0)
                return -1;
        s->has_default_errno_ret = r > 0;
        if (json_get_strv(v, "architectures", p, &s->architectures, &s->n_architectures, err) < 0)
                return -1;
        saved = jpath_key(p, "architectures");
        for (size_t i = 0; i < s->n_architectures; i++) {
                size_t at = jpath_index(p, i);
                if (oci_check_known(s->architectures[i], seccomp_archs, p, "architecture", err) <
                    0) {
                        jpath_pop(p, saved);
                        return -1;
                }
                jpath_pop(p, at);
        }
        jpath_pop(p, saved);
        /* Flags are checked against the running kernel by the seccomp code. */
        if (json_get_strv(v, "flags", p, &s->flags, &s->n_flags, err) < 0 ||
            json_get_string(v, "listenerPath", p, &s->listener_path, err) < 0 ||
            json_get_string(v, "listenerMetadata", p, &s->listener_metadata, err) < 0 ||
            oci_each_element(v, "syscalls", p, &s->syscalls, sizeof(struct oci_seccomp_syscall),
                             &s->n_syscalls, parse_seccomp_syscall, err) < 0)
                return -1;
        /* The notify fd has nowhere to go without a listener. */
        if (s->listener_path == NULL && seccomp_uses_notify(s)) {
                saved = jpath_key(p, "listenerPath");
                jfail(p, err, "required by SCMP_ACT_NOTIFY");
                jpath_pop(p, saved);
                return -1;
        }
        return 0;
}

static int parse_seccomp(yajl_val obj, struct jpath *p, struct oci_linux *l, struct sb_error *err)
{
        yajl_val v = NULL;
        size_t saved;
        int r = json_get_object(obj, "seccomp", p, &v, err);

        if (r <= 0)
                return r;
        l->seccomp = calloc(1, sizeof(*l->seccomp));
        if (l->seccomp == NULL)
                return sb_fail(err, ENOMEM, "seccomp");
        saved = jpath_key(p, "seccomp");
        r = parse_seccomp_body(v, p, l->seccomp, err);
        jpath_pop(p, saved);
        return r;
}

static int parse_intel_rdt(yajl_val obj, struct jpath *p, struct oci_linux *l, struct sb_error *err)
{
        struct oci_intel_rdt *rdt;
        yajl_val v = NULL;
        size_t saved;
        int r = json_get_object(obj, "intelRdt", p, &v, err), c, m, e;

        if (r <= 0)
                return r;
        rdt = l->intel_rdt = calloc(1, sizeof(*rdt));
        if (rdt == NULL)
                return sb_fail(err, ENOMEM, "intelRdt");
        saved = jpath_key(p, "intelRdt");
        r = -1;
        if (json_get_string(v, "closID", p, &rdt->clos_id, err) >= 0 &&
            json_get_strv(v, "schemata", p, &rdt->schemata, &rdt->n_schemata, err) >= 0 &&
            json_get_string(v, "l3CacheSchema", p, &rdt->l3_cache_schema, err) >= 0 &&
            json_get_string(v, "memBwSchema", p, &rdt->mem_bw_schema, err) >= 0 &&
            (c = json_get_bool(v, "enableCMT", p, &rdt->enable_cmt, err)) >= 0 &&
            (m = json_get_bool(v, "enableMBM", p, &rdt->enable_mbm, err)) >= 0 &&
            (e = json_get_bool(v, "enableMonitoring", p, &rdt->enable_monitoring, err)) >= 0) {
                rdt->has_enable_cmt = c > 0;
                rdt->has_enable_mbm = m > 0;
                rdt->has_enable_monitoring = e > 0;
                r = 0;
        }
        jpath_pop(p, saved);
        return r;
}

static int parse_memory_policy(yajl_val obj, struct jpath *p, struct oci_linux *l,
                               struct sb_error *err)
{
        struct oci_memory_policy *mp;
        yajl_val v = NULL;
        size_t saved;
        int r = json_get_object(obj, "memoryPolicy", p, &v, err);

        if (r <= 0)
                return r;
        mp = l->memory_policy = calloc(1, sizeof(*mp));
        if (mp == NULL)
                return sb_fail(err, ENOMEM, "memoryPolicy");
        saved = jpath_key(p, "memoryPolicy");
        r = 0;
        if (json_require_string(v, "mode", p, &mp->mode, err) < 0 ||
            json_get_string(v, "nodes", p, &mp->nodes, err) < 0 ||
            json_get_strv(v, "flags", p, &mp->flags, &mp->n_flags, err) < 0)
                r = -1;
        jpath_pop(p, saved);
        return r;
}

/* An object keyed by the host interface name; each value may rename it. */
static int parse_net_devices(yajl_val obj, struct jpath *p, struct oci_linux *l,
                             struct sb_error *err)
{
        yajl_val v = NULL;
        size_t saved, len;
        int r = json_get_object(obj, "netDevices", p, &v, err);

        if (r <= 0)
                return r;
        len = v->u.object.len;
        l->net_devices = calloc(len ? len : 1, sizeof(struct oci_kv));
        if (l->net_devices == NULL)
                return sb_fail(err, ENOMEM, "netDevices");
        saved = jpath_key(p, "netDevices");
        for (size_t i = 0; i < len; i++) {
                struct oci_kv *kv = &l->net_devices[i];
                size_t at = jpath_key(p, v->u.object.keys[i]);

                l->n_net_devices++;
                kv->key = strdup(v->u.object.keys[i]);
                if (kv->key == NULL) {
                        jpath_pop(p, saved);
                        return sb_fail(err, ENOMEM, "netDevices");
                }
                if (json_check_object(v->u.object.values[i], p, err) < 0 ||
                    json_get_string(v->u.object.values[i], "name", p, &kv->value, err) < 0) {
                        jpath_pop(p, saved);
                        return -1;
                }
                jpath_pop(p, at);
        }
        jpath_pop(p, saved);
        return 0;
}

static int parse_personality(yajl_val obj, struct jpath *p, struct oci_linux *l,
                             struct sb_error *err)
{
        struct oci_personality *pers;
        yajl_val v = NULL;
        size_t saved;
        int r = json_get_object(obj, "personality", p, &v, err);

        if (r <= 0)
                return r;
        pers = l->personality = calloc(1, sizeof(*pers));
        if (pers == NULL)
                return sb_fail(err, ENOMEM, "personality");
        saved = jpath_key(p, "personality");
        r = 0;
        if (json_require_string(v, "domain", p, &pers->domain, err) < 0 ||
            oci_check_known_member(pers->domain, personality_domains, p, "domain",
                                   "personality domain", err) < 0 ||
            json_get_strv(v, "flags", p, &pers->flags, &pers->n_flags, err) < 0)
                r = -1;
        jpath_pop(p, saved);
        return r;
}

/* Kept as "secs nanosecs", the text /proc/self/timens_offsets takes after
 * the clock name. */
static int parse_time_offset(yajl_val v, struct jpath *p, const char *clock, struct oci_kv *kv,
                             struct sb_error *err)
{
        int64_t secs = 0, nanosecs = 0;

        if (oci_check_known(clock, time_clocks, p, "clock", err) < 0 ||
            json_check_object(v, p, err) < 0 || json_get_i64(v, "secs", p, &secs, err) < 0 ||
            json_get_int(v, "nanosecs", p, 0, 999999999, &nanosecs, err) < 0)
                return -1;
        kv->key = strdup(clock);
        if (kv->key == NULL || asprintf(&kv->value, "%" PRId64 " %" PRId64, secs, nanosecs) < 0) {
                kv->value = NULL;
                return sb_fail(err, ENOMEM, "timeOffsets");
        }
        return 0;
}

static int parse_time_offsets(yajl_val obj, struct jpath *p, struct oci_linux *l,
                              struct sb_error *err)
{
        yajl_val v = NULL;
        size_t saved, len;
        int r = json_get_object(obj, "timeOffsets", p, &v, err);

        if (r <= 0)
                return r;
        len = v->u.object.len;
        l->time_offsets = calloc(len ? len : 1, sizeof(struct oci_kv));
        if (l->time_offsets == NULL)
                return sb_fail(err, ENOMEM, "timeOffsets");
        saved = jpath_key(p, "timeOffsets");
        for (size_t i = 0; i < len; i++) {
                const char *clock = v->u.object.keys[i];
                size_t at = jpath_key(p, clock);

                for (size_t j = 0; j < l->n_time_offsets; j++) {
                        if (strcmp(l->time_offsets[j].key, clock) == 0) {
                                jfail(p, err, "duplicate clock \"%s\"", clock);
                                jpath_pop(p, saved);
                                return -1;
                        }
                }
                l->n_time_offsets++;
                if (parse_time_offset(v->u.object.values[i], p, clock,
                                      &l->time_offsets[l->n_time_offsets - 1], err) < 0) {
                        jpath_pop(p, saved);
                        return -1;
                }
                jpath_pop(p, at);
        }
        jpath_pop(p, saved);
        return 0;
}

static int parse_resources(yajl_val obj, struct jpath *p, struct oci_linux *l, struct sb_error *err)
{
        yajl_val v = NULL;
        size_t saved;
        int r = json_get_object(obj, "resources", p, &v, err);

        if (r <= 0)
                return r;
        l->resources = calloc(1, sizeof(*l->resources));
        if (l->resources == NULL)
                return sb_fail(err, ENOMEM, "resources");
        saved = jpath_key(p, "resources");
        r = oci_parse_resources_obj(v, p, l->resources, err);
        jpath_pop(p, saved);
        return r;
}

static int parse_path_lists(yajl_val v, struct jpath *p, struct oci_linux *l, struct sb_error *err)
{
        int r = json_get_strv(v, "maskedPaths", p, &l->masked_paths, &l->n_masked_paths, err);

        if (r < 0)
                return -1;
        l->has_masked_paths = r > 0;
        if (check_strv_absolute(l->masked_paths, l->n_masked_paths, p, "maskedPaths", err) < 0)
                return -1;
        r = json_get_strv(v, "readonlyPaths", p, &l->readonly_paths, &l->n_readonly_paths, err);
        if (r < 0)
                return -1;
        l->has_readonly_paths = r > 0;
        return check_strv_absolute(l->readonly_paths, l->n_readonly_paths, p, "readonlyPaths", err);
}

int oci_parse_linux_obj(yajl_val v, struct jpath *p, struct oci_linux *l, struct sb_error *err)
{
        if (parse_namespaces(v, p, l, err) < 0 ||
            oci_parse_idmaps(v, "uidMappings", p, &l->uid_mappings, &l->n_uid_mappings, err) < 0 ||
            oci_parse_idmaps(v, "gidMappings", p, &l->gid_mappings, &l->n_gid_mappings, err) < 0 ||
            oci_each_element(v, "devices", p, &l->devices, sizeof(struct oci_device), &l->n_devices,
                             parse_device, err) < 0 ||
            json_get_string(v, "cgroupsPath", p, &l->cgroups_path, err) < 0 ||
            parse_resources(v, p, l, err) < 0 ||
            json_get_string(v, "rootfsPropagation", p, &l->rootfs_propagation, err) < 0 ||
            oci_check_known_member(l->rootfs_propagation, propagations, p, "rootfsPropagation",
                                   "propagation", err) < 0 ||
            parse_seccomp(v, p, l, err) < 0 ||
            json_get_string_map(v, "sysctl", p, &l->sysctl, &l->n_sysctl, err) < 0 ||
            parse_path_lists(v, p, l, err) < 0 ||
            json_get_string(v, "mountLabel", p, &l->mount_label, err) < 0 ||
            parse_intel_rdt(v, p, l, err) < 0 || parse_personality(v, p, l, err) < 0 ||
            parse_time_offsets(v, p, l, err) < 0 || parse_memory_policy(v, p, l, err) < 0 ||
            parse_net_devices(v, p, l, err) < 0)
                return -1;
        return 0;
}
