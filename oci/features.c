/* Serialise struct oci_features as the runtime-spec features document
 * (features.md, features-linux.md). Engines read it to decide what they may
 * put in config.json, so every list here must be true of this build. */
#include "oci/features.h"

#include "common/error.h"
#include "oci/json_write.h"

#include <errno.h>
#include <stdbool.h>

/* A NULL list is left out: the spec reads an absent property as "unknown",
 * while [] would claim that nothing is supported. */
static void write_strv(struct json_writer *w, const char *key, const char *const *v)
{
        if (v != NULL)
                jw_kv_strv(w, key, v);
}

static void write_enabled(struct json_writer *w, const char *key, bool enabled)
{
        jw_kv_object_begin(w, key);
        jw_kv_bool(w, "enabled", enabled);
        jw_object_end(w);
}

static void write_seccomp(struct json_writer *w, const struct oci_features *f)
{
        jw_kv_object_begin(w, "seccomp");
        jw_kv_bool(w, "enabled", f->seccomp_actions != NULL);
        write_strv(w, "actions", f->seccomp_actions);
        write_strv(w, "operators", f->seccomp_operators);
        write_strv(w, "archs", f->seccomp_archs);
        write_strv(w, "knownFlags", f->seccomp_known_flags);
        write_strv(w, "supportedFlags", f->seccomp_flags);
        jw_object_end(w);
}

/* LSM, RDT, NUMA and network device support are fixed by sbrun's
 * design, not chosen per build, so struct oci_features carries no fields for
 * them: cgroup v2 only, through cgroupfs or systemd (the system manager, or
 * a rootless caller's own systemd --user: runtime/cgroup/systemd_scope.c),
 * RDMA limits written to rdma.max (runtime/cgroup/cgroup_resources.c);
 * AppArmor profiles and SELinux labels where the host enables them
 * (spec/floor_lsm.h), as runc reports what it supports; network devices
 * moved in (runtime/host/net_devices.c; which ones is the operator's
 * policy, spec/floor_net_devices.c), as runc 1.3 reports them; no
 * resctrl, no memory policy (spec/floor_spec_fields.c refuses
 * linux.intelRdt and linux.memoryPolicy). Idmapped mounts depend on the
 * host (oci_features.idmap_mounts): sbrun makes them as the host's root,
 * never rootless; containerd reads mountExtensions.idmap.enabled, as runc
 * reports it. */
static void write_linux(struct json_writer *w, const struct oci_features *f)
{
        static const char *const none[] = { NULL };

        jw_kv_object_begin(w, "linux");
        write_strv(w, "namespaces", f->namespaces);
        write_strv(w, "capabilities", f->capabilities);
        jw_kv_object_begin(w, "cgroup");
        jw_kv_bool(w, "v1", false);
        jw_kv_bool(w, "v2", true);
        jw_kv_bool(w, "systemd", f->cgroup_systemd);
        jw_kv_bool(w, "systemdUser", f->cgroup_systemd);
        jw_kv_bool(w, "rdma", true);
        jw_object_end(w);
        write_seccomp(w, f);
        write_enabled(w, "apparmor", true);
        write_enabled(w, "selinux", true);
        write_enabled(w, "intelRdt", false);
        /* [], not absent: no mode and no flag is supported. */
        jw_kv_object_begin(w, "memoryPolicy");
        jw_kv_strv(w, "modes", none);
        jw_kv_strv(w, "flags", none);
        jw_object_end(w);
        jw_kv_object_begin(w, "mountExtensions");
        write_enabled(w, "idmap", f->idmap_mounts);
        jw_object_end(w);
        write_enabled(w, "netDevices", true);
        jw_object_end(w);
}

static void write_annotations(struct json_writer *w, const char *const *pairs)
{
        if (pairs == NULL)
                return;
        jw_kv_object_begin(w, "annotations");
        for (; pairs[0] != NULL && pairs[1] != NULL; pairs += 2) {
                jw_kv_string(w, pairs[0], pairs[1]);
        }
        jw_object_end(w);
}

static void write_features(struct json_writer *w, const struct oci_features *f)
{
        jw_object_begin(w);
        jw_kv_string(w, "ociVersionMin", f->oci_version_min);
        jw_kv_string(w, "ociVersionMax", f->oci_version_max);
        write_strv(w, "hooks", f->hooks);
        write_strv(w, "mountOptions", f->mount_options);
        write_linux(w, f);
        write_annotations(w, f->annotation_keys);
        write_strv(w, "potentiallyUnsafeConfigAnnotations", f->unsafe_annotations);
        jw_object_end(w);
}

char *oci_features_to_json(const struct oci_features *features, struct sb_error *err)
{
        _cleanup_jw_ struct json_writer *w = NULL;

        /* The two versions are the only REQUIRED properties. */
        if (features->oci_version_min == NULL || features->oci_version_max == NULL) {
                sb_fail(err, EINVAL, "features: ociVersionMin and ociVersionMax are required");
                return NULL;
        }
        w = jw_new("  ", err);
        if (w == NULL)
                return NULL;
        write_features(w, features);
        return jw_to_string(w, err);
}
