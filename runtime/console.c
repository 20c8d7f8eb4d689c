#include "runtime/console.h"

#include "common/error.h"

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
        char control[CMSG_SPACE(sizeof(int))];
        struct iovec iov = { .iov_base = name, .iov_len = sizeof(name) };
        struct msghdr msg = {
                .msg_iov = &iov,
                .msg_iovlen = 1,
                .msg_control = control,
                .msg_controllen = sizeof(control),
        };
        ssize_t n;

        do
                n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return sb_fail(err, errno, "receive the pty master");
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                        int fd;
                        memcpy(&fd, CMSG_DATA(c), sizeof(int));
                        return fd;
                }
        }
        return sb_fail(err, 0, "the container sent no pty master");
}
