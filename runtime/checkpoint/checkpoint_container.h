/* `sbrun checkpoint`: a running container's processes dumped by CRIU into
 * an image directory, with sbrun's record beside them
 * (checkpoint_record.h), as runc's checkpoint does. A container CRIU
 * would restore with less confinement than it has is refused by name
 * before anything is dumped. */
#ifndef SB_CHECKPOINT_CONTAINER_H
#define SB_CHECKPOINT_CONTAINER_H

#include <stdbool.h>

struct sb_error;
struct global_options;

struct checkpoint_request {
        const char *id;
        const char *criu;                /* --criu PATH, NULL: criu from PATH */
        const char *image_path;          /* NULL: ./checkpoint, as runc */
        const char *work_path;           /* NULL: the image path */
        const char *parent_path;         /* the pre-dump's images, relative to image_path */
        const char *manage_cgroups_mode; /* soft, full, strict or ignore; NULL: soft */
        const char *empty_ns;            /* "network" or NULL */
        bool leave_running, pre_dump;
        bool tcp_established, ext_unix_sk, shell_job, file_locks, auto_dedup;
};

int container_checkpoint(const struct global_options *global, const struct checkpoint_request *req,
                         struct sb_error *err);

#endif
