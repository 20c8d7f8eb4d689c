/* sbrun's own file in a checkpoint's image directory, sbrun-checkpoint.json:
 * what `restore` needs besides CRIU's images. Written by `checkpoint`
 * beside them, read back by `restore`, which trusts it for nothing that
 * loosens the floor: the mounts it names are mapped only to what the
 * restore's config binds, and every flag it lists only adds to what the
 * config asks (restore_spawn.c, restore_verify.c). */
#ifndef SB_CHECKPOINT_RECORD_H
#define SB_CHECKPOINT_RECORD_H

#include <stdbool.h>
#include <stddef.h>

struct sb_error;

#define CHECKPOINT_RECORD_NAME "sbrun-checkpoint.json"

struct record_mount {
        char *point;    /* inside the container */
        unsigned flags; /* MOUNT_ATTR_RDONLY, NOSUID, NODEV, NOEXEC (proc_task.h) */
};

struct checkpoint_record {
        char *id;         /* the container checkpointed */
        char *profile;    /* the floor's profile it ran under */
        char *stdio[3];   /* what its fds 0, 1, 2 were ("pipe:[123]"), NULL if closed */
        char **externals; /* mount points handed to CRIU as external mounts */
        size_t n_externals;
        struct record_mount *mounts; /* the topmost mount at each place, with its flags */
        size_t n_mounts;
        bool netns_external; /* it joined a network namespace (extRootNetNS) */
};

void checkpoint_record_release(struct checkpoint_record *r);

/* Into directory dir, created anew (common/caller_file.h: an
 * existing file is replaced, never written through). */
int checkpoint_record_write(const char *dir, const struct checkpoint_record *r,
                            struct sb_error *err);
int checkpoint_record_read(int dirfd, const char *dir_name, struct checkpoint_record *r,
                           struct sb_error *err);

#endif
