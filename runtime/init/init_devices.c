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
#include <stdio.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* bwrap mounts its /dev tmpfs nodev, where a new node cannot be opened.
 * Rather than lift nodev from the whole of /dev, each node the config asks
 * for gets a bind mount of its own without nodev. */
static int allow_device_access(int dirfd, const char *name, const char *path, struct sb_error *err)
{
        _cleanup_close_ int fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        struct statvfs sv;
        char proc_path[64];

        if (fd < 0)
                return sb_fail(err, errno, "create device %s: open", path);
        if (fstatvfs(fd, &sv) < 0)
                return sb_fail(err, errno, "create device %s: statvfs", path);
        if (!(sv.f_flag & ST_NODEV))
                return 0;
        snprintf(proc_path, sizeof(proc_path), "/proc/self/fd/%d", fd);
        if (mount(proc_path, proc_path, NULL, MS_BIND, NULL) < 0)
                return sb_fail(err, errno, "create device %s: bind", path);
        /* The bind is a new mount on the same path: reach it afresh. */
        _cleanup_close_ int bound = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (bound < 0)
                return sb_fail(err, errno, "create device %s: open bind", path);
        snprintf(proc_path, sizeof(proc_path), "/proc/self/fd/%d", bound);
        unsigned long keep = MS_NOSUID | MS_NOEXEC;
        if (mount(NULL, proc_path, NULL, MS_REMOUNT | MS_BIND | keep, NULL) < 0)
                return sb_fail(err, errno, "create device %s: allow device access", path);
        return 0;
}

static int create_device(const struct init_device *d, struct sb_error *err)
{
        const char *path = d->path;
        mode_t type = d->mode & S_IFMT;

        if (path == NULL || path[0] != '/')
                return sb_fail(err, EINVAL, "create device %s: not an absolute path",
                               path ? path : "(null)");
        if (type != S_IFCHR && type != S_IFBLK && type != S_IFIFO)
                return sb_fail(err, EINVAL,
                               "create device %s: mode 0%o is not a char, block or fifo node", path,
                               d->mode);

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
        if (type == S_IFIFO)
                return 0;
        return allow_device_access(dirfd, name, path, err);
}

int init_create_devices(const struct init_device *devices, size_t n, struct sb_error *err)
{
        for (size_t i = 0; i < n; i++)
                if (create_device(&devices[i], err) < 0)
                        return -1;
        return 0;
}
