#include "runtime/audit/audit_log.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"
#include "runtime/container/global_options.h"
#include "runtime/host/rootless.h"
#include "runtime/host/user_name.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

/* How long a line waits for the rotation lock before it is written without
 * it (O_APPEND still keeps it whole; only a rotation may be put off): a
 * create is never held up for long by another's write. */
#define LOCK_WAIT_MS 1000
#define LOCK_STEP_MS 5

/* $XDG_STATE_HOME, else $HOME/.local/state, else the home /etc/passwd
 * gives the user: an engine's cleanup may run sbrun with no environment
 * (rootless podman 5's `container cleanup` has no HOME), and its delete is
 * recorded all the same. Inside an engine's user namespace the user is the
 * one outside it. */
static char *user_log_path(struct sb_error *err)
{
        const char *state = getenv("XDG_STATE_HOME");
        const char *home = getenv("HOME");
        uid_t uid = rootless_outer_uid(geteuid());
        char passwd_home[PATH_MAX];
        char *path = NULL;
        int n;

        if (state != NULL && state[0] == '/')
                n = asprintf(&path, "%s/%s", state, AUDIT_USER_LOG);
        else if (home != NULL && home[0] == '/')
                n = asprintf(&path, "%s/.local/state/%s", home, AUDIT_USER_LOG);
        else if (host_user_home(uid, passwd_home, sizeof(passwd_home)))
                n = asprintf(&path, "%s/.local/state/%s", passwd_home, AUDIT_USER_LOG);
        else
                return sb_fail(err, 0,
                               "audit: neither XDG_STATE_HOME nor HOME is set, and /etc/passwd "
                               "has no home for uid %u, so a user's audit log has no place",
                               (unsigned)uid),
                       NULL;
        if (n < 0)
                return sb_fail(err, ENOMEM, "audit log path"), NULL;
        return path;
}

int audit_target_resolve(const struct audit_settings *settings, const struct global_options *global,
                         struct audit_target *t, struct sb_error *err)
{
        t->sink = settings->sink;
        t->fsync = settings->fsync;
        t->max_size = settings->max_size;
        t->keep = settings->keep;
        t->path = NULL;
        if (t->sink != AUDIT_FILE)
                return 0;
        if (global->rootless || global->host_root != 0)
                t->path = user_log_path(err);
        else
                t->path = strdup(settings->path ? settings->path : AUDIT_DEFAULT_LOG);
        if (t->path == NULL)
                return err->msg ? -1 : sb_fail(err, ENOMEM, "audit log path");
        return 0;
}

void audit_target_release(struct audit_target *t)
{
        free(t->path);
        t->path = NULL;
}

char *audit_target_dir(const struct audit_target *t)
{
        char *dir, *slash;

        if (t->sink != AUDIT_FILE || t->path == NULL || (dir = strdup(t->path)) == NULL)
                return NULL;
        slash = strrchr(dir, '/');
        if (slash == dir)
                slash[1] = '\0';
        else
                *slash = '\0';
        return dir;
}

char *audit_settings_dir(const struct audit_settings *settings, const struct global_options *global)
{
        struct audit_target t = AUDIT_TARGET_INIT;
        struct sb_error ignored = { 0 };
        char *dir = NULL;

        if (audit_target_resolve(settings, global, &t, &ignored) == 0)
                dir = audit_target_dir(&t);
        audit_target_release(&t);
        sb_error_clear(&ignored);
        return dir;
}

/* The directory and its missing parents, 0700: nobody else reads the
 * trail of what ran. */
static int open_dir(const char *dir, struct sb_error *err)
{
        char path[PATH_MAX];
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (fd >= 0 || errno != ENOENT)
                return fd >= 0 ? fd : sb_fail(err, errno, "open %s", dir);
        snprintf(path, sizeof(path), "%s", dir);
        for (char *p = path + 1; *p != '\0'; p++) {
                if (*p != '/')
                        continue;
                *p = '\0';
                if (mkdir(path, 0700) < 0 && errno != EEXIST)
                        return sb_fail(err, errno, "create %s", path);
                *p = '/';
        }
        if (mkdir(path, 0700) < 0 && errno != EEXIST)
                return sb_fail(err, errno, "create %s", path);
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        return fd >= 0 ? fd : sb_fail(err, errno, "open %s", dir);
}

static bool lock_dir(int dirfd)
{
        const struct timespec step = { 0, LOCK_STEP_MS * 1000000L };

        for (int waited = 0; waited < LOCK_WAIT_MS; waited += LOCK_STEP_MS) {
                if (flock(dirfd, LOCK_EX | LOCK_NB) == 0)
                        return true;
                if (errno != EWOULDBLOCK && errno != EINTR)
                        return false;
                nanosleep(&step, NULL);
        }
        return false;
}

static int open_log(int dirfd, const char *name, const char *path, struct sb_error *err)
{
        struct stat st;
        int fd = openat(dirfd, name,
                        O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);

        if (fd < 0)
                return sb_fail(err, errno, "open %s", path);
        /* A file someone else made there (a user who could write the
         * directory once) is not the operator's trail. */
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
                close(fd);
                return sb_fail(err, EPERM, "%s is not a regular file of uid %u", path,
                               (unsigned)geteuid());
        }
        return fd;
}

/* NAME.keep-1 → NAME.keep, ..., NAME → NAME.1; the oldest is replaced. */
static void rotate(int dirfd, const char *name, int keep)
{
        char from[NAME_MAX + 16], to[NAME_MAX + 16];

        for (int i = keep - 1; i >= 1; i--) {
                snprintf(from, sizeof(from), "%s.%d", name, i);
                snprintf(to, sizeof(to), "%s.%d", name, i + 1);
                renameat(dirfd, from, dirfd, to);
        }
        snprintf(to, sizeof(to), "%s.1", name);
        renameat(dirfd, name, dirfd, to);
}

static int append_file(const struct audit_target *t, const char *line, size_t len,
                       struct sb_error *err)
{
        _cleanup_free_ char *dir = audit_target_dir(t);
        _cleanup_free_ char *buf = malloc(len + 1);
        _cleanup_close_ int dirfd = -1, fd = -1;
        const char *name = strrchr(t->path, '/') + 1;
        struct stat st;
        bool locked;
        ssize_t n;

        if (dir == NULL || buf == NULL)
                return sb_fail(err, ENOMEM, "audit line");
        memcpy(buf, line, len);
        buf[len] = '\n';
        dirfd = open_dir(dir, err);
        if (dirfd < 0)
                return -1;
        locked = lock_dir(dirfd);
        fd = open_log(dirfd, name, t->path, err);
        if (fd < 0)
                return -1;
        if (locked && fstat(fd, &st) == 0 && st.st_size > 0 &&
            st.st_size + (off_t)len + 1 > t->max_size) {
                rotate(dirfd, name, t->keep);
                close(fd);
                fd = open_log(dirfd, name, t->path, err);
                if (fd < 0)
                        return -1;
        }
        if (locked && fstat(fd, &st) < 0)
                locked = false;
        /* One write: O_APPEND puts it at the end as a whole. */
        n = write(fd, buf, len + 1);
        if (n != (ssize_t)len + 1) {
                int e = n < 0 ? errno : ENOSPC;
                /* A partial line (a full disk) is cut off again, so that
                 * the next line starts a line; only under the lock, where
                 * no other line can follow it yet. */
                if (n > 0 && locked && ftruncate(fd, st.st_size) < 0)
                        e = errno;
                return sb_fail(err, e, "write %s", t->path);
        }
        if (t->fsync && fsync(fd) < 0)
                return sb_fail(err, errno, "fsync %s", t->path);
        return 0;
}

bool audit_target_probe(const struct audit_target *t, char **detail)
{
        char path[PATH_MAX];
        struct statvfs vfs;
        bool ok;
        int n;

        *detail = NULL;
        if (t->sink == AUDIT_OFF)
                return (*detail = strdup("off (audit.log \"off\")")), true;
        if (t->sink == AUDIT_JOURNALD) {
                ok = access(AUDIT_JOURNAL_SOCKET, W_OK) == 0;
                n = asprintf(detail, "journald: %s %s", AUDIT_JOURNAL_SOCKET,
                             ok ? "is there" : "is not there (no journald running)");
                if (n < 0)
                        *detail = NULL;
                return ok;
        }
        /* The file, or what create would make it in. */
        snprintf(path, sizeof(path), "%s", t->path);
        while (access(path, F_OK) < 0 && strrchr(path, '/') != path)
                *strrchr(path, '/') = '\0';
        if (access(path, F_OK) < 0)
                snprintf(path, sizeof(path), "/");
        ok = access(path, W_OK) == 0;
        int why = errno;
        if (ok && statvfs(path, &vfs) == 0 && vfs.f_bavail == 0) {
                ok = false;
                why = ENOSPC;
        }
        if (ok)
                n = asprintf(detail, "%s: writable", t->path);
        else
                n = asprintf(detail, "%s: %s cannot be written: %s", t->path, path, strerror(why));
        if (n < 0)
                *detail = NULL;
        return ok;
}

int audit_append(const struct audit_target *t, const char *line, size_t len, const char *event,
                 const char *id, struct sb_error *err)
{
        switch (t->sink) {
        case AUDIT_FILE:
                return append_file(t, line, len, err);
        case AUDIT_JOURNALD:
                return audit_journal_send(line, len, event, id, err);
        case AUDIT_OFF:
                break;
        }
        return 0;
}
