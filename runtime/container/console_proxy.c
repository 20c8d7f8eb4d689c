#include "runtime/container/console_proxy.h"

#include "common/fs_util.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

/* The caller's terminal size wins over process.consoleSize, as with runc,
 * unless the caller's terminal has none (0x0). */
static void copy_window_size(int master)
{
        struct winsize ws;
        if (ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
                ioctl(master, TIOCSWINSZ, &ws);
}

/* false at EOF or error. */
static bool pump(int from, int to)
{
        char buf[8192];
        ssize_t n = read(from, buf, sizeof(buf));
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
                return true;
        if (n <= 0)
                return false;
        return sb_write_all(to, buf, (size_t)n) == 0;
}

static void reap(int pid, bool *done, int *status)
{
        int s;
        pid_t r;

        while ((r = waitpid(-1, &s, WNOHANG)) > 0) {
                if (r != pid)
                        continue;
                *done = true;
                *status = s;
        }
}

/* poll's timeout: the deadline's next step, or the 100 ms drain after
 * the exit, or none. */
static int poll_timeout(struct wait_deadline *dl, bool done)
{
        int ms = wait_deadline_step(dl);
        if (done && (ms < 0 || ms > 100))
                return 100;
        return ms;
}

int console_proxy_run(int master, int pid, const sigset_t *set)
{
        int status;
        console_proxy_wait(master, pid, set, NULL, NULL, &status);
        return process_wait_code(status);
}

void console_proxy_wait(int master, int pid, const sigset_t *set, struct wait_deadline *dl,
                        struct output_cap *cap, int *status)
{
        struct termios saved;
        bool raw = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved) == 0;
        bool stdin_open = true, master_open = true, done = false;
        int sfd = signalfd(-1, set, SFD_CLOEXEC);
        *status = 255 << 8;
        if (cap != NULL)
                cap->dl = dl;

        if (raw) {
                struct termios t = saved;
                cfmakeraw(&t);
                tcsetattr(STDIN_FILENO, TCSANOW, &t);
                copy_window_size(master);
        }
        while (!done || master_open) {
                struct pollfd pfds[3] = {
                        { .fd = master_open ? master : -1, .events = POLLIN },
                        { .fd = stdin_open && master_open ? STDIN_FILENO : -1, .events = POLLIN },
                        { .fd = done ? -1 : sfd, .events = POLLIN },
                };
                if (wait_deadline_given_up(dl))
                        break;
                if (poll(pfds, 3, poll_timeout(dl, done)) < 0 && errno != EINTR)
                        break;
                if (done && pfds[0].revents == 0)
                        break; /* exited, and nothing more to copy */
                if (pfds[0].revents & (POLLIN | POLLHUP | POLLERR))
                        master_open =
                                cap != NULL && cap->limit[OUTPUT_STDOUT] > 0 ?
                                        output_cap_pump(cap, OUTPUT_STDOUT, master, STDOUT_FILENO) :
                                        pump(master, STDOUT_FILENO);
                if (pfds[1].revents & (POLLIN | POLLHUP | POLLERR))
                        stdin_open = pump(STDIN_FILENO, master);
                if (pfds[2].revents & POLLIN) {
                        struct signalfd_siginfo si;
                        if (read(sfd, &si, sizeof(si)) != sizeof(si))
                                continue;
                        if (si.ssi_signo == SIGCHLD) {
                                reap(pid, &done, status);
                        } else if (si.ssi_signo == SIGWINCH) {
                                copy_window_size(master);
                        } else {
                                kill(pid, (int)si.ssi_signo);
                        }
                }
        }
        if (!done && wait_deadline_given_up(dl)) {
                *status = SIGKILL; /* killed, and not waited for any longer */
        } else if (!done) {
                /* The pty closed first: the process is still to be reaped,
                 * within the deadline if there is one. */
                process_wait_status(pid, set, dl, status);
        }
        if (raw)
                tcsetattr(STDIN_FILENO, TCSANOW, &saved);
        if (sfd >= 0)
                close(sfd);
}
