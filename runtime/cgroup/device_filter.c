#include "runtime/cgroup/device_filter.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "oci/config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ACC_ALL (BPF_DEVCG_ACC_MKNOD | BPF_DEVCG_ACC_READ | BPF_DEVCG_ACC_WRITE)

struct rule {
        bool allow;
        char type;            /* 'a', 'c' or 'b' */
        int64_t major, minor; /* -1: any */
        int access;           /* BPF_DEVCG_ACC_* bits */
};

/* runc's AllowedDevices (libcontainer/specconv), in its order: engines
 * write "deny all" first and rely on these coming after it. */
static const struct {
        const char *path; /* NULL: a rule with no node of its own */
        struct rule rule;
} default_rules[] = {
        { NULL, { true, 'c', -1, -1, BPF_DEVCG_ACC_MKNOD } },
        { NULL, { true, 'b', -1, -1, BPF_DEVCG_ACC_MKNOD } },
        { "/dev/null", { true, 'c', 1, 3, ACC_ALL } },
        { "/dev/random", { true, 'c', 1, 8, ACC_ALL } },
        { "/dev/full", { true, 'c', 1, 7, ACC_ALL } },
        { "/dev/tty", { true, 'c', 5, 0, ACC_ALL } },
        { "/dev/zero", { true, 'c', 1, 5, ACC_ALL } },
        { "/dev/urandom", { true, 'c', 1, 9, ACC_ALL } },
        { NULL, { true, 'c', 136, -1, ACC_ALL } }, /* /dev/pts/N */
        { NULL, { true, 'c', 5, 2, ACC_ALL } },    /* /dev/ptmx */
        { NULL, { true, 'c', 10, 200, ACC_ALL } }, /* /dev/net/tun */
};
#define N_DEFAULT_RULES (sizeof(default_rules) / sizeof(default_rules[0]))

static bool path_redefined(const struct oci_linux *l, const char *path)
{
        for (size_t i = 0; l != NULL && i < l->n_devices; i++)
                if (l->devices[i].path != NULL && strcmp(l->devices[i].path, path) == 0)
                        return true;
        return false;
}

static int parse_access(const char *s, size_t index, struct sb_error *err)
{
        int bits = 0;

        if (s == NULL || *s == '\0')
                return sb_fail(err, 0,
                               "linux.resources.devices[%zu].access: required (a combination "
                               "of r, w and m)",
                               index);
        for (; *s; s++)
                bits |= *s == 'r' ? BPF_DEVCG_ACC_READ :
                        *s == 'w' ? BPF_DEVCG_ACC_WRITE :
                                    BPF_DEVCG_ACC_MKNOD; /* the parser allows only r, w, m */
        return bits;
}

static int collect_rules(const struct oci_linux *l, struct rule **out, size_t *n,
                         struct sb_error *err)
{
        const struct oci_resources *res = l ? l->resources : NULL;
        size_t n_config = res ? res->n_devices : 0;
        struct rule *rules = calloc(n_config + N_DEFAULT_RULES, sizeof(*rules));
        size_t k = 0;

        if (rules == NULL)
                return sb_fail(err, ENOMEM, "linux.resources.devices");
        for (size_t i = 0; i < n_config; i++) {
                const struct oci_device_cgroup *d = &res->devices[i];
                int access = parse_access(d->access, i, err);
                if (access < 0) {
                        free(rules);
                        return -1;
                }
                rules[k++] = (struct rule){
                        .allow = d->allow,
                        .type = d->type ? d->type[0] : 'a',
                        .major = d->has_major && d->major >= 0 ? d->major : -1,
                        .minor = d->has_minor && d->minor >= 0 ? d->minor : -1,
                        .access = access,
                };
        }
        for (size_t i = 0; i < N_DEFAULT_RULES; i++)
                if (default_rules[i].path == NULL || !path_redefined(l, default_rules[i].path))
                        rules[k++] = default_rules[i].rule;
        *out = rules;
        *n = k;
        return 0;
}

/* struct bpf_cgroup_dev_ctx: u32 access_type (type in the low 16 bits,
 * access in the high), u32 major, u32 minor. Registers: R2 type, R4 major,
 * R5 minor, R6 the access bits asked for that no rule has decided yet,
 * R3 scratch. */
#define INSN(c, d, s, o, i) \
        ((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })
#define LDX_W(d, s, o) INSN(BPF_LDX | BPF_MEM | BPF_W, d, s, o, 0)
#define ALU32_IMM(op, d, i) INSN(BPF_ALU | (op) | BPF_K, d, 0, 0, i)
#define MOV32_REG(d, s) INSN(BPF_ALU | BPF_MOV | BPF_X, d, s, 0, 0)
#define JMP_IMM(op, d, i, o) INSN(BPF_JMP | (op) | BPF_K, d, 0, o, i)
#define EXIT() INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

static const struct bpf_insn prologue[] = {
        LDX_W(BPF_REG_2, BPF_REG_1, 0), ALU32_IMM(BPF_AND, BPF_REG_2, 0xffff),
        LDX_W(BPF_REG_6, BPF_REG_1, 0), ALU32_IMM(BPF_RSH, BPF_REG_6, 16),
        LDX_W(BPF_REG_4, BPF_REG_1, 4), LDX_W(BPF_REG_5, BPF_REG_1, 8),
};
#define N_PROLOGUE (sizeof(prologue) / sizeof(prologue[0]))
#define MAX_RULE_INSNS 10

/* A major or minor the context's u32 cannot hold (or that a sign-extended
 * immediate would misread) names no node: such a rule never matches. */
static bool matches_nothing(const struct rule *r)
{
        return r->major > INT32_MAX || r->minor > INT32_MAX || r->access == 0;
}

/* One rule: if the node matches and it names a bit still undecided, a deny
 * rule denies; an allow rule decides its bits and allows once none is left.
 * Every jump goes to the next rule's first instruction. */
static size_t emit_rule(const struct rule *r, struct bpf_insn *out)
{
        struct bpf_insn block[MAX_RULE_INSNS];
        size_t n = 0;

        if (r->type != 'a')
                block[n++] = JMP_IMM(BPF_JNE, BPF_REG_2,
                                     r->type == 'c' ? BPF_DEVCG_DEV_CHAR : BPF_DEVCG_DEV_BLOCK, 0);
        if (r->major >= 0)
                block[n++] = JMP_IMM(BPF_JNE, BPF_REG_4, (int32_t)r->major, 0);
        if (r->minor >= 0)
                block[n++] = JMP_IMM(BPF_JNE, BPF_REG_5, (int32_t)r->minor, 0);
        block[n++] = MOV32_REG(BPF_REG_3, BPF_REG_6);
        block[n++] = ALU32_IMM(BPF_AND, BPF_REG_3, r->access);
        block[n++] = JMP_IMM(BPF_JEQ, BPF_REG_3, 0, 0);
        if (r->allow) {
                block[n++] = ALU32_IMM(BPF_AND, BPF_REG_6, ~r->access);
                block[n++] = JMP_IMM(BPF_JNE, BPF_REG_6, 0, 0);
        }
        block[n++] = ALU32_IMM(BPF_MOV, BPF_REG_0, r->allow ? 1 : 0);
        block[n++] = EXIT();
        for (size_t i = 0; i < n; i++) {
                if (BPF_CLASS(block[i].code) == BPF_JMP && BPF_OP(block[i].code) != BPF_EXIT)
                        block[i].off = (int16_t)(n - i - 1);
                out[i] = block[i];
        }
        return n;
}

int device_filter_build(const struct oci_linux *l, struct device_filter *out, struct sb_error *err)
{
        _cleanup_free_ struct rule *rules = NULL;
        size_t n_rules = 0, n = 0;

        out->insns = NULL;
        out->n = 0;
        if (collect_rules(l, &rules, &n_rules, err) < 0)
                return -1;
        struct bpf_insn *insns = calloc(N_PROLOGUE + n_rules * MAX_RULE_INSNS + 2, sizeof(*insns));
        if (insns == NULL)
                return sb_fail(err, ENOMEM, "linux.resources.devices");
        memcpy(insns, prologue, sizeof(prologue));
        n = N_PROLOGUE;
        /* Last rule first: the first block that decides is the last rule. */
        for (size_t i = n_rules; i-- > 0;)
                if (!matches_nothing(&rules[i]))
                        n += emit_rule(&rules[i], insns + n);
        /* Bits no rule allowed: default deny. */
        insns[n++] = ALU32_IMM(BPF_MOV, BPF_REG_0, 0);
        insns[n++] = EXIT();
        out->insns = insns;
        out->n = n;
        return 0;
}

void device_filter_release(struct device_filter *f)
{
        free(f->insns);
        f->insns = NULL;
        f->n = 0;
}

static long sys_bpf(int cmd, union bpf_attr *attr)
{
        return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

/* The verifier's last line, to say why a program was refused. */
static void verifier_reason(const struct device_filter *f, char *log, size_t size)
{
        union bpf_attr attr;

        memset(&attr, 0, sizeof(attr));
        attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
        attr.insns = (uint64_t)(uintptr_t)f->insns;
        attr.insn_cnt = (uint32_t)f->n;
        attr.license = (uint64_t)(uintptr_t) "GPL";
        attr.log_buf = (uint64_t)(uintptr_t)log;
        attr.log_size = (uint32_t)size;
        attr.log_level = 1;
        log[0] = '\0';
        long fd = sys_bpf(BPF_PROG_LOAD, &attr);
        if (fd >= 0)
                close((int)fd);
        log[size - 1] = '\0';
        size_t len = strlen(log);
        while (len > 0 && log[len - 1] == '\n')
                log[--len] = '\0';
        char *last = strrchr(log, '\n');
        if (last != NULL)
                memmove(log, last + 1, strlen(last + 1) + 1);
}

int device_filter_attach(const struct device_filter *f, int cgroup_fd, struct sb_error *err)
{
        union bpf_attr attr;

        memset(&attr, 0, sizeof(attr));
        attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
        attr.insns = (uint64_t)(uintptr_t)f->insns;
        attr.insn_cnt = (uint32_t)f->n;
        /* No helper is called, so the license only has to be a valid one. */
        attr.license = (uint64_t)(uintptr_t) "GPL";
        long r = sys_bpf(BPF_PROG_LOAD, &attr);
        if (r < 0) {
                int saved = errno;
                char log[4096];
                if (saved == EACCES || saved == EINVAL) {
                        verifier_reason(f, log, sizeof(log));
                        return sb_fail(err, saved,
                                       "linux.resources.devices: load the device program (%zu "
                                       "instructions): %s",
                                       f->n, log[0] ? log : "refused by the verifier");
                }
                return sb_fail(err, saved,
                               "linux.resources.devices: load the device program (cgroup v2 "
                               "needs CONFIG_CGROUP_BPF and CAP_BPF or CAP_SYS_ADMIN)");
        }
        /* bpf(2) returns its fds close-on-exec. */
        _cleanup_close_ int prog_fd = (int)r;

        memset(&attr, 0, sizeof(attr));
        attr.target_fd = (uint32_t)cgroup_fd;
        attr.attach_bpf_fd = (uint32_t)prog_fd;
        attr.attach_type = BPF_CGROUP_DEVICE;
        attr.attach_flags = BPF_F_ALLOW_MULTI;
        if (sys_bpf(BPF_PROG_ATTACH, &attr) < 0)
                return sb_fail(err, errno,
                               "linux.resources.devices: attach the device program to the "
                               "container's cgroup");
        /* The cgroup holds the program now; closing our fd keeps it. */
        return 0;
}
