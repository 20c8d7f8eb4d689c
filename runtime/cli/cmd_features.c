/* `sbrun features`: print what this build understands, as `runc features`
 * does. Engines (containerd, podman) trust this document, so a name appears
 * here only if config.json may use it with this build. */
#include "config.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "oci/config.h"
#include "oci/features.h"
#include "runtime/checkpoint/criu_run.h"
#include "runtime/cli/cli_options.h"
#include "runtime/cli/commands.h"
#include "runtime/sandbox/idmap_mount.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *const hooks[] = {
        "prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop",
        NULL
};

/* Flag options only: the spec asks that data options (mode=, size=, gid=, …),
 * which go to mount(2) as-is, stay out of this list. And only what sbrun
 * carries out (runtime/sandbox/mount_translate.c), not every name it parses:
 * "suid" is never honoured (bwrap and the floor make every mount nosuid),
 * nor "dev" (every mount but devpts and device-node binds is nodev); "sync",
 * "dirsync" and "mand" are refused on the mounts bwrap makes. The recursive
 * ones are sbrun-init's mount_setattr (rrw and the other loosening ones are
 * refused). idmap and ridmap are added where sbrun can make idmapped
 * mounts (with_idmap). */
static const char *const mount_options[] = {
        "bind",         "defaults",    "exec",        "noatime", "nodev",   "nodiratime",
        "noexec",       "nosuid",      "nosymfollow", "private", "rbind",   "relatime",
        "rnoatime",     "rnodev",      "rnodiratime", "rnoexec", "rnosuid", "rnosymfollow",
        "ro",           "rprivate",    "rrelatime",   "rro",     "rshared", "rslave",
        "rstrictatime", "runbindable", "rw",          "shared",  "slave",   "strictatime",
        "symfollow",    "tmpcopyup",   "unbindable",  NULL,
};

/* mount_options with idmap and ridmap in their sorted places. */
static void with_idmap(const char **out, size_t cap)
{
        static const char *const extra[] = { "idmap", "ridmap" };
        size_t n = 0, e = 0;

        for (size_t i = 0; mount_options[i] != NULL && n + 1 < cap; i++) {
                while (e < 2 && strcmp(extra[e], mount_options[i]) < 0 && n + 1 < cap)
                        out[n++] = extra[e++];
                out[n++] = mount_options[i];
        }
        while (e < 2 && n + 1 < cap)
                out[n++] = extra[e++];
        out[n] = NULL;
}

/* Annotations of config.json that change what sbrun does: a stricter
 * profile (run.sbrun.policy), a wall-clock limit (run.sbrun.timeout). A
 * trailing "." makes the entry a prefix (features.md). */
static const char *const unsafe_annotations[] = { "run.sbrun.", NULL };

static const char *const seccomp_actions[] = {
        "SCMP_ACT_ALLOW",       "SCMP_ACT_ERRNO",
        "SCMP_ACT_KILL",        "SCMP_ACT_KILL_PROCESS",
        "SCMP_ACT_KILL_THREAD", "SCMP_ACT_LOG",
        "SCMP_ACT_NOTIFY",      "SCMP_ACT_TRACE",
        "SCMP_ACT_TRAP",        NULL,
};

static const char *const seccomp_operators[] = { "SCMP_CMP_EQ", "SCMP_CMP_GE", "SCMP_CMP_GT",
                                                 "SCMP_CMP_LE", "SCMP_CMP_LT", "SCMP_CMP_MASKED_EQ",
                                                 "SCMP_CMP_NE", NULL };

/* Every architecture libseccomp 2.5 can build a filter for. */
static const char *const seccomp_archs[] = {
        "SCMP_ARCH_AARCH64",   "SCMP_ARCH_ARM",      "SCMP_ARCH_MIPS",     "SCMP_ARCH_MIPS64",
        "SCMP_ARCH_MIPS64N32", "SCMP_ARCH_MIPSEL",   "SCMP_ARCH_MIPSEL64", "SCMP_ARCH_MIPSEL64N32",
        "SCMP_ARCH_PARISC",    "SCMP_ARCH_PARISC64", "SCMP_ARCH_PPC",      "SCMP_ARCH_PPC64",
        "SCMP_ARCH_PPC64LE",   "SCMP_ARCH_RISCV64",  "SCMP_ARCH_S390",     "SCMP_ARCH_S390X",
        "SCMP_ARCH_X32",       "SCMP_ARCH_X86",      "SCMP_ARCH_X86_64",   NULL,
};

struct seccomp_flag {
        const char *name;
        unsigned int probe; /* flags passed to seccomp(2) to test kernel support */
};

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

/* WAIT_KILLABLE_RECV is only valid together with NEW_LISTENER, so it is
 * probed that way (as runc does). */
static const struct seccomp_flag seccomp_flags[] = {
        { "SECCOMP_FILTER_FLAG_TSYNC", SECCOMP_FILTER_FLAG_TSYNC },
        { "SECCOMP_FILTER_FLAG_LOG", SECCOMP_FILTER_FLAG_LOG },
        { "SECCOMP_FILTER_FLAG_SPEC_ALLOW", SECCOMP_FILTER_FLAG_SPEC_ALLOW },
        { "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV",
          SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV | SECCOMP_FILTER_FLAG_NEW_LISTENER },
};

#define N_SECCOMP_FLAGS (sizeof(seccomp_flags) / sizeof(seccomp_flags[0]))

/* With a NULL program the kernel checks the flags first (EINVAL when it does
 * not know one) and then faults reading the program (EFAULT): nothing is
 * ever installed. */
static bool kernel_knows_seccomp_flags(unsigned int flags)
{
        return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, NULL) < 0 && errno == EFAULT;
}

static void fill_seccomp_flags(const char **known, const char **supported)
{
        size_t n = 0;

        for (size_t i = 0; i < N_SECCOMP_FLAGS; i++) {
                known[i] = seccomp_flags[i].name;
                if (kernel_knows_seccomp_flags(seccomp_flags[i].probe))
                        supported[n++] = seccomp_flags[i].name;
        }
        known[N_SECCOMP_FLAGS] = NULL;
        supported[n] = NULL;
}

/* Capabilities and namespaces come from the parser's own name tables, so the
 * document lists exactly what config.json may name. "time" is left out: the
 * parser knows the name, but bwrap 0.8.0 cannot make a time namespace. */
#define N_CAPS_MAX 64

static void fill_capabilities(const char **out)
{
        size_t n = 0;

        for (int cap = 0; n < N_CAPS_MAX && oci_capability_name(cap) != NULL; cap++)
                out[n++] = oci_capability_name(cap);
        out[n] = NULL;
}

static void fill_namespaces(const char **out)
{
        size_t n = 0;

        for (int t = 0; t < OCI_NS_COUNT; t++)
                if (t != OCI_NS_TIME)
                        out[n++] = oci_namespace_type_name((enum oci_namespace_type)t);
        out[n] = NULL;
}

static int parse_options(int argc, char **argv, struct sb_error *err)
{
        const struct cli_command cmd = {
                .name = "features",
                .usage = "usage: sbrun features [options]\n\n"
                         "Print the runtime-spec features document of this build as JSON.\n",
        };
        int next, r = cli_parse(&cmd, argc, argv, &next, err);

        if (r != 0)
                return r;
        if (next < argc)
                return sb_fail(err, 0, "features: unexpected argument \"%s\"", argv[next]);
        return 0;
}

int cmd_features(const struct global_options *global, int argc, char **argv, struct sb_error *err)
{
        const char *known_flags[N_SECCOMP_FLAGS + 1];
        const char *supported_flags[N_SECCOMP_FLAGS + 1];
        const char *capabilities[N_CAPS_MAX + 1];
        const char *namespaces[OCI_NS_COUNT + 1];
        char libseccomp_version[32];
        const struct scmp_version *v = seccomp_version();
        int r = parse_options(argc, argv, err);

        if (r != 0)
                return r < 0 ? 1 : 0;
        _cleanup_free_ char *criu_version_text = criu_version(criu_program(global->criu));
        fill_seccomp_flags(known_flags, supported_flags);
        fill_capabilities(capabilities);
        fill_namespaces(namespaces);
        bool idmap = idmap_mount_supported();
        const char *options_idmap[sizeof(mount_options) / sizeof(mount_options[0]) + 2];
        if (idmap)
                with_idmap(options_idmap, sizeof(options_idmap) / sizeof(options_idmap[0]));
        snprintf(libseccomp_version, sizeof(libseccomp_version), "%u.%u.%u", v->major, v->minor,
                 v->micro);
        const char *annotations[] = {
                "run.sbrun.version",
                PACKAGE_VERSION,
                "io.github.seccomp.libseccomp.version",
                libseccomp_version,
                /* The spec's document has no field for it: linux.resources
                 * .devices is carried out as a cgroup v2 eBPF program
                 * (runtime/cgroup/device_filter.h). */
                "run.sbrun.cgroup.devices",
                "ebpf",
                /* runc's org.opencontainers.runc.checkpoint.enabled, told
                 * from the criu found (--criu, else PATH) and who asks:
                 * CRIU needs root. `sbrun check` runs `criu check`. */
                "run.sbrun.checkpoint.enabled",
                criu_version_text != NULL && !global->rootless ? "true" : "false",
                criu_version_text != NULL ? "run.sbrun.criu.version" : NULL,
                criu_version_text,
                NULL,
        };
        const struct oci_features features = {
                .oci_version_min = "1.0.0",
                .oci_version_max = SBRUN_OCI_VERSION,
                .hooks = hooks,
                .mount_options = idmap ? options_idmap : mount_options,
                .namespaces = namespaces,
                .capabilities = capabilities,
                .seccomp_actions = seccomp_actions,
                .seccomp_operators = seccomp_operators,
                .seccomp_archs = seccomp_archs,
                .seccomp_flags = supported_flags,
                .seccomp_known_flags = known_flags,
                .annotation_keys = annotations,
                .unsafe_annotations = unsafe_annotations,
                .cgroup_systemd = true,
                .idmap_mounts = idmap,
        };
        _cleanup_free_ char *json = oci_features_to_json(&features, err);

        if (json == NULL)
                return 1;
        if (printf("%s\n", json) < 0 || fflush(stdout) != 0) {
                sb_fail(err, errno, "features: write to stdout");
                return 1;
        }
        return 0;
}
