#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* openat2, copy_file_range, O_PATH */
#endif
#include "runtime/init/init_copyup.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

/* A deeper image tree is refused rather than walked on without bound. */
#define MAX_DEPTH 128

struct copyup {
        const char *what;
        dev_t dst_dev; /* the tmpfs: an entry on another device is a mount point */
        char path[PATH_MAX];
};

/* src_dir came from the host: an open below it must never leave it, even
 * through a symlink or a mount a hostile image could have planted. */
static int open_beneath(int dir, const char *name, int flags)
{
        struct open_how how = {
                .flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC),
                .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
                           RESOLVE_NO_XDEV,
        };
        return (int)syscall(SYS_openat2, dir, name, &how, sizeof(how));
}

static int fail_at(struct copyup *c, struct sb_error *err, int errnum, const char *op)
{
        return sb_fail(err, errnum, "%s: tmpcopyup of %s: %s", c->what, c->path, op);
}

static int copy_xattrs(int src, int dst, struct copyup *c, struct sb_error *err)
{
        _cleanup_free_ char *names = NULL;
        _cleanup_free_ char *value = NULL;
        ssize_t len = flistxattr(src, NULL, 0);

        if (len < 0 && (errno == ENOTSUP || errno == ENODATA))
                return 0;
        if (len < 0)
                return fail_at(c, err, errno, "list xattrs");
        if (len == 0)
                return 0;
        names = malloc((size_t)len);
        if (names == NULL)
                return fail_at(c, err, ENOMEM, "list xattrs");
        len = flistxattr(src, names, (size_t)len);
        if (len < 0)
                return fail_at(c, err, errno, "list xattrs");
        for (char *n = names; n < names + len; n += strlen(n) + 1) {
                ssize_t vlen = fgetxattr(src, n, NULL, 0);
                if (vlen < 0)
                        continue;
                free(value);
                value = malloc((size_t)vlen + 1);
                if (value == NULL)
                        return fail_at(c, err, ENOMEM, n);
                vlen = fgetxattr(src, n, value, (size_t)vlen);
                if (vlen < 0)
                        continue;
                /* tmpfs takes trusted.*, security.* and (since 6.6) user.*;
                 * what it cannot hold is not part of what a tmpfs can be. */
                if (fsetxattr(dst, n, value, (size_t)vlen, 0) < 0 && errno != ENOTSUP &&
                    errno != EOPNOTSUPP && errno != EPERM)
                        return fail_at(c, err, errno, n);
        }
        return 0;
}

/* Owner, then mode (chown clears set-id bits), xattrs; times last, after
 * the content that would change them. */
static int copy_meta(int src, int dst, const struct stat *st, struct copyup *c,
                     struct sb_error *err)
{
        /* In a user namespace an image file owned by an unmapped id shows as
         * the overflow id, which cannot be given: the copy keeps ours. */
        if (fchown(dst, st->st_uid, st->st_gid) < 0 && errno != EINVAL)
                return fail_at(c, err, errno, "chown");
        if (fchmod(dst, st->st_mode & 07777) < 0)
                return fail_at(c, err, errno, "chmod");
        if (copy_xattrs(src, dst, c, err) < 0)
                return -1;
        const struct timespec times[2] = { st->st_atim, st->st_mtim };
        if (futimens(dst, times) < 0)
                return fail_at(c, err, errno, "set times");
        return 0;
}

static int copy_data(int src, int dst, struct copyup *c, struct sb_error *err)
{
        char buf[65536];

        for (;;) {
                ssize_t n = read(src, buf, sizeof(buf));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return fail_at(c, err, errno, "read");
                if (n == 0)
                        return 0;
                if (sb_write_all(dst, buf, (size_t)n) < 0)
                        return fail_at(c, err, errno, "write");
        }
}

static int copy_file(int sdir, int ddir, const char *name, const struct stat *st, struct copyup *c,
                     struct sb_error *err)
{
        _cleanup_close_ int src = open_beneath(sdir, name, O_RDONLY);
        _cleanup_close_ int dst = -1;

        if (src < 0)
                return fail_at(c, err, errno, "open");
        dst = openat(ddir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (dst < 0)
                return fail_at(c, err, errno, "create");
        if (copy_data(src, dst, c, err) < 0)
                return -1;
        return copy_meta(src, dst, st, c, err);
}

static int copy_symlink(int sdir, int ddir, const char *name, const struct stat *st,
                        struct copyup *c, struct sb_error *err)
{
        char target[PATH_MAX];
        ssize_t n = readlinkat(sdir, name, target, sizeof(target) - 1);

        if (n < 0)
                return fail_at(c, err, errno, "readlink");
        target[n] = '\0';
        if (symlinkat(target, ddir, name) < 0)
                return fail_at(c, err, errno, "symlink");
        if (fchownat(ddir, name, st->st_uid, st->st_gid, AT_SYMLINK_NOFOLLOW) < 0 &&
            errno != EINVAL)
                return fail_at(c, err, errno, "chown");
        const struct timespec times[2] = { st->st_atim, st->st_mtim };
        if (utimensat(ddir, name, times, AT_SYMLINK_NOFOLLOW) < 0)
                return fail_at(c, err, errno, "set times");
        return 0;
}

static int copy_node(int ddir, const char *name, const struct stat *st, struct copyup *c,
                     struct sb_error *err)
{
        /* Not opened: a fifo would block, a device could act. */
        if (mknodat(ddir, name, st->st_mode, st->st_rdev) < 0)
                return fail_at(c, err, errno, "mknod");
        if (fchownat(ddir, name, st->st_uid, st->st_gid, AT_SYMLINK_NOFOLLOW) < 0 &&
            errno != EINVAL)
                return fail_at(c, err, errno, "chown");
        if (fchmodat(ddir, name, st->st_mode & 07777, 0) < 0)
                return fail_at(c, err, errno, "chmod");
        const struct timespec times[2] = { st->st_atim, st->st_mtim };
        if (utimensat(ddir, name, times, AT_SYMLINK_NOFOLLOW) < 0)
                return fail_at(c, err, errno, "set times");
        return 0;
}

static int copy_dir(int src, int dst, int depth, struct copyup *c, struct sb_error *err);

/* A directory of the image, entered in both trees: its content, then its
 * own metadata. */
static int copy_subdir(int sdir, int ddir, const char *name, const struct stat *st, int depth,
                       struct copyup *c, struct sb_error *err)
{
        _cleanup_close_ int src = -1, dst = -1;

        if (depth >= MAX_DEPTH)
                return fail_at(c, err, ELOOP, "deeper than 128 levels");
        src = open_beneath(sdir, name, O_RDONLY | O_DIRECTORY);
        if (src < 0)
                return fail_at(c, err, errno, "open");
        dst = openat(ddir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dst < 0)
                return fail_at(c, err, errno, "open in the tmpfs");
        if (copy_dir(src, dst, depth + 1, c, err) < 0)
                return -1;
        return copy_meta(src, dst, st, c, err);
}

static int copy_entry(int sdir, int ddir, const char *name, int depth, struct copyup *c,
                      struct sb_error *err)
{
        struct stat st, have;
        size_t len = strlen(c->path);

        if (len + 1 + strlen(name) >= sizeof(c->path))
                return fail_at(c, err, ENAMETOOLONG, name);
        snprintf(c->path + len, sizeof(c->path) - len, "%s%s", len > 1 ? "/" : "", name);

        int ret = 0;
        if (fstatat(sdir, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                ret = fail_at(c, err, errno, "stat");
        } else if (fstatat(ddir, name, &have, AT_SYMLINK_NOFOLLOW) == 0) {
                /* Made by a later mount: a directory bwrap made as the parent
                 * of a mount point takes the image's content and metadata;
                 * a mount point itself and anything else is left alone. */
                if (S_ISDIR(st.st_mode) && S_ISDIR(have.st_mode) && have.st_dev == c->dst_dev)
                        ret = copy_subdir(sdir, ddir, name, &st, depth, c, err);
        } else if (errno != ENOENT) {
                ret = fail_at(c, err, errno, "stat in the tmpfs");
        } else if (S_ISDIR(st.st_mode)) {
                if (mkdirat(ddir, name, 0700) < 0)
                        ret = fail_at(c, err, errno, "mkdir");
                else
                        ret = copy_subdir(sdir, ddir, name, &st, depth, c, err);
        } else if (S_ISREG(st.st_mode)) {
                ret = copy_file(sdir, ddir, name, &st, c, err);
        } else if (S_ISLNK(st.st_mode)) {
                ret = copy_symlink(sdir, ddir, name, &st, c, err);
        } else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISFIFO(st.st_mode)) {
                ret = copy_node(ddir, name, &st, c, err);
        }
        /* A socket is an endpoint of a process, not content: not copied. */
        c->path[len] = '\0';
        return ret;
}

/* Every entry of src into dst, both open directories. */
static int copy_dir(int src, int dst, int depth, struct copyup *c, struct sb_error *err)
{
        int list = dup(src);
        DIR *d = list >= 0 ? fdopendir(list) : NULL;
        struct dirent *e;
        int ret = 0;

        if (d == NULL) {
                if (list >= 0)
                        close(list);
                return fail_at(c, err, errno, "read directory");
        }
        /* dup shares the offset: start from the beginning whoever read before. */
        rewinddir(d);
        errno = 0;
        while (ret == 0 && (e = readdir(d)) != NULL) {
                if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                        ret = copy_entry(src, dst, e->d_name, depth, c, err);
                errno = 0;
        }
        if (ret == 0 && errno != 0)
                ret = fail_at(c, err, errno, "read directory");
        closedir(d);
        return ret;
}

int init_copyup(int src_dir, int dst_dir, const char *what, struct sb_error *err)
{
        struct copyup c = { .what = what, .path = "/" };
        struct stat st;

        if (fstat(dst_dir, &st) < 0)
                return sb_fail(err, errno, "%s: tmpcopyup", what);
        c.dst_dev = st.st_dev;
        /* The tmpfs's own mode and owner are the mount's (mode=, uid=). */
        return copy_dir(src_dir, dst_dir, 0, &c, err);
}
