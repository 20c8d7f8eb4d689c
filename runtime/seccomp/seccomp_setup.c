#include "runtime/seccomp/seccomp_setup.h"

#include "config.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "oci/config.h"
#include "oci/state.h"
#include "runtime/init/init_plan.h"
#include "runtime/seccomp/seccomp_cache.h"
#include "runtime/seccomp/seccomp_compile.h"
#include "runtime/seccomp/seccomp_notify.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void seccomp_setup_init(struct seccomp_setup *s)
{
        memset(s, 0, sizeof(*s));
        s->listener = s->channel = -1;
}

void seccomp_setup_release(struct seccomp_setup *s)
{
        free(s->bpf);
        if (s->listener >= 0)
                close(s->listener);
        if (s->channel >= 0)
                close(s->channel);
        seccomp_setup_init(s);
}

static int build(void *data, uint8_t **bpf, size_t *size, struct sb_error *err)
{
        return seccomp_compile(data, bpf, size, err);
}

int seccomp_setup_prepare(const struct oci_config *config, const char *state_root,
                          struct seccomp_setup *s, struct sb_error *err)
{
        _cleanup_free_ uint8_t *key = NULL;
        size_t key_len = 0;

        s->profile = config->linux_ ? config->linux_->seccomp : NULL;
        if (s->profile == NULL)
                return 0;
        if (seccomp_load_flags(s->profile, &s->load_flags, err) < 0 ||
            seccomp_profile_key(s->profile, &key, &key_len, err) < 0)
                return -1;
        return seccomp_cache_get(state_root, key, key_len, build, (void *)s->profile, &s->bpf,
                                 &s->size, err);
}

int seccomp_setup_check(const struct oci_config *config, struct sb_error *err)
{
        const struct oci_seccomp *profile = config->linux_ ? config->linux_->seccomp : NULL;
        _cleanup_free_ uint8_t *bpf = NULL;
        uint32_t flags;
        size_t size;

        if (profile == NULL)
                return 0;
        if (seccomp_load_flags(profile, &flags, err) < 0)
                return -1;
        return seccomp_compile(profile, &bpf, &size, err);
}

int seccomp_setup_open_channel(struct seccomp_setup *s, struct sb_error *err)
{
        int sv[2];

        if (s->profile == NULL || !(s->load_flags & SECCOMP_FILTER_FLAG_NEW_LISTENER)) {
                int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
                return fd < 0 ? sb_fail(err, errno, "open /dev/null") : fd;
        }
        s->listener = seccomp_notify_connect(s->profile->listener_path, err);
        if (s->listener < 0)
                return -1;
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
                return sb_fail(err, errno, "seccomp notify: socketpair");
        s->channel = sv[0];
        return sv[1];
}

static void *grow(void *p, size_t n, size_t item)
{
        return realloc(p, (n + 1) * item);
}

int seccomp_setup_to_plan(const struct seccomp_setup *s, int init_channel_fd,
                          struct init_plan *plan, struct sb_error *err)
{
        size_t n = plan->n_seccomp_programs;
        uint8_t **progs;
        size_t *sizes;
        uint32_t *flags;

        if (s->bpf == NULL)
                return 0;
        /* Each array is stored back at once, so a failure leaves the plan
         * consistent for init_plan_release. */
        if ((progs = grow(plan->seccomp_programs, n, sizeof(*progs))) == NULL)
                return sb_fail(err, ENOMEM, "linux.seccomp");
        plan->seccomp_programs = progs;
        if ((sizes = grow(plan->seccomp_program_sizes, n, sizeof(*sizes))) == NULL)
                return sb_fail(err, ENOMEM, "linux.seccomp");
        plan->seccomp_program_sizes = sizes;
        flags = grow(plan->seccomp_program_flags, n, sizeof(*flags));
        if (flags == NULL)
                return sb_fail(err, ENOMEM, "linux.seccomp");
        if (plan->seccomp_program_flags == NULL)
                memset(flags, 0, n * sizeof(*flags));
        plan->seccomp_program_flags = flags;
        if ((progs[n] = malloc(s->size)) == NULL)
                return sb_fail(err, ENOMEM, "linux.seccomp");
        memcpy(progs[n], s->bpf, s->size);
        sizes[n] = s->size;
        flags[n] = s->load_flags;
        plan->n_seccomp_programs = n + 1;
        plan->seccomp_notify_fd = s->channel >= 0 ? init_channel_fd : -1;
        return 0;
}

int seccomp_setup_notify(struct seccomp_setup *s, const struct oci_config *config, const char *id,
                         int pid, const char *bundle, struct sb_error *err)
{
        /* runc sends "creating": the process exists, start has not run. */
        struct oci_state state = {
                .oci_version = (char *)SBRUN_OCI_VERSION,
                .id = (char *)id,
                .status = (char *)"creating",
                .pid = pid,
                .bundle = (char *)bundle,
                .annotations = config->annotations,
                .n_annotations = config->n_annotations,
        };
        _cleanup_free_ char *json = NULL;
        int rc;

        if (s->channel < 0)
                return 0;
        json = seccomp_notify_state_json(&state, s->profile->listener_metadata, err);
        if (json == NULL)
                return -1;
        rc = seccomp_notify_hand_over(s->channel, s->listener, json, err);
        close(s->channel);
        close(s->listener);
        s->channel = s->listener = -1;
        return rc;
}
