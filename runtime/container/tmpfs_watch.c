#include "runtime/container/tmpfs_watch.h"

#include "common/cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
        char *out = s;

        for (; *s != '\0'; s++) {
                if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' && s[2] <= '7' &&
                    s[3] >= '0' && s[3] <= '7') {
                        *out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
                        s += 3;
                } else {
                        *out++ = *s;
                }
        }
        *out = '\0';
}

/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE ...":
 * the mount point if the type is tmpfs and it is writable (a read-only
 * one, as over a masked path, cannot be filled), else NULL. */
static char *tmpfs_mount_point(char *line)
{
        char *fields[6], *save = NULL, *tok = strtok_r(line, " ", &save);
        const char *sep;
        int i;

        for (i = 0; i < 6 && tok != NULL; i++, tok = strtok_r(NULL, " ", &save))
                fields[i] = tok;
        if (i < 6)
                return NULL;
        while (tok != NULL && strcmp(tok, "-") != 0)
                tok = strtok_r(NULL, " ", &save);
        sep = tok ? strtok_r(NULL, " ", &save) : NULL;
        if (sep == NULL || strcmp(sep, "tmpfs") != 0 || strcmp(fields[5], "ro") == 0 ||
            strncmp(fields[5], "ro,", 3) == 0)
                return NULL;
        unescape(fields[4]);
        return fields[4];
}

static void hold(struct tmpfs_watch *w, int root_fd, const char *path)
{
        /* Beneath the container's root, symlinks there included: the path
         * is the container's to name. */
        struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
                                .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
        int fd = (int)syscall(SYS_openat2, root_fd, path, &how, sizeof(how));
        int *fds;
        char **paths;

        if (fd < 0)
                return;
        fds = realloc(w->fds, (w->n + 1) * sizeof(*fds));
        if (fds != NULL)
                w->fds = fds;
        paths = realloc(w->paths, (w->n + 1) * sizeof(*paths));
        if (paths != NULL)
                w->paths = paths;
        if (fds == NULL || paths == NULL || (w->paths[w->n] = strdup(path)) == NULL) {
                close(fd);
                return;
        }
        w->fds[w->n++] = fd;
}

void tmpfs_watch_open(struct tmpfs_watch *w, pid_t pid)
{
        char path[64];
        _cleanup_free_ char *line = NULL;
        _cleanup_close_ int root_fd = -1;
        size_t cap = 0;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
        root_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)pid);
        f = root_fd >= 0 ? fopen(path, "re") : NULL;
        if (f == NULL)
                return;
        while (getline(&line, &cap, f) > 0) {
                line[strcspn(line, "\n")] = '\0';
                const char *mp = tmpfs_mount_point(line);
                if (mp != NULL && mp[0] == '/')
                        hold(w, root_fd, mp);
        }
        fclose(f);
}

void tmpfs_watch_full(const struct tmpfs_watch *w, struct tmpfs_use **out, size_t *n)
{
        struct statfs st;

        *out = NULL;
        *n = 0;
        for (size_t i = 0; i < w->n; i++) {
                if (fstatfs(w->fds[i], &st) < 0)
                        continue;
                /* Whole pages and whole inodes: ENOSPC leaves none free. */
                bool space = st.f_blocks > 0 && st.f_bfree == 0;
                bool inodes = st.f_files > 0 && st.f_ffree == 0;
                if (!space && !inodes)
                        continue;
                struct tmpfs_use *grown = realloc(*out, (*n + 1) * sizeof(**out));
                if (grown == NULL)
                        return;
                *out = grown;
                grown[*n] = (struct tmpfs_use){ .path = strdup(w->paths[i]),
                                                .space = space,
                                                .inodes = inodes };
                if (grown[*n].path != NULL)
                        ++*n;
        }
}

void tmpfs_watch_release(struct tmpfs_watch *w)
{
        for (size_t i = 0; i < w->n; i++) {
                close(w->fds[i]);
                free(w->paths[i]);
        }
        free(w->fds);
        free(w->paths);
        w->fds = NULL;
        w->paths = NULL;
        w->n = 0;
}

void tmpfs_use_free(struct tmpfs_use *use, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(use[i].path);
        free(use);
}
