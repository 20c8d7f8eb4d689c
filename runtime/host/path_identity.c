#include "runtime/host/path_identity.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The mount fd lies on, by the id /proc/self/fdinfo gives (every kernel
 * since 3.15, O_PATH fds included). */
int path_identity_mount_id(int fd, long *mnt_id)
{
        char name[64], line[256];
        _cleanup_fclose_ FILE *f = NULL;

        snprintf(name, sizeof(name), "/proc/self/fdinfo/%d", fd);
        f = fopen(name, "re");
        if (f == NULL)
                return -1;
        while (fgets(line, sizeof(line), f) != NULL) {
                if (sscanf(line, "mnt_id: %ld", mnt_id) == 1)
                        return 0;
        }
        errno = ENOENT;
        return -1;
}

void path_identity_unescape(char *s)
{
        char *out = s;

        for (; *s != '\0'; s++) {
                if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
                    s[3] >= '0' && s[3] <= '7') {
                        *out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
                        s += 3;
                } else {
                        *out++ = *s;
                }
        }
        *out = '\0';
}

/* The mount's root in its file system and its mount point here. */
static int mount_of(long mnt_id, char **root, char **point)
{
        _cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
        _cleanup_free_ char *line = NULL;
        size_t cap = 0;

        if (f == NULL)
                return -1;
        while (getline(&line, &cap, f) >= 0) {
                long id;
                char r[PATH_MAX * 4 + 1], p[PATH_MAX * 4 + 1];
                if (sscanf(line, "%ld %*d %*s %16384s %16384s", &id, r, p) != 3 || id != mnt_id)
                        continue;
                path_identity_unescape(r);
                path_identity_unescape(p);
                *root = strdup(r);
                *point = strdup(p);
                if (*root == NULL || *point == NULL)
                        return -1;
                return 0;
        }
        errno = ENOENT;
        return -1;
}

/* root + (path less point): where path lies inside its file system. */
static char *inside_fs(const char *root, const char *point, const char *path)
{
        size_t n = strcmp(point, "/") == 0 ? 0 : strlen(point);
        const char *rest = path + n;
        char *out = NULL;

        if (n > 0 && (strncmp(path, point, n) != 0 || (rest[0] != '\0' && rest[0] != '/')))
                return NULL;
        if (strcmp(root, "/") == 0)
                return strdup(*rest ? rest : "/");
        if (asprintf(&out, "%s%s", root, rest) < 0)
                return NULL;
        return out;
}

int path_identity_of_fd(int fd, struct floor_identity *id, struct sb_error *err)
{
        struct stat st;
        long mnt_id;
        _cleanup_free_ char *root = NULL, *point = NULL;

        memset(id, 0, sizeof(*id));
        if (fstat(fd, &st) < 0)
                return sb_fail(err, errno, "fstat");
        id->path = sb_fd_path(fd);
        if (id->path == NULL)
                return sb_fail(err, errno, "its path");
        if (id->path[0] != '/' || strstr(id->path, " (deleted)") != NULL)
                return sb_fail(err, 0, "\"%s\" cannot be judged: not a path of this host",
                               id->path);
        if (path_identity_mount_id(fd, &mnt_id) < 0 || mount_of(mnt_id, &root, &point) < 0)
                return sb_fail(err, errno,
                               "\"%s\" cannot be judged: its mount is not one of this mount "
                               "namespace",
                               id->path);
        id->fs_path = inside_fs(root, point, id->path);
        if (id->fs_path == NULL)
                return sb_fail(err, 0, "\"%s\" cannot be judged: not below its mount point %s",
                               id->path, point);
        id->dev = st.st_dev;
        id->ino = st.st_ino;
        id->known = true;
        return 0;
}

int path_identity_trees(struct floor_tree *trees, size_t n, struct sb_error *err)
{
        for (size_t i = 0; i < n; i++) {
                _cleanup_close_ int fd = open(trees[i].path, O_PATH | O_CLOEXEC);
                struct sb_error ignored = { 0 };

                if (fd < 0) {
                        if (errno == ENOMEM)
                                return sb_fail(err, ENOMEM, "%s", trees[i].path);
                        continue;
                }
                if (path_identity_of_fd(fd, &trees[i].id, &ignored) < 0) {
                        /* Still judged by its spelling, and by what it is. */
                        struct stat st;
                        if (fstat(fd, &st) == 0) {
                                trees[i].id.known = true;
                                trees[i].id.dev = st.st_dev;
                                trees[i].id.ino = st.st_ino;
                        }
                }
                sb_error_clear(&ignored);
        }
        return 0;
}

/* inner strictly below outer (both absolute, clean). */
static bool strictly_below(const char *inner, const char *outer)
{
        size_t n = strcmp(outer, "/") == 0 ? 0 : strlen(outer);

        return strncmp(inner, outer, n) == 0 && inner[n] == '/' && inner[n + 1] != '\0';
}

int path_identity_submounts(const struct floor_identity *id, struct floor_identity_list *out,
                            struct sb_error *err)
{
        _cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
        _cleanup_free_ char *line = NULL;
        size_t cap = 0;

        memset(out, 0, sizeof(*out));
        if (f == NULL || id->path == NULL)
                return 0;
        while (getline(&line, &cap, f) >= 0) {
                char r[PATH_MAX * 4 + 1], p[PATH_MAX * 4 + 1];
                if (sscanf(line, "%*d %*d %*s %16384s %16384s", r, p) != 2)
                        continue;
                path_identity_unescape(r);
                path_identity_unescape(p);
                if (!strictly_below(p, id->path))
                        continue;
                /* One mounted over another at the same place hides it:
                 * only the topmost (the later line) is what a bind shows. */
                for (size_t i = 0; i < out->n; i++) {
                        if (strcmp(out->items[i].path, p) == 0) {
                                floor_identity_release(&out->items[i]);
                                out->items[i] = out->items[--out->n];
                                break;
                        }
                }
                struct floor_identity *grown = realloc(out->items, (out->n + 1) * sizeof(*grown));
                if (grown == NULL)
                        return sb_fail(err, ENOMEM, "mounts below %s", id->path);
                out->items = grown;
                struct floor_identity *sub = &grown[out->n++];
                memset(sub, 0, sizeof(*sub));
                sub->path = strdup(p);
                sub->fs_path = strdup(r);
                if (sub->path == NULL || sub->fs_path == NULL)
                        return sb_fail(err, ENOMEM, "mounts below %s", id->path);
                /* What is mounted there now: the topmost mount's root. */
                _cleanup_close_ int fd = open(p, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                struct stat st;
                if (fd >= 0 && fstat(fd, &st) == 0) {
                        sub->dev = st.st_dev;
                        sub->ino = st.st_ino;
                        sub->known = true;
                }
        }
        return 0;
}
