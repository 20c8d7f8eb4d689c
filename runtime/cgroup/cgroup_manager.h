/* A container's cgroup v2 directory and what sbrun does with it: make it
 * with the controllers it needs, write limits, kill everything in it with
 * one write, freeze and thaw, list its processes, read its OOM count, and
 * remove it. Every file is opened relative to the directory's fd. */
#ifndef SB_CGROUP_MANAGER_H
#define SB_CGROUP_MANAGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sb_error;
struct cgroup_root;
struct cgroup_settings;

struct cgroup {
        int dir_fd;   /* O_DIRECTORY, O_CLOEXEC */
        char *path;   /* absolute */
        bool created; /* made by this command: removed by cgroup_release */
};

#define CGROUP_INIT          \
        {                    \
                .dir_fd = -1 \
        }
#define CGROUP_WAIT_MS 10000

/* Make <mount>/<rel>, enabling controllers in the subtree_control of each
 * parent it creates (cpu, memory and pids must succeed; the others the
 * host offers are enabled when possible). An existing directory is used
 * only if no process is in it. */
int cgroup_create(const struct cgroup_root *root, const char *rel, struct cgroup *cg,
                  struct sb_error *err);

/* Open an existing container cgroup by its absolute path (checked to be on
 * a cgroup2 filesystem). errnum ENOENT when it is gone. */
int cgroup_open(const char *path, struct cgroup *cg, struct sb_error *err);

/* Write settings in order. A file of a controller that is not enabled here
 * is an error naming the controller. */
int cgroup_apply(struct cgroup *cg, const struct cgroup_settings *settings, struct sb_error *err);

/* SIGKILL to every process in the tree with one write to cgroup.kill (also
 * frozen ones and those that double-forked), then wait until it is empty. */
int cgroup_kill(struct cgroup *cg, struct sb_error *err);
/* The same without waiting: for a caller bound to a deadline. */
int cgroup_kill_nowait(struct cgroup *cg, struct sb_error *err);
/* Any other signal: freeze, signal each process, thaw, so that no fork
 * slips through. */
int cgroup_signal(struct cgroup *cg, int signo, struct sb_error *err);

/* cgroup_kill, then remove the directory and any the container made below. */
int cgroup_destroy(struct cgroup *cg, struct sb_error *err);

/* Write cgroup.freeze and wait for cgroup.events to say it happened. */
int cgroup_freeze(struct cgroup *cg, bool frozen, struct sb_error *err);
/* 1 frozen, 0 not, -1 unknown (no such cgroup). */
int cgroup_path_frozen(const char *path);

/* Every pid in the tree, from cgroup.procs. Caller frees *pids. */
int cgroup_pids(struct cgroup *cg, pid_t **pids, size_t *n, struct sb_error *err);

/* memory.events oom_kill: processes the OOM killer ended in this cgroup. */
int cgroup_oom_kills(struct cgroup *cg, uint64_t *count, struct sb_error *err);

/* pids.events max: forks this cgroup refused at pids.max. */
int cgroup_pids_max_events(struct cgroup *cg, uint64_t *count, struct sb_error *err);

/* One interface file's content, trailing newline removed. */
int cgroup_read(struct cgroup *cg, const char *file, char **out, struct sb_error *err);

/* Close; a directory created by this command and not kept is destroyed. */
void cgroup_release(struct cgroup *cg);
static inline void cgroup_keep(struct cgroup *cg)
{
        cg->created = false;
}
#define _cleanup_cgroup_ __attribute__((cleanup(cgroup_release)))

#endif
