#include "runtime/container/output_cap.h"

#include "common/fs_util.h"
#include "runtime/container/wall_clock.h"

#include <errno.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

const char *output_stream_name(enum output_stream s)
{
        return s == OUTPUT_STDERR ? "stderr" : "stdout";
}

static void trip(struct output_cap *cap, enum output_stream s)
{
        /* A wall clock that already fired keeps its verdict (timeout). */
        if (cap->tripped >= 0 || (cap->dl != NULL && cap->dl->expired))
                return;
        cap->tripped = (int)s;
        if (cap->dl != NULL)
                cap->dl->at_ms = wall_clock_now_ms();
}

bool output_cap_pump(struct output_cap *cap, enum output_stream s, int from, int to)
{
        char buf[65536];
        ssize_t n = read(from, buf, sizeof(buf));

        if (n < 0 && (errno == EINTR || errno == EAGAIN))
                return true;
        if (n <= 0)
                return false;
        size_t copy = (size_t)n;
        int64_t limit = cap->limit[s];
        if (limit > 0 && cap->forwarded[s] + n > limit)
                copy = (size_t)(limit - cap->forwarded[s]);
        if (copy > 0) {
                if (sb_write_all(to, buf, copy) < 0)
                        return false;
                cap->forwarded[s] += (int64_t)copy;
        }
        if (copy < (size_t)n) {
                trip(cap, s);
                return false;
        }
        return true;
}

static void reap(int pid, bool *done, int *status)
{
        int st;
        pid_t r;

        while ((r = waitpid(-1, &st, WNOHANG)) > 0) {
                if (r == pid) {
                        *done = true;
                        *status = st;
                }
        }
}

void output_cap_wait(struct output_cap *cap, int fd[OUTPUT_STREAMS], int pid, const sigset_t *set,
                     struct wait_deadline *dl, int *status)
{
        static const int to[OUTPUT_STREAMS] = { STDOUT_FILENO, STDERR_FILENO };
        bool open[OUTPUT_STREAMS], done = false;
        int sfd = signalfd(-1, set, SFD_CLOEXEC | SFD_NONBLOCK);
        int64_t drain_until = 0;

        *status = 255 << 8;
        cap->dl = dl;
        for (int s = 0; s < OUTPUT_STREAMS; s++)
                open[s] = fd[s] >= 0;
        /* Children may have exited before the signalfd existed. */
        reap(pid, &done, status);
        for (;;) {
                if (done && drain_until == 0)
                        drain_until = wall_clock_now_ms() + 100;
                if (done && (!(open[0] || open[1]) || wall_clock_now_ms() >= drain_until))
                        break;
                int ms = wait_deadline_step(dl);
                if (!done && wait_deadline_given_up(dl)) {
                        *status = SIGKILL; /* killed, and not waited for any longer */
                        break;
                }
                if (done) {
                        int64_t left = drain_until - wall_clock_now_ms();
                        ms = left > 0 ? (int)left : 0;
                } else if (sfd < 0 && (ms < 0 || ms > 100)) {
                        ms = 100; /* no signalfd: look for the exit every 100 ms */
                }
                struct pollfd pfds[3] = {
                        { .fd = open[0] ? fd[0] : -1, .events = POLLIN },
                        { .fd = open[1] ? fd[1] : -1, .events = POLLIN },
                        { .fd = done ? -1 : sfd, .events = POLLIN },
                };
                if (poll(pfds, 3, ms) < 0 && errno != EINTR)
                        break;
                for (int s = 0; s < OUTPUT_STREAMS; s++) {
                        if (!(pfds[s].revents & (POLLIN | POLLHUP | POLLERR)) ||
                            output_cap_pump(cap, (enum output_stream)s, fd[s], to[s]))
                                continue;
                        /* Closed at once: a caller that stopped reading
                         * (EPIPE) is passed on as a broken pipe, as the
                         * container would have met it without the cap. */
                        open[s] = false;
                        close(fd[s]);
                        fd[s] = -1;
                }
                if (sfd < 0 && !done)
                        reap(pid, &done, status);
                if (pfds[2].revents & POLLIN) {
                        struct signalfd_siginfo si;
                        while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
                                if (si.ssi_signo == SIGCHLD)
                                        reap(pid, &done, status);
                                else
                                        kill(pid, (int)si.ssi_signo);
                        }
                }
        }
        if (sfd >= 0)
                close(sfd);
}
