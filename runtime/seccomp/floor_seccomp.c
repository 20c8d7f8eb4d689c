#include "runtime/seccomp/floor_seccomp.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "runtime/init/init_plan.h"
#include "runtime/seccomp/seccomp_cache.h"
#include "runtime/seccomp/seccomp_compile.h"
#include "runtime/seccomp/seccomp_setup.h"
#include "spec/floor_seccomp_rules.h"

#include <errno.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* Bumped whenever the same rules would compile differently. */
#define FLOOR_COMPILER_VERSION "sbrun-floor-seccomp-1"

/* The deny-list comes in two variants, so that each is one cached program:
 * without the file-attribute ioctls or with them; so does the allow-list:
 * without or with sd_notify's datagram socket. The numbers are in the
 * cache key (tests/adversarial/floor_syscalls.bats reads them). */
enum floor_program {
        FLOOR_DENY_LIST,
        FLOOR_ALLOW_LIST,
        FLOOR_DENY_LIST_ATTRS,
        FLOOR_ALLOW_LIST_NOTIFY
};

void floor_seccomp_release(struct floor_seccomp *f)
{
        for (size_t i = 0; i < FLOOR_SECCOMP_MAX_PROGRAMS; i++)
                free(f->bpf[i]);
        memset(f, 0, sizeof(*f));
}

static void scmp_ctx_release(scmp_filter_ctx *ctx)
{
        if (*ctx != NULL)
                seccomp_release(*ctx);
}
#define _cleanup_scmp_ __attribute__((cleanup(scmp_ctx_release)))

/* Only the native table: a syscall through int 0x80 (i386) or with the x32
 * bit set comes with another audit arch or number range, gets the "bad
 * arch" action and kills the process. A filter that lists only native
 * numbers would otherwise let `int $0x80` reach every 32-bit syscall. */
static scmp_filter_ctx new_filter(uint32_t default_action, struct sb_error *err)
{
        scmp_filter_ctx ctx = seccomp_init(default_action);
        int rc;

        if (ctx == NULL) {
                sb_fail(err, 0, "floor seccomp: libseccomp cannot make a filter");
                return NULL;
        }
        rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
        if (rc < 0) {
                seccomp_release(ctx);
                sb_fail(err, -rc, "floor seccomp: kill other architectures");
                return NULL;
        }
        return ctx;
}

/* A name this architecture lacks (stime, umount… on x86_64) resolves to a
 * negative pseudo number: there is nothing to filter. */
static int add(scmp_filter_ctx ctx, const char *name, uint32_t action, unsigned int n_args,
               const struct scmp_arg_cmp *args, struct sb_error *err)
{
        int nr = seccomp_syscall_resolve_name(name);
        int rc;

        if (nr < 0)
                return 0;
        rc = seccomp_rule_add_array(ctx, action, nr, n_args, args);
        if (rc < 0)
                return sb_fail(err, -rc, "floor seccomp: rule for %s", name);
        return 0;
}

static int deny_ioctls(scmp_filter_ctx ctx, const uint32_t *requests, size_t n,
                       struct sb_error *err)
{
        for (size_t i = 0; i < n; i++) {
                struct scmp_arg_cmp cmp = SCMP_A1(SCMP_CMP_MASKED_EQ, UINT32_MAX, requests[i]);
                if (add(ctx, "ioctl", SCMP_ACT_ERRNO(EPERM), 1, &cmp, err) < 0)
                        return -1;
        }
        return 0;
}

static int build_deny_list(scmp_filter_ctx ctx, bool attrs, struct sb_error *err)
{
        for (size_t i = 0; i < floor_standard_deny_len; i++)
                if (add(ctx, floor_standard_deny[i].name,
                        SCMP_ACT_ERRNO((uint32_t)floor_standard_deny[i].errnum), 0, NULL, err) < 0)
                        return -1;
        /* One rule per flag: any one of them is enough to refuse. */
        for (size_t i = 0; i < floor_clone_new_flags_len; i++) {
                uint64_t flag = floor_clone_new_flags[i];
                struct scmp_arg_cmp cmp = SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag);
                if (add(ctx, "clone", SCMP_ACT_ERRNO(EPERM), 1, &cmp, err) < 0)
                        return -1;
        }
        if (deny_ioctls(ctx, floor_ioctl_deny, floor_ioctl_deny_len, err) < 0)
                return -1;
        return attrs ? deny_ioctls(ctx, floor_attr_ioctl_deny, floor_attr_ioctl_deny_len, err) : 0;
}

/* sd_notify as libsystemd and go-systemd send it: socket(AF_UNIX,
 * SOCK_DGRAM), connect to NOTIFY_SOCKET (or sendmsg with its address),
 * send. Without network (strict's namespace is empty, Landlock refuses
 * TCP connects) such a socket reaches only the datagram sockets the
 * container's mounts show and abstract ones of its own namespace: the
 * proxy's, docs/policy.md#strict. */
static int allow_notify(scmp_filter_ctx ctx, struct sb_error *err)
{
        const struct scmp_arg_cmp unix_dgram[] = {
                SCMP_A0(SCMP_CMP_EQ, AF_UNIX),
                SCMP_A1(SCMP_CMP_MASKED_EQ, ~(uint64_t)(SOCK_CLOEXEC | SOCK_NONBLOCK), SOCK_DGRAM),
        };

        if (add(ctx, "socket", SCMP_ACT_ALLOW, 2, unix_dgram, err) < 0)
                return -1;
        return add(ctx, "connect", SCMP_ACT_ALLOW, 0, NULL, err);
}

static int build_allow_list(scmp_filter_ctx ctx, bool notify, struct sb_error *err)
{
        struct scmp_arg_cmp unix_only = SCMP_A0(SCMP_CMP_EQ, AF_UNIX);

        for (size_t i = 0; i < floor_strict_allow_len; i++)
                if (add(ctx, floor_strict_allow[i], SCMP_ACT_ALLOW, 0, NULL, err) < 0)
                        return -1;
        /* EPERM from clone3 would break every new thread: glibc falls back
         * to clone only on ENOSYS. */
        if (add(ctx, "clone3", SCMP_ACT_ERRNO(ENOSYS), 0, NULL, err) < 0)
                return -1;
        if (notify && allow_notify(ctx, err) < 0)
                return -1;
        /* A pipe-like pair between the container's own processes; no other
         * family reaches anything. */
        return add(ctx, "socketpair", SCMP_ACT_ALLOW, 1, &unix_only, err);
}

static int build(void *data, uint8_t **bpf, size_t *size, struct sb_error *err)
{
        enum floor_program which = *(const enum floor_program *)data;
        bool allow_list = which == FLOOR_ALLOW_LIST || which == FLOOR_ALLOW_LIST_NOTIFY;
        _cleanup_scmp_ scmp_filter_ctx ctx =
                new_filter(allow_list ? SCMP_ACT_ERRNO(EPERM) : SCMP_ACT_ALLOW, err);

        if (ctx == NULL)
                return -1;
        if ((allow_list ? build_allow_list(ctx, which == FLOOR_ALLOW_LIST_NOTIFY, err) :
                          build_deny_list(ctx, which == FLOOR_DENY_LIST_ATTRS, err)) < 0)
                return -1;
        return seccomp_compile_export(ctx, bpf, size, err);
}

/* The rules themselves are part of the key, so an edited list can never
 * meet a program compiled from the old one. */
static int program_key(enum floor_program which, char **key, size_t *len, struct sb_error *err)
{
        const struct scmp_version *v = seccomp_version();
        FILE *f = open_memstream(key, len);

        if (f == NULL)
                return sb_fail(err, errno, "floor seccomp: cache key");
        fprintf(f, "%s\nprogram %d\nlibseccomp %u.%u.%u api %u native %u\n", FLOOR_COMPILER_VERSION,
                (int)which, v->major, v->minor, v->micro, seccomp_api_get(), seccomp_arch_native());
        if (which != FLOOR_ALLOW_LIST && which != FLOOR_ALLOW_LIST_NOTIFY) {
                for (size_t i = 0; i < floor_standard_deny_len; i++)
                        fprintf(f, "deny %s %d\n", floor_standard_deny[i].name,
                                floor_standard_deny[i].errnum);
                for (size_t i = 0; i < floor_clone_new_flags_len; i++)
                        fprintf(f, "clone %llx\n", (unsigned long long)floor_clone_new_flags[i]);
                for (size_t i = 0; i < floor_ioctl_deny_len; i++)
                        fprintf(f, "ioctl %x\n", floor_ioctl_deny[i]);
                for (size_t i = 0; which == FLOOR_DENY_LIST_ATTRS && i < floor_attr_ioctl_deny_len;
                     i++)
                        fprintf(f, "ioctl %x\n", floor_attr_ioctl_deny[i]);
        } else {
                for (size_t i = 0; i < floor_strict_allow_len; i++)
                        fprintf(f, "allow %s\n", floor_strict_allow[i]);
                if (which == FLOOR_ALLOW_LIST_NOTIFY)
                        fprintf(f, "allow socket unix dgram\nallow connect\n");
        }
        if (ferror(f)) {
                fclose(f);
                free(*key);
                *key = NULL;
                return sb_fail(err, ENOMEM, "floor seccomp: cache key");
        }
        fclose(f);
        return 0;
}

static int prepare_program(enum floor_program which, const char *state_root,
                           struct floor_seccomp *f, struct sb_error *err)
{
        _cleanup_free_ char *key = NULL;
        size_t len = 0;

        if (program_key(which, &key, &len, err) < 0)
                return -1;
        if (seccomp_cache_get(state_root, (const uint8_t *)key, len, build, &which, &f->bpf[f->n],
                              &f->size[f->n], err) < 0)
                return -1;
        f->n++;
        return 0;
}

int floor_seccomp_prepare(enum policy_profile profile, bool lock_file_attrs, bool notify,
                          const char *state_root, struct floor_seccomp *f, struct sb_error *err)
{
        memset(f, 0, sizeof(*f));
        f->profile = profile;
        if (prepare_program(lock_file_attrs ? FLOOR_DENY_LIST_ATTRS : FLOOR_DENY_LIST, state_root,
                            f, err) < 0)
                return -1;
        if (f->profile >= POLICY_STRICT &&
            prepare_program(notify ? FLOOR_ALLOW_LIST_NOTIFY : FLOOR_ALLOW_LIST, state_root, f,
                            err) < 0)
                return -1;
        return 0;
}

int floor_seccomp_to_plan(const struct floor_seccomp *f, struct init_plan *plan,
                          struct sb_error *err)
{
        for (size_t i = 0; i < f->n; i++) {
                /* No flags and no listener: a plain program, loaded first. */
                struct seccomp_setup s = {
                        .bpf = f->bpf[i], .size = f->size[i], .listener = -1, .channel = -1
                };
                if (seccomp_setup_to_plan(&s, -1, plan, err) < 0)
                        return sb_error_prefix(err, "floor seccomp");
        }
        return 0;
}
