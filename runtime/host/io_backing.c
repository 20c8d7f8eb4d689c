#include "runtime/host/io_backing.h"

#include "common/cleanup.h"
#include "runtime/host/path_identity.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* An overlay of overlays is followed this deep. */
#define MAX_DEPTH 4

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif
#ifndef MQUEUE_MAGIC
#define MQUEUE_MAGIC 0x19800202
#endif
#ifndef NSFS_MAGIC
#define NSFS_MAGIC 0x6e736673
#endif

static bool in_memory(unsigned long type)
{
        static const unsigned long types[] = {
                TMPFS_MAGIC,        RAMFS_MAGIC,         PROC_SUPER_MAGIC,   SYSFS_MAGIC,
                DEVPTS_SUPER_MAGIC, CGROUP2_SUPER_MAGIC, CGROUP_SUPER_MAGIC, MQUEUE_MAGIC,
                BPF_FS_MAGIC,       SECURITYFS_MAGIC,    DEBUGFS_MAGIC,      TRACEFS_MAGIC,
                HUGETLBFS_MAGIC,    NSFS_MAGIC,
        };
        for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
                if (types[i] == type)
                        return true;
        }
        return false;
}

struct floor_io_disk io_backing_whole_disk(unsigned major, unsigned minor)
{
        struct floor_io_disk d = { major, minor };
        char path[96], text[32];
        unsigned M, m;

        snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/partition", major, minor);
        if (access(path, F_OK) != 0)
                return d;
        /* /sys/dev/block/8:1 links to .../sda/sda1: its parent is the disk. */
        snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../dev", major, minor);
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (f != NULL && fgets(text, sizeof(text), f) != NULL && sscanf(text, "%u:%u", &M, &m) == 2)
                d = (struct floor_io_disk){ M, m };
        return d;
}

/* A disk past the last slot makes the source one whose disks cannot all be
 * held: refused under strict, never a disk silently left unthrottled. */
static void add_disk(struct floor_io_backing *out, struct floor_io_disk d)
{
        for (size_t i = 0; i < out->n_disks; i++) {
                if (out->disks[i].major == d.major && out->disks[i].minor == d.minor)
                        return;
        }
        if (out->n_disks < FLOOR_IO_MAX_DISKS) {
                out->disks[out->n_disks++] = d;
                return;
        }
        out->kind = FLOOR_IO_NO_DISK;
        snprintf(out->fs, sizeof(out->fs), "an overlay on more than %d disks", FLOOR_IO_MAX_DISKS);
}

/* The fields after " - " of fd's mountinfo line: type, source, options. */
struct mount_desc {
        char *type, *source, *options;
        char *line;
};

static int mount_desc_of(int fd, struct mount_desc *md)
{
        _cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
        size_t cap = 0;
        long want, id;

        memset(md, 0, sizeof(*md));
        if (f == NULL || path_identity_mount_id(fd, &want) < 0)
                return -1;
        while (getline(&md->line, &cap, f) >= 0) {
                char *sep = strstr(md->line, " - ");
                if (sscanf(md->line, "%ld ", &id) != 1 || id != want || sep == NULL)
                        continue;
                md->line[strcspn(md->line, "\n")] = '\0';
                char *save = NULL;
                md->type = strtok_r(sep + 3, " ", &save);
                md->source = strtok_r(NULL, " ", &save);
                md->options = strtok_r(NULL, " ", &save);
                if (md->type == NULL || md->source == NULL)
                        return -1;
                path_identity_unescape(md->source);
                return 0;
        }
        return -1;
}

static void probe(int fd, struct floor_io_backing *out, int depth);

/* One layer path of an overlay: its disks join out's; a layer that cannot
 * be opened or has no disk makes the whole overlay one with no disk. */
static void layer(const char *path, struct floor_io_backing *out, int depth)
{
        struct floor_io_backing sub = { 0 };
        _cleanup_close_ int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);

        if (fd < 0) {
                out->kind = FLOOR_IO_NO_DISK;
                snprintf(out->fs, sizeof(out->fs),
                         "an overlay whose layer %.100s cannot be opened (%s)", path,
                         strerror(errno));
                return;
        }
        probe(fd, &sub, depth + 1);
        if (sub.kind == FLOOR_IO_NO_DISK) {
                out->kind = FLOOR_IO_NO_DISK;
                snprintf(out->fs, sizeof(out->fs), "an overlay with a layer on %.160s", sub.fs);
                return;
        }
        for (size_t i = 0; i < sub.n_disks && out->kind != FLOOR_IO_NO_DISK; i++)
                add_disk(out, sub.disks[i]);
}

/* lowerdir=a:b (':' in a name is escaped), upperdir=u, in the overlay's
 * options (octal escapes, as mountinfo gives them). */
static void overlay(char *options, struct floor_io_backing *out, int depth)
{
        char *save = NULL;
        int n_layers = 0;

        out->kind = FLOOR_IO_DISKS;
        snprintf(out->fs, sizeof(out->fs), "overlay");
        for (char *opt = strtok_r(options, ",", &save);
             opt != NULL && out->kind != FLOOR_IO_NO_DISK; opt = strtok_r(NULL, ",", &save)) {
                bool lower = strncmp(opt, "lowerdir=", 9) == 0;
                if (!lower && strncmp(opt, "upperdir=", 9) != 0)
                        continue;
                char *list = opt + 9, *next;
                /* Layers are separated by ':' (data-only layers by "::"). */
                for (; list != NULL && *list != '\0' && out->kind != FLOOR_IO_NO_DISK;
                     list = next) {
                        next = lower ? strchr(list, ':') : NULL;
                        if (next != NULL)
                                *next++ = '\0';
                        while (next != NULL && *next == ':')
                                next++;
                        path_identity_unescape(list);
                        if (*list != '\0') {
                                layer(list, out, depth);
                                n_layers++;
                        }
                }
        }
        /* Every layer in memory (an overlay of tmpfs directories). */
        if (out->kind == FLOOR_IO_DISKS && out->n_disks == 0 && n_layers > 0) {
                out->kind = FLOOR_IO_MEMORY;
                snprintf(out->fs, sizeof(out->fs), "memory");
        } else if (out->kind == FLOOR_IO_DISKS && out->n_disks == 0) {
                out->kind = FLOOR_IO_NO_DISK;
                snprintf(out->fs, sizeof(out->fs), "an overlay whose layers are not named");
        }
}

static void probe(int fd, struct floor_io_backing *out, int depth)
{
        struct statfs sfs;
        struct stat st;
        struct mount_desc md;

        memset(out, 0, sizeof(*out));
        out->kind = FLOOR_IO_NO_DISK;
        if (fstatfs(fd, &sfs) < 0 || fstat(fd, &st) < 0) {
                snprintf(out->fs, sizeof(out->fs), "a file system that cannot be read (%s)",
                         strerror(errno));
                return;
        }
        if (in_memory((unsigned long)sfs.f_type)) {
                out->kind = FLOOR_IO_MEMORY;
                snprintf(out->fs, sizeof(out->fs), "memory");
                return;
        }
        int have = mount_desc_of(fd, &md);
        const char *type = have == 0 ? md.type : "an unknown file system";
        const char *source = have == 0 ? md.source : "?";
        snprintf(out->fs, sizeof(out->fs), "%s on %s", type, source);
        if ((unsigned long)sfs.f_type == OVERLAYFS_SUPER_MAGIC) {
                if (depth < MAX_DEPTH && have == 0 && md.options != NULL)
                        overlay(md.options, out, depth);
        } else if (major(st.st_dev) != 0) {
                out->kind = FLOOR_IO_DISKS;
                add_disk(out, io_backing_whole_disk(major(st.st_dev), minor(st.st_dev)));
        } else if ((unsigned long)sfs.f_type == BTRFS_SUPER_MAGIC && have == 0 &&
                   strncmp(source, "/dev/", 5) == 0) {
                /* Only btrfs's own source: another file system's is any
                 * text its mounter chose. */
                struct stat dev;
                if (stat(source, &dev) == 0 && S_ISBLK(dev.st_mode)) {
                        out->kind = FLOOR_IO_DISKS;
                        add_disk(out,
                                 io_backing_whole_disk(major(dev.st_rdev), minor(dev.st_rdev)));
                }
        }
        free(md.line);
}

void io_backing_probe(int fd, struct floor_io_backing *out)
{
        probe(fd, out, 0);
}
