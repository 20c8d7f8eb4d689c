#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* unshare, CLONE_NEWUSER */
#endif
#include "runtime/sandbox/idmap_mount.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "oci/config.h"
#include "runtime/host/rootless.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef OPEN_TREE_CLOEXEC
#define OPEN_TREE_CLOEXEC O_CLOEXEC
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#ifndef MOUNT_ATTR_IDMAP
#define MOUNT_ATTR_IDMAP 0x00100000
#endif

struct sb_mount_attr {
        uint64_t attr_set, attr_clr, propagation, userns_fd;
};

static int mount_setattr_fd(int fd, unsigned int flags, const struct sb_mount_attr *attr)
{
        return (int)syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH | flags, attr, sizeof(*attr));
}

static int write_map(pid_t pid, const char *file, const struct oci_idmap *maps, size_t n,
                     const char *what, struct sb_error *err)
{
        char path[64], buf[5 * 40 + 1];
        size_t len = 0;

        /* The kernel takes at most 340 lines; the floor allows 5 (spec/floor_spec_fields.c). */
        if (n > 5)
                return sb_fail(err, E2BIG, "%s: more than 5 ranges", what);
        for (size_t i = 0; i < n; i++)
                len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%u %u %u\n",
                                        maps[i].container_id, maps[i].host_id, maps[i].size);
        snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0 || write(fd, buf, len) != (ssize_t)len)
                return sb_fail(err, errno, "%s: write %s of the mapping's user namespace", what,
                               file);
        return 0;
}

/* A user namespace carrying the mount's mapping, held by an fd: a child
 * makes it and waits; its maps are written from here (as root in the
 * host's user namespace, any mapping), then the child is let go. */
static int mapping_userns(const struct idmap_mount_request *req, struct sb_error *err)
{
        int made[2], release[2];
        char byte = 0;
        int fd = -1;

        if (pipe2(made, O_CLOEXEC) < 0)
                return sb_fail(err, errno, "%s: pipe", req->what);
        if (pipe2(release, O_CLOEXEC) < 0) {
                sb_fail(err, errno, "%s: pipe", req->what);
                close(made[0]);
                close(made[1]);
                return -1;
        }
        pid_t pid = fork();
        if (pid == 0) {
                close(made[0]);
                close(release[1]);
                if (unshare(CLONE_NEWUSER) == 0 && write(made[1], "u", 1) == 1)
                        (void)!read(release[0], &byte, 1);
                _exit(0);
        }
        close(made[1]);
        close(release[0]);
        if (pid < 0) {
                sb_fail(err, errno, "%s: fork", req->what);
        } else if (read(made[0], &byte, 1) != 1) {
                sb_fail(err, 0, "%s: could not make a user namespace for the mapping", req->what);
        } else if (write_map(pid, "uid_map", req->uids, req->n_uids, req->what, err) == 0 &&
                   write_map(pid, "gid_map", req->gids, req->n_gids, req->what, err) == 0) {
                char path[64];
                snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
                fd = open(path, O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        sb_fail(err, errno, "%s: open the mapping's user namespace", req->what);
        }
        close(made[0]);
        close(release[1]); /* the child's read returns: it exits */
        if (pid > 0) {
                while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                        ;
        }
        return fd;
}

/* statfs(2) magic numbers of the file systems a config is likely to bind,
 * so that a refusal names the type rather than a number. */
static const char *fs_type_name(long type, char buf[24])
{
        static const struct {
                unsigned long magic;
                const char *name;
        } names[] = {
                { 0xEF53, "ext4" },        { 0x58465342, "xfs" },      { 0x9123683E, "btrfs" },
                { 0x01021994, "tmpfs" },   { 0x858458f6, "ramfs" },    { 0x9fa0, "proc" },
                { 0x62656572, "sysfs" },   { 0x63677270, "cgroup2" },  { 0x1cd1, "devpts" },
                { 0x794c7630, "overlay" }, { 0x6969, "nfs" },          { 0x65735546, "fuse" },
                { 0x4d44, "vfat" },        { 0x73717368, "squashfs" }, { 0xF2F52010, "f2fs" },
                { 0x2fc12fc1, "zfs" },     { 0xE0F5E1E2, "erofs" },    { 0x5346414F, "afs" },
                { 0xFF534D42, "cifs" },    { 0x00c36400, "ceph" },     { 0x9660, "iso9660" },
        };
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
                if ((unsigned long)type == names[i].magic)
                        return names[i].name;
        snprintf(buf, 24, "0x%lx", (unsigned long)type);
        return buf;
}

int idmap_mount_make(const struct idmap_mount_request *req, struct sb_error *err)
{
        _cleanup_close_ int tree =
                (int)syscall(SYS_open_tree, req->source_fd, "",
                             OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
        if (tree < 0)
                return sb_fail(err, errno, "%s: open_tree", req->what);
        /* bwrap's binds are nosuid and nodev at every level; this one too.
         * And a slave, as they are (docs/design.md, "bwrap makes every mount
         * a slave of the host's"): a clone of a shared host mount is that
         * mount's peer, and a mount made under it in the container would
         * appear on the host. */
        struct sb_mount_attr attr = { .attr_set =
                                              req->attr_set | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
                                      .attr_clr = req->attr_clr,
                                      .propagation = MS_SLAVE };
        if (mount_setattr_fd(tree, AT_RECURSIVE, &attr) < 0)
                return sb_fail(err, errno, "%s: mount_setattr", req->what);
        /* No mapping: a plain bind made this way (mount_translate.c's
         * bind for a user namespace that cannot reach its source's path). */
        if (req->uids == NULL)
                return SB_STEAL_FD(tree);

        _cleanup_close_ int userns = mapping_userns(req, err);
        if (userns < 0)
                return -1;
        struct sb_mount_attr idmap = { .attr_set = MOUNT_ATTR_IDMAP,
                                       .userns_fd = (uint64_t)userns };
        if (mount_setattr_fd(tree, req->recursive ? AT_RECURSIVE : 0, &idmap) == 0)
                return SB_STEAL_FD(tree);
        int saved = errno;
        struct statfs st;
        char buf[24];
        if (saved == EINVAL && fstatfs(tree, &st) == 0)
                return sb_fail(err, saved,
                               "%s: the kernel cannot idmap a mount of this %s file system%s",
                               req->what, fs_type_name((long)st.f_type, buf),
                               req->recursive ? ", or of one mounted below it (ridmap)" : "");
        if (saved == EPERM && rootless_in_user_namespace())
                return sb_fail(err, saved,
                               "%s: the kernel idmaps a mount only for the root of the user "
                               "namespace that owns its file system, and this one's is not "
                               "sbrun's (a host file system: only the host's root may idmap it)",
                               req->what);
        return sb_fail(err, saved, "%s: mount_setattr(MOUNT_ATTR_IDMAP)", req->what);
}

bool idmap_mount_supported(void)
{
        /* An attribute to set, or the kernel returns 0 before it looks at the fd. */
        struct sb_mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY };

        /* Root of the host's user namespace, or of an engine's (rootless
         * podman's): the kernel decides per file system which it owns. */
        if (geteuid() != 0)
                return false;
        /* An fd that is no fd: EBADF where the call exists, ENOSYS where not. */
        return syscall(SYS_mount_setattr, -1, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0 &&
               errno != ENOSYS;
}
