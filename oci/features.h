/* The features document (runtime-spec features.md) this build supports. */
#ifndef SB_OCI_FEATURES_H
#define SB_OCI_FEATURES_H

#include <stdbool.h>

#include <stddef.h>

struct sb_error;

struct oci_features {
        const char *oci_version_min;
        const char *oci_version_max;
        const char *const *hooks;
        const char *const *mount_options;
        const char *const *namespaces;
        const char *const *capabilities;
        const char *const *seccomp_actions;
        const char *const *seccomp_operators;
        const char *const *seccomp_archs;
        const char *const *seccomp_flags;
        const char *const *seccomp_known_flags;
        const char *const *annotation_keys; /* pairs key, value, NULL */
        /* potentiallyUnsafeConfigAnnotations: keys, or prefixes ending in "." */
        const char *const *unsafe_annotations;
        /* The systemd cgroup driver is built in: the system manager, and a
         * rootless caller's systemd --user (systemdUser). */
        bool cgroup_systemd;
        /* Idmapped bind mounts can be made here (runtime/sandbox/idmap_mount.h):
         * linux.mountExtensions.idmap.enabled. */
        bool idmap_mounts;
};

/* Serialise as the features JSON, pretty-printed. */
char *oci_features_to_json(const struct oci_features *features, struct sb_error *err);

#endif
