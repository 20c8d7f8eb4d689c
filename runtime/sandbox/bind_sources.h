/* Bind sources, opened once before the floor looks at them. The floor
 * checks the path of the object held open (spec/floor_mounts.c) and bwrap
 * binds that same object through the fd (--bind-fd), so no rename or
 * symlink swapped in between the check and the mount can change what the
 * container gets. */
#ifndef SB_BIND_SOURCES_H
#define SB_BIND_SOURCES_H

#include <stddef.h>
#include <sys/stat.h>

struct sb_error;
struct oci_config;

struct bind_sources {
        size_t n;           /* config->mounts when opened */
        int *fds;           /* per mount: O_PATH fd of the source, -1 if not a bind; for a
                             * tmpcopyup tmpfs, the image's directory (mount_translate.c) */
        char **paths;       /* per mount: the canonical path of that fd, NULL if not a bind */
        struct stat *stats; /* per mount: fstat of that fd */
        int *passed;        /* fds handed to bwrap, in order (not owned) */
        size_t n_passed;
};

#define BIND_SOURCES_INIT \
        {                 \
                0         \
        }

/* Open every bind source (relative ones under bundle), following symlinks
 * as mount(2) does. A missing source fails, naming the mount. */
int bind_sources_open(const struct oci_config *config, const char *bundle, struct bind_sources *bs,
                      struct sb_error *err);

/* Mount i's fd is handed to bwrap: returns the number it will have there
 * (first_fd, first_fd + 1, … in call order), or -1 if mount i has none. */
int bind_sources_pass(struct bind_sources *bs, size_t i, int first_fd);

void bind_sources_release(struct bind_sources *bs);

#endif
