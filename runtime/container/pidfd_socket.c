#include "runtime/container/pidfd_socket.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fd_passing.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

int pidfd_socket_connect(const char *path, struct sb_error *err)
{
        struct sockaddr_un addr = { .sun_family = AF_UNIX };
        _cleanup_close_ int fd = -1;

        /* The caller's own socket, by the caller's path: what a symlink
         * there leads to gets only a pidfd the caller could have taken. */
        if (strlen(path) >= sizeof(addr.sun_path))
                return sb_fail(err, ENAMETOOLONG, "--pidfd-socket: \"%s\"", path);
        strcpy(addr.sun_path, path);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return sb_fail(err, errno, "--pidfd-socket: socket");
        if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
                return sb_fail(err, errno, "--pidfd-socket: connect to \"%s\"", path);
        return SB_STEAL_FD(fd);
}

int pidfd_socket_send(int sock, pid_t pid, const char *kind, struct sb_error *err)
{
        _cleanup_close_ int s = sock;
        _cleanup_close_ int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);

        if (pidfd < 0)
                return sb_fail(err, errno, "--pidfd-socket: pidfd of process %d", (int)pid);
        if (sb_send_fd(s, pidfd, kind, strlen(kind)) != (ssize_t)strlen(kind))
                return sb_fail(err, errno, "--pidfd-socket: send the pidfd");
        return 0;
}
