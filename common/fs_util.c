#include "common/fs_util.h"

#include "common/cleanup.h"
#include "common/error.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int sb_read_fd(int fd, size_t max_len, char **out, size_t *out_len, struct sb_error *err)
{
        size_t cap = 4096, len = 0;
        _cleanup_free_ char *buf = malloc(cap + 1);

        if (buf == NULL)
                return sb_fail(err, ENOMEM, "read");
        for (;;) {
                if (len == cap) {
                        if (cap >= max_len)
                                return sb_fail(err, EFBIG, "file larger than %zu bytes", max_len);
                        cap *= 2;
                        char *grown = realloc(buf, cap + 1);
                        if (grown == NULL)
                                return sb_fail(err, ENOMEM, "read");
                        buf = grown;
                }
                ssize_t n = read(fd, buf + len, cap - len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return sb_fail(err, errno, "read");
                if (n == 0)
                        break;
                len += (size_t)n;
        }
        buf[len] = '\0';
        *out = SB_STEAL_PTR(buf);
        if (out_len)
                *out_len = len;
        return 0;
}

const char *sb_file_type_name(mode_t mode)
{
        switch (mode & S_IFMT) {
        case S_IFREG:
                return "a regular file";
        case S_IFDIR:
                return "a directory";
        case S_IFIFO:
                return "a FIFO";
        case S_IFSOCK:
                return "a socket";
        case S_IFCHR:
                return "a character device";
        case S_IFBLK:
                return "a block device";
        case S_IFLNK:
                return "a symbolic link";
        default:
                return "of an unknown type";
        }
}

int sb_read_file(const char *path, size_t max_len, char **out, size_t *out_len,
                 struct sb_error *err)
{
        /* O_NONBLOCK: the open of a FIFO with no writer would wait for one,
         * and of a device could act; neither is read, only refused. On a
         * regular file the flag changes nothing. */
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        struct stat st;

        if (fd < 0)
                return sb_fail(err, errno, "open %s", path);
        if (fstat(fd, &st) < 0)
                return sb_fail(err, errno, "stat %s", path);
        if (!S_ISREG(st.st_mode))
                return sb_fail(err, 0, "%s: not a regular file (%s)", path,
                               sb_file_type_name(st.st_mode));
        if (sb_read_fd(fd, max_len, out, out_len, err) < 0)
                return sb_error_prefix(err, "%s", path);
        return 0;
}

int sb_write_all(int fd, const void *buf, size_t len)
{
        const char *p = buf;

        while (len > 0) {
                ssize_t n = write(fd, p, len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -1;
                p += n;
                len -= (size_t)n;
        }
        return 0;
}

int sb_write_file_atomic(int dirfd, const char *name, const void *data, size_t len, mode_t mode,
                         struct sb_error *err)
{
        char tmp[256];
        _cleanup_close_ int fd = -1;

        if (snprintf(tmp, sizeof(tmp), ".%s.tmp", name) >= (int)sizeof(tmp))
                return sb_fail(err, ENAMETOOLONG, "write %s", name);
        fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
        if (fd < 0)
                return sb_fail(err, errno, "create %s", tmp);
        /* No fsync: the rename alone makes the file whole or absent for every
         * reader and if sbrun dies. What is written here (the state root,
         * /run/sbrun by default, a tmpfs) describes processes that do not
         * survive a crash of the machine either, while an fsync on a
         * disk-backed root waits for a journal commit per file. */
        if (sb_write_all(fd, data, len) < 0) {
                int saved = errno;
                unlinkat(dirfd, tmp, 0);
                return sb_fail(err, saved, "write %s", tmp);
        }
        if (renameat(dirfd, tmp, dirfd, name) < 0) {
                int saved = errno;
                unlinkat(dirfd, tmp, 0);
                return sb_fail(err, saved, "rename %s to %s", tmp, name);
        }
        return 0;
}

int sb_memfd_with(const char *name, const void *data, size_t len, struct sb_error *err)
{
        _cleanup_close_ int fd = memfd_create(name, MFD_CLOEXEC);

        if (fd < 0)
                return sb_fail(err, errno, "memfd_create %s", name);
        if (sb_write_all(fd, data, len) < 0 || lseek(fd, 0, SEEK_SET) < 0)
                return sb_fail(err, errno, "write %s", name);
        return SB_STEAL_FD(fd);
}

char *sb_fd_path(int fd)
{
        char link[64], target[PATH_MAX];
        ssize_t n;

        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        n = readlink(link, target, sizeof(target) - 1);
        if (n < 0)
                return NULL;
        target[n] = '\0';
        return strdup(target);
}
