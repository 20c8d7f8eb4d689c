#include "runtime/container/process_wait.h"

#include "runtime/container/wall_clock.h"

#include <errno.h>
#include <poll.h>
#include <sys/wait.h>
#include <time.h>

static const int forwarded_signals[] = {
        SIGHUP,  SIGINT,  SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGWINCH,
        SIGCONT, SIGTSTP, SIGTTIN, SIGTTOU, SIGALRM, SIGPWR,
};

void process_wait_block_signals(sigset_t *set)
{
        sigemptyset(set);
        sigaddset(set, SIGCHLD);
        for (size_t i = 0; i < sizeof(forwarded_signals) / sizeof(forwarded_signals[0]); i++)
                sigaddset(set, forwarded_signals[i]);
        sigprocmask(SIG_BLOCK, set, NULL);
}

int wait_deadline_step(struct wait_deadline *dl)
{
        if (dl == NULL || dl->at_ms == 0)
                return -1;
        int64_t now = wall_clock_now_ms();
        if (!dl->expired && now >= dl->at_ms) {
                dl->expired = true;
                if (dl->expire)
                        dl->expire(dl->data);
                now = wall_clock_now_ms();
        }
        int64_t next = dl->expired ? dl->at_ms + DEADLINE_GRACE_MS : dl->at_ms;
        return next <= now ? 0 : (int)(next - now);
}

bool wait_deadline_given_up(const struct wait_deadline *dl)
{
        return dl != NULL && dl->expired && wall_clock_now_ms() >= dl->at_ms + DEADLINE_GRACE_MS;
}

int process_wait_code(int status)
{
        if (WIFEXITED(status))
                return WEXITSTATUS(status);
        return 128 + WTERMSIG(status);
}

void process_wait_status(int pid, const sigset_t *set, struct wait_deadline *dl, int *status)
{
        for (;;) {
                pid_t reaped;

                while ((reaped = waitpid(-1, status, WNOHANG)) > 0) {
                        if (reaped == pid)
                                return;
                }
                if (reaped < 0 && errno == ECHILD) {
                        *status = 255 << 8;
                        return;
                }
                int ms = wait_deadline_step(dl);
                if (ms == 0 && wait_deadline_given_up(dl)) {
                        /* Killed but not reapable (stuck in the kernel):
                         * returning on time matters more than its status. */
                        *status = SIGKILL;
                        return;
                }
                siginfo_t info;
                int signo;
                if (ms < 0) {
                        signo = sigwaitinfo(set, &info);
                } else {
                        struct timespec ts = { .tv_sec = ms / 1000,
                                               .tv_nsec = (ms % 1000) * 1000000L };
                        signo = sigtimedwait(set, &info, &ts);
                }
                if (signo > 0 && signo != SIGCHLD)
                        kill(pid, signo);
        }
}

int process_wait_pending_stop(void)
{
        static const int stops[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
        sigset_t pending;

        if (sigpending(&pending) < 0)
                return 0;
        for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++) {
                if (sigismember(&pending, stops[i]) == 1)
                        return stops[i];
        }
        return 0;
}

int process_wait_readable(int fd, int child, int *status)
{
        for (;;) {
                struct pollfd pfd = { .fd = fd, .events = POLLIN };
                int r = poll(&pfd, 1, 100);
                if (r < 0 && errno != EINTR)
                        return -2;
                if (r > 0)
                        return 0;
                int signo = process_wait_pending_stop();
                if (signo != 0)
                        return signo;
                if (child > 0 && waitpid(child, status, WNOHANG) == child)
                        return -1;
        }
}

int process_wait_forward(int pid, const sigset_t *set)
{
        int status;
        process_wait_status(pid, set, NULL, &status);
        return process_wait_code(status);
}
