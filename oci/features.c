/* Serialise struct oci_features as the runtime-spec features document
 * (features.md, features-linux.md). Engines read it to decide what they may
 * put in config.json, so every list here must be true of this build. */
#include "oci/features.h"

#include "common/error.h"
#include "oci/json_util.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <yajl/yajl_gen.h>

static void jw_array(struct jgen *j, bool open)
{
        /* json_util has no array helpers; same sticky-error rule as jgen_*. */
        if (j->status == yajl_gen_status_ok)
                j->status = open ? yajl_gen_array_open(j->g) : yajl_gen_array_close(j->g);
}

static void jw_open(struct jgen *j, const char *key)
{
        jgen_key(j, key);
        jgen_map_open(j);
}

/* A NULL list is left out: the spec reads an absent property as "unknown",
 * while [] would claim that nothing is supported. */
static void jw_key_strv(struct jgen *j, const char *key, const char *const *v)
{
        if (v == NULL)
                return;
        jgen_key(j, key);
        jw_array(j, true);
        for (; *v != NULL; v++)
                jgen_string(j, *v);
        jw_array(j, false);
}

static void jw_enabled(struct jgen *w, const char *key, bool enabled)
{
        jw_open(w, key);
        jgen_kv_bool(w, "enabled", enabled);
        jgen_map_close(w);
}

static void write_seccomp(struct jgen *w, const struct oci_features *f)
{
        jw_open(w, "seccomp");
        jgen_kv_bool(w, "enabled", f->seccomp_actions != NULL);
        jw_key_strv(w, "actions", f->seccomp_actions);
        jw_key_strv(w, "operators", f->seccomp_operators);
        jw_key_strv(w, "archs", f->seccomp_archs);
        jw_key_strv(w, "knownFlags", f->seccomp_known_flags);
        jw_key_strv(w, "supportedFlags", f->seccomp_flags);
        jgen_map_close(w);
}

/* cgroup, LSM, RDT and idmap support are fixed by sbrun's design, not chosen
 * per build, so struct oci_features carries no fields for them: cgroup v2
 * only, through cgroupfs (no systemd driver); no AppArmor or SELinux label
 * handling; no resctrl; bwrap cannot make idmapped mounts (docs/design.md,
 * bwrap behaviours: "bwrap cannot make sysfs, cgroup2, devpts or idmapped
 * mounts"). */
static void write_linux(struct jgen *w, const struct oci_features *f)
{
        jw_open(w, "linux");
        jw_key_strv(w, "namespaces", f->namespaces);
        jw_key_strv(w, "capabilities", f->capabilities);
        jw_open(w, "cgroup");
        jgen_kv_bool(w, "v1", false);
        jgen_kv_bool(w, "v2", true);
        jgen_kv_bool(w, "systemd", false);
        jgen_kv_bool(w, "systemdUser", false);
        jgen_kv_bool(w, "rdma", false);
        jgen_map_close(w);
        write_seccomp(w, f);
        jw_enabled(w, "apparmor", false);
        jw_enabled(w, "selinux", false);
        jw_enabled(w, "intelRdt", false);
        jw_open(w, "mountExtensions");
        jw_enabled(w, "idmap", false);
        jgen_map_close(w);
        jgen_map_close(w);
}

static void write_annotations(struct jgen *w, const char *const *pairs)
{
        if (pairs == NULL)
                return;
        jw_open(w, "annotations");
        for (; pairs[0] != NULL && pairs[1] != NULL; pairs += 2) {
                jgen_kv_string(w, pairs[0], pairs[1]);
        }
        jgen_map_close(w);
}

static void write_features(struct jgen *w, const struct oci_features *f)
{
        jgen_map_open(w);
        jgen_kv_string(w, "ociVersionMin", f->oci_version_min);
        jgen_kv_string(w, "ociVersionMax", f->oci_version_max);
        jw_key_strv(w, "hooks", f->hooks);
        jw_key_strv(w, "mountOptions", f->mount_options);
        write_linux(w, f);
        write_annotations(w, f->annotation_keys);
        jgen_map_close(w);
}

char *oci_features_to_json(const struct oci_features *features, struct sb_error *err)
{
        struct jgen j;
        char *out;

        /* The two versions are the only REQUIRED properties. */
        if (features->oci_version_min == NULL || features->oci_version_max == NULL) {
                sb_fail(err, EINVAL, "features: ociVersionMin and ociVersionMax are required");
                return NULL;
        }
        if (jgen_init(&j, true, err) < 0)
                return NULL;
        write_features(&j, features);
        out = jgen_finish(&j, err);
        if (out == NULL)
                return NULL;
        /* yajl's beautify mode ends the document with a newline; callers
         * print their own. */
        for (size_t len = strlen(out); len > 0 && out[len - 1] == '\n'; len--)
                out[len - 1] = '\0';
        return out;
}
