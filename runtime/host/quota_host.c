#include "runtime/host/quota_host.h"

#include "common/cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/dqblk_xfs.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/quota.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#ifndef __NR_quotactl_fd
#define __NR_quotactl_fd 443 /* Linux 5.14; the same number on every architecture */
#endif

static int quotactl_fd(int fd, unsigned int cmd, unsigned int id, void *addr)
{
        return (int)syscall(__NR_quotactl_fd, fd, cmd, id, addr);
}

/* "ext4 on /dev/sda1": the mount table's line for the source's device
 * (any of its lines: binds of one file system share type and source). */
static void describe_fs(const struct stat *st, char *out, size_t size)
{
        _cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
        char line[4096], dev[32];

        snprintf(out, size, "device %u:%u", major(st->st_dev), minor(st->st_dev));
        snprintf(dev, sizeof(dev), " %u:%u ", major(st->st_dev), minor(st->st_dev));
        while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
                char type[64], source[1024];
                const char *sep = strstr(line, " - ");

                if (strstr(line, dev) == NULL || sep == NULL ||
                    sscanf(sep, " - %63s %1023s", type, source) != 2)
                        continue;
                /* A source longer than out is cut: the type still leads. */
                if (snprintf(out, size, "%s on %s", type, source) >= (int)size)
                        out[size - 1] = '\0';
                return;
        }
}

/* QCMD of <linux/quota.h> shifts an int: Q_GETINFO (0x800005) << 8 does not
 * fit one (undefined behaviour, which UBSan reports). The same bits, shifted
 * unsigned. */
static int quota_cmd(unsigned int cmd, unsigned int type)
{
        return (int)((cmd << SUBCMDSHIFT) | (type & SUBCMDMASK));
}

/* The kernel has quotactl_fd at all: an fd that is none is EBADF there. */
static bool have_quotactl_fd(void)
{
        return quotactl_fd(-1, quota_cmd(Q_GETINFO, PRJQUOTA), 0, NULL) < 0 && errno != ENOSYS;
}

/* Whether the file system enforces project quota. Q_XGETQSTATV rather
 * than Q_GETINFO: the latter answers whether project usage is accounted,
 * and ext4 with the quota feature accounts without enforcing unless it is
 * mounted with prjquota. Both ext4 and XFS answer it. Returns false with
 * out->unknown set when it cannot be told. */
static bool probe_enforced(int fd, struct volume_quota *out)
{
        struct fs_quota_statv statv = { .qs_version = FS_QSTATV_VERSION1 };

        int e;

        if (quotactl_fd(fd, quota_cmd(Q_XGETQSTATV, PRJQUOTA), 0, &statv) == 0)
                return (statv.qs_flags & FS_QUOTA_PDQ_ENFD) != 0;
        e = errno;
        /* ENOSYS: the file system has no quota, or none is on (or the
         * kernel has no quotactl_fd); ESRCH: not this type. */
        if (e == ENOSYS && !have_quotactl_fd())
                snprintf(out->unknown, sizeof(out->unknown),
                         "this kernel has no quotactl_fd(2) (Linux 5.14)");
        else if (e != ENOSYS && e != ESRCH)
                snprintf(out->unknown, sizeof(out->unknown), "quotactl_fd Q_XGETQSTATV: %s",
                         strerror(e));
        return false;
}

/* The directory's project id and whether new files inherit it. */
static int probe_project(int fd, struct volume_quota *out)
{
        struct fsxattr fsx;
        /* The ioctl needs an fd that is not O_PATH: the same directory
         * again, through the one held. */
        _cleanup_close_ int dir = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (dir < 0 || ioctl(dir, FS_IOC_FSGETXATTR, &fsx) < 0) {
                snprintf(out->unknown, sizeof(out->unknown), "%s: %s",
                         dir < 0 ? "open" : "FS_IOC_FSGETXATTR", strerror(errno));
                return -1;
        }
        out->project = fsx.fsx_projid;
        out->inherited = (fsx.fsx_xflags & FS_XFLAG_PROJINHERIT) != 0;
        return 0;
}

/* The project's block hard limit. Only root may read another's limits
 * (a project is nobody's own): a rootless caller gets EPERM. */
static void probe_limit(int fd, struct volume_quota *out)
{
        struct if_dqblk dq = { 0 };

        if (quotactl_fd(fd, quota_cmd(Q_GETQUOTA, PRJQUOTA), out->project, &dq) < 0) {
                snprintf(out->unknown, sizeof(out->unknown), "Q_GETQUOTA of project %u: %s%s",
                         out->project, strerror(errno),
                         errno == EPERM ? " (only the host's root may read a project's limits)" :
                                          "");
                return;
        }
        if (dq.dqb_valid & QIF_BLIMITS)
                out->block_limit = dq.dqb_bhardlimit * QIF_DQBLKSIZE;
}

/* A tmpfs has no project quota; its size bounds it (0 blocks: no limit). */
static bool probe_tmpfs(int fd, struct volume_quota *out)
{
        struct statfs sfs;

        if (fstatfs(fd, &sfs) < 0 || sfs.f_type != TMPFS_MAGIC)
                return false;
        out->tmpfs = true;
        out->tmpfs_size = (uint64_t)sfs.f_blocks * (uint64_t)sfs.f_bsize;
        return true;
}

void quota_host_probe(int fd, const struct stat *st, struct volume_quota *out)
{
        memset(out, 0, sizeof(*out));
        out->probed = true;
        describe_fs(st, out->fs, sizeof(out->fs));
        if (probe_tmpfs(fd, out))
                return;
        out->enforced = probe_enforced(fd, out);
        if (!out->enforced || probe_project(fd, out) < 0 || out->project == 0 || !out->inherited)
                return;
        probe_limit(fd, out);
}
