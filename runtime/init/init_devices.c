#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* openat2, close_range, setresuid, asprintf */
#endif
#include "runtime/init/init_devices.h"

#include "runtime/init/init_mounts.h"

#include "common/cleanup.h"
#include "common/error.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static int create_device(const struct init_device *d, struct sb_error *err)
{
        const char *path = d->path;
        mode_t type = d->mode & S_IFMT;

        if (path == NULL || path[0] != '/')
                return sb_fail(err, EINVAL, "create device %s: not an absolute path",
                               path ? path : "(null)");
        if (type != S_IFCHR && type != S_IFBLK && type != S_IFIFO)
                return sb_fail(err, EINVAL, "create device %s: mode 0%o is not a char, block or fifo node",
                               path, d->mode);

        const char *slash = strrchr(path, '/');
        const char *name = slash + 1;
        if (name[0] == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
                return sb_fail(err, EINVAL, "create device %s: not a file name", path);
        _cleanup_free_ char *parent = strndup(path, slash == path ? 1 : (size_t)(slash - path));
        if (parent == NULL)
                return sb_fail(err, ENOMEM, "create device %s", path);
        if (init_mkdir_p(parent, 0755, err) < 0)
                return sb_error_prefix(err, "create device %s", path);

        /* All calls below name the node relative to the resolved parent and
         * never follow a symlink in its place out of the rootfs. */
        _cleanup_close_ int dirfd = init_resolve(parent, O_DIRECTORY);
        if (dirfd < 0)
                return sb_fail(err, errno, "create device %s: resolve %s", path, parent);

        struct stat st;
        if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
                if (S_ISDIR(st.st_mode))
                        return sb_fail(err, EISDIR, "create device %s", path);
                if (unlinkat(dirfd, name, 0) < 0)
                        return sb_fail(err, errno, "create device %s: unlink existing", path);
        }
        if (mknodat(dirfd, name, d->mode, makedev(d->major, d->minor)) < 0)
                return sb_fail(err, errno, "create device %s", path);
        if (fchownat(dirfd, name, d->uid, d->gid, AT_SYMLINK_NOFOLLOW) < 0)
                return sb_fail(err, errno, "create device %s: chown %u:%u", path, d->uid, d->gid);
        if (fchmodat(dirfd, name, d->mode & 07777, 0) < 0)
                return sb_fail(err, errno, "create device %s: chmod 0%o", path, d->mode & 07777);
        return 0;
}

int init_create_devices(const struct init_device *devices, size_t n, struct sb_error *err)
{
        for (size_t i = 0; i < n; i++)
                if (create_device(&devices[i], err) < 0)
                        return -1;
        return 0;
}
