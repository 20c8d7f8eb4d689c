#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "runtime/init/init_console.h"

#include "runtime/init/init_mounts.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fd_passing.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

/* runc sends the fd with the pty's name as the message body; conmon and
 * the containerd shim only look at the fd. */
static int send_master(int sock, int master, struct sb_error *err)
{
        static const char name[] = "/dev/ptmx";

        if (sb_send_fd(sock, master, name, sizeof(name) - 1) < 0)
                return sb_fail(err, errno, "send the pty master on the console socket");
        return 0;
}

/* The slave over /dev/console, as runc does for the init process. */
static int bind_dev_console(int slave, struct sb_error *err)
{
        char source[64];
        _cleanup_close_ int dev = init_resolve("/dev", O_DIRECTORY);

        if (dev < 0)
                return sb_fail(err, errno, "resolve /dev");
        /* bwrap's --dev binds the caller's terminal at /dev/console when
         * stdin is one; that node is only a mount point here, and opening it
         * for writing would fail where the terminal is another user's (a
         * rootless sbrun started from root's terminal). */
        _cleanup_close_ int target = openat(dev, "console", O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (target < 0 && errno == ENOENT) {
                int fd = openat(dev, "console",
                                O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
                if (fd < 0)
                        return sb_fail(err, errno, "create /dev/console");
                close(fd);
                target = openat(dev, "console", O_PATH | O_NOFOLLOW | O_CLOEXEC);
        }
        if (target < 0)
                return sb_fail(err, errno, "open /dev/console");
        char dest[64];
        snprintf(source, sizeof(source), "/proc/self/fd/%d", slave);
        snprintf(dest, sizeof(dest), "/proc/self/fd/%d", target);
        if (mount(source, dest, NULL, MS_BIND, NULL) < 0)
                return sb_fail(err, errno, "bind the pty over /dev/console");
        return 0;
}

int init_console_setup(const struct init_plan *plan, bool bind_console, struct sb_error *err)
{
        _cleanup_close_ int master = -1;
        int slave;

        master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (master < 0)
                return sb_fail(err, errno, "open /dev/ptmx in the container");
        if (unlockpt(master) < 0)
                return sb_fail(err, errno, "unlockpt");
        /* TIOCGPTPEER opens the slave of this very master, not whatever a
         * path under /dev/pts names. */
        slave = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (slave < 0)
                return sb_fail(err, errno, "open the pty slave");
        if (plan->console_height > 0 || plan->console_width > 0) {
                struct winsize ws = { .ws_row = (unsigned short)plan->console_height,
                                      .ws_col = (unsigned short)plan->console_width };
                if (ioctl(slave, TIOCSWINSZ, &ws) < 0) {
                        close(slave);
                        return sb_fail(err, errno, "process.consoleSize");
                }
        }
        if (bind_console && bind_dev_console(slave, err) < 0) {
                close(slave);
                return -1;
        }
        if (send_master(plan->console_fd, master, err) < 0) {
                close(slave);
                return -1;
        }
        close(plan->console_fd);
        return slave;
}

int init_console_attach(int slave, struct sb_error *err)
{
        if (setsid() < 0)
                return sb_fail(err, errno, "setsid");
        if (ioctl(slave, TIOCSCTTY, 0) < 0)
                return sb_fail(err, errno, "make the pty the controlling terminal");
        for (int fd = 0; fd <= 2; fd++) {
                if (dup2(slave, fd) < 0)
                        return sb_fail(err, errno, "dup2 the pty to fd %d", fd);
        }
        if (slave > 2)
                close(slave);
        return 0;
}
