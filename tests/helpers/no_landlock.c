/* no_landlock CMD...: run CMD where landlock_create_ruleset answers
 * EOPNOTSUPP, as a kernel answers that has Landlock built in but not in
 * its lsm= list (the VM lane's guests and this host both enable it). The
 * filter is inherited by everything CMD starts, sbrun-init included, so
 * sbrun sees one kernel, without Landlock. Root only (CAP_SYS_ADMIN
 * instead of no_new_privs). */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif

int main(int argc, char **argv)
{
        struct sock_filter f[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_landlock_create_ruleset, 0, 1),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EOPNOTSUPP),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

        if (argc < 2) {
                fprintf(stderr, "usage: no_landlock CMD [ARG...]\n");
                return 2;
        }
        if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
                perror("no_landlock: seccomp");
                return 1;
        }
        execvp(argv[1], argv + 1);
        perror(argv[1]);
        return 127;
}
