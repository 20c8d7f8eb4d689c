/* `sbrun restore`'s part of create (create_container.c): where create
 * would start bwrap, CRIU restores the checkpointed processes into what
 * create made for them (the cgroup with the floor's limits, the judged
 * root and binds), they are checked (restore_verify.h) and only then let
 * go. */
#ifndef SB_RESTORE_SPAWN_H
#define SB_RESTORE_SPAWN_H

#include <stdbool.h>

struct sb_error;
struct create_ctx;

struct restore_request {
        const char *criu;                /* --criu PATH, NULL: criu from PATH */
        const char *image_path;          /* NULL: ./checkpoint, as runc */
        const char *work_path;           /* NULL: the image path */
        const char *manage_cgroups_mode; /* soft, full, strict or ignore; NULL: soft */
        const char *empty_ns;            /* "network" or NULL */
        bool tcp_established, ext_unix_sk, shell_job, file_locks, auto_dedup;
};

/* Sets c->container_pid to the restored process, running. state_dir: the
 * container's new state directory (CRIU's cgroup yard is made there). */
int restore_spawn(struct create_ctx *c, const struct restore_request *r, const char *state_dir,
                  struct sb_error *err);

#endif
