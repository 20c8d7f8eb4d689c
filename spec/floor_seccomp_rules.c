#include "spec/floor_seccomp_rules.h"

#include <errno.h>
#include <linux/fs.h>
#include <linux/sched.h>
#include <sys/ioctl.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

#define N(a) (sizeof(a) / sizeof((a)[0]))

const struct floor_syscall floor_standard_deny[] = {
        /* Namespaces: a new user namespace hands the container a full set of
         * capabilities over fresh mount, net… namespaces, the door to most
         * kernel escapes of the last years. */
        { "unshare", EPERM },
        { "setns", EPERM },
        /* glibc calls clone3 first and falls back to clone on ENOSYS only;
         * clone3 takes its flags in memory, which a filter cannot read, so
         * it is refused as if the kernel were older and clone is checked. */
        { "clone3", ENOSYS },
        /* The mount API: remounting or unmounting masks and read-only paths
         * would undo the container's view of the filesystem. */
        { "mount", EPERM },
        { "umount", EPERM },
        { "umount2", EPERM },
        { "pivot_root", EPERM },
        { "open_tree", EPERM },
        { "move_mount", EPERM },
        { "fsopen", EPERM },
        { "fsmount", EPERM },
        { "fsconfig", EPERM },
        { "fspick", EPERM },
        { "mount_setattr", EPERM },
        /* Keyrings are not namespaced. */
        { "add_key", EPERM },
        { "request_key", EPERM },
        { "keyctl", EPERM },
        /* Large kernel attack surfaces with a long CVE record. */
        { "bpf", EPERM },
        { "perf_event_open", EPERM },
        { "userfaultfd", EPERM },
        { "io_uring_setup", EPERM },
        { "io_uring_enter", EPERM },
        { "io_uring_register", EPERM },
        /* The host kernel itself: replace, extend, stop it. */
        { "kexec_load", EPERM },
        { "kexec_file_load", EPERM },
        { "init_module", EPERM },
        { "finit_module", EPERM },
        { "delete_module", EPERM },
        { "create_module", EPERM },
        { "reboot", EPERM },
        { "swapon", EPERM },
        { "swapoff", EPERM },
        { "acct", EPERM },
        { "quotactl", EPERM },
        { "quotactl_fd", EPERM },
        { "syslog", EPERM },
        /* Other processes' memory. */
        { "ptrace", EPERM },
        { "process_vm_readv", EPERM },
        { "process_vm_writev", EPERM },
        /* Opens any inode of a mounted fs by handle, past the rootfs
         * (the "shocker" escape). */
        { "open_by_handle_at", EPERM },
        /* The clock is not namespaced. */
        { "clock_settime", EPERM },
        { "clock_adjtime", EPERM },
        { "settimeofday", EPERM },
        { "adjtimex", EPERM },
        { "stime", EPERM },
        /* Raw I/O ports. */
        { "iopl", EPERM },
        { "ioperm", EPERM },
};
const size_t floor_standard_deny_len = N(floor_standard_deny);

/* CLONE_NEWTIME shares its bit with the exit signal field of clone(2)
 * (CSIGNAL, 0xff): no signal number has bit 0x80, so refusing it denies no
 * valid call. */
const uint64_t floor_clone_new_flags[] = {
        CLONE_NEWNS,   CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
        CLONE_NEWUSER, CLONE_NEWPID,    CLONE_NEWNET, CLONE_NEWTIME,
};
const size_t floor_clone_new_flags_len = N(floor_clone_new_flags);

/* TIOCSTI pushes bytes into a terminal's input queue: on a terminal shared
 * with the host (terminal: false under an interactive shell) the container
 * would type commands into the host's shell. TIOCLINUX reaches the virtual
 * console the same way. */
const uint32_t floor_ioctl_deny[] = { TIOCSTI, TIOCLINUX };
const size_t floor_ioctl_deny_len = N(floor_ioctl_deny);

/* A file's project id and its inherit flag (FS_XFLAG_PROJINHERIT, or
 * FS_PROJINHERIT_FL through SETFLAGS) decide which project quota its
 * blocks are charged to. The kernel lets only the init user namespace
 * change them, and there the file's owner may: a container without a user
 * namespace of its own could move what it writes out of the volume's
 * project and past its limit. FS_IOC32_SETFLAGS is the same request with
 * a 32-bit argument, which a file system's own handler may take. */
const uint32_t floor_attr_ioctl_deny[] = { FS_IOC_SETFLAGS, FS_IOC32_SETFLAGS, FS_IOC_FSSETXATTR };
const size_t floor_attr_ioctl_deny_len = N(floor_attr_ioctl_deny);

/* Enough for shells, coreutils, interpreters and compilers. Left out, among
 * others: socket, connect, bind (no network at all), the set*id family (the
 * credentials are final when the process starts), and everything the
 * standard list denies. seccomp stays allowed: the spec's own filter is
 * loaded after this one, and a filter can only restrict further. */
const char *const floor_strict_allow[] = {
        "read",
        "write",
        "readv",
        "writev",
        "pread64",
        "pwrite64",
        "preadv",
        "pwritev",
        "preadv2",
        "pwritev2",
        "open",
        "openat",
        "openat2",
        "close",
        "close_range",
        "creat",
        "lseek",
        "stat",
        "fstat",
        "lstat",
        "newfstatat",
        "statx",
        "statfs",
        "fstatfs",
        "access",
        "faccessat",
        "faccessat2",
        "readlink",
        "readlinkat",
        "getdents",
        "getdents64",
        "getcwd",
        "chdir",
        "fchdir",
        "rename",
        "renameat",
        "renameat2",
        "mkdir",
        "mkdirat",
        "rmdir",
        "unlink",
        "unlinkat",
        "link",
        "linkat",
        "symlink",
        "symlinkat",
        "chmod",
        "fchmod",
        "fchmodat",
        "chown",
        "fchown",
        "fchownat",
        "lchown",
        "umask",
        "truncate",
        "ftruncate",
        "fallocate",
        "fadvise64",
        "readahead",
        "fsync",
        "fdatasync",
        "sync",
        "syncfs",
        "utime",
        "utimes",
        "utimensat",
        "futimesat",
        "copy_file_range",
        "sendfile",
        "splice",
        "tee",
        "vmsplice",
        "dup",
        "dup2",
        "dup3",
        "pipe",
        "pipe2",
        "fcntl",
        "flock",
        "ioctl",
        "select",
        "pselect6",
        "poll",
        "ppoll",
        "epoll_create",
        "epoll_create1",
        "epoll_ctl",
        "epoll_wait",
        "epoll_pwait",
        "epoll_pwait2",
        "eventfd",
        "eventfd2",
        "timerfd_create",
        "timerfd_settime",
        "timerfd_gettime",
        "signalfd",
        "signalfd4",
        "inotify_init",
        "inotify_init1",
        "inotify_add_watch",
        "inotify_rm_watch",
        "mmap",
        "mprotect",
        "munmap",
        "brk",
        "mremap",
        "madvise",
        "mincore",
        "msync",
        "mlock",
        "munlock",
        "memfd_create",
        "membarrier",
        "rt_sigaction",
        "rt_sigprocmask",
        "rt_sigreturn",
        "rt_sigsuspend",
        "rt_sigtimedwait",
        "rt_sigqueueinfo",
        "rt_sigpending",
        "sigaltstack",
        "kill",
        "tgkill",
        "tkill",
        "pause",
        "alarm",
        "getitimer",
        "setitimer",
        "nanosleep",
        "clock_nanosleep",
        "clock_gettime",
        "clock_getres",
        "gettimeofday",
        "time",
        "times",
        "clone",
        "fork",
        "vfork",
        "execve",
        "execveat",
        "exit",
        "exit_group",
        "wait4",
        "waitid",
        "getpid",
        "getppid",
        "gettid",
        "getuid",
        "getgid",
        "geteuid",
        "getegid",
        "getgroups",
        "getresuid",
        "getresgid",
        "setpgid",
        "getpgrp",
        "getpgid",
        "setsid",
        "getsid",
        "getrlimit",
        "prlimit64",
        "getrusage",
        "sysinfo",
        "uname",
        "capget",
        "arch_prctl",
        "prctl",
        "set_tid_address",
        "set_robust_list",
        "get_robust_list",
        "futex",
        "rseq",
        "sched_yield",
        "sched_getaffinity",
        "sched_setaffinity",
        "sched_getparam",
        "sched_getscheduler",
        "sched_get_priority_max",
        "sched_get_priority_min",
        "getpriority",
        "setpriority",
        "getrandom",
        "getcpu",
        "getsockopt",
        "getsockname",
        "getpeername",
        "recvmsg",
        "sendmsg",
        "recvfrom",
        "sendto",
        "recvmmsg",
        "sendmmsg",
        "shutdown",
        "seccomp",
};
const size_t floor_strict_allow_len = N(floor_strict_allow);
