#include "common/caller_file.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* How many random names are tried before giving up: each is taken only if
 * someone made a file of that very name in between. */
#define TEMP_TRIES 16

/* The directory of path, opened (O_PATH: only its entries are used), and
 * path's last component in *name. Directory components may be symlinks
 * (/var/run is one): the caller named them. */
static int open_parent(const char *option, const char *path, const char **name,
                       struct sb_error *err)
{
        const char *slash = strrchr(path, '/');
        _cleanup_free_ char *dir = NULL;
        int fd;

        if (*path == '\0')
                return sb_fail(err, 0, "%s: an empty path", option);
        *name = slash ? slash + 1 : path;
        if (**name == '\0' || strcmp(*name, ".") == 0 || strcmp(*name, "..") == 0)
                return sb_fail(err, EISDIR, "%s %s", option, path);
        if (slash == NULL)
                dir = strdup(".");
        else if (slash == path)
                dir = strdup("/");
        else
                dir = strndup(path, (size_t)(slash - path));
        if (dir == NULL)
                return sb_fail(err, ENOMEM, "%s %s", option, path);
        fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return sb_fail(err, errno, "%s %s: open its directory", option, path);
        return fd;
}

static uint64_t random_u64(void)
{
        uint64_t r;
        struct timespec ts;

        if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r))
                return r;
        /* Without entropy yet, still a name nobody can have taken for
         * long: O_EXCL, not the name, is what keeps the file ours. */
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 16);
}

int caller_file_replace(const char *option, const char *path, const void *data, size_t len,
                        mode_t mode, struct sb_error *err)
{
        const char *name;
        _cleanup_close_ int dirfd = open_parent(option, path, &name, err);
        _cleanup_close_ int fd = -1;
        char tmp[NAME_MAX + 1];

        if (dirfd < 0)
                return -1;
        for (int i = 0; fd < 0 && i < TEMP_TRIES; i++) {
                /* Dot-first, beside the file and named after it: an engine
                 * polling for the file ignores it, a person sees whose it is. */
                snprintf(tmp, sizeof(tmp), ".%.200s.sbrun-%016llx", name,
                         (unsigned long long)random_u64());
                fd = openat(dirfd, tmp,
                            O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, mode);
                if (fd < 0 && errno != EEXIST)
                        return sb_fail(err, errno, "%s %s: create a file in its directory", option,
                                       path);
        }
        if (fd < 0)
                return sb_fail(err, EEXIST, "%s %s: create a file in its directory", option, path);
        if (sb_write_all(fd, data, len) < 0) {
                int saved = errno;
                unlinkat(dirfd, tmp, 0);
                return sb_fail(err, saved, "%s %s: write %s", option, path, tmp);
        }
        /* rename replaces the name: a symlink or a hard link there is
         * dropped, what it pointed to is left as it was. */
        if (renameat(dirfd, tmp, dirfd, name) < 0) {
                int saved = errno;
                unlinkat(dirfd, tmp, 0);
                return sb_fail(err, saved, "%s %s: rename %s over it", option, path, tmp);
        }
        return 0;
}

int caller_file_append(const char *option, const char *path, mode_t mode, struct sb_error *err)
{
        const char *name;
        _cleanup_close_ int dirfd = open_parent(option, path, &name, err);
        _cleanup_close_ int fd = -1;
        struct stat st;
        int flags;

        if (dirfd < 0)
                return -1;
        /* O_NONBLOCK: a FIFO there would otherwise hold sbrun until someone
         * reads it; it is refused below like any other file of its kind. */
        fd = openat(dirfd, name,
                    O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC,
                    mode);
        if (fd < 0 && errno == ELOOP)
                return sb_fail(err, 0,
                               "%s %s: is a symbolic link: sbrun does not write through one",
                               option, path);
        if (fd < 0 && errno == ENXIO)
                return sb_fail(err, 0, "%s %s: is not a regular file", option, path);
        if (fd < 0)
                return sb_fail(err, errno, "%s %s", option, path);
        if (fstat(fd, &st) < 0)
                return sb_fail(err, errno, "%s %s: stat", option, path);
        if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode))
                return sb_fail(err, 0, "%s %s: is not a regular file", option, path);
        /* A second link: the file is also another name, perhaps one
         * someone who may write this directory cannot write themselves. */
        if (st.st_nlink != 1)
                return sb_fail(err, 0,
                               "%s %s: has %ju links: sbrun appends only to a file with one",
                               option, path, (uintmax_t)st.st_nlink);
        flags = fcntl(fd, F_GETFL);
        if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0)
                return sb_fail(err, errno, "%s %s", option, path);
        return SB_STEAL_FD(fd);
}
