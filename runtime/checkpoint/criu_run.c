#include "runtime/checkpoint/criu_run.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/log.h"
#include "runtime/container/state_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* A symlink at PATH is taken only when the caller alone could have made
 * it: the link and the directory it is in are the caller's, and no one
 * else may write in that directory. containerd's shim hands restore such a
 * link (the bundle's "work", to its own work directory). */
static int symlink_callers_own(const char *option, const char *path, const char *dir,
                               const struct stat *link, struct sb_error *err)
{
        struct stat st;
        uid_t me = geteuid();

        if (stat(dir, &st) < 0)
                return sb_fail(err, errno, "%s %s: %s", option, path, dir);
        if (link->st_uid != me || st.st_uid != me || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
                return sb_fail(err, EPERM,
                               "%s %s: a symbolic link that another user could have "
                               "made (link owner %u, directory %s owner %u mode %04o)",
                               option, path, (unsigned)link->st_uid, dir, (unsigned)st.st_uid,
                               (unsigned)(st.st_mode & 07777));
        if (stat(path, &st) < 0)
                return sb_fail(err, errno, "%s %s", option, path);
        if (!S_ISDIR(st.st_mode))
                return sb_fail(err, ENOTDIR, "%s %s: its link leads to no directory", option, path);
        return 0;
}

int criu_dir_check(const char *option, const char *path, struct sb_error *err)
{
        struct stat st;
        size_t n = strlen(path);

        /* lstat of "link/" or "link/." follows the link: such a spelling
         * would pass a symlink by as a directory. */
        while (n > 1 && path[n - 1] == '/')
                n--;
        const char *last = memrchr(path, '/', n);
        last = last ? last + 1 : path;
        size_t last_len = (size_t)(path + n - last);
        if (last != path && ((last_len == 1 && last[0] == '.') ||
                             (last_len == 2 && last[0] == '.' && last[1] == '.')))
                return sb_fail(err, EINVAL, "%s %s: name the directory itself, not . or .. in it",
                               option, path);
        _cleanup_free_ char *name = strndup(path, n);
        /* The directory the last component is in: "." or "/" when bare. */
        _cleanup_free_ char *dir =
                last == path ? strdup(".") :
                               strndup(path, last - path > 1 ? (size_t)(last - path - 1) : 1);
        if (name == NULL || dir == NULL)
                return sb_fail(err, ENOMEM, "%s", option);
        if (lstat(name, &st) < 0)
                return sb_fail(err, errno, "%s %s", option, path);
        if (S_ISLNK(st.st_mode))
                return symlink_callers_own(option, name, dir, &st, err);
        if (!S_ISDIR(st.st_mode))
                return sb_fail(err, ENOTDIR, "%s %s: not a directory (another file type)", option,
                               path);
        return 0;
}

int criu_dir_prepare(const char *option, const char *path, struct sb_error *err)
{
        if (mkdir(path, 0700) < 0 && errno != EEXIST)
                return sb_fail(err, errno, "%s %s", option, path);
        return criu_dir_check(option, path, err);
}

const char *criu_program(const char *option)
{
        return option != NULL && option[0] != '\0' ? option : "criu";
}

/* CRIU logs many lines; the first "Error (" one is nearly always the
 * cause, the later ones its consequences. */
static char *first_error_line(const char *path)
{
        _cleanup_fclose_ FILE *f = path ? fopen(path, "re") : NULL;
        _cleanup_free_ char *line = NULL;
        size_t cap = 0;
        ssize_t n;

        if (f == NULL)
                return NULL;
        while ((n = getline(&line, &cap, f)) > 0) {
                char *e = strstr(line, "Error (");
                if (e == NULL)
                        continue;
                if (line[n - 1] == '\n')
                        line[n - 1] = '\0';
                return strdup(e);
        }
        return NULL;
}

/* fork + exec with stdio and the kept fds only; out: a pipe's read end
 * for stdout when out != NULL. */
static pid_t spawn(const char *program, char **argv, const int *keep, size_t n_keep, bool nnp,
                   int *out, struct sb_error *err)
{
        int p[2] = { -1, -1 };

        if (out != NULL && pipe2(p, O_CLOEXEC) < 0)
                return sb_fail(err, errno, "criu: pipe");
        pid_t pid = fork();
        if (pid < 0) {
                int e = errno;
                if (p[0] >= 0) {
                        close(p[0]);
                        close(p[1]);
                }
                return sb_fail(err, e, "criu: fork");
        }
        if (pid == 0) {
                sigset_t none;
                sigemptyset(&none);
                sigprocmask(SIG_SETMASK, &none, NULL);
                if (p[1] >= 0 && dup2(p[1], STDOUT_FILENO) < 0)
                        _exit(126);
                for (size_t i = 0; i < n_keep; i++) {
                        int flags = fcntl(keep[i], F_GETFD);
                        if (flags < 0 || fcntl(keep[i], F_SETFD, flags & ~FD_CLOEXEC) < 0)
                                _exit(126);
                }
                if (nnp && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                        _exit(126);
                execvp(program, argv);
                _exit(errno == ENOENT ? 127 : 126);
        }
        if (out != NULL) {
                close(p[1]);
                *out = p[0];
        }
        return pid;
}

static int wait_status(pid_t pid)
{
        int status;

        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return -1;
        return status;
}

/* Whether the cgroup2 mount at path has nsdelegate (its super options
 * in /proc/self/mountinfo); -1 when it is not found. */
static int has_nsdelegate(const char *path)
{
        _cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
        _cleanup_free_ char *line = NULL;
        size_t cap = 0;
        int found = -1;

        while (f != NULL && getline(&line, &cap, f) > 0) {
                char point[4096];
                const char *sep = strstr(line, " - cgroup2 ");
                if (sep == NULL || sscanf(line, "%*s %*s %*s %*s %4095s", point) != 1 ||
                    strcmp(point, path) != 0)
                        continue;
                found = strstr(sep, "nsdelegate") != NULL;
        }
        return found;
}

/* Set nsdelegate on the hierarchy again: a cgroup2 made with it in the
 * initial cgroup namespace sets the flag, in a mount namespace of a child
 * of ours, so that nothing is mounted where anyone sees it. */
static int restore_nsdelegate(void)
{
        pid_t pid = fork();
        int status;

        if (pid < 0)
                return -1;
        if (pid == 0) {
                if (unshare(CLONE_NEWNS) < 0 ||
                    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
                        _exit(1);
                int fs = (int)syscall(SYS_fsopen, "cgroup2", FSOPEN_CLOEXEC);
                if (fs < 0 ||
                    syscall(SYS_fsconfig, fs, FSCONFIG_SET_FLAG, "nsdelegate", NULL, 0) < 0 ||
                    syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
                        _exit(1);
                _exit(0);
        }
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return -1;
        return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* <yard_dir>/criu-cgroup-yard/unified: the cgroup2 mount bound there,
 * private, for CRIU's run (it opens YARD/unified for the v2 hierarchy
 * and walks below it relative to that fd, from inside the restored tree,
 * so a symlink would not do). A bind makes no new cgroup2: its flags stay. */
static char *make_yard(const struct criu_call *c)
{
        char *yard = NULL, *unified = NULL;

        if (asprintf(&yard, "%s/" STATE_CRIU_YARD, c->yard_dir) < 0)
                return NULL;
        if (asprintf(&unified, "%s/unified", yard) < 0)
                goto fail;
        if ((mkdir(yard, 0700) < 0 && errno != EEXIST) ||
            (mkdir(unified, 0700) < 0 && errno != EEXIST))
                goto fail;
        if (mount(c->cgroup_mount, unified, NULL, MS_BIND, NULL) < 0)
                goto fail;
        if (mount(NULL, unified, NULL, MS_PRIVATE, NULL) < 0) {
                umount2(unified, MNT_DETACH);
                goto fail;
        }
        free(unified);
        return yard;
fail:
        if (unified != NULL)
                rmdir(unified);
        rmdir(yard);
        free(unified);
        free(yard);
        return NULL;
}

static void remove_yard(char *yard)
{
        char *unified = NULL;

        if (yard == NULL)
                return;
        if (asprintf(&unified, "%s/unified", yard) >= 0) {
                umount2(unified, MNT_DETACH);
                rmdir(unified);
        }
        free(unified);
        rmdir(yard);
        free(yard);
}

int criu_call_run(struct criu_call *c, const char *what, struct sb_error *err)
{
        struct strv argv = { 0 };
        char *yard = NULL;
        int delegate = c->cgroup_mount ? has_nsdelegate(c->cgroup_mount) : -1;

        /* Without a yard CRIU mounts cgroup2 itself; nsdelegate is then
         * set again below. */
        if (c->cgroup_mount != NULL && c->yard_dir != NULL)
                yard = make_yard(c);
        strv_add(&argv, c->program);
        for (size_t i = 0; i < c->argv.n; i++)
                strv_add(&argv, c->argv.items[i]);
        if (yard != NULL)
                strv_addf(&argv, "--cgroup-yard=%s", yard);
        if (argv.failed) {
                strv_release(&argv);
                return sb_fail(err, ENOMEM, "%s: criu arguments", what);
        }
        pid_t pid = spawn(c->program, argv.items, c->keep, c->n_keep, c->no_new_privs, NULL, err);
        strv_release(&argv);
        if (pid < 0) {
                remove_yard(yard);
                return -1;
        }
        int status = wait_status(pid);
        remove_yard(yard);
        /* Should CRIU have mounted cgroup2 all the same. */
        if (delegate == 1 && has_nsdelegate(c->cgroup_mount) == 0) {
                if (restore_nsdelegate() == 0 && has_nsdelegate(c->cgroup_mount) == 1)
                        sb_warn("%s: criu cleared nsdelegate on %s: set again", what,
                                c->cgroup_mount);
                else
                        sb_warn("%s: criu cleared nsdelegate on %s and it could not be set "
                                "again: cgroup namespaces are no delegation boundary now",
                                what, c->cgroup_mount);
        }
        if (status < 0)
                return sb_fail(err, errno, "%s: wait for criu", what);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
                return 0;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
                return sb_fail(err, ENOENT,
                               "%s: cannot run %s (install CRIU, or name it with --criu PATH)",
                               what, c->program);
        _cleanup_free_ char *line = first_error_line(c->log_path);
        if (WIFSIGNALED(status))
                return sb_fail(err, 0, "%s: criu was killed by signal %d%s%s (log: %s)", what,
                               WTERMSIG(status), line ? ": " : "", line ? line : "",
                               c->log_path ? c->log_path : "none");
        return sb_fail(err, 0, "%s: criu failed with status %d%s%s (log: %s)", what,
                       WEXITSTATUS(status), line ? ": " : "", line ? line : "",
                       c->log_path ? c->log_path : "none");
}

/* Runs program with args, returns what it printed on stdout (at most 4 KiB)
 * and its wait status. */
static char *capture(const char *program, char **argv, int *status)
{
        struct sb_error err = { 0 };
        int out = -1;
        char buf[4096];
        size_t len = 0;

        pid_t pid = spawn(program, argv, NULL, 0, false, &out, &err);
        sb_error_clear(&err);
        if (pid < 0)
                return NULL;
        for (;;) {
                ssize_t n = read(out, buf + len, sizeof(buf) - 1 - len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0 || (len += (size_t)n) == sizeof(buf) - 1)
                        break;
        }
        close(out);
        *status = wait_status(pid);
        buf[len] = '\0';
        return strdup(buf);
}

char *criu_version(const char *program)
{
        char *argv[] = { (char *)program, (char *)"--version", NULL };
        int status = -1;
        _cleanup_free_ char *text = capture(program, argv, &status);
        const char *v;

        if (text == NULL || status != 0 || (v = strstr(text, "Version: ")) == NULL)
                return NULL;
        v += strlen("Version: ");
        return strndup(v, strcspn(v, "\n"));
}

int criu_check(const char *program, struct sb_error *err)
{
        /* criu check writes its findings to stderr: into a log file we
         * can read instead, in a directory of our own. */
        char dir[] = "/tmp/sbrun-criu-check.XXXXXX";
        char log[sizeof(dir) + 16];

        if (mkdtemp(dir) == NULL)
                return sb_fail(err, errno, "criu check: temporary directory");
        snprintf(log, sizeof(log), "%s/check.log", dir);
        char *argv[] = { (char *)program, (char *)"check", (char *)"-o", log, NULL };
        int status = -1;
        _cleanup_free_ char *text = capture(program, argv, &status);
        _cleanup_free_ char *line = first_error_line(log);
        unlink(log);
        rmdir(dir);
        if (text == NULL)
                return sb_fail(err, ENOENT, "cannot run %s", program);
        if (status == 0)
                return 0;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
                return sb_fail(err, ENOENT, "%s is not installed", program);
        return sb_fail(err, 0, "criu check failed%s%s", line ? ": " : "", line ? line : "");
}
