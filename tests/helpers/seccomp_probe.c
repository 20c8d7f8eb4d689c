/* Calls one syscall the way a seccomp test needs it (raw, with exact 64-bit
 * arguments) and prints "NAME rc=R errno=E". Built static by seccomp.bats and
 * copied into the container's rootfs.
 *
 *   seccomp_probe clone3 | threads | netlink-audit | netlink-route | add_key |
 *                 bpf | mkdir PATH | personality VALUE
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <linux/keyctl.h>
#include <linux/netlink.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int report(const char *name, long rc)
{
        printf("%s rc=%ld errno=%d\n", name, rc, rc < 0 ? errno : 0);
        return 0;
}

static void *thread_main(void *arg)
{
        return arg;
}

int main(int argc, char **argv)
{
        const char *what = argc > 1 ? argv[1] : "";

        if (strcmp(what, "clone3") == 0)
                /* A NULL clone_args: EFAULT/EINVAL if the kernel looks at it. */
                return report(what, syscall(SYS_clone3, NULL, 0));
        if (strcmp(what, "threads") == 0) {
                pthread_t t;
                int rc = pthread_create(&t, NULL, thread_main, NULL);
                if (rc == 0)
                        rc = pthread_join(t, NULL);
                printf("threads %s\n", rc == 0 ? "ok" : strerror(rc));
                return rc == 0 ? 0 : 1;
        }
        if (strcmp(what, "netlink-audit") == 0)
                return report(what, socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT));
        if (strcmp(what, "netlink-route") == 0)
                return report(what, socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE));
        if (strcmp(what, "add_key") == 0)
                return report(what, syscall(SYS_add_key, "user", "sbrun-test", "x", 1,
                                            KEY_SPEC_PROCESS_KEYRING));
        if (strcmp(what, "bpf") == 0)
                return report(what, syscall(SYS_bpf, 0, NULL, 0));
        if (strcmp(what, "mkdir") == 0 && argc > 2)
                return report(what, syscall(SYS_mkdir, argv[2], 0755));
        if (strcmp(what, "personality") == 0 && argc > 2) {
                uint64_t v = strtoull(argv[2], NULL, 0);
                return report(what, syscall(SYS_personality, v));
        }
        fprintf(stderr,
                "usage: seccomp_probe clone3|threads|netlink-audit|netlink-route|add_key|bpf|mkdir PATH|personality VALUE\n");
        return 2;
}
