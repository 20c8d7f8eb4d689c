/* What a task of a container is, read from outside through /proc and
 * ptrace: its confinement (/proc/PID/status), its seccomp filters as the
 * kernel holds them, and its mount table. `checkpoint` records these of
 * the container it dumps, and `restore` checks them on every restored
 * task before it lets them run (restore_verify.h). */
#ifndef SB_PROC_TASK_H
#define SB_PROC_TASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sb_error;

struct task_confinement {
        int no_new_privs;    /* NoNewPrivs: 0 or 1 */
        int seccomp_mode;    /* Seccomp: 0, 1 or 2 */
        int seccomp_filters; /* Seccomp_filters: how many are stacked, -1 if not shown */
        uint64_t cap[5];     /* CapInh, CapPrm, CapEff, CapBnd, CapAmb */
};

enum { TASK_CAP_INH, TASK_CAP_PRM, TASK_CAP_EFF, TASK_CAP_BND, TASK_CAP_AMB };

int task_confinement_read(pid_t tid, struct task_confinement *c, struct sb_error *err);

/* The kernel's copy of each stacked filter, oldest first
 * (PTRACE_SECCOMP_GET_FILTER, which counts from the newest). The task is
 * seized and interrupted for the read, and detached after. */
struct task_filters {
        size_t n;
        void **bpf;   /* struct sock_filter arrays */
        size_t *size; /* in bytes */
};

int task_filters_read(pid_t tid, struct task_filters *f, struct sb_error *err);
void task_filters_release(struct task_filters *f);

/* One line of /proc/PID/mountinfo, escapes undone. */
struct task_mount {
        int id, parent;
        unsigned major, minor;
        char *root;     /* the mount's root inside its file system */
        char *point;    /* where, as the task sees it */
        unsigned flags; /* MOUNT_ATTR_RDONLY | NOSUID | NODEV | NOEXEC of the mount */
        char *fstype;
};

struct task_mounts {
        size_t n;
        struct task_mount *m;
};

int task_mounts_read(pid_t pid, struct task_mounts *out, struct sb_error *err);
void task_mounts_release(struct task_mounts *t);
/* The mount a path resolves to: the topmost of those at point, or NULL. */
const struct task_mount *task_mounts_top(const struct task_mounts *t, const char *point);

/* Every thread of every process of a cgroup (cgroup.threads), NULL-free
 * array; the count in *n. */
int cgroup_threads_read(const char *cgroup_path, pid_t **tids, size_t *n, struct sb_error *err);

/* "ro,nosuid" for the flags above (static buffer). */
const char *mount_flags_text(unsigned flags);
/* The flags of such text; unknown words are ignored. */
unsigned mount_flags_parse(const char *text);

#endif
