/* Syscall-level attacks on the policy floor (tests/adversarial/
 * floor_syscalls.bats). Each makes one raw syscall, past libc, and prints
 * "NAME rc=R errno=E"; a process the floor kills prints nothing. Built
 * static and copied into the container's rootfs. Arguments are chosen so
 * that the kernel itself, without the floor, would answer something other
 * than EPERM (or succeed).
 *
 *   floor_attack clone-newuser | unshare-user | setns | clone3 | threads |
 *                int80-getpid | int80-mkdir PATH | x32-mkdir PATH | mount PATH |
 *                keyctl | bpf | perf_event_open | userfaultfd | io_uring_setup |
 *                ptrace-sibling | socket-inet | socket-unix | socketpair-unix |
 *                socketpair-inet | fork-bomb | setflags PATH | fssetxattr PATH |
 *                setproject PATH PROJID
 *
 * setflags and fssetxattr give PATH (made if missing) the attributes it
 * already has: where the file system has them, the owner may, so the kernel
 * alone answers 0 (ENOTTY or EOPNOTSUPP where it has not). setproject moves
 * PATH to project PROJID and clears its inherit flag, which the owner may
 * do in the host's user namespace (out of a volume's project quota).
 *
 * fork-bomb forks without end in every process and, unlike a shell's bomb,
 * survives refused forks (it waits a second and tries again), so the
 * container stays at its pids limit until it is killed
 * (tests/vm/floor_attacks.bats).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/keyctl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define X32_SYSCALL_BIT 0x40000000
#define I386_GETPID 20
#define I386_MKDIR 39

static int report(const char *name, long rc)
{
        printf("%s rc=%ld errno=%d\n", name, rc, rc < 0 ? errno : 0);
        fflush(stdout);
        return 0;
}

/* A 32-bit syscall through the i386 entry point; the path must sit below
 * 4 GiB, which a static non-PIE binary's .data does. */
static long int80(long nr, long a, long b)
{
        long rc;
        __asm__ volatile("int $0x80" : "=a"(rc) : "a"(nr), "b"(a), "c"(b) : "memory");
        if (rc < 0 && rc > -4096) {
                errno = (int)-rc;
                return -1;
        }
        return rc;
}

static char path32[256];

static void *thread_main(void *arg)
{
        return arg;
}

static int clone_newuser(void)
{
        /* Unprivileged user namespaces are allowed on this kernel: without
         * the floor this would succeed. */
        long rc = syscall(SYS_clone, (unsigned long)(CLONE_NEWUSER | SIGCHLD), 0, 0, 0, 0);
        if (rc == 0)
                _exit(0);
        if (rc > 0)
                waitpid((pid_t)rc, NULL, 0);
        return report("clone-newuser", rc);
}

static int ptrace_sibling(void)
{
        pid_t target = fork(), attacker;
        int status = 0;

        if (target == 0) {
                pause();
                _exit(0);
        }
        attacker = fork();
        if (attacker == 0) {
                long rc = ptrace(PTRACE_ATTACH, target, 0, 0);
                report("ptrace-sibling", rc);
                _exit(0);
        }
        waitpid(attacker, &status, 0);
        kill(target, SIGKILL);
        waitpid(target, NULL, 0);
        return 0;
}

/* The request's own argument is read first with its GET twin, so that the
 * SET changes nothing; a failed GET leaves zeros, which SET may refuse
 * with its own errno (never EPERM). */
static int set_attrs(const char *name, const char *path, const char *projid)
{
        int fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
        long rc;

        if (fd < 0)
                return report(name, -1);
        if (strcmp(name, "setflags") == 0) {
                long flags = 0;
                ioctl(fd, FS_IOC_GETFLAGS, &flags);
                rc = ioctl(fd, FS_IOC_SETFLAGS, &flags);
        } else {
                struct fsxattr fa = { 0 };
                ioctl(fd, FS_IOC_FSGETXATTR, &fa);
                if (strcmp(name, "setproject") == 0) {
                        fa.fsx_projid = (__u32)strtoul(projid, NULL, 0);
                        fa.fsx_xflags &= ~(__u32)FS_XFLAG_PROJINHERIT;
                }
                rc = ioctl(fd, FS_IOC_FSSETXATTR, &fa);
        }
        report(name, rc);
        close(fd);
        return 0;
}

int main(int argc, char **argv)
{
        const char *what = argc > 1 ? argv[1] : "";
        const char *arg = argc > 2 ? argv[2] : "/tmp/floor-attack";
        int sv[2];

        snprintf(path32, sizeof(path32), "%s", arg);
        if (strcmp(what, "clone-newuser") == 0)
                return clone_newuser();
        if (strcmp(what, "unshare-user") == 0)
                return report(what, syscall(SYS_unshare, CLONE_NEWUSER));
        if (strcmp(what, "setns") == 0) /* fd 0 is not a namespace: EINVAL unfiltered */
                return report(what, syscall(SYS_setns, 0, 0));
        if (strcmp(what, "clone3") == 0) /* NULL args: EFAULT/EINVAL unfiltered */
                return report(what, syscall(SYS_clone3, NULL, 0));
        if (strcmp(what, "threads") == 0) {
                pthread_t t;
                int rc = pthread_create(&t, NULL, thread_main, NULL);
                if (rc == 0)
                        rc = pthread_join(t, NULL);
                printf("threads %s\n", rc == 0 ? "ok" : strerror(rc));
                return rc == 0 ? 0 : 1;
        }
        if (strcmp(what, "int80-getpid") == 0)
                return report(what, int80(I386_GETPID, 0, 0));
        if (strcmp(what, "int80-mkdir") == 0)
                return report(what, int80(I386_MKDIR, (long)path32, 0755));
        if (strcmp(what, "x32-mkdir") == 0)
                return report(what, syscall(X32_SYSCALL_BIT | SYS_mkdir, path32, 0755));
        if (strcmp(what, "mount") == 0)
                return report(what, syscall(SYS_mount, "none", path32, "tmpfs", 0UL, NULL));
        if (strcmp(what, "keyctl") == 0) /* a new session keyring: allowed unfiltered */
                return report(what, syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, "floor"));
        if (strcmp(what, "bpf") == 0) /* a bad command: EINVAL unfiltered */
                return report(what, syscall(SYS_bpf, -1, NULL, 0));
        if (strcmp(what, "perf_event_open") == 0) /* NULL attr: EFAULT unfiltered */
                return report(what, syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0));
        if (strcmp(what, "userfaultfd") == 0) /* bad flags: EINVAL unfiltered */
                return report(what, syscall(SYS_userfaultfd, 0x7fff0000));
        if (strcmp(what, "io_uring_setup") == 0) /* 0 entries: EINVAL unfiltered */
                return report(what, syscall(SYS_io_uring_setup, 0, NULL));
        if (strcmp(what, "ptrace-sibling") == 0)
                return ptrace_sibling();
        if (strcmp(what, "socket-inet") == 0)
                return report(what, socket(AF_INET, SOCK_STREAM, 0));
        if (strcmp(what, "socket-unix") == 0)
                return report(what, socket(AF_UNIX, SOCK_STREAM, 0));
        if (strcmp(what, "socketpair-unix") == 0)
                return report(what, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
        if (strcmp(what, "socketpair-inet") == 0) /* EOPNOTSUPP unfiltered */
                return report(what, socketpair(AF_INET, SOCK_STREAM, 0, sv));
        if (strcmp(what, "setflags") == 0 || strcmp(what, "fssetxattr") == 0 ||
            strcmp(what, "setproject") == 0)
                return set_attrs(what, arg, argc > 3 ? argv[3] : "0");
        if (strcmp(what, "fork-bomb") == 0) {
                for (;;) {
                        if (fork() < 0)
                                sleep(1);
                }
        }
        fprintf(stderr, "floor_attack: unknown attack \"%s\"\n", what);
        return 2;
}
