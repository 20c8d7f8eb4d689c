#include "common/fd_passing.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

union fd_control {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
};

ssize_t sb_send_fd(int sock, int fd, const void *data, size_t len)
{
        union fd_control control;
        struct iovec iov = { .iov_base = (void *)data, .iov_len = len };
        struct msghdr msg = {
                .msg_iov = &iov,
                .msg_iovlen = 1,
                .msg_control = control.buf,
                .msg_controllen = sizeof(control.buf),
        };
        struct cmsghdr *cmsg;
        ssize_t n;

        memset(&control, 0, sizeof(control));
        cmsg = CMSG_FIRSTHDR(&msg);
        cmsg->cmsg_level = SOL_SOCKET;
        cmsg->cmsg_type = SCM_RIGHTS;
        cmsg->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
        do
                n = sendmsg(sock, &msg, MSG_NOSIGNAL);
        while (n < 0 && errno == EINTR);
        return n;
}

ssize_t sb_recv_fd(int sock, void *buf, size_t cap, int *fd)
{
        union fd_control control;
        struct iovec iov = { .iov_base = buf, .iov_len = cap };
        struct msghdr msg = {
                .msg_iov = &iov,
                .msg_iovlen = 1,
                .msg_control = control.buf,
                .msg_controllen = sizeof(control.buf),
        };
        struct cmsghdr *cmsg;
        ssize_t n;

        do
                n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -1;
        cmsg = CMSG_FIRSTHDR(&msg);
        if (cmsg == NULL || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
            cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS ||
            cmsg->cmsg_len != CMSG_LEN(sizeof(int))) {
                errno = EPROTO;
                return -1;
        }
        memcpy(fd, CMSG_DATA(cmsg), sizeof(int));
        return n;
}
