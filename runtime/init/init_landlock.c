#include "runtime/init/init_landlock.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/landlock.h"
#include "runtime/init/init_mounts.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FS_READ (SB_LL_FS_READ_FILE | SB_LL_FS_READ_DIR)
/* No MAKE_CHAR or MAKE_BLOCK anywhere: device nodes are the floor's
 * (linux.devices), made before this. */
#define FS_WRITE_ABI1                                                                           \
        (SB_LL_FS_WRITE_FILE | SB_LL_FS_REMOVE_DIR | SB_LL_FS_REMOVE_FILE | SB_LL_FS_MAKE_DIR | \
         SB_LL_FS_MAKE_REG | SB_LL_FS_MAKE_SOCK | SB_LL_FS_MAKE_FIFO | SB_LL_FS_MAKE_SYM)
/* What a rule on a file (not a directory) may grant. */
#define FILE_RIGHTS \
        (SB_LL_FS_EXECUTE | SB_LL_FS_WRITE_FILE | SB_LL_FS_READ_FILE | SB_LL_FS_TRUNCATE)

struct ruleset {
        int fd;
        int abi;
        uint64_t write; /* the write rights this ABI handles */
        char **writable;
};

static uint64_t write_rights(int abi)
{
        uint64_t r = FS_WRITE_ABI1;

        /* REFER granted within a writable tree only, so that a link or a
         * rename never moves a file from one tree into another. */
        if (abi >= 2)
                r |= SB_LL_FS_REFER;
        if (abi >= 3)
                r |= SB_LL_FS_TRUNCATE;
        return r;
}

/* rights beneath path; a path that is not there has nothing to grant. */
static int allow(const struct ruleset *rs, const char *path, uint64_t rights, struct sb_error *err)
{
        _cleanup_close_ int fd = init_resolve(path, 0);
        struct sb_landlock_path_beneath_attr attr = { .allowed_access = rights };
        struct stat st;

        if (fd < 0 && errno == ENOENT)
                return 0;
        if (fd < 0 || fstat(fd, &st) < 0)
                return sb_fail(err, errno, "landlock: %s", path);
        if (!S_ISDIR(st.st_mode))
                attr.allowed_access &= FILE_RIGHTS;
        attr.parent_fd = fd;
        if (sb_landlock_add_rule(rs->fd, SB_LANDLOCK_RULE_PATH_BENEATH, &attr, 0) < 0)
                return sb_fail(err, errno, "landlock: a rule for %s", path);
        return 0;
}

static bool is_writable(const struct ruleset *rs, const char *path)
{
        for (char **w = rs->writable; *w != NULL; w++)
                if (strcmp(*w, path) == 0)
                        return true;
        return false;
}

/* A writable path strictly beneath dir. */
static bool writable_beneath(const struct ruleset *rs, const char *dir)
{
        size_t n = strcmp(dir, "/") == 0 ? 0 : strlen(dir);

        for (char **w = rs->writable; *w != NULL; w++)
                if (strncmp(*w, dir, n) == 0 && (*w)[n] == '/' && (*w)[n + 1] != '\0')
                        return true;
        return false;
}

/* W^X: Landlock grants by tree and cannot take a subtree back, so execute
 * is granted to every entry of dir that holds no writable path, and the
 * walk goes down into those that do. Only the directories on the way to a
 * writable path are read; symbolic links are skipped (what they name is
 * granted or not where it is). */
static int allow_exec_outside(const struct ruleset *rs, const char *dir, int depth,
                              struct sb_error *err)
{
        _cleanup_close_ int fd = init_resolve(dir, O_DIRECTORY);
        char child[PATH_MAX];
        struct dirent *e;
        DIR *d;
        int ret = 0;

        if (depth > 64)
                return sb_fail(err, ELOOP, "landlock: %s", dir);
        if (fd < 0 && errno == ENOENT)
                return 0;
        /* An O_PATH fd cannot be read, but it is a directory to open "." in. */
        int readable = fd < 0 ? -1 : openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        d = readable < 0 ? NULL : fdopendir(readable);
        if (d == NULL) {
                int saved = errno;
                if (readable >= 0)
                        close(readable);
                return sb_fail(err, saved, "landlock: read %s", dir);
        }
        while (ret == 0 && (e = readdir(d)) != NULL) {
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                        continue;
                if (snprintf(child, sizeof(child), "%s/%s", strcmp(dir, "/") == 0 ? "" : dir,
                             e->d_name) >= (int)sizeof(child)) {
                        ret = sb_fail(err, ENAMETOOLONG, "landlock: %s", dir);
                        break;
                }
                struct stat st;
                if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
                    S_ISLNK(st.st_mode) || is_writable(rs, child))
                        continue;
                if (S_ISDIR(st.st_mode) && writable_beneath(rs, child))
                        ret = allow_exec_outside(rs, child, depth + 1, err);
                else
                        ret = allow(rs, child, SB_LL_FS_EXECUTE, err);
        }
        closedir(d);
        return ret;
}

static int add_rules(const struct ruleset *rs, const struct init_plan *plan, struct sb_error *err)
{
        uint64_t exec = plan->landlock_exec_writable ? SB_LL_FS_EXECUTE : 0;

        if (allow(rs, "/", FS_READ | exec, err) < 0)
                return -1;
        for (char **w = rs->writable; *w != NULL; w++)
                if (allow(rs, *w, FS_READ | rs->write | exec, err) < 0)
                        return -1;
        if (exec == 0 && !is_writable(rs, "/"))
                return allow_exec_outside(rs, "/", 0, err);
        return 0;
}

int init_landlock_prepare(const struct init_plan *plan, int *ruleset_fd, struct sb_error *err)
{
        static char *none[] = { NULL };
        struct sb_landlock_ruleset_attr attr = { 0 };
        struct ruleset rs = { .fd = -1, .writable = plan->landlock_writable ?: none };
        size_t size = sizeof(attr.handled_access_fs);
        int kernel = sb_landlock_abi();

        *ruleset_fd = -1;
        if (plan->landlock_mode == 0)
                return 0;
        if (kernel <= 0)
                return sb_fail(err, errno, "landlock: the kernel offers none");
        rs.abi = kernel < (int)plan->landlock_abi ? kernel : (int)plan->landlock_abi;
        rs.write = write_rights(rs.abi);
        attr.handled_access_fs =
                SB_LL_FS_EXECUTE | FS_READ | rs.write | SB_LL_FS_MAKE_CHAR | SB_LL_FS_MAKE_BLOCK;
        /* No rule grants a port: handled is denied. */
        if (plan->landlock_no_tcp && rs.abi >= 4) {
                attr.handled_access_net = SB_LL_NET_BIND_TCP | SB_LL_NET_CONNECT_TCP;
                size = sizeof(attr);
        }
        rs.fd = (int)sb_landlock_create_ruleset(&attr, size, 0);
        if (rs.fd < 0)
                return sb_fail(err, errno, "landlock: create a ruleset (ABI %d)", rs.abi);
        if (add_rules(&rs, plan, err) < 0) {
                close(rs.fd);
                return -1;
        }
        *ruleset_fd = rs.fd;
        return 0;
}

int init_landlock_enforce(int ruleset_fd, struct sb_error *err)
{
        if (ruleset_fd < 0)
                return 0;
        long r = sb_landlock_restrict_self(ruleset_fd, 0);
        int saved = errno;

        close(ruleset_fd);
        return r < 0 ? sb_fail(err, saved, "landlock: enforce the ruleset") : 0;
}
