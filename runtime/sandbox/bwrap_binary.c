#include "runtime/sandbox/bwrap_binary.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MODE_BITS(m) ((unsigned int)((m)&07777))

/* Replacing a file takes write access to its directory, not to the file:
 * each directory up to / must be root's and changeable by root alone, or
 * sticky (as /tmp), where only the owner of a name, here root, may replace
 * it. */
static int check_directories(const char *path, const char *real, uid_t host_root,
                             struct sb_error *err)
{
        _cleanup_free_ char *dir = strdup(real);
        struct stat st;

        if (dir == NULL)
                return sb_fail(err, ENOMEM, "bwrap %s", path);
        for (char *slash = strrchr(dir, '/'); slash != NULL; slash = strrchr(dir, '/')) {
                if (slash == dir)
                        slash[1] = '\0';
                else
                        *slash = '\0';
                if (stat(dir, &st) < 0)
                        return sb_fail(err, errno, "bwrap %s: stat directory %s", path, dir);
                if (st.st_uid != host_root)
                        return sb_fail(err, 0,
                                       "bwrap %s: directory %s is owned by uid %u, not root: "
                                       "its owner could replace bwrap",
                                       path, dir, (unsigned int)st.st_uid);
                if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
                        return sb_fail(err, 0,
                                       "bwrap %s: directory %s is writable by group or others "
                                       "(mode %04o): they could replace bwrap",
                                       path, dir, MODE_BITS(st.st_mode));
                if (strcmp(dir, "/") == 0)
                        break;
        }
        return 0;
}

int bwrap_binary_check(const char *path, uid_t host_root, struct sb_error *err)
{
        static const char rebuild[] = "(configure fixed this path; install bubblewrap there or "
                                      "rebuild sbrun with --with-bwrap=PATH)";
        unsigned char magic[4];
        char link[64], real[PATH_MAX];
        struct stat st;
        ssize_t n;

        /* O_NONBLOCK: a fifo planted at the path must not hang create. */
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0 && errno == ENOENT)
                return sb_fail(err, 0, "bwrap %s: not found %s", path, rebuild);
        if (fd < 0)
                return sb_fail(err, errno, "bwrap %s: open", path);
        if (fstat(fd, &st) < 0)
                return sb_fail(err, errno, "bwrap %s: stat", path);
        if (!S_ISREG(st.st_mode))
                return sb_fail(err, 0, "bwrap %s: not a regular file %s", path, rebuild);
        if ((st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)) == 0)
                return sb_fail(err, 0, "bwrap %s: not executable (mode %04o)", path,
                               MODE_BITS(st.st_mode));
        if (st.st_uid != host_root)
                return sb_fail(err, 0,
                               "bwrap %s: owned by uid %u, not root: its owner could replace "
                               "what sbrun runs as root",
                               path, (unsigned int)st.st_uid);
        if (st.st_mode & (S_IWGRP | S_IWOTH))
                return sb_fail(err, 0,
                               "bwrap %s: writable by group or others (mode %04o): they could "
                               "replace what sbrun runs as root",
                               path, MODE_BITS(st.st_mode));
        /* A script would run whatever interpreter its first line names. */
        n = pread(fd, magic, sizeof(magic), 0);
        if (n < 0)
                return sb_fail(err, errno, "bwrap %s: read", path);
        if (n != (ssize_t)sizeof(magic) || memcmp(magic, "\177ELF", sizeof(magic)) != 0)
                return sb_fail(err, 0,
                               "bwrap %s: not an ELF executable (a script or other file) %s", path,
                               rebuild);
        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        n = readlink(link, real, sizeof(real) - 1);
        if (n < 0)
                return sb_fail(err, errno, "bwrap %s: readlink %s", path, link);
        real[n] = '\0';
        return check_directories(path, real, host_root, err);
}

/* ---------------------------------------------------------------------- */
/* `bwrap --version` */

static void version_child(const char *path, int out)
{
        char *const argv[] = { (char *)path, (char *)"--version", NULL };
        char *const envp[] = { NULL };
        int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

        if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 ||
            dup2(out, STDERR_FILENO) < 0)
                _exit(127);
        execve(path, argv, envp);
        _exit(127);
}

int bwrap_binary_version(const char *path, char **version, struct sb_error *err)
{
        _cleanup_close_ int rd = -1;
        _cleanup_free_ char *out = NULL;
        size_t len = 0;
        int fds[2], status, ret;
        pid_t pid;

        *version = NULL;
        if (pipe2(fds, O_CLOEXEC) < 0)
                return sb_fail(err, errno, "bwrap %s --version: pipe", path);
        pid = fork();
        if (pid < 0) {
                close(fds[0]);
                close(fds[1]);
                return sb_fail(err, errno, "bwrap %s --version: fork", path);
        }
        if (pid == 0)
                version_child(path, fds[1]);
        close(fds[1]);
        rd = fds[0];
        ret = sb_read_fd(rd, 4096, &out, &len, err);
        while (waitpid(pid, &status, 0) < 0) {
                if (errno != EINTR)
                        return sb_fail(err, errno, "bwrap %s --version: wait", path);
        }
        if (ret < 0)
                return sb_error_prefix(err, "bwrap %s --version", path);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                return sb_fail(err, 0, "bwrap %s --version: exited with status %d", path,
                               WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
        out[strcspn(out, "\n")] = '\0';
        *version = out;
        out = NULL;
        return 0;
}
