#include "runtime/seccomp/seccomp_compile.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/log.h"
#include "oci/config.h"

#include <ctype.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

/* The kernel caps an errno at 4095 (MAX_ERRNO); SECCOMP_RET_DATA has 16 bits. */
#define MAX_ERRNO_RET 4095
#define MAX_TRACE_MSG 0xffff

/* Bumped whenever the compiler's output for the same profile changes. */
#define COMPILER_VERSION "sbrun-seccomp-bpf-1"

static void scmp_ctx_release(scmp_filter_ctx *ctx)
{
        if (*ctx != NULL)
                seccomp_release(*ctx);
}
#define _cleanup_scmp_ __attribute__((cleanup(scmp_ctx_release)))

static bool is_action(const char *a, const char *name)
{
        return a != NULL && strcmp(a, name) == 0;
}

int seccomp_profile_uses_notify(const struct oci_seccomp *s)
{
        if (is_action(s->default_action, "SCMP_ACT_NOTIFY"))
                return 1;
        for (size_t i = 0; i < s->n_syscalls; i++)
                if (is_action(s->syscalls[i].action, "SCMP_ACT_NOTIFY"))
                        return 1;
        return 0;
}

/* `field` names the JSON path of the action, for the message. ERRNO and
 * TRACE default to EPERM, as runc does. */
static int action_value(const char *name, bool has_ret, uint32_t ret, const char *field,
                        uint32_t *out, struct sb_error *err)
{
        uint32_t value = has_ret ? ret : EPERM;

        if (strcmp(name, "SCMP_ACT_ERRNO") == 0 || strcmp(name, "SCMP_ACT_TRACE") == 0) {
                bool errno_action = strcmp(name, "SCMP_ACT_ERRNO") == 0;
                uint32_t max = errno_action ? MAX_ERRNO_RET : MAX_TRACE_MSG;
                if (value > max)
                        return sb_fail(err, 0, "%s: %u is out of range for %s (0..%u)", field,
                                       value, name, max);
                *out = errno_action ? SCMP_ACT_ERRNO(value) : SCMP_ACT_TRACE(value);
                return 0;
        }
        static const struct {
                const char *name;
                uint32_t value;
        } plain[] = {
                { "SCMP_ACT_KILL", SCMP_ACT_KILL },
                { "SCMP_ACT_KILL_THREAD", SCMP_ACT_KILL_THREAD },
                { "SCMP_ACT_KILL_PROCESS", SCMP_ACT_KILL_PROCESS },
                { "SCMP_ACT_TRAP", SCMP_ACT_TRAP },
                { "SCMP_ACT_ALLOW", SCMP_ACT_ALLOW },
                { "SCMP_ACT_LOG", SCMP_ACT_LOG },
                { "SCMP_ACT_NOTIFY", SCMP_ACT_NOTIFY },
        };
        for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
                if (strcmp(name, plain[i].name) == 0) {
                        *out = plain[i].value;
                        return 0;
                }
        }
        return sb_fail(err, 0, "%s: unknown seccomp action \"%s\"", field, name);
}

static int compare_op(const char *name, enum scmp_compare *out)
{
        static const struct {
                const char *name;
                enum scmp_compare op;
        } ops[] = {
                { "SCMP_CMP_NE", SCMP_CMP_NE },
                { "SCMP_CMP_LT", SCMP_CMP_LT },
                { "SCMP_CMP_LE", SCMP_CMP_LE },
                { "SCMP_CMP_EQ", SCMP_CMP_EQ },
                { "SCMP_CMP_GE", SCMP_CMP_GE },
                { "SCMP_CMP_GT", SCMP_CMP_GT },
                { "SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ },
        };
        for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
                if (strcmp(name, ops[i].name) == 0) {
                        *out = ops[i].op;
                        return 0;
                }
        }
        return -1;
}

/* "SCMP_ARCH_X86_64" → libseccomp's "x86_64". */
static uint32_t resolve_arch(const char *oci_name)
{
        static const char prefix[] = "SCMP_ARCH_";
        char lower[64];
        size_t n = 0;

        if (strncmp(oci_name, prefix, sizeof(prefix) - 1) != 0)
                return 0;
        for (const char *p = oci_name + sizeof(prefix) - 1; *p && n < sizeof(lower) - 1; p++)
                lower[n++] = (char)tolower((unsigned char)*p);
        lower[n] = '\0';
        return seccomp_arch_resolve_name(lower);
}

static int add_architectures(scmp_filter_ctx ctx, const struct oci_seccomp *s, struct sb_error *err)
{
        for (size_t i = 0; i < s->n_architectures; i++) {
                uint32_t arch = resolve_arch(s->architectures[i]);
                if (arch == 0)
                        return sb_fail(
                                err, 0,
                                "linux.seccomp.architectures[%zu]: \"%s\" is not supported by libseccomp %u.%u.%u",
                                i, s->architectures[i], seccomp_version()->major,
                                seccomp_version()->minor, seccomp_version()->micro);
                int rc = seccomp_arch_add(ctx, arch);
                if (rc < 0 && rc != -EEXIST) /* the native one is always there */
                        return sb_fail(err, -rc, "linux.seccomp.architectures[%zu]: add \"%s\"", i,
                                       s->architectures[i]);
        }
        return 0;
}

/* As runc: several conditions on one argument cannot be one AND-ed rule in
 * libseccomp, so they become one rule each (OR); otherwise all the
 * conditions make one rule (AND). */
static int add_rule(scmp_filter_ctx ctx, int nr, uint32_t action,
                    const struct oci_seccomp_syscall *sc, const char *field, struct sb_error *err)
{
        struct scmp_arg_cmp cmp[6];
        unsigned int seen[6] = { 0 };
        bool same_index = false;
        int rc;

        if (sc->n_args > 6)
                return sb_fail(err, 0, "%s.args: at most 6 conditions, got %zu", field, sc->n_args);
        for (size_t i = 0; i < sc->n_args; i++) {
                const struct oci_seccomp_arg *a = &sc->args[i];
                enum scmp_compare op;
                if (a->index > 5)
                        return sb_fail(err, 0, "%s.args[%zu].index: %u is not 0..5", field, i,
                                       a->index);
                if (compare_op(a->op, &op) < 0)
                        return sb_fail(err, 0, "%s.args[%zu].op: unknown seccomp operator \"%s\"",
                                       field, i, a->op);
                cmp[i] = (struct scmp_arg_cmp){ a->index, op, a->value, a->value_two };
                same_index |= seen[a->index]++ > 0;
        }
        if (!same_index) {
                rc = seccomp_rule_add_array(ctx, action, nr, (unsigned int)sc->n_args, cmp);
                if (rc < 0)
                        return sb_fail(err, -rc, "%s: add rule", field);
                return 0;
        }
        for (size_t i = 0; i < sc->n_args; i++) {
                rc = seccomp_rule_add_array(ctx, action, nr, 1, &cmp[i]);
                if (rc < 0)
                        return sb_fail(err, -rc, "%s.args[%zu]: add rule", field, i);
        }
        return 0;
}

static int add_syscalls(scmp_filter_ctx ctx, const struct oci_seccomp *s, uint32_t default_action,
                        struct sb_error *err)
{
        char field[96];

        for (size_t i = 0; i < s->n_syscalls; i++) {
                const struct oci_seccomp_syscall *sc = &s->syscalls[i];
                uint32_t action;

                snprintf(field, sizeof(field), "linux.seccomp.syscalls[%zu].action", i);
                if (action_value(sc->action, sc->has_errno_ret, sc->errno_ret, field, &action,
                                 err) < 0)
                        return -1;
                /* libseccomp refuses a rule that repeats the default (EACCES);
                 * it would change nothing. */
                if (action == default_action)
                        continue;
                for (size_t j = 0; j < sc->n_names; j++) {
                        int nr = seccomp_syscall_resolve_name(sc->names[j]);
                        if (nr == __NR_SCMP_ERROR) {
                                sb_warn("linux.seccomp.syscalls[%zu].names[%zu]: syscall \"%s\" is unknown to libseccomp %u.%u.%u, skipped",
                                        i, j, sc->names[j], seccomp_version()->major,
                                        seccomp_version()->minor, seccomp_version()->micro);
                                continue;
                        }
                        snprintf(field, sizeof(field), "linux.seccomp.syscalls[%zu] (\"%s\")", i,
                                 sc->names[j]);
                        if (add_rule(ctx, nr, action, sc, field, err) < 0)
                                return -1;
                }
        }
        return 0;
}

static bool profile_names(const struct oci_seccomp *s, const char *name)
{
        for (size_t i = 0; i < s->n_syscalls; i++)
                for (size_t j = 0; j < s->syscalls[i].n_names; j++)
                        if (strcmp(s->syscalls[i].names[j], name) == 0)
                                return true;
        return false;
}

/* glibc tries clone3 first and falls back to clone only on ENOSYS: a profile
 * older than clone3 would otherwise answer EPERM and break every new thread
 * (runc patches its filter for the same reason). A profile that allows by
 * default, or names clone3 itself, gets what it says. */
static int add_clone3_enosys(scmp_filter_ctx ctx, const struct oci_seccomp *s,
                             uint32_t default_action, struct sb_error *err)
{
        int nr;

        if (default_action == SCMP_ACT_ALLOW || default_action == SCMP_ACT_LOG ||
            profile_names(s, "clone3"))
                return 0;
        nr = seccomp_syscall_resolve_name("clone3");
        if (nr == __NR_SCMP_ERROR)
                return 0;
        int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
        if (rc < 0 && rc != -EACCES)
                return sb_fail(err, -rc, "linux.seccomp: add the clone3 ENOSYS rule");
        return 0;
}

/* libseccomp 2.5 exports only into an fd. */
int seccomp_compile_export(void *ctx, uint8_t **bpf, size_t *size, struct sb_error *err)
{
        _cleanup_close_ int fd = memfd_create("sbrun-seccomp-bpf", MFD_CLOEXEC);
        struct stat st;
        int rc;

        if (fd < 0)
                return sb_fail(err, errno, "linux.seccomp: memfd_create");
        rc = seccomp_export_bpf(ctx, fd);
        if (rc < 0)
                return sb_fail(err, -rc, "linux.seccomp: export the BPF program");
        if (fstat(fd, &st) < 0)
                return sb_fail(err, errno, "linux.seccomp: stat the BPF program");
        size_t len = (size_t)st.st_size;
        if (len == 0 || len % sizeof(struct sock_filter) != 0 ||
            len / sizeof(struct sock_filter) > BPF_MAXINSNS)
                return sb_fail(
                        err, E2BIG,
                        "linux.seccomp: the compiled program has %zu bytes, the kernel takes at most %d instructions",
                        len, BPF_MAXINSNS);
        _cleanup_free_ uint8_t *buf = malloc(len);
        if (buf == NULL)
                return sb_fail(err, ENOMEM, "linux.seccomp: BPF program");
        if (pread(fd, buf, len, 0) != (ssize_t)len)
                return sb_fail(err, errno ? errno : EIO, "linux.seccomp: read the BPF program");
        *bpf = SB_STEAL_PTR(buf);
        *size = len;
        return 0;
}

int seccomp_compile(const struct oci_seccomp *s, uint8_t **bpf, size_t *size, struct sb_error *err)
{
        _cleanup_scmp_ scmp_filter_ctx ctx = NULL;
        uint32_t default_action;

        if (action_value(s->default_action, s->has_default_errno_ret, s->default_errno_ret,
                         "linux.seccomp.defaultAction", &default_action, err) < 0)
                return -1;
        ctx = seccomp_init(default_action);
        if (ctx == NULL)
                return sb_fail(
                        err, 0,
                        "linux.seccomp.defaultAction: libseccomp (API level %u) cannot use %s",
                        seccomp_api_get(), s->default_action);
        if (add_architectures(ctx, s, err) < 0 || add_syscalls(ctx, s, default_action, err) < 0 ||
            add_clone3_enosys(ctx, s, default_action, err) < 0)
                return -1;
        return seccomp_compile_export(ctx, bpf, size, err);
}

/* ---------------------------------------------------------------------- */
/* load flags */

/* With a NULL program the kernel checks the flags first (EINVAL when it does
 * not know one) and then faults reading the program: nothing is installed. */
static bool kernel_knows_flags(unsigned long flags)
{
        return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, NULL) < 0 && errno == EFAULT;
}

int seccomp_load_flags(const struct oci_seccomp *s, uint32_t *out, struct sb_error *err)
{
        static const struct {
                const char *name;
                uint32_t flag;
        } known[] = {
                { "SECCOMP_FILTER_FLAG_TSYNC", SECCOMP_FILTER_FLAG_TSYNC },
                { "SECCOMP_FILTER_FLAG_LOG", SECCOMP_FILTER_FLAG_LOG },
                { "SECCOMP_FILTER_FLAG_SPEC_ALLOW", SECCOMP_FILTER_FLAG_SPEC_ALLOW },
                { "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV",
                  SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV },
        };
        bool notify = seccomp_profile_uses_notify(s);
        uint32_t flags = notify ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0;

        for (size_t i = 0; i < s->n_flags; i++) {
                uint32_t flag = 0;
                for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++)
                        if (strcmp(s->flags[i], known[k].name) == 0)
                                flag = known[k].flag;
                if (flag == 0)
                        return sb_fail(err, 0, "linux.seccomp.flags[%zu]: unknown flag \"%s\"", i,
                                       s->flags[i]);
                /* It only changes how a notifying syscall waits (Linux 5.19). */
                if (flag == SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV && !notify) {
                        sb_warn("linux.seccomp.flags[%zu]: %s has no effect without SCMP_ACT_NOTIFY, ignored",
                                i, s->flags[i]);
                        continue;
                }
                unsigned long probe = flag;
                if (flag == SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)
                        probe |= SECCOMP_FILTER_FLAG_NEW_LISTENER;
                if (!kernel_knows_flags(probe))
                        return sb_fail(
                                err, 0,
                                "linux.seccomp.flags[%zu]: %s is not supported by this kernel", i,
                                s->flags[i]);
                flags |= flag;
        }
        /* The kernel refuses TSYNC with a listener unless a failed sync
         * reports ESRCH instead of a thread id, which could pass for a fd. */
        if ((flags & SECCOMP_FILTER_FLAG_TSYNC) && (flags & SECCOMP_FILTER_FLAG_NEW_LISTENER))
                flags |= SECCOMP_FILTER_FLAG_TSYNC_ESRCH;
        *out = flags;
        return 0;
}

/* ---------------------------------------------------------------------- */
/* cache key */

static void put_str(FILE *f, const char *tag, const char *s)
{
        if (s == NULL)
                fprintf(f, "%s-\n", tag);
        else
                fprintf(f, "%s%zu:%s\n", tag, strlen(s), s);
}

int seccomp_profile_key(const struct oci_seccomp *s, uint8_t **key, size_t *len,
                        struct sb_error *err)
{
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        const struct scmp_version *v = seccomp_version();

        if (f == NULL)
                return sb_fail(err, errno, "linux.seccomp: cache key");
        /* Lengths before every string keep two profiles from ever meeting in
         * the same bytes. Flags are left out: they are not in the BPF. */
        fprintf(f, "%s\nlibseccomp %u.%u.%u api %u native %u\n", COMPILER_VERSION, v->major,
                v->minor, v->micro, seccomp_api_get(), seccomp_arch_native());
        put_str(f, "default ", s->default_action);
        fprintf(f, "errno %d %u\n", s->has_default_errno_ret, s->default_errno_ret);
        for (size_t i = 0; i < s->n_architectures; i++)
                put_str(f, "arch ", s->architectures[i]);
        for (size_t i = 0; i < s->n_syscalls; i++) {
                const struct oci_seccomp_syscall *sc = &s->syscalls[i];
                fprintf(f, "syscall %zu names %zu\n", i, sc->n_names);
                for (size_t j = 0; j < sc->n_names; j++)
                        put_str(f, "name ", sc->names[j]);
                put_str(f, "action ", sc->action);
                fprintf(f, "errno %d %u args %zu\n", sc->has_errno_ret, sc->errno_ret, sc->n_args);
                for (size_t j = 0; j < sc->n_args; j++) {
                        const struct oci_seccomp_arg *a = &sc->args[j];
                        fprintf(f, "arg %u %llu %llu ", a->index, (unsigned long long)a->value,
                                (unsigned long long)a->value_two);
                        put_str(f, "op ", a->op);
                }
        }
        if (ferror(f)) {
                fclose(f);
                free(buf);
                return sb_fail(err, ENOMEM, "linux.seccomp: cache key");
        }
        fclose(f);
        *key = (uint8_t *)buf;
        *len = size;
        return 0;
}
