#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* MSG_CMSG_CLOEXEC */
#endif
#include "runtime/init/init_notify.h"

#include "common/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The state document holds the annotations; 1 MiB is far above any engine's. */
#define MAX_STATE_LEN (1u << 20)

union fd_control {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
};

int init_notify_receive(int channel, struct init_notify *n, struct sb_error *err)
{
        union fd_control control;
        struct msghdr msg = { 0 };
        struct iovec iov;
        ssize_t len;

        n->listener_sock = -1;
        n->state = NULL;
        /* SOCK_SEQPACKET: MSG_TRUNC makes a peek return the whole message length. */
        do
                len = recv(channel, NULL, 0, MSG_PEEK | MSG_TRUNC);
        while (len < 0 && errno == EINTR);
        if (len <= 0 || (size_t)len > MAX_STATE_LEN)
                return sb_fail(err, len < 0 ? errno : EPROTO,
                               "seccomp notify: no listener socket from create");
        n->state = malloc((size_t)len + 1);
        if (n->state == NULL)
                return sb_fail(err, ENOMEM, "seccomp notify: state");
        iov = (struct iovec){ .iov_base = n->state, .iov_len = (size_t)len };
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.buf;
        msg.msg_controllen = sizeof(control.buf);
        do
                len = recvmsg(channel, &msg, MSG_CMSG_CLOEXEC);
        while (len < 0 && errno == EINTR);
        struct cmsghdr *cmsg = len > 0 ? CMSG_FIRSTHDR(&msg) : NULL;
        if (cmsg == NULL || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
            cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS ||
            cmsg->cmsg_len != CMSG_LEN(sizeof(int)))
                return sb_fail(err, len < 0 ? errno : EPROTO,
                               "seccomp notify: receive the listener socket");
        memcpy(&n->listener_sock, CMSG_DATA(cmsg), sizeof(int));
        n->state[len] = '\0';
        n->state_len = (size_t)len;
        close(channel);
        return 0;
}

int init_notify_deliver(struct init_notify *n, int listener_fd, struct sb_error *err)
{
        union fd_control control = { 0 };
        struct iovec iov = { .iov_base = n->state, .iov_len = n->state_len };
        struct msghdr msg = {
                .msg_iov = &iov,
                .msg_iovlen = 1,
                .msg_control = control.buf,
                .msg_controllen = sizeof(control.buf),
        };
        struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
        ssize_t sent;

        cmsg->cmsg_level = SOL_SOCKET;
        cmsg->cmsg_type = SCM_RIGHTS;
        cmsg->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cmsg), &listener_fd, sizeof(int));
        do
                sent = sendmsg(n->listener_sock, &msg, MSG_NOSIGNAL);
        while (sent < 0 && errno == EINTR);
        int saved = errno;
        close(listener_fd);
        init_notify_release(n);
        /* A stream socket takes the fd with the first bytes; a short send
         * leaves the listener with half a document: fail. */
        if (sent != (ssize_t)iov.iov_len)
                return sb_fail(
                        err, sent < 0 ? saved : EIO,
                        "seccomp notify: send the listener fd to linux.seccomp.listenerPath");
        return 0;
}

void init_notify_release(struct init_notify *n)
{
        if (n->listener_sock >= 0)
                close(n->listener_sock);
        n->listener_sock = -1;
        free(n->state);
        n->state = NULL;
}
