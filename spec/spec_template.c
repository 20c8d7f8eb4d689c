/* The config.json template of `sbrun spec`: runc's example spec (runc 1.2,
 * libcontainer/specconv/example.go) and its ToRootless() conversion, so that a
 * bundle made for one runtime reads the same to the other. Deliberate
 * differences are commented where they are made. */
#include "config.h"

#include "spec/spec_template.h"

#include "spec/runc_paths.h"

#include "common/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_gen.h>

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
          (const char *const[]){ "nosuid", "strictatime", "mode=755", "size=65536k", NULL } },
        { "/dev/pts", "devpts", "devpts",
          (const char *const[]){ "nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620",
                                 "gid=5", NULL } },
        { "/dev/shm", "tmpfs", "shm",
          (const char *const[]){ "nosuid", "noexec", "nodev", "mode=1777", "size=65536k", NULL } },
        { "/dev/mqueue", "mqueue", "mqueue",
          (const char *const[]){ "nosuid", "noexec", "nodev", NULL } },
        { "/sys", "sysfs", "sysfs",
          (const char *const[]){ "nosuid", "noexec", "nodev", "ro", NULL } },
        { "/sys/fs/cgroup", "cgroup", "cgroup",
          (const char *const[]){ "nosuid", "noexec", "nodev", "relatime", "ro", NULL } },
};

/* A user namespace whose owner is not host root may not mount a fresh sysfs
 * for the host's network namespace; runc binds the host's /sys read-only. */
static const struct template_mount rootless_sys_mount = {
        "/sys",
        "none",
        "/sys",
        (const char *const[]){ "rbind", "nosuid", "noexec", "nodev", "ro", NULL },
};

/* runc adds "cgroup" only on a cgroup v2 host; sbrun supports nothing else,
 * so it is always there. It stays in the rootless variant (as in runc): the
 * cgroup2 mount at /sys/fs/cgroup needs a cgroup namespace owned by the
 * container's user namespace. */
static const char *const default_namespaces[] = { "pid",   "network", "ipc", "uts",
                                                  "mount", "cgroup",  NULL };

/* A JSON writer that remembers the first yajl failure, so the template reads
 * as a list of fields and is checked once at the end. */
struct jw {
        yajl_gen g;
        yajl_gen_status st;
};

static void jw_str(struct jw *w, const char *s)
{
        if (w->st == yajl_gen_status_ok)
                w->st = yajl_gen_string(w->g, (const unsigned char *)s, strlen(s));
}

static void jw_int(struct jw *w, long long v)
{
        if (w->st == yajl_gen_status_ok)
                w->st = yajl_gen_integer(w->g, v);
}

static void jw_bool(struct jw *w, bool v)
{
        if (w->st == yajl_gen_status_ok)
                w->st = yajl_gen_bool(w->g, v);
}

static void jw_open(struct jw *w, bool map)
{
        if (w->st == yajl_gen_status_ok)
                w->st = map ? yajl_gen_map_open(w->g) : yajl_gen_array_open(w->g);
}

static void jw_close(struct jw *w, bool map)
{
        if (w->st == yajl_gen_status_ok)
                w->st = map ? yajl_gen_map_close(w->g) : yajl_gen_array_close(w->g);
}

static void jw_key_str(struct jw *w, const char *key, const char *value)
{
        jw_str(w, key);
        jw_str(w, value);
}

static void jw_key_int(struct jw *w, const char *key, long long value)
{
        jw_str(w, key);
        jw_int(w, value);
}

static void jw_key_bool(struct jw *w, const char *key, bool value)
{
        jw_str(w, key);
        jw_bool(w, value);
}

/* An options list without uid=/gid=: those ids do not exist in a user
 * namespace that maps only the caller (runc's ToRootless drops them too). */
static void jw_key_strv(struct jw *w, const char *key, const char *const *v, bool drop_ids)
{
        jw_str(w, key);
        jw_open(w, false);
        for (; *v != NULL; v++) {
                if (drop_ids && (strncmp(*v, "uid=", 4) == 0 || strncmp(*v, "gid=", 4) == 0))
                        continue;
                jw_str(w, *v);
        }
        jw_close(w, false);
}

static void write_process(struct jw *w)
{
        jw_str(w, "process");
        jw_open(w, true);
        /* runc writes terminal: true. sbrun writes false on purpose, so that
         * `sbrun spec && sbrun run ID` works without a tty (scripts, CI, tests);
         * a user who wants an interactive shell sets it to true. */
        jw_key_bool(w, "terminal", false);
        jw_str(w, "user");
        jw_open(w, true);
        jw_key_int(w, "uid", 0);
        jw_key_int(w, "gid", 0);
        jw_close(w, true);
        jw_key_strv(w, "args", (const char *const[]){ "sh", NULL }, false);
        jw_key_strv(w, "env", default_env, false);
        jw_key_str(w, "cwd", "/");
        /* runc 1.2 no longer grants ambient capabilities by default. */
        jw_str(w, "capabilities");
        jw_open(w, true);
        jw_key_strv(w, "bounding", default_caps, false);
        jw_key_strv(w, "effective", default_caps, false);
        jw_key_strv(w, "permitted", default_caps, false);
        jw_close(w, true);
        jw_str(w, "rlimits");
        jw_open(w, false);
        jw_open(w, true);
        jw_key_str(w, "type", "RLIMIT_NOFILE");
        jw_key_int(w, "hard", 1024);
        jw_key_int(w, "soft", 1024);
        jw_close(w, true);
        jw_close(w, false);
        jw_key_bool(w, "noNewPrivileges", true);
        jw_close(w, true);
}

static void write_mount(struct jw *w, const struct template_mount *m, bool rootless)
{
        jw_open(w, true);
        jw_key_str(w, "destination", m->destination);
        jw_key_str(w, "type", m->type);
        jw_key_str(w, "source", m->source);
        if (m->options[0] != NULL)
                jw_key_strv(w, "options", m->options, rootless);
        jw_close(w, true);
}

static void write_mounts(struct jw *w, bool rootless)
{
        jw_str(w, "mounts");
        jw_open(w, false);
        for (size_t i = 0; i < sizeof(default_mounts) / sizeof(default_mounts[0]); i++) {
                const struct template_mount *m = &default_mounts[i];
                if (rootless && strcmp(m->type, "sysfs") == 0)
                        m = &rootless_sys_mount;
                write_mount(w, m, rootless);
        }
        jw_close(w, false);
}

static void write_id_mapping(struct jw *w, const char *key, unsigned long host_id)
{
        jw_str(w, key);
        jw_open(w, false);
        jw_open(w, true);
        jw_key_int(w, "containerID", 0);
        jw_key_int(w, "hostID", (long long)host_id);
        jw_key_int(w, "size", 1);
        jw_close(w, true);
        jw_close(w, false);
}

static void write_namespaces(struct jw *w, bool rootless)
{
        jw_str(w, "namespaces");
        jw_open(w, false);
        for (const char *const *ns = default_namespaces; *ns != NULL; ns++) {
                /* Without host root there is nobody to wire a new network
                 * namespace to the outside; runc keeps the host's. */
                if (rootless && strcmp(*ns, "network") == 0)
                        continue;
                jw_open(w, true);
                jw_key_str(w, "type", *ns);
                jw_close(w, true);
        }
        if (rootless) {
                jw_open(w, true);
                jw_key_str(w, "type", "user");
                jw_close(w, true);
        }
        jw_close(w, false);
}

static void write_linux(struct jw *w, bool rootless, uid_t uid, gid_t gid)
{
        jw_str(w, "linux");
        jw_open(w, true);
        if (rootless) {
                write_id_mapping(w, "uidMappings", (unsigned long)uid);
                write_id_mapping(w, "gidMappings", (unsigned long)gid);
        } else {
                /* Rootless drops resources as runc does: an unprivileged caller
                 * has no device cgroup to write. */
                jw_str(w, "resources");
                jw_open(w, true);
                jw_str(w, "devices");
                jw_open(w, false);
                jw_open(w, true);
                jw_key_bool(w, "allow", false);
                jw_key_str(w, "access", "rwm");
                jw_close(w, true);
                jw_close(w, false);
                jw_close(w, true);
        }
        write_namespaces(w, rootless);
        /* runc's list, and the TPM that current runc masks too. */
        jw_str(w, "maskedPaths");
        jw_open(w, false);
        for (const char *const *p = runc_masked_paths; *p != NULL; p++)
                jw_str(w, *p);
        jw_str(w, "/sys/devices/virtual/tpm");
        jw_close(w, false);
        jw_key_strv(w, "readonlyPaths", runc_readonly_paths, false);
        jw_close(w, true);
}

static void write_template(struct jw *w, bool rootless, uid_t uid, gid_t gid)
{
        jw_open(w, true);
        jw_key_str(w, "ociVersion", SBRUN_OCI_VERSION);
        write_process(w);
        jw_str(w, "root");
        jw_open(w, true);
        jw_key_str(w, "path", "rootfs");
        jw_key_bool(w, "readonly", true);
        jw_close(w, true);
        jw_key_str(w, "hostname", "sbrun");
        write_mounts(w, rootless);
        write_linux(w, rootless, uid, gid);
        jw_close(w, true);
}

char *spec_template_json(bool rootless, uid_t uid, gid_t gid, struct sb_error *err)
{
        struct jw w = { .g = yajl_gen_alloc(NULL), .st = yajl_gen_status_ok };
        const unsigned char *buf = NULL;
        size_t len = 0;
        char *out = NULL;

        if (w.g == NULL) {
                sb_fail(err, ENOMEM, "spec template: allocate JSON generator");
                return NULL;
        }
        yajl_gen_config(w.g, yajl_gen_beautify, 1);
        yajl_gen_config(w.g, yajl_gen_indent_string, "\t");
        write_template(&w, rootless, uid, gid);
        if (w.st == yajl_gen_status_ok)
                w.st = yajl_gen_get_buf(w.g, &buf, &len);
        /* yajl's beautify mode ends the document with a newline; callers add
         * their own. */
        while (len > 0 && buf[len - 1] == '\n')
                len--;
        if (w.st != yajl_gen_status_ok)
                sb_fail(err, 0, "spec template: JSON generator failed (yajl status %d)", (int)w.st);
        else if ((out = strndup((const char *)buf, len)) == NULL)
                sb_fail(err, ENOMEM, "spec template");
        yajl_gen_free(w.g);
        return out;
}
