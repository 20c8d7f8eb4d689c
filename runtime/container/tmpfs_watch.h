/* Whether a container filled its tmpfs (its workspace, /tmp, /dev/shm):
 * the verdict of `run` says so (runtime/container/verdict.h), since a
 * process that dies of ENOSPC tells nobody why. The mounts are held open
 * from create on, so they outlive the container's mount namespace and can
 * be read once it has exited. */
#ifndef SB_TMPFS_WATCH_H
#define SB_TMPFS_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct tmpfs_use {
        char *path;  /* where the container sees it */
        bool space;  /* no free block */
        bool inodes; /* no free inode */
};

struct tmpfs_watch {
        int *fds; /* O_PATH, the root of each mount */
        char **paths;
        size_t n;
};

#define TMPFS_WATCH_INIT \
        {                \
                0        \
        }

/* Every tmpfs in the mount namespace of pid (its /proc/PID/mountinfo),
 * opened beneath its root. Best effort: a mount that cannot be held is
 * left out, and nothing fails. */
void tmpfs_watch_open(struct tmpfs_watch *w, pid_t pid);
/* The held mounts that are full now; *out is freed with tmpfs_use_free. */
void tmpfs_watch_full(const struct tmpfs_watch *w, struct tmpfs_use **out, size_t *n);
void tmpfs_watch_release(struct tmpfs_watch *w);
void tmpfs_use_free(struct tmpfs_use *use, size_t n);

static inline void tmpfs_watch_releasep(struct tmpfs_watch *w)
{
        tmpfs_watch_release(w);
}
#define _cleanup_tmpfs_watch_ __attribute__((cleanup(tmpfs_watch_releasep)))

#endif
