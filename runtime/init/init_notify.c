#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* MSG_CMSG_CLOEXEC */
#endif
#include "runtime/init/init_notify.h"

#include "common/error.h"
#include "common/fd_passing.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The state document holds the annotations; 1 MiB is far above any engine's. */
#define MAX_STATE_LEN (1u << 20)

int init_notify_receive(int channel, struct init_notify *n, struct sb_error *err)
{
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
        len = sb_recv_fd(channel, n->state, (size_t)len, &n->listener_sock);
        if (len <= 0)
                return sb_fail(err, len < 0 ? errno : EPROTO,
                               "seccomp notify: receive the listener socket");
        n->state[len] = '\0';
        n->state_len = (size_t)len;
        close(channel);
        return 0;
}

int init_notify_deliver(struct init_notify *n, int listener_fd, struct sb_error *err)
{
        ssize_t sent = sb_send_fd(n->listener_sock, listener_fd, n->state, n->state_len);
        size_t expected = n->state_len;
        int saved = errno;
        close(listener_fd);
        init_notify_release(n);
        /* A stream socket takes the fd with the first bytes; a short send
         * leaves the listener with half a document: fail. */
        if (sent != (ssize_t)expected)
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
