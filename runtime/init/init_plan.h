/* What sbrun-init must do inside the container, decided by sbrun on the host
 * and sent to the init over a pipe. sbrun-init is a static binary with no
 * JSON parser, so the plan travels in a small binary encoding (init_plan.c),
 * compiled into both programs. */
#ifndef SB_INIT_PLAN_H
#define SB_INIT_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sb_error;

enum init_mount_kind {
        INIT_MOUNT_FS,       /* mount(source, destination, fstype, flags, data): sysfs, cgroup2 */
        INIT_MOUNT_REMOUNT,  /* bind-remount an existing mount point with `flags` (ro, noexec…) */
        INIT_MOUNT_MASK,     /* maskedPaths entry: /dev/null over a file, ro tmpfs over a dir
                              * (mounted with `data` if set, else mode=0555) */
        INIT_MOUNT_READONLY, /* readonlyPaths entry: bind onto itself, remount ro */
        INIT_MOUNT_RESIZE,   /* remount a tmpfs with `data` (size=…), its flags kept */
        INIT_MOUNT_COPYUP,   /* tmpcopyup: copy the image directory whose fd number is
                              * `source` (decimal) into the new tmpfs at destination */
        INIT_MOUNT_PROPAGATE, /* set the propagation `flags` (MS_SHARED…, MS_REC) */
        INIT_MOUNT_SETATTR,   /* mount_setattr(AT_RECURSIVE): MOUNT_ATTR_* to set in the low 32
                               * bits of `flags`, to clear in the high 32 (rro, rnosuid…) */
        INIT_MOUNT_MOVE,      /* move_mount the detached tree whose fd number is `source`
                               * (decimal) onto destination: an idmapped bind that sbrun made
                               * on the host (runtime/sandbox/idmap_mount.h) */
};

/* Each entry's destination is an absolute path inside the container; init
 * resolves it with RESOLVE_IN_ROOT and skips entries whose path is missing
 * when `skip_missing` is set (masked and read-only paths). */
struct init_mount {
        uint32_t kind;
        char *source;
        char *destination;
        char *fstype;
        uint64_t flags; /* MS_* */
        char *data;
        bool skip_missing;
};

struct init_device {
        char *path;
        uint32_t mode; /* S_IFCHR/S_IFBLK/S_IFIFO | permission bits */
        uint32_t major, minor;
        uint32_t uid, gid;
};

struct init_plan {
        /* What to run. exec_path is args[0] resolved in the container; NULL:
         * sbrun-init looks it up once the mounts are made (create). */
        char **args;
        char **env;
        char *exec_path;
        char *cwd;

        /* Mounts and devices, in order, after bwrap's own. */
        struct init_mount *mounts;
        size_t n_mounts;
        struct init_device *devices;
        size_t n_devices;
        bool readonly_root; /* remount / read-only after the mounts */
        char *domainname;   /* NULL: leave as is */

        /* Credentials and confinement, applied in this order just before execve. */
        uint32_t uid, gid;
        uint32_t *additional_gids;
        size_t n_additional_gids;
        bool has_umask;
        uint32_t umask;
        bool has_capabilities;
        uint64_t cap_bounding, cap_effective, cap_inheritable, cap_permitted, cap_ambient;
        bool no_new_privileges;
        /* Raw BPF programs (struct sock_filter arrays), installed in order. */
        uint8_t **seccomp_programs;
        size_t *seccomp_program_sizes;
        size_t n_seccomp_programs;

        /* File descriptors inside the container (numbers as the init sees them). */
        int ready_fd;     /* write "R" when set up, or an error text, then close */
        int fifo_fd;      /* O_PATH fd of exec.fifo; -1: start right away (exec) */
        int stderr_fd;    /* the caller's real stderr, dup2'd to 2 before execve */
        int console_fd;   /* -1, or a unix socket to send the pty master on */
        int preserve_fds; /* fds 3 .. 3+preserve_fds-1 stay open, LISTEN_FDS set */
        bool terminal;
        uint32_t console_height, console_width;
        /* Join a new session keyring of this name (runc's default), so the
         * container never shares the caller's keys; NULL with --no-new-keyring. */
        char *session_keyring;

        /* Per seccomp program: the SECCOMP_FILTER_FLAG_* bits seccomp(2) is
         * called with (TSYNC, LOG, NEW_LISTENER…); NULL: all 0. */
        uint32_t *seccomp_program_flags;
        /* For a NEW_LISTENER program: a socket on which create queued the
         * listenerPath socket and the state JSON (runtime/seccomp/seccomp_notify.h);
         * used only when a program has NEW_LISTENER. */
        int seccomp_notify_fd;

        /* Linux security module labels, decided on the host (spec/floor_lsm.h):
         * NULL unless that LSM is enabled there. sbrun-init writes them to
         * /proc/self/attr before the container's process is exec'd
         * (init_lsm.h). linux.mountLabel travels in the mounts' data. */
        char *apparmor_profile;
        char *selinux_label;

        /* The container's cgroup.procs, opened O_WRONLY by sbrun; -1: no
         * cgroup. sbrun-init joins it first thing, so that what sbrun and
         * bwrap allocated while setting up stays charged to the caller. Then,
         * with unshare_cgroupns, it makes the cgroup namespace, rooted at
         * the cgroup just joined. */
        int cgroup_procs_fd;
        bool unshare_cgroupns;

        /* Landlock (spec/floor_landlock.h): landlock_mode 0 for none, else
         * enum landlock_mode; the ABI the rules are built for; writes beneath
         * landlock_writable (NULL-terminated) only. sbrun-init builds the
         * ruleset once the mounts are made and enforces it first thing in
         * init_become_process (runtime/init/init_landlock.h). */
        uint32_t landlock_mode;
        uint32_t landlock_abi;
        bool landlock_exec_writable;
        bool landlock_no_tcp;
        char **landlock_writable;
        /* sbrun-init's own, not encoded: the ruleset it prepared, or -1. */
        int landlock_ruleset_fd;

        /* The process's scheduling, judged by the floor
         * (spec/floor_spec_fields.c) and carried out by sbrun-init
         * (runtime/init/init_sched.h). ioprio is IOPRIO_PRIO_VALUE(class,
         * level); the sched_* fields are struct sched_attr's; the affinities
         * are CPU lists (common/cpu_list.h), NULL when not given;
         * personality is personality(2)'s argument. */
        bool has_ioprio;
        uint32_t ioprio;
        bool has_scheduler;
        uint32_t sched_policy;
        int32_t sched_nice;
        uint32_t sched_priority;
        uint64_t sched_flags, sched_runtime, sched_deadline, sched_period;
        char *cpu_affinity_initial;
        char *cpu_affinity_final;
        bool has_personality;
        uint32_t personality;
};

/* Serialise into a malloc'd buffer. */
int init_plan_encode(const struct init_plan *plan, uint8_t **out, size_t *out_len,
                     struct sb_error *err);
/* Decode; strings point into freshly allocated memory owned by *plan. */
int init_plan_decode(const uint8_t *buf, size_t len, struct init_plan *plan, struct sb_error *err);
void init_plan_release(struct init_plan *plan);

#endif
