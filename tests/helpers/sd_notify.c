/* sd_notify: what a service in a container sends to $NOTIFY_SOCKET, for
 * tests/integration/notify.bats. Built static: it runs in the busybox
 * rootfs. Each argument is one datagram ("\n" in it: several lines), sent
 * as libsystemd does, from a fresh AF_UNIX datagram socket connected to
 * the address ("@NAME": abstract). "--fd" before a message sends this
 * program's stdin with it (SCM_RIGHTS), as FDSTORE=1 does.
 *
 *   sd_notify [--fd] MESSAGE...   exit 0 when every datagram was sent,
 *                                 else 1 with the error on stderr */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int send_one(const char *path, const char *text, int fd)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        size_t n = strlen(path);
        int s;

        if (n == 0 || n >= sizeof(sa.sun_path)) {
                fprintf(stderr, "sd_notify: NOTIFY_SOCKET \"%s\": bad length\n", path);
                return -1;
        }
        memcpy(sa.sun_path, path, n);
        if (path[0] == '@')
                sa.sun_path[0] = '\0';
        socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
        s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (s < 0) {
                fprintf(stderr, "sd_notify: socket: %s\n", strerror(errno));
                return -1;
        }
        if (connect(s, (struct sockaddr *)&sa, len) < 0) {
                fprintf(stderr, "sd_notify: connect %s: %s\n", path, strerror(errno));
                close(s);
                return -1;
        }
        union {
                char buf[CMSG_SPACE(sizeof(int))];
                struct cmsghdr align;
        } control;
        struct iovec iov = { .iov_base = (void *)text, .iov_len = strlen(text) };
        struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
        if (fd >= 0) {
                memset(&control, 0, sizeof(control));
                msg.msg_control = control.buf;
                msg.msg_controllen = sizeof(control.buf);
                struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
                c->cmsg_level = SOL_SOCKET;
                c->cmsg_type = SCM_RIGHTS;
                c->cmsg_len = CMSG_LEN(sizeof(int));
                memcpy(CMSG_DATA(c), &fd, sizeof(int));
        }
        if (sendmsg(s, &msg, MSG_NOSIGNAL) < 0) {
                fprintf(stderr, "sd_notify: send: %s\n", strerror(errno));
                close(s);
                return -1;
        }
        close(s);
        return 0;
}

int main(int argc, char **argv)
{
        const char *path = getenv("NOTIFY_SOCKET");
        int fd = -1;

        if (path == NULL) {
                fprintf(stderr, "sd_notify: NOTIFY_SOCKET is not set\n");
                return 1;
        }
        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--fd") == 0) {
                        fd = 0;
                        continue;
                }
                /* "\n" written as the two characters in a shell argument */
                char *text = strdup(argv[i]), *r = text, *w = text;
                if (text == NULL)
                        return 1;
                while (*r) {
                        if (r[0] == '\\' && r[1] == 'n') {
                                *w++ = '\n';
                                r += 2;
                        } else {
                                *w++ = *r++;
                        }
                }
                *w = '\0';
                int ret = send_one(path, text, fd);
                free(text);
                if (ret < 0)
                        return 1;
                fd = -1;
        }
        return 0;
}
