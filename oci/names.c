/* Name tables shared by the parser and the runtime: capabilities, rlimits,
 * namespaces; plus small lookups over a parsed config. */
#include "oci/config.h"
#include "oci/config_parse_internal.h"

#include <string.h>
#include <sys/resource.h>

/* Indexed by capability number (linux/capability.h), so the table is the
 * mapping; numbers are fixed by the kernel ABI, not by the build host. */
static const char *const capability_names[] = {
        "CAP_CHOWN",
        "CAP_DAC_OVERRIDE",
        "CAP_DAC_READ_SEARCH",
        "CAP_FOWNER",
        "CAP_FSETID",
        "CAP_KILL",
        "CAP_SETGID",
        "CAP_SETUID",
        "CAP_SETPCAP",
        "CAP_LINUX_IMMUTABLE",
        "CAP_NET_BIND_SERVICE",
        "CAP_NET_BROADCAST",
        "CAP_NET_ADMIN",
        "CAP_NET_RAW",
        "CAP_IPC_LOCK",
        "CAP_IPC_OWNER",
        "CAP_SYS_MODULE",
        "CAP_SYS_RAWIO",
        "CAP_SYS_CHROOT",
        "CAP_SYS_PTRACE",
        "CAP_SYS_PACCT",
        "CAP_SYS_ADMIN",
        "CAP_SYS_BOOT",
        "CAP_SYS_NICE",
        "CAP_SYS_RESOURCE",
        "CAP_SYS_TIME",
        "CAP_SYS_TTY_CONFIG",
        "CAP_MKNOD",
        "CAP_LEASE",
        "CAP_AUDIT_WRITE",
        "CAP_AUDIT_CONTROL",
        "CAP_SETFCAP",
        "CAP_MAC_OVERRIDE",
        "CAP_MAC_ADMIN",
        "CAP_SYSLOG",
        "CAP_WAKE_ALARM",
        "CAP_BLOCK_SUSPEND",
        "CAP_AUDIT_READ",
        "CAP_PERFMON",
        "CAP_BPF",
        "CAP_CHECKPOINT_RESTORE",
};

#define N_CAPS ((int)(sizeof(capability_names) / sizeof(capability_names[0])))

int oci_capability_from_name(const char *name)
{
        if (name == NULL)
                return -1;
        for (int i = 0; i < N_CAPS; i++)
                if (strcmp(capability_names[i], name) == 0)
                        return i;
        return -1;
}

const char *oci_capability_name(int cap)
{
        if (cap < 0 || cap >= N_CAPS)
                return NULL;
        return capability_names[cap];
}

static const struct {
        const char *name;
        int resource;
} rlimit_names[] = {
        { "RLIMIT_CPU", RLIMIT_CPU },           { "RLIMIT_FSIZE", RLIMIT_FSIZE },
        { "RLIMIT_DATA", RLIMIT_DATA },         { "RLIMIT_STACK", RLIMIT_STACK },
        { "RLIMIT_CORE", RLIMIT_CORE },         { "RLIMIT_RSS", RLIMIT_RSS },
        { "RLIMIT_NPROC", RLIMIT_NPROC },       { "RLIMIT_NOFILE", RLIMIT_NOFILE },
        { "RLIMIT_MEMLOCK", RLIMIT_MEMLOCK },   { "RLIMIT_AS", RLIMIT_AS },
        { "RLIMIT_LOCKS", RLIMIT_LOCKS },       { "RLIMIT_SIGPENDING", RLIMIT_SIGPENDING },
        { "RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE }, { "RLIMIT_NICE", RLIMIT_NICE },
        { "RLIMIT_RTPRIO", RLIMIT_RTPRIO },     { "RLIMIT_RTTIME", RLIMIT_RTTIME },
};

int oci_rlimit_from_name(const char *name)
{
        if (name == NULL)
                return -1;
        for (size_t i = 0; i < sizeof(rlimit_names) / sizeof(rlimit_names[0]); i++)
                if (strcmp(rlimit_names[i].name, name) == 0)
                        return rlimit_names[i].resource;
        return -1;
}

static const char *const namespace_type_names[OCI_NS_COUNT] = {
        [OCI_NS_PID] = "pid",       [OCI_NS_NETWORK] = "network", [OCI_NS_MOUNT] = "mount",
        [OCI_NS_IPC] = "ipc",       [OCI_NS_UTS] = "uts",         [OCI_NS_USER] = "user",
        [OCI_NS_CGROUP] = "cgroup", [OCI_NS_TIME] = "time",
};

static const char *const namespace_proc_names[OCI_NS_COUNT] = {
        [OCI_NS_PID] = "pid",       [OCI_NS_NETWORK] = "net", [OCI_NS_MOUNT] = "mnt",
        [OCI_NS_IPC] = "ipc",       [OCI_NS_UTS] = "uts",     [OCI_NS_USER] = "user",
        [OCI_NS_CGROUP] = "cgroup", [OCI_NS_TIME] = "time",
};

const char *oci_namespace_type_name(enum oci_namespace_type type)
{
        if ((unsigned)type >= OCI_NS_COUNT)
                return NULL;
        return namespace_type_names[type];
}

const char *oci_namespace_proc_name(enum oci_namespace_type type)
{
        if ((unsigned)type >= OCI_NS_COUNT)
                return NULL;
        return namespace_proc_names[type];
}

bool oci_mount_is_bind(const struct oci_mount *m)
{
        if (m->type == NULL || strcmp(m->type, "bind") == 0 || strcmp(m->type, "rbind") == 0)
                return true;
        for (size_t i = 0; i < m->n_options; i++) {
                if (strcmp(m->options[i], "bind") == 0 || strcmp(m->options[i], "rbind") == 0)
                        return true;
        }
        return false;
}

bool oci_mount_is_read_only(const struct oci_mount *m)
{
        bool ro = false;

        for (size_t i = 0; i < m->n_options; i++) {
                /* rro is read-only too, and stays so: no option clears it
                 * (rrw is refused, runtime/sandbox/mount_translate.c). */
                if (strcmp(m->options[i], "rro") == 0)
                        return true;
                if (strcmp(m->options[i], "ro") == 0)
                        ro = true;
                else if (strcmp(m->options[i], "rw") == 0)
                        ro = false;
        }
        return ro;
}

bool oci_config_mounts_dev(const struct oci_config *config)
{
        for (size_t i = 0; i < config->n_mounts; i++) {
                const char *d = config->mounts[i].destination;
                if (d != NULL && strspn(d, "/") == 1 && strcmp(d + 1, "dev") == 0)
                        return true;
        }
        return false;
}

const char *oci_annotation(const struct oci_config *config, const char *key)
{
        if (config == NULL || key == NULL)
                return NULL;
        for (size_t i = 0; i < config->n_annotations; i++)
                if (strcmp(config->annotations[i].key, key) == 0)
                        return config->annotations[i].value;
        return NULL;
}

const struct oci_namespace *oci_config_namespace(const struct oci_config *config,
                                                 enum oci_namespace_type type)
{
        if (config == NULL || config->linux_ == NULL)
                return NULL;
        for (size_t i = 0; i < config->linux_->n_namespaces; i++)
                if (config->linux_->namespaces[i].type == type)
                        return &config->linux_->namespaces[i];
        return NULL;
}

int oci_namespace_type_from_name(const char *name)
{
        for (int i = 0; i < OCI_NS_COUNT; i++)
                if (strcmp(namespace_type_names[i], name) == 0)
                        return i;
        return -1;
}
