#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* openat2, close_range, setresuid, asprintf */
#endif
#include "runtime/init/init_fds.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"
#include "runtime/init/handshake.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

void init_print_error(const struct sb_error *err)
{
        _cleanup_free_ char *text = sb_error_text(err);
        _cleanup_free_ char *line = NULL;
        if (asprintf(&line, "sbrun-init: %s\n", text ? text : "out of memory") < 0)
                return;
        (void)sb_write_all(STDERR_FILENO, line, strlen(line));
}

/* The open blocks until a reader (`sbrun start`) opens the fifo. A reader
 * that opens and closes without reading makes the write fail with EPIPE:
 * that is not a start, so wait for the next reader. */
int init_wait_exec_fifo(int fifo_fd, struct sb_error *err)
{
        char path[32];
        struct sigaction ignore = { .sa_handler = SIG_IGN }, saved;
        int rc = 0;

        snprintf(path, sizeof(path), "/proc/self/fd/%d", fifo_fd);
        /* An ignored SIGPIPE would survive execve into the container
         * process: restore the disposition before returning. */
        sigaction(SIGPIPE, &ignore, &saved);
        for (;;) {
                int fd = open(path, O_WRONLY | O_CLOEXEC);
                if (fd < 0 && errno == EINTR)
                        continue;
                if (fd < 0) {
                        rc = sb_fail(err, errno, "open exec.fifo");
                        break;
                }
                const char start = HANDSHAKE_START;
                ssize_t n;
                do
                        n = write(fd, &start, 1);
                while (n < 0 && errno == EINTR);
                int saved_errno = errno;
                close(fd);
                if (n == 1)
                        break;
                if (n < 0 && saved_errno == EPIPE)
                        continue;
                rc = sb_fail(err, n < 0 ? saved_errno : EIO, "write exec.fifo");
                break;
        }
        sigaction(SIGPIPE, &saved, NULL);
        close(fifo_fd);
        return rc;
}

int init_redirect_stderr(int stderr_fd, struct sb_error *err)
{
        if (stderr_fd < 0 || stderr_fd == STDERR_FILENO)
                return 0;
        if (dup2(stderr_fd, STDERR_FILENO) < 0)
                return sb_fail(err, errno, "dup2 stderr fd %d", stderr_fd);
        close(stderr_fd);
        return 0;
}

/* Without close_range (before Linux 5.9), walk /proc/self/fd. */
static int close_fds_by_listing(int first, struct sb_error *err)
{
        _cleanup_closedir_ DIR *dir = opendir("/proc/self/fd");
        if (dir == NULL)
                return sb_fail(err, errno, "close fds: open /proc/self/fd");
        int self = dirfd(dir);
        struct dirent *entry;
        while ((entry = readdir(dir)) != NULL) {
                char *end;
                long fd = strtol(entry->d_name, &end, 10);
                if (*end != '\0' || end == entry->d_name || fd < first || fd == self)
                        continue;
                close((int)fd);
        }
        return 0;
}

/* Any fd the host leaked past bwrap (a cgroup dir, the state dir, the init's
 * own memfd) would let the process reach host files: CVE-2024-21626. */
int init_close_fds(int preserve_fds, struct sb_error *err)
{
        unsigned int first = 3 + (unsigned int)(preserve_fds > 0 ? preserve_fds : 0);
        /* The raw call: musl, which builds the init, has no wrapper. */
        if (syscall(SYS_close_range, first, ~0U, 0) == 0)
                return 0;
        return close_fds_by_listing((int)first, err);
}
