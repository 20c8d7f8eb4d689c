/* pty_run CMD...: run CMD on a new pty, like script(1): the slave is its
 * stdin, stdout, stderr and controlling terminal, in a session of its own.
 * What CMD writes to the terminal is copied to our stdout. The slave is in
 * raw mode with no echo, so a byte pushed into its input queue (TIOCSTI)
 * stays there: when CMD has exited, our own descriptor of the slave reports
 * how many bytes wait in the queue. Last line, on stderr:
 *
 *   pty_run: status S queued N read-errno E
 *
 * S is CMD's exit status (128+signal if killed), N the FIONREAD count, E the
 * errno of a non-blocking read from the slave (11, EAGAIN, when nothing was
 * injected; 0 if the read returned bytes). Exits with CMD's status.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static void copy_out(int master)
{
        char buf[4096];
        ssize_t n;
        while ((n = read(master, buf, sizeof(buf))) > 0) {
                if (write(STDOUT_FILENO, buf, (size_t)n) != n)
                        break;
        }
}

int main(int argc, char **argv)
{
        if (argc < 2) {
                fprintf(stderr, "usage: pty_run CMD...\n");
                return 2;
        }
        int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0) {
                perror("pty_run: posix_openpt");
                return 2;
        }
        const char *name = ptsname(master);
        int slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
        struct termios t;
        if (slave < 0 || tcgetattr(slave, &t) < 0) {
                perror("pty_run: slave");
                return 2;
        }
        cfmakeraw(&t);
        if (tcsetattr(slave, TCSANOW, &t) < 0) {
                perror("pty_run: tcsetattr");
                return 2;
        }

        pid_t pid = fork();
        if (pid < 0) {
                perror("pty_run: fork");
                return 2;
        }
        if (pid == 0) {
                if (setsid() < 0 || ioctl(slave, TIOCSCTTY, 0) < 0) {
                        perror("pty_run: controlling terminal");
                        _exit(127);
                }
                for (int fd = 0; fd < 3; fd++)
                        dup2(slave, fd);
                execvp(argv[1], argv + 1);
                perror("pty_run: exec");
                _exit(127);
        }

        /* Copy the output while CMD runs; the master never reads EOF while
         * we hold the slave, so the loop ends on CMD's exit. */
        int status = 0;
        fcntl(master, F_SETFL, O_NONBLOCK);
        for (;;) {
                struct pollfd p = { .fd = master, .events = POLLIN };
                poll(&p, 1, 100);
                copy_out(master);
                pid_t w = waitpid(pid, &status, WNOHANG);
                if (w == pid)
                        break;
        }
        /* Whatever the container's processes wrote last. */
        struct timespec ts = { 0, 200 * 1000 * 1000 };
        nanosleep(&ts, NULL);
        copy_out(master);

        int queued = -1, read_errno = 0;
        char c;
        ioctl(slave, FIONREAD, &queued);
        fcntl(slave, F_SETFL, O_NONBLOCK);
        if (read(slave, &c, 1) < 0)
                read_errno = errno;
        int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        fprintf(stderr, "pty_run: status %d queued %d read-errno %d\n", rc, queued, read_errno);
        return rc;
}
