#include "spec/policy_profiles.h"

#include "common/size_parse.h"

#include <errno.h>
#include <linux/capability.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BIT(c) (1ULL << (c))

/* Docker's default set minus NET_RAW (ARP/ICMP spoofing), MKNOD (device
 * nodes), AUDIT_WRITE and SETFCAP (file capabilities that survive into
 * another user namespace, CVE-2022-2590-style escalations). */
#define STANDARD_CAPS                                                                       \
        (BIT(CAP_CHOWN) | BIT(CAP_DAC_OVERRIDE) | BIT(CAP_FSETID) | BIT(CAP_FOWNER) |       \
         BIT(CAP_SETGID) | BIT(CAP_SETUID) | BIT(CAP_SETPCAP) | BIT(CAP_NET_BIND_SERVICE) | \
         BIT(CAP_SYS_CHROOT) | BIT(CAP_KILL))

#define MiB (1024LL * 1024)

static const struct floor_profile profiles[] = {
        {
                .id = POLICY_STANDARD,
                .name = "standard",
                .caps = STANDARD_CAPS,
                /* Enough for a build or a busy server; a fork bomb stops here.
                 * No default memory/cpu ceiling: ordinary images vary too
                 * much; the operator sets them. A tmpfs would otherwise
                 * take half the host's RAM, and as many inodes as it has
                 * pages (a million empty files fill no size limit). */
                .ceilings = { .pids = 4096, .tmp_size = 1024 * MiB, .inodes = 1024 * 1024 },
        },
        {
                .id = POLICY_STRICT,
                .name = "strict",
                .no_swap = true,
                .no_network = true,
                .no_capabilities = true,
                .readonly_root = true,
                /* A host directory bound in writable is the one place left
                 * where the container can fill a host file system. */
                .volumes_bounded = true,
                /* A disk is shared: one container reading or writing as
                 * fast as it can must leave it usable by the others
                 * (docs/policy.md, "The io ceiling"). */
                .io_required = true,
                .caps = 0,
                .ceilings = { .pids = 256,
                              .memory = 512 * MiB,
                              .cpu_quota = 100000,
                              .cpu_period = 100000,
                              .fsize = 64 * MiB,
                              .nofile = 1024,
                              .tmp_size = 64 * MiB,
                              .inodes = 16 * 1024,
                              .io = { .rbps = 32 * MiB,
                                      .wbps = 32 * MiB,
                                      .riops = 1000,
                                      .wiops = 1000,
                                      .weight = 100 } },
                /* What a foreground `run` forwards of each of stdout and
                 * stderr: a test's or a build's log fits, a `yes` does not
                 * fill the caller's disk (docs/policy.md, "limits.output"). */
                .output_limit = 16 * MiB,
        },
};

const struct floor_profile *policy_profile_get(enum policy_profile id)
{
        for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
                if (profiles[i].id == id)
                        return &profiles[i];
        }
        return NULL;
}

const struct floor_profile *policy_profile_by_name(const char *name)
{
        for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
                if (strcmp(profiles[i].name, name) == 0)
                        return &profiles[i];
        }
        return NULL;
}

int policy_parse_size(const char *text, int64_t *out)
{
        /* A ceiling of 0 would leave the container nothing: refused. */
        return size_parse(text, SIZE_TERA, out) < 0 ? -1 : 0;
}

int policy_parse_cpus(const char *text, int64_t *quota, uint64_t *period)
{
        char *end = NULL;
        errno = 0;
        double cpus = strtod(text, &end);

        if (end == text || *end != '\0' || errno != 0 || !(cpus > 0) || cpus > 4096)
                return -1;
        *period = 100000;
        *quota = (int64_t)llround(cpus * 100000.0);
        return *quota > 0 ? 0 : -1;
}
