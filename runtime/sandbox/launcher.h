/* The launcher: a child of `sbrun create` that puts itself into the
 * container's namespaces, limits and fd layout, then becomes bwrap. It does
 * not join the container's cgroup: sbrun-init does, through LFD_CGROUP, so
 * that what the launcher and bwrap allocate is not charged to the
 * container (docs/design.md, "What is charged to the container"). */
#ifndef SB_LAUNCHER_H
#define SB_LAUNCHER_H

#include <stdbool.h>
#include <sys/types.h>

#include "oci/config.h"

struct sb_error;

/* Fds the launcher hands on, at fixed numbers from 3 + preserve_fds up, so
 * that the plan (encoded before the fork) can name them. */
enum launcher_fd {
        LFD_INIT_IMAGE, /* sealed memfd of sbrun-init */
        LFD_PLAN,       /* memfd with the encoded init plan */
        LFD_READY,      /* pipe: HANDSHAKE_READY, or HANDSHAKE_ERROR and a message */
        LFD_FIFO,       /* O_PATH fd of exec.fifo */
        LFD_STDERR,     /* the caller's real stderr */
        LFD_INFO,       /* bwrap --info-fd: {"child-pid": N} */
        LFD_ARGS,       /* bwrap --args: NUL-separated options */
        LFD_CONSOLE,    /* unix socket the pty master is sent on (or /dev/null) */
        LFD_SECCOMP,    /* seccomp notify hand-over socket (or /dev/null) */
        LFD_PIDNS,      /* a pid namespace to join, for bwrap --pidns (or /dev/null) */
        LFD_CGROUP,     /* the container's cgroup.procs, O_WRONLY, for the init to
                         * join (or /dev/null when there is no cgroup) */
        LFD_ROOTFS,     /* O_PATH fd of the root the floor judged: bwrap --bind-fd */
        LFD_NOTIFY,     /* O_PATH fd of <state>/notify: bwrap --ro-bind-fd (or /dev/null) */
        LFD_COUNT
};

/* LFD_COUNT names the first of launcher_config.extra_fds. */
static inline int launcher_fd_number(int preserve_fds, enum launcher_fd which)
{
        return 3 + preserve_fds + (int)which;
}

struct launcher_config {
        int fds[LFD_COUNT]; /* sources in the parent, all O_CLOEXEC */
        int error_pipe;     /* becomes the launcher's stderr (bwrap's messages) */
        int stdout_fd;      /* becomes its stdout (the container's), -1: inherited */
        int preserve_fds;
        int ns_fds[OCI_NS_COUNT];   /* namespaces to join (setns), -1 for none */
        bool unshare[OCI_NS_COUNT]; /* namespaces the launcher makes itself */
        int userns_sync;            /* socket: HANDSHAKE_USERNS_UNSHARED, then _MAPPED back */
        int attach_wait;            /* -1, or a pipe: one byte once systemd moved us into the
                                     * container's scope (rootless: systemd_scope_attach) */
        int attach_other;           /* its write end, closed first: a create that dies ends
                                     * the wait */
        const char *hostname;
        const char *domainname;
        const struct oci_kv *sysctl;
        size_t n_sysctl;
        const struct oci_rlimit *rlimits;
        size_t n_rlimits;
        bool has_oom_score_adj;
        int oom_score_adj;
        char *const *bwrap_argv; /* full argv, [0] = bwrap path */
        /* More fds for bwrap (the bind sources), placed from
         * launcher_fd_number(preserve_fds, LFD_COUNT) up in this order. */
        const int *extra_fds;
        size_t n_extra_fds;
};

/* Fork the launcher; returns its pid (which becomes bwrap's). A failure in
 * the child is written to fds[LFD_READY] as HANDSHAKE_ERROR and a message
 * (runtime/init/handshake.h). */
pid_t launcher_spawn(const struct launcher_config *lc, struct sb_error *err);

#endif
