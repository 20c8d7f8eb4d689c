/* A seccomp notify listener for seccomp.bats: accepts one connection on
 * SOCKET, writes the container process state it receives to STATE, then
 * answers every notification on the received fd with errno 67 (ENOLINK),
 * appending "syscall N" to STATE.log, until the container is gone.
 *
 *   seccomp_listener SOCKET STATE
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define ANSWER_ERRNO 67

static void die(const char *what)
{
        perror(what);
        exit(1);
}

int main(int argc, char **argv)
{
        struct sockaddr_un addr = { .sun_family = AF_UNIX };
        static char state[1 << 20];
        union {
                char buf[CMSG_SPACE(sizeof(int))];
                struct cmsghdr align;
        } control;
        struct iovec iov = { .iov_base = state, .iov_len = sizeof(state) - 1 };
        struct msghdr msg = { .msg_iov = &iov,
                              .msg_iovlen = 1,
                              .msg_control = control.buf,
                              .msg_controllen = sizeof(control.buf) };
        char path[4096];
        int lfd, conn, notify_fd = -1;
        ssize_t n;
        FILE *out, *log;

        if (argc != 3 || strlen(argv[1]) >= sizeof(addr.sun_path))
                return 2;
        strcpy(addr.sun_path, argv[1]);
        lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) < 0 || listen(lfd, 1) < 0)
                die("listen");
        conn = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (conn < 0)
                die("accept");
        n = recvmsg(conn, &msg, MSG_CMSG_CLOEXEC);
        if (n <= 0)
                die("recvmsg");
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
                        memcpy(&notify_fd, CMSG_DATA(c), sizeof(int));
        state[n] = '\0';
        snprintf(path, sizeof(path), "%s.log", argv[2]);
        out = fopen(argv[2], "w");
        log = fopen(path, "w");
        if (out == NULL || log == NULL)
                die("fopen");
        fprintf(out, "%s\n", state);
        fclose(out);
        fprintf(log, "fd %s\n", notify_fd >= 0 ? "received" : "missing");
        fflush(log);
        if (notify_fd < 0)
                return 1;

        for (;;) {
                struct seccomp_notif req;
                struct seccomp_notif_resp resp;
                memset(&req, 0, sizeof(req));
                if (ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) {
                        if (errno == EINTR)
                                continue;
                        break; /* ENOENT: the filter's processes are gone */
                }
                fprintf(log, "syscall %d\n", req.data.nr);
                fflush(log);
                memset(&resp, 0, sizeof(resp));
                resp.id = req.id;
                resp.error = -ANSWER_ERRNO;
                if (ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0 && errno != ENOENT)
                        die("SECCOMP_IOCTL_NOTIF_SEND");
        }
        return 0;
}
