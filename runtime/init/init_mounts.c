#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* openat2, close_range, setresuid, asprintf */
#endif
#include "runtime/init/init_mounts.h"

#include "runtime/init/init_copyup.h"

#include "common/cleanup.h"
#include "common/error.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* "/proc/self/fd/N": mount(2) follows this magic link to exactly the object
 * the O_PATH fd holds, so what was resolved safely is what gets mounted on. */
#define FD_PATH_MAX 32

static const char *fd_path(int fd, char buf[FD_PATH_MAX])
{
        snprintf(buf, FD_PATH_MAX, "/proc/self/fd/%d", fd);
        return buf;
}

/* RESOLVE_IN_ROOT makes absolute rootfs symlinks (`/evil -> /oldroot/x`, see
 * docs/design.md#bwrap-follows-rootfs-symlinks-outside-the-rootfs) and ".."
 * stay inside the rootfs;
 * RESOLVE_NO_MAGICLINKS refuses /proc/self/fd/N style links to fds that came
 * from the host (CVE-2024-21626). */
int init_resolve(const char *path, int extra_flags)
{
        _cleanup_close_ int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (root < 0)
                return -1;
        struct open_how how = {
                .flags = (uint64_t)(O_PATH | O_CLOEXEC | extra_flags),
                .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
        };
        return (int)syscall(SYS_openat2, root, path, &how, sizeof(how));
}

static int mkdir_one(const char *path, mode_t mode, struct sb_error *err)
{
        _cleanup_close_ int existing = init_resolve(path, 0);
        if (existing >= 0)
                return 0;
        if (errno != ENOENT)
                return sb_fail(err, errno, "resolve %s", path);

        const char *slash = strrchr(path, '/');
        _cleanup_free_ char *parent = strndup(path, slash == path ? 1 : (size_t)(slash - path));
        if (parent == NULL)
                return sb_fail(err, ENOMEM, "mkdir %s", path);
        _cleanup_close_ int dirfd = init_resolve(parent, O_DIRECTORY);
        if (dirfd < 0)
                return sb_fail(err, errno, "resolve %s", parent);
        /* mkdirat does not follow a dangling symlink in the last component:
         * it fails with EEXIST and the later resolve reports ENOENT. */
        if (mkdirat(dirfd, slash + 1, mode) < 0 && errno != EEXIST)
                return sb_fail(err, errno, "mkdir %s", path);
        return 0;
}

int init_mkdir_p(const char *path, mode_t mode, struct sb_error *err)
{
        if (path[0] != '/')
                return sb_fail(err, EINVAL, "mkdir %s: not an absolute path", path);
        _cleanup_free_ char *copy = strdup(path);
        if (copy == NULL)
                return sb_fail(err, ENOMEM, "mkdir %s", path);
        for (char *p = copy + 1;; p++) {
                if (*p != '/' && *p != '\0')
                        continue;
                char saved = *p;
                *p = '\0';
                if (p[-1] != '/' && mkdir_one(copy, mode, err) < 0)
                        return -1;
                if (saved == '\0')
                        return 0;
                *p = saved;
        }
}

/* Flags a bind remount must repeat. In a user namespace the kernel locks
 * nosuid/nodev/noexec/ro and the atime mode of mounts it inherited, and
 * bwrap forces nosuid,nodev on every bind: leaving one out is EPERM. A remount
 * only ever adds restrictions, so keeping all of them is also the policy. */
static int kept_flags(int fd, unsigned long requested, unsigned long *kept)
{
        struct statvfs st;
        if (fstatvfs(fd, &st) < 0)
                return -1;
        /* ST_RELATIME (4096) is MS_BIND's value: translate each flag. */
        static const struct {
                unsigned long st, ms;
                bool atime;
        } map[] = {
                { ST_RDONLY, MS_RDONLY, false },    { ST_NOSUID, MS_NOSUID, false },
                { ST_NODEV, MS_NODEV, false },      { ST_NOEXEC, MS_NOEXEC, false },
                { ST_NOATIME, MS_NOATIME, true },   { ST_NODIRATIME, MS_NODIRATIME, true },
                { ST_RELATIME, MS_RELATIME, true },
        };
        bool own_atime = requested & (MS_NOATIME | MS_RELATIME | MS_STRICTATIME | MS_NODIRATIME);

        *kept = 0;
        for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
                if ((st.f_flag & map[i].st) && !(map[i].atime && own_atime))
                        *kept |= map[i].ms;
        }
        return 0;
}

static int bind_remount(int fd, unsigned long flags, const char *what, struct sb_error *err)
{
        char buf[FD_PATH_MAX];
        unsigned long kept;
        if (kept_flags(fd, flags, &kept) < 0)
                return sb_fail(err, errno, "%s: statvfs", what);
        if (mount(NULL, fd_path(fd, buf), NULL, MS_REMOUNT | MS_BIND | flags | kept, NULL) < 0)
                return sb_fail(err, errno, "%s", what);
        return 0;
}

/* struct mount_attr of the kernel's uapi, spelled here: musl's headers
 * have no mount_setattr, and glibc's clash with linux/mount.h. */
struct init_mount_attr {
        uint64_t attr_set, attr_clr, propagation, userns_fd;
};
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

/* rro and the other recursive options: on the mount at fd and every mount
 * below it (Linux 5.12). */
static int set_attributes(int fd, uint64_t flags, const char *what, struct sb_error *err)
{
        struct init_mount_attr attr = { .attr_set = flags & 0xffffffffu, .attr_clr = flags >> 32 };

        if (syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof(attr)) <
            0)
                return sb_fail(err, errno, "%s", what);
        return 0;
}

#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif
#ifndef MOVE_MOUNT_T_EMPTY_PATH
#define MOVE_MOUNT_T_EMPTY_PATH 0x00000040
#endif

/* An fd number sbrun passed in the plan's source (tmpcopyup, idmapped
 * trees), or -1. */
static int plan_fd(const char *source_fd)
{
        char *end = NULL;
        long n = source_fd ? strtol(source_fd, &end, 10) : -1;

        if (source_fd == NULL || end == source_fd || *end != '\0' || n <= STDERR_FILENO ||
            n > INT_MAX)
                return -1;
        return (int)n;
}

/* The idmapped tree sbrun made on the host: attached here, on the
 * resolved destination, then closed, so that the container never holds
 * it. A detached tree has no path a bind mount could take. */
static int move_tree(int dst, const char *source_fd, const char *what, struct sb_error *err)
{
        if (plan_fd(source_fd) < 0)
                return sb_fail(err, EINVAL, "%s: tree fd \"%s\"", what,
                               source_fd ? source_fd : "(null)");
        _cleanup_close_ int tree = plan_fd(source_fd);
        if (syscall(SYS_move_mount, tree, "", dst, "",
                    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
                return sb_fail(err, errno, "%s", what);
        return 0;
}

/* The superblock, not the bind: the size holds for every view of it. */
static int resize(int fd, const char *data, const char *what, struct sb_error *err)
{
        char buf[FD_PATH_MAX];
        unsigned long kept;
        if (kept_flags(fd, 0, &kept) < 0)
                return sb_fail(err, errno, "%s: statvfs", what);
        if (mount(NULL, fd_path(fd, buf), NULL, MS_REMOUNT | kept, data) < 0)
                return sb_fail(err, errno, "%s", what);
        return 0;
}

/* The mask source must be the real null device: /dev is reachable by the
 * container's files, and anything else bound over /proc/kcore leaks. */
static int open_dev_null(const char *what, struct sb_error *err)
{
        _cleanup_close_ int fd = init_resolve("/dev/null", 0);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0)
                return sb_fail(err, errno, "%s: /dev/null", what);
        if (!S_ISCHR(st.st_mode) || st.st_rdev != makedev(1, 3))
                return sb_fail(err, 0, "%s: /dev/null is not the null device", what);
        return SB_STEAL_FD(fd);
}

/* As runc: a read-only empty tmpfs over a directory, /dev/null over the rest.
 * data, when sbrun sets it, carries the mount label with the mode. */
static int mask(int fd, const char *data, const char *what, struct sb_error *err)
{
        char target[FD_PATH_MAX], source[FD_PATH_MAX];
        struct stat st;
        if (fstat(fd, &st) < 0)
                return sb_fail(err, errno, "%s", what);
        if (S_ISDIR(st.st_mode)) {
                if (mount("tmpfs", fd_path(fd, target), "tmpfs",
                          MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                          data ? data : "mode=0555") < 0)
                        return sb_fail(err, errno, "%s", what);
                return 0;
        }
        _cleanup_close_ int null = open_dev_null(what, err);
        if (null < 0)
                return -1;
        if (mount(fd_path(null, source), fd_path(fd, target), NULL, MS_BIND, NULL) < 0)
                return sb_fail(err, errno, "%s", what);
        return 0;
}

static int make_readonly(int fd, const char *path, const char *what, struct sb_error *err)
{
        char buf[FD_PATH_MAX];
        if (mount(fd_path(fd, buf), buf, NULL, MS_BIND | MS_REC, NULL) < 0)
                return sb_fail(err, errno, "%s: bind", what);
        /* The old fd still names the covered mount; the remount must hit the
         * new bind on top, so resolve again. */
        _cleanup_close_ int top = init_resolve(path, 0);
        if (top < 0)
                return sb_fail(err, errno, "%s: resolve", what);
        return bind_remount(top, MS_RDONLY, what, err);
}

/* The image's directory comes as an fd sbrun opened before bwrap covered
 * it; it is closed once copied, so the container never holds it. */
static int copy_up(int dst, const char *source_fd, const char *what, struct sb_error *err)
{
        char *end = NULL;
        long n = source_fd ? strtol(source_fd, &end, 10) : -1;

        if (source_fd == NULL || end == source_fd || *end != '\0' || n <= STDERR_FILENO ||
            n > INT_MAX)
                return sb_fail(err, EINVAL, "%s: tmpcopyup source fd \"%s\"", what,
                               source_fd ? source_fd : "(null)");
        _cleanup_close_ int src = (int)n;
        return init_copyup(src, dst, what, err);
}

static void describe(const struct init_mount *m, char *buf, size_t size)
{
        switch (m->kind) {
        case INIT_MOUNT_FS:
                snprintf(buf, size, "mount %s on %s%s%s%s", m->fstype ? m->fstype : "?",
                         m->destination, m->data ? " (" : "", m->data ? m->data : "",
                         m->data ? ")" : "");
                break;
        case INIT_MOUNT_REMOUNT:
                snprintf(buf, size, "remount %s", m->destination);
                break;
        case INIT_MOUNT_MASK:
                snprintf(buf, size, "mask %s", m->destination);
                break;
        case INIT_MOUNT_READONLY:
                snprintf(buf, size, "make %s read-only", m->destination);
                break;
        case INIT_MOUNT_RESIZE:
                snprintf(buf, size, "remount %s with %s", m->destination, m->data ? m->data : "");
                break;
        case INIT_MOUNT_COPYUP:
                snprintf(buf, size, "tmpfs %s", m->destination);
                break;
        case INIT_MOUNT_PROPAGATE:
                snprintf(buf, size, "set the propagation of %s", m->destination);
                break;
        case INIT_MOUNT_SETATTR:
                snprintf(buf, size, "set the attributes of %s and every mount below it",
                         m->destination);
                break;
        case INIT_MOUNT_MOVE:
                snprintf(buf, size, "attach the idmapped mount at %s", m->destination);
                break;
        default:
                snprintf(buf, size, "mount kind %u on %s", m->kind, m->destination);
        }
}

/* In a user namespace /sys is a bind of the host's, and /sys/fs/cgroup in
 * it the host's cgroup2 mount (runtime/sandbox/mount_translate.c): the
 * kernel refuses the same file system on the root of a mount of it
 * (EBUSY), though the container's cgroup namespace would show another
 * root. An empty read-only tmpfs goes between, as the mount point. */
static int mount_cgroup2_over_host(const struct init_mount *m, int *fd, const char *what,
                                   struct sb_error *err)
{
        char buf[FD_PATH_MAX];

        if (mount("none", fd_path(*fd, buf), "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                  "size=4k,nr_inodes=1,mode=0555") < 0)
                return sb_fail(err, errno, "%s: a tmpfs under it", what);
        close(*fd);
        *fd = init_resolve(m->destination, 0);
        if (*fd < 0)
                return sb_fail(err, errno, "%s", what);
        if (mount(m->source, fd_path(*fd, buf), m->fstype, (unsigned long)m->flags, m->data) < 0)
                return sb_fail(err, errno, "%s", what);
        return 0;
}

static int apply_one(const struct init_mount *m, struct sb_error *err)
{
        char what[PATH_MAX + 64];
        char buf[FD_PATH_MAX];

        if (m->destination == NULL || m->destination[0] != '/')
                return sb_fail(err, EINVAL, "mount destination %s: not an absolute path",
                               m->destination ? m->destination : "(null)");
        describe(m, what, sizeof(what));

        _cleanup_close_ int fd = init_resolve(m->destination, 0);
        if (fd < 0 && errno == ENOENT) {
                if (m->skip_missing)
                        return 0;
                if (m->kind == INIT_MOUNT_FS) {
                        if (init_mkdir_p(m->destination, 0755, err) < 0)
                                return sb_error_prefix(err, "%s", what);
                        fd = init_resolve(m->destination, 0);
                }
        }
        if (fd < 0)
                return sb_fail(err, errno, "%s", what);

        switch (m->kind) {
        case INIT_MOUNT_FS:
                if (mount(m->source, fd_path(fd, buf), m->fstype, (unsigned long)m->flags,
                          m->data) == 0)
                        return 0;
                if (errno == EBUSY && m->fstype != NULL && strcmp(m->fstype, "cgroup2") == 0)
                        return mount_cgroup2_over_host(m, &fd, what, err);
                return sb_fail(err, errno, "%s", what);
        case INIT_MOUNT_REMOUNT:
                return bind_remount(fd, (unsigned long)m->flags, what, err);
        case INIT_MOUNT_MASK:
                return mask(fd, m->data, what, err);
        case INIT_MOUNT_READONLY:
                return make_readonly(fd, m->destination, what, err);
        case INIT_MOUNT_RESIZE:
                return resize(fd, m->data, what, err);
        case INIT_MOUNT_COPYUP:
                return copy_up(fd, m->source, what, err);
        case INIT_MOUNT_PROPAGATE:
                if (mount(NULL, fd_path(fd, buf), NULL, (unsigned long)m->flags, NULL) < 0)
                        return sb_fail(err, errno, "%s", what);
                return 0;
        case INIT_MOUNT_SETATTR:
                return set_attributes(fd, m->flags, what, err);
        case INIT_MOUNT_MOVE:
                return move_tree(fd, m->source, what, err);
        default:
                return sb_fail(err, EINVAL, "%s", what);
        }
}

int init_apply_mounts(const struct init_mount *mounts, size_t n, struct sb_error *err)
{
        for (size_t i = 0; i < n; i++)
                if (apply_one(&mounts[i], err) < 0)
                        return -1;
        return 0;
}

int init_remount_root_readonly(struct sb_error *err)
{
        _cleanup_close_ int fd = init_resolve("/", O_DIRECTORY);
        if (fd < 0)
                return sb_fail(err, errno, "remount / read-only");
        return bind_remount(fd, MS_RDONLY, "remount / read-only", err);
}

int init_enter_cwd(const char *cwd, struct sb_error *err)
{
        _cleanup_close_ int fd = init_resolve(cwd, O_DIRECTORY);
        if (fd < 0 || fchdir(fd) < 0)
                return sb_fail(err, errno, "chdir %s", cwd);
        /* The kernel reports a cwd outside the root as "(unreachable)/…" or
         * ENOENT: refuse it rather than start a process that can walk the host. */
        char buf[PATH_MAX];
        errno = 0;
        if (getcwd(buf, sizeof(buf)) == NULL || buf[0] != '/')
                return sb_fail(err, errno ? errno : EINVAL,
                               "chdir %s: cwd is outside the container", cwd);
        return 0;
}
