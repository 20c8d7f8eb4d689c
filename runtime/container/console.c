#include "runtime/container/console.h"

#include "common/error.h"
#include "common/fd_passing.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int console_socket_connect(const char *path, struct sb_error *err)
{
        struct sockaddr_un addr = { .sun_family = AF_UNIX };
        int fd;

        if (strlen(path) >= sizeof(addr.sun_path))
                return sb_fail(err, ENAMETOOLONG, "--console-socket: \"%s\"", path);
        strcpy(addr.sun_path, path);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return sb_fail(err, errno, "--console-socket: socket");
        if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
                int saved = errno;
                close(fd);
                return sb_fail(err, saved, "--console-socket: connect to \"%s\"", path);
        }
        return fd;
}

int console_socket_pair(int *ours, int *theirs, struct sb_error *err)
{
        int sv[2];

        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
                return sb_fail(err, errno, "console socketpair");
        *ours = sv[0];
        *theirs = sv[1];
        return 0;
}

int console_receive_master(int sock, struct sb_error *err)
{
        char name[256];
        int fd = -1;

        if (sb_recv_fd(sock, name, sizeof(name), &fd) < 0)
                return sb_fail(err, errno == EPROTO ? 0 : errno,
                               errno == EPROTO ? "the container sent no pty master" :
                                                 "receive the pty master");
        return fd;
}
