/* The config.json template of `sbrun spec`: runc's example spec (runc 1.2,
 * libcontainer/specconv/example.go) and its ToRootless() conversion, so that a
 * bundle made for one runtime reads the same to the other. Deliberate
 * differences are commented where they are made. */
#include "config.h"

#include "spec/spec_template.h"

#include "spec/policy_profiles.h"
#include "spec/runc_paths.h"

#include "common/error.h"
#include "oci/json_write.h"

#include <stdlib.h>
#include <string.h>

struct template_mount {
        const char *destination;
        const char *type;
        const char *source;
        const char *const *options; /* NULL-terminated */
};

/* runc's template minus CAP_AUDIT_WRITE, which the standard floor drops:
 * `sbrun spec && sbrun run` should run without a warning. */
static const char *const default_caps[] = { "CAP_KILL", "CAP_NET_BIND_SERVICE", NULL };

static const char *const default_env[] = {
        "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "TERM=xterm",
        NULL,
};

static const char *const no_options[] = { NULL };

static const struct template_mount default_mounts[] = {
        { "/proc", "proc", "proc", no_options },
        { "/dev", "tmpfs", "tmpfs",
          (const char *const[]){ "nosuid", "strictatime", "mode=755", "size=65536k",
                                 "nr_inodes=16k", NULL } },
        { "/dev/pts", "devpts", "devpts",
          (const char *const[]){ "nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620",
                                 "gid=5", NULL } },
        { "/dev/shm", "tmpfs", "shm",
          (const char *const[]){ "nosuid", "noexec", "nodev", "mode=1777", "size=65536k",
                                 "nr_inodes=16k", NULL } },
        { "/dev/mqueue", "mqueue", "mqueue",
          (const char *const[]){ "nosuid", "noexec", "nodev", NULL } },
        { "/sys", "sysfs", "sysfs",
          (const char *const[]){ "nosuid", "noexec", "nodev", "ro", NULL } },
        { "/sys/fs/cgroup", "cgroup", "cgroup",
          (const char *const[]){ "nosuid", "noexec", "nodev", "relatime", "ro", NULL } },
};

/* runc adds "cgroup" only on a cgroup v2 host; sbrun supports nothing else,
 * so it is always there. It stays in the rootless variant (as in runc): the
 * cgroup2 mount at /sys/fs/cgroup needs a cgroup namespace owned by the
 * container's user namespace. */
static const char *const default_namespaces[] = { "pid",   "network", "ipc", "uts",
                                                  "mount", "cgroup",  NULL };

/* An options list without uid=/gid=: those ids do not exist in a user
 * namespace that maps only the caller (runc's ToRootless drops them too). */
static void write_options(struct json_writer *w, const char *const *v, bool drop_ids)
{
        jw_kv_array_begin(w, "options");
        for (; *v != NULL; v++) {
                if (drop_ids && (strncmp(*v, "uid=", 4) == 0 || strncmp(*v, "gid=", 4) == 0))
                        continue;
                jw_string(w, *v);
        }
        jw_array_end(w);
}

static void write_process(struct json_writer *w)
{
        jw_kv_object_begin(w, "process");
        /* runc writes terminal: true. sbrun writes false on purpose, so that
         * `sbrun spec && sbrun run ID` works without a tty (scripts, CI, tests);
         * a user who wants an interactive shell sets it to true. */
        jw_kv_bool(w, "terminal", false);
        jw_kv_object_begin(w, "user");
        jw_kv_int(w, "uid", 0);
        jw_kv_int(w, "gid", 0);
        jw_object_end(w);
        jw_kv_strv(w, "args", (const char *const[]){ "sh", NULL });
        jw_kv_strv(w, "env", default_env);
        jw_kv_string(w, "cwd", "/");
        /* runc 1.2 no longer grants ambient capabilities by default. */
        jw_kv_object_begin(w, "capabilities");
        jw_kv_strv(w, "bounding", default_caps);
        jw_kv_strv(w, "effective", default_caps);
        jw_kv_strv(w, "permitted", default_caps);
        jw_object_end(w);
        jw_kv_array_begin(w, "rlimits");
        jw_object_begin(w);
        jw_kv_string(w, "type", "RLIMIT_NOFILE");
        jw_kv_int(w, "hard", 1024);
        jw_kv_int(w, "soft", 1024);
        jw_object_end(w);
        /* The template meets the standard floor, which forbids core dumps,
         * so that `spec && run` draws no floor warning. */
        jw_object_begin(w);
        jw_kv_string(w, "type", "RLIMIT_CORE");
        jw_kv_int(w, "hard", 0);
        jw_kv_int(w, "soft", 0);
        jw_object_end(w);
        jw_array_end(w);
        jw_kv_bool(w, "noNewPrivileges", true);
        jw_object_end(w);
}

static void write_mount(struct json_writer *w, const struct template_mount *m, bool rootless)
{
        jw_object_begin(w);
        jw_kv_string(w, "destination", m->destination);
        jw_kv_string(w, "type", m->type);
        jw_kv_string(w, "source", m->source);
        if (m->options[0] != NULL)
                write_options(w, m->options, rootless);
        jw_object_end(w);
}

static void write_mounts(struct json_writer *w, bool rootless)
{
        jw_kv_array_begin(w, "mounts");
        for (size_t i = 0; i < sizeof(default_mounts) / sizeof(default_mounts[0]); i++) {
                const struct template_mount *m = &default_mounts[i];
                write_mount(w, m, rootless);
        }
        jw_array_end(w);
}

static void write_id_mapping(struct json_writer *w, const char *key, unsigned long host_id)
{
        jw_kv_array_begin(w, key);
        jw_object_begin(w);
        jw_kv_int(w, "containerID", 0);
        jw_kv_int(w, "hostID", (int64_t)host_id);
        jw_kv_int(w, "size", 1);
        jw_object_end(w);
        jw_array_end(w);
}

/* runc's rootless template keeps the host's network namespace (nobody
 * without host root can wire a new one to the outside). sbrun keeps the new
 * one: the floor refuses the host's, and the template must pass the floor as
 * `sbrun spec`'s does; a user who wants a network gives the container one
 * made by slirp4netns or pasta (README.md, Rootless). */
static void write_namespaces(struct json_writer *w, bool rootless)
{
        jw_kv_array_begin(w, "namespaces");
        for (const char *const *ns = default_namespaces; *ns != NULL; ns++) {
                jw_object_begin(w);
                jw_kv_string(w, "type", *ns);
                jw_object_end(w);
        }
        if (rootless) {
                jw_object_begin(w);
                jw_kv_string(w, "type", "user");
                jw_object_end(w);
        }
        jw_array_end(w);
}

static void write_linux(struct json_writer *w, bool rootless, uid_t uid, gid_t gid)
{
        jw_kv_object_begin(w, "linux");
        if (rootless) {
                write_id_mapping(w, "uidMappings", (unsigned long)uid);
                write_id_mapping(w, "gidMappings", (unsigned long)gid);
        }
        jw_kv_object_begin(w, "resources");
        /* Rootless has no device list, as runc's: an unprivileged caller
         * cannot attach a device program to a cgroup, and in its user
         * namespace only the nodes bound into /dev can be opened anyway. */
        if (!rootless) {
                jw_kv_array_begin(w, "devices");
                jw_object_begin(w);
                jw_kv_bool(w, "allow", false);
                jw_kv_string(w, "access", "rwm");
                jw_object_end(w);
                jw_array_end(w);
        }
        /* The standard floor's pids ceiling, asked for up front (runc's
         * rootless template has no resources; sbrun's keeps this one, so
         * that the floor has nothing to add). */
        jw_kv_object_begin(w, "pids");
        jw_kv_int(w, "limit", policy_profile_get(POLICY_STANDARD)->ceilings.pids);
        jw_object_end(w);
        jw_object_end(w);
        write_namespaces(w, rootless);
        /* runc's list, and the TPM that current runc masks too. */
        jw_kv_array_begin(w, "maskedPaths");
        for (const char *const *p = runc_masked_paths; *p != NULL; p++)
                jw_string(w, *p);
        jw_string(w, "/sys/devices/virtual/tpm");
        for (const char *const *p = sbrun_masked_extra; *p != NULL; p++)
                jw_string(w, *p);
        jw_array_end(w);
        jw_kv_strv(w, "readonlyPaths", runc_readonly_paths);
        jw_object_end(w);
}

static void write_template(struct json_writer *w, bool rootless, uid_t uid, gid_t gid)
{
        jw_object_begin(w);
        jw_kv_string(w, "ociVersion", SBRUN_OCI_VERSION);
        write_process(w);
        jw_kv_object_begin(w, "root");
        jw_kv_string(w, "path", "rootfs");
        jw_kv_bool(w, "readonly", true);
        jw_object_end(w);
        jw_kv_string(w, "hostname", "sbrun");
        write_mounts(w, rootless);
        write_linux(w, rootless, uid, gid);
        jw_object_end(w);
}

char *spec_template_json(bool rootless, uid_t uid, gid_t gid, struct sb_error *err)
{
        _cleanup_jw_ struct json_writer *w = jw_new("\t", err);
        char *out;

        if (w == NULL)
                return NULL;
        write_template(w, rootless, uid, gid);
        out = jw_to_string(w, err);
        if (out == NULL)
                sb_error_prefix(err, "spec template");
        return out;
}
