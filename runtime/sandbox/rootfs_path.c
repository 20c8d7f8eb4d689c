#include "runtime/sandbox/rootfs_path.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_SYMLINKS 40
#define MAX_DEPTH 256

/* The walk keeps the still-to-visit components as one string ("a/b/c"), and
 * the resolved part both as names (for the result) and as fds (for "..",
 * which must never be looked up through the filesystem). */
struct walk {
        int fds[MAX_DEPTH + 1];
        char *names[MAX_DEPTH + 1];
        int depth;
};

static void walk_release(struct walk *w)
{
        for (int i = 0; i <= w->depth; i++) {
                if (w->fds[i] >= 0)
                        close(w->fds[i]);
                free(w->names[i]);
        }
}

static char *walk_path(const struct walk *w)
{
        size_t len = 2;
        for (int i = 1; i <= w->depth; i++)
                len += strlen(w->names[i]) + 1;
        char *out = malloc(len);
        if (out == NULL)
                return NULL;
        out[0] = '\0';
        for (int i = 1; i <= w->depth; i++) {
                strcat(out, "/");
                strcat(out, w->names[i]);
        }
        if (w->depth == 0)
                strcpy(out, "/");
        return out;
}

static int walk_push(struct walk *w, const char *name, int fd, struct sb_error *err)
{
        if (w->depth >= MAX_DEPTH) {
                if (fd >= 0)
                        close(fd);
                return sb_fail(err, ENAMETOOLONG, "path too deep");
        }
        w->depth++;
        w->fds[w->depth] = fd;
        w->names[w->depth] = strdup(name);
        return 0;
}

static void walk_pop(struct walk *w)
{
        if (w->depth == 0)
                return;
        if (w->fds[w->depth] >= 0)
                close(w->fds[w->depth]);
        free(w->names[w->depth]);
        w->fds[w->depth] = -1;
        w->names[w->depth] = NULL;
        w->depth--;
}

/* Replace *rest by target + "/" + remaining components. */
static int splice_symlink(char **rest, const char *target, const char *remaining)
{
        char *joined = NULL;
        if (asprintf(&joined, "%s/%s", target, remaining) < 0)
                return -1;
        free(*rest);
        *rest = joined;
        return 0;
}

static int create_component(int dirfd, const char *name, bool last, enum rootfs_create create)
{
        if (last && create == ROOTFS_CREATE_FILE) {
                int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                                0644);
                if (fd < 0)
                        return -1;
                close(fd);
                return 0;
        }
        return mkdirat(dirfd, name, 0755);
}

int rootfs_resolve(int base_fd, const char *path, enum rootfs_create create, char **resolved,
                   int *out_fd, struct sb_error *err)
{
        struct walk w = { .depth = 0 };
        _cleanup_free_ char *rest = strdup(path);
        /* Set while components come from a symlink's target: creating
         * through a dangling symlink is how the host gets written. */
        _cleanup_free_ char *via_symlink = NULL;
        _cleanup_free_ char *via_target = NULL;
        size_t via_tail_len = 0; /* length of `rest` that follows the symlink's target */
        int symlinks = 0;
        int ret = -1;

        for (int i = 0; i <= MAX_DEPTH; i++) {
                w.fds[i] = -1;
                w.names[i] = NULL;
        }
        w.fds[0] = fcntl(base_fd, F_DUPFD_CLOEXEC, 3);
        if (rest == NULL || w.fds[0] < 0) {
                sb_fail(err, errno, "resolve %s", path);
                goto out;
        }

        while (rest[0] != '\0') {
                char *slash;
                char name[NAME_MAX + 1];
                size_t len;

                while (rest[0] == '/')
                        memmove(rest, rest + 1, strlen(rest));
                if (rest[0] == '\0')
                        break;
                bool from_target = via_symlink != NULL && strlen(rest) > via_tail_len;
                slash = strchr(rest, '/');
                len = slash ? (size_t)(slash - rest) : strlen(rest);
                if (len > NAME_MAX) {
                        sb_fail(err, ENAMETOOLONG, "resolve %s", path);
                        goto out;
                }
                memcpy(name, rest, len);
                name[len] = '\0';
                memmove(rest, rest + len, strlen(rest + len) + 1);
                bool last = strspn(rest, "/") == strlen(rest);

                if (strcmp(name, ".") == 0)
                        continue;
                if (strcmp(name, "..") == 0) {
                        if (w.depth == 0 && from_target) {
                                sb_fail(err, 0,
                                        "escapes the rootfs through symlink \"%s\" -> \"%s\"",
                                        via_symlink, via_target);
                                goto out;
                        }
                        walk_pop(&w);
                        continue;
                }

                struct stat st;
                int cur = w.fds[w.depth];
                /* cur < 0: below a directory ROOTFS_WOULD_CREATE found
                 * missing, where nothing exists yet either. */
                if (cur < 0 || fstatat(cur, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                        if (cur < 0)
                                errno = ENOENT;
                        if (errno != ENOENT || create == ROOTFS_NO_CREATE) {
                                sb_fail(err, errno, "%s", path);
                                goto out;
                        }
                        if (from_target) {
                                sb_fail(err, 0,
                                        "escapes the rootfs through symlink \"%s\" -> \"%s\" (its target does not exist in the rootfs)",
                                        via_symlink, via_target);
                                goto out;
                        }
                        if (create == ROOTFS_WOULD_CREATE) {
                                if (walk_push(&w, name, -1, err) < 0)
                                        goto out;
                                continue;
                        }
                        if (create_component(cur, name, last, create) < 0 && errno != EEXIST) {
                                sb_fail(err, errno, "create %s in the rootfs", path);
                                goto out;
                        }
                        if (fstatat(cur, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                                sb_fail(err, errno, "%s", path);
                                goto out;
                        }
                }
                if (S_ISLNK(st.st_mode)) {
                        char target[PATH_MAX];
                        ssize_t n = readlinkat(cur, name, target, sizeof(target) - 1);
                        if (n < 0 || ++symlinks > MAX_SYMLINKS) {
                                sb_fail(err, n < 0 ? errno : ELOOP, "resolve %s", path);
                                goto out;
                        }
                        target[n] = '\0';
                        free(via_symlink);
                        free(via_target);
                        _cleanup_free_ char *prefix = walk_path(&w);
                        if (asprintf(&via_symlink, "%s%s%s", prefix,
                                     strcmp(prefix, "/") == 0 ? "" : "/", name) < 0)
                                via_symlink = NULL;
                        via_target = strdup(target);
                        via_tail_len = strlen(rest);
                        if (target[0] == '/') {
                                while (w.depth > 0)
                                        walk_pop(&w);
                        }
                        if (splice_symlink(&rest, target, rest) < 0) {
                                sb_fail(err, ENOMEM, "resolve %s", path);
                                goto out;
                        }
                        continue;
                }
                if (!last && !S_ISDIR(st.st_mode)) {
                        sb_fail(err, ENOTDIR, "%s", path);
                        goto out;
                }
                int fd = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0) {
                        sb_fail(err, errno, "open %s", path);
                        goto out;
                }
                if (walk_push(&w, name, fd, err) < 0)
                        goto out;
        }

        *resolved = walk_path(&w);
        if (*resolved == NULL) {
                sb_fail(err, ENOMEM, "resolve %s", path);
                goto out;
        }
        if (out_fd != NULL) {
                *out_fd = w.fds[w.depth];
                w.fds[w.depth] = -1;
        }
        ret = 0;
out:
        walk_release(&w);
        return ret;
}

int rootfs_clean_path(const char *path, char **out, struct sb_error *err)
{
        _cleanup_free_ char *copy = strdup(path);
        char *result = malloc(strlen(path) + 2);
        char *save = NULL;
        size_t len = 0;

        if (copy == NULL || result == NULL) {
                free(result);
                return sb_fail(err, ENOMEM, "%s", path);
        }
        if (path[0] != '/') {
                free(result);
                return sb_fail(err, 0, "\"%s\" is not an absolute path", path);
        }
        for (char *tok = strtok_r(copy, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
                if (strcmp(tok, ".") == 0)
                        continue;
                if (strcmp(tok, "..") == 0) {
                        free(result);
                        return sb_fail(err, 0, "\"%s\" contains \"..\"", path);
                }
                result[len++] = '/';
                strcpy(result + len, tok);
                len += strlen(tok);
        }
        if (len == 0)
                result[len++] = '/';
        result[len] = '\0';
        *out = result;
        return 0;
}

int rootfs_open_root(const char *root_path, const char *bundle, char **real, int *fd,
                     struct sb_error *err)
{
        _cleanup_free_ char *joined = NULL;
        const char *path = root_path;

        if (path[0] != '/') {
                if (asprintf(&joined, "%s/%s", bundle, path) < 0)
                        return sb_fail(err, ENOMEM, "root.path");
                path = joined;
        }
        /* Opened once; its path is read back from the fd, so that what is
         * judged and bound is the directory held, whatever the path names
         * later. */
        *fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (*fd < 0)
                return sb_fail(err, errno, "root.path: \"%s\"", root_path);
        *real = sb_fd_path(*fd);
        if (*real == NULL)
                return sb_fail(err, errno, "root.path: \"%s\"", root_path);
        return 0;
}
