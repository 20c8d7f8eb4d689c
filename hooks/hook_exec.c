#include "hooks/hook_exec.h"

#include "common/error.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_OUTPUT (64 * 1024)

static _Noreturn void run_child(const struct hook_spec *hook, const int in[2], const int out[2],
                                int exec_fd, hook_prepare_fn prepare, void *data)
{
        int stdin_fd = in[0], out_fd = out[1];
        static char *const empty[] = { NULL };
        char *const fallback_argv[] = { (char *)hook->path, NULL };
        char *const *argv = hook->args && hook->args[0] ? hook->args : fallback_argv;
        sigset_t none;

        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL);
        /* A prepare step may fork and wait without exec'ing: the parent's
         * ends must not stay open in it, or the hook never sees EOF. */
        close(in[1]);
        close(out[0]);
        if (dup2(stdin_fd, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0 ||
            dup2(out_fd, STDERR_FILENO) < 0)
                _exit(126);
        if (prepare != NULL && prepare(data) < 0) {
                dprintf(STDERR_FILENO, "hook setup: %s\n", strerror(errno));
                _exit(126);
        }
        if (exec_fd >= 0)
                syscall(SYS_execveat, exec_fd, "", argv, hook->env ? hook->env : empty,
                        AT_EMPTY_PATH);
        else
                execve(hook->path, argv, hook->env ? hook->env : empty);
        dprintf(STDERR_FILENO, "exec %s: %s\n", hook->path, strerror(errno));
        _exit(127);
}

static long long now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Feed stdin and collect output until the hook closes its output and exits,
 * or the deadline passes. */
static int supervise(pid_t pid, int in_fd, int out_fd, const char *input, int timeout, char *buf,
                     size_t *len, int *status)
{
        int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
        size_t input_left = input ? strlen(input) : 0;
        long long deadline = timeout > 0 ? now_ms() + (long long)timeout * 1000 : -1;
        bool exited = false, out_open = true;

        if (input_left == 0) {
                close(in_fd);
                in_fd = -1;
        }
        while (!exited || out_open) {
                struct pollfd p[3] = {
                        { .fd = out_open ? out_fd : -1, .events = POLLIN },
                        { .fd = in_fd, .events = POLLOUT },
                        { .fd = exited ? -1 : pidfd, .events = POLLIN },
                };
                int wait_ms = -1;
                if (deadline >= 0) {
                        long long left = deadline - now_ms();
                        if (left <= 0)
                                break;
                        wait_ms = (int)left;
                }
                if (exited)
                        wait_ms = 100; /* a grandchild may hold the output open */
                int r = poll(p, 3, wait_ms);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r == 0 && exited)
                        break;
                if (p[0].revents) {
                        char tmp[4096];
                        ssize_t n = read(out_fd, tmp, sizeof(tmp));
                        if (n <= 0) {
                                out_open = false;
                        } else {
                                size_t take = (size_t)n;
                                if (*len + take > MAX_OUTPUT)
                                        take = MAX_OUTPUT - *len;
                                memcpy(buf + *len, tmp, take);
                                *len += take;
                        }
                }
                if (p[1].revents) {
                        ssize_t n = write(in_fd, input + strlen(input) - input_left, input_left);
                        if (n > 0)
                                input_left -= (size_t)n;
                        if (n < 0 || input_left == 0) {
                                close(in_fd);
                                in_fd = -1;
                        }
                }
                if (p[2].revents)
                        exited = true;
        }
        if (in_fd >= 0)
                close(in_fd);
        bool timed_out = !exited;
        if (timed_out)
                kill(pid, SIGKILL);
        while (waitpid(pid, status, 0) < 0 && errno == EINTR)
                ;
        if (pidfd >= 0)
                close(pidfd);
        return timed_out ? -1 : 0;
}

int hook_exec(const struct hook_spec *hook, const char *state_json, int exec_fd,
              hook_prepare_fn prepare, void *data, char **output, struct sb_error *err)
{
        int in[2], out[2], status = 0;
        char *buf = malloc(MAX_OUTPUT + 1);
        size_t len = 0;
        pid_t pid;

        if (buf == NULL)
                return sb_fail(err, ENOMEM, "hook %s", hook->path);
        if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0) {
                free(buf);
                return sb_fail(err, errno, "hook %s: pipe", hook->path);
        }
        pid = fork();
        if (pid < 0) {
                free(buf);
                return sb_fail(err, errno, "hook %s: fork", hook->path);
        }
        if (pid == 0)
                run_child(hook, in, out, exec_fd, prepare, data);
        close(in[0]);
        close(out[1]);
        /* A hook that does not read its stdin must not kill us with SIGPIPE. */
        struct sigaction ignore = { .sa_handler = SIG_IGN }, saved;
        sigaction(SIGPIPE, &ignore, &saved);
        int timed_out =
                supervise(pid, in[1], out[0], state_json, hook->timeout, buf, &len, &status);
        sigaction(SIGPIPE, &saved, NULL);
        close(out[0]);
        while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
                len--;
        buf[len] = '\0';
        if (output != NULL)
                *output = buf;
        else
                free(buf);
        if (timed_out < 0)
                return sb_fail(err, ETIMEDOUT, "hook %s: killed after its timeout of %d s",
                               hook->path, hook->timeout);
        if (WIFSIGNALED(status))
                return sb_fail(err, 0, "hook %s: killed by signal %d", hook->path,
                               WTERMSIG(status));
        if (WEXITSTATUS(status) != 0)
                return sb_fail(err, 0, "hook %s: exit status %d", hook->path, WEXITSTATUS(status));
        return 0;
}
