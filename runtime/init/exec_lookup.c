#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* asprintf */
#endif
#include "runtime/init/exec_lookup.h"

#include "common/cleanup.h"
#include "common/error.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* 0: an executable regular file; otherwise an errno. Absolute symlinks
 * and ".." resolve inside the root; magic links to fds are refused. */
static int check_candidate(int root_fd, const char *path)
{
        struct open_how how = { .flags = O_PATH | O_CLOEXEC,
                                .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
        _cleanup_close_ int fd = (int)syscall(SYS_openat2, root_fd, path, &how, sizeof(how));
        struct stat st;

        if (fd < 0)
                return errno;
        if (fstat(fd, &st) < 0)
                return errno;
        if (S_ISDIR(st.st_mode))
                return EISDIR;
        if (!S_ISREG(st.st_mode) || (st.st_mode & 0111) == 0)
                return EACCES;
        return 0;
}

static const char *env_path(char *const *env)
{
        for (char *const *e = env; e && *e; e++) {
                if (strncmp(*e, "PATH=", 5) == 0)
                        return *e + 5;
        }
        return DEFAULT_PATH;
}

int exec_lookup(int root_fd, const char *program, const char *cwd, char *const *env, char **out,
                struct sb_error *err)
{
        if (program[0] == '\0')
                return sb_fail(err, 0, "process.args[0]: empty program name");
        if (strchr(program, '/') != NULL) {
                char *path = NULL;
                if (program[0] == '/')
                        path = strdup(program);
                else if (asprintf(&path, "%s/%s", cwd, program) < 0)
                        path = NULL;
                if (path == NULL)
                        return sb_fail(err, ENOMEM, "exec %s", program);
                int r = check_candidate(root_fd, path);
                if (r != 0) {
                        sb_fail_kind(err,
                                     r == ENOENT ? SB_ERR_NOT_FOUND :
                                     r == EACCES ? SB_ERR_DENIED :
                                                   SB_ERR_OTHER,
                                     0, "exec: \"%s\": stat %s: %s", program, path,
                                     r == ENOENT ? "no such file or directory" :
                                     r == EACCES ? "permission denied" :
                                                   strerror(r));
                        free(path);
                        return -1;
                }
                *out = path;
                return 0;
        }

        _cleanup_free_ char *dirs = strdup(env_path(env));
        char *save = NULL;
        int first_error = ENOENT;

        if (dirs == NULL)
                return sb_fail(err, ENOMEM, "exec %s", program);
        for (char *dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
                char *path = NULL;
                if (dir[0] != '/')
                        continue; /* a relative PATH entry would depend on cwd: runc skips it too */
                if (asprintf(&path, "%s/%s", dir, program) < 0)
                        return sb_fail(err, ENOMEM, "exec %s", program);
                int r = check_candidate(root_fd, path);
                if (r == 0) {
                        *out = path;
                        return 0;
                }
                if (r == EACCES && first_error == ENOENT)
                        first_error = EACCES;
                free(path);
        }
        if (first_error == EACCES)
                return sb_fail_kind(err, SB_ERR_DENIED, 0, "exec: \"%s\": permission denied",
                                    program);
        return sb_fail_kind(err, SB_ERR_NOT_FOUND, 0,
                            "exec: \"%s\": executable file not found in $PATH", program);
}
