#include "runtime/audit/audit_read.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "runtime/audit/audit_log.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int read_stream(FILE *f, const char *name, audit_line_fn fn, void *ctx, struct sb_error *err)
{
        _cleanup_free_ char *line = NULL;
        size_t cap = 0, lineno = 0;
        ssize_t n;

        while ((n = getline(&line, &cap, f)) > 0) {
                if (line[n - 1] == '\n')
                        line[--n] = '\0';
                if (fn(line, (size_t)n, name, ++lineno, ctx, err) < 0)
                        return -1;
        }
        if (ferror(f))
                return sb_fail(err, errno, "read %s", name);
        return 0;
}

static int read_file(const char *path, audit_line_fn fn, void *ctx, struct sb_error *err)
{
        int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
        FILE *f;
        int ret;

        if (fd < 0)
                return errno == ENOENT ? 0 : sb_fail(err, errno, "open %s", path);
        f = fdopen(fd, "r");
        if (f == NULL) {
                close(fd);
                return sb_fail(err, errno, "open %s", path);
        }
        ret = read_stream(f, path, fn, ctx, err);
        fclose(f);
        return ret;
}

static int read_journal(audit_line_fn fn, void *ctx, struct sb_error *err)
{
        char uid[32];
        char *argv[] = { "journalctl",
                         "--quiet",
                         "--no-pager",
                         "--output=cat",
                         "SYSLOG_IDENTIFIER=" AUDIT_JOURNAL_IDENTIFIER,
                         uid,
                         NULL };
        posix_spawn_file_actions_t fa;
        int pipefd[2], status, ret, spawned;
        pid_t pid;
        FILE *f;

        snprintf(uid, sizeof(uid), "_UID=%u", (unsigned)geteuid());
        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return sb_fail(err, errno, "pipe");
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
        spawned = posix_spawnp(&pid, "journalctl", &fa, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        close(pipefd[1]);
        if (spawned != 0) {
                close(pipefd[0]);
                return sb_fail(err, spawned, "audit.log is \"journald\": run journalctl");
        }
        f = fdopen(pipefd[0], "r");
        ret = f ? read_stream(f, "journalctl's output", fn, ctx, err) :
                  sb_fail(err, errno, "journalctl's output");
        if (f != NULL)
                fclose(f);
        else
                close(pipefd[0]);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
        if (ret == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
                return sb_fail(err, 0, "journalctl failed (status %d)",
                               WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
        return ret;
}

int audit_read(const struct audit_target *t, audit_line_fn fn, void *ctx, struct sb_error *err)
{
        char path[4096];

        if (t->sink == AUDIT_JOURNALD)
                return read_journal(fn, ctx, err);
        if (t->sink == AUDIT_OFF)
                return sb_fail(err, 0, "audit.log is \"off\" in the operator's policy: no trail");
        for (int i = t->keep; i >= 1; i--) {
                snprintf(path, sizeof(path), "%s.%d", t->path, i);
                if (read_file(path, fn, ctx, err) < 0)
                        return -1;
        }
        return read_file(t->path, fn, ctx, err);
}
