/* Runs a seccomp program from sbrun's cache (<root>/.seccomp-cache/NAME.bpf)
 * on one made-up syscall, in user space, and prints the action: lets the
 * tests check what the floor answers for an architecture the test
 * machine's kernel may not even have (i386 through int 0x80, x32).
 *
 *   bpf_eval ENTRY x86_64|i386 NR [ARG0 [ARG1…]]  → "allow", "errno N", "kill_process", …
 *   bpf_eval ENTRY key                     → the entry's cache key text
 */
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry_header { /* runtime/seccomp/seccomp_cache.c */
        char magic[8];
        uint32_t version, reserved;
        uint64_t key_len, bpf_len, checksum;
};

static uint32_t run(const struct sock_filter *f, size_t n, const struct seccomp_data *d)
{
        uint32_t a = 0, x = 0;
        for (size_t pc = 0; pc < n; pc++) {
                const struct sock_filter *i = &f[pc];
                switch (i->code) {
                case BPF_LD | BPF_W | BPF_ABS:
                        if (i->k + 4 > sizeof(*d))
                                return SECCOMP_RET_KILL_PROCESS;
                        memcpy(&a, (const char *)d + i->k, 4);
                        break;
                case BPF_LDX | BPF_W | BPF_MEM:
                case BPF_ST:
                        return SECCOMP_RET_KILL_PROCESS; /* not emitted by libseccomp here */
                case BPF_ALU | BPF_AND | BPF_K:
                        a &= i->k;
                        break;
                case BPF_ALU | BPF_OR | BPF_K:
                        a |= i->k;
                        break;
                case BPF_MISC | BPF_TAX:
                        x = a;
                        break;
                case BPF_MISC | BPF_TXA:
                        a = x;
                        break;
                case BPF_JMP | BPF_JA:
                        pc += i->k;
                        break;
                case BPF_JMP | BPF_JEQ | BPF_K:
                        pc += a == i->k ? i->jt : i->jf;
                        break;
                case BPF_JMP | BPF_JGT | BPF_K:
                        pc += a > i->k ? i->jt : i->jf;
                        break;
                case BPF_JMP | BPF_JGE | BPF_K:
                        pc += a >= i->k ? i->jt : i->jf;
                        break;
                case BPF_JMP | BPF_JSET | BPF_K:
                        pc += (a & i->k) ? i->jt : i->jf;
                        break;
                case BPF_RET | BPF_K:
                        return i->k;
                case BPF_RET | BPF_A:
                        return a;
                default:
                        fprintf(stderr, "bpf_eval: unknown instruction %#x at %zu\n", i->code, pc);
                        exit(2);
                }
        }
        return SECCOMP_RET_KILL_PROCESS;
}

int main(int argc, char **argv)
{
        struct entry_header h;
        FILE *f = argc > 2 ? fopen(argv[1], "rb") : NULL;
        if (f == NULL || fread(&h, sizeof(h), 1, f) != 1)
                return fprintf(stderr, "usage: bpf_eval ENTRY x86_64|i386 NR [ARG0…] | key\n"), 2;
        char *key = calloc(1, h.key_len + 1);
        struct sock_filter *prog = malloc(h.bpf_len);
        if (!key || !prog || fread(key, h.key_len, 1, f) != 1 || fread(prog, h.bpf_len, 1, f) != 1)
                return fprintf(stderr, "bpf_eval: short entry\n"), 2;
        if (strcmp(argv[2], "key") == 0)
                return fputs(key, stdout), 0;
        struct seccomp_data d = {
                .nr = (int)strtoul(argv[3], NULL, 0),
                .arch = strcmp(argv[2], "i386") == 0 ? AUDIT_ARCH_I386 : AUDIT_ARCH_X86_64,
        };
        for (int i = 4; i < argc && i - 4 < 6; i++)
                d.args[i - 4] = strtoull(argv[i], NULL, 0);
        uint32_t r = run(prog, h.bpf_len / sizeof(*prog), &d);
        switch (r & SECCOMP_RET_ACTION_FULL) {
        case SECCOMP_RET_ALLOW:
                puts("allow");
                break;
        case SECCOMP_RET_ERRNO:
                printf("errno %u\n", r & SECCOMP_RET_DATA);
                break;
        case SECCOMP_RET_KILL_PROCESS:
                puts("kill_process");
                break;
        case SECCOMP_RET_KILL_THREAD:
                puts("kill_thread");
                break;
        default:
                printf("action %#x\n", r);
                break;
        }
        return 0;
}
