/* A console-socket receiver for the tests, in the spirit of runc's recvtty:
 * listen on PATH, take the pty master a runtime sends with SCM_RIGHTS, type
 * INPUT into it and copy what comes back to stdout until MARKER is seen or
 * the pty closes. Usage: console_receiver PATH INPUT MARKER [TIMEOUT_S] */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int receive_fd(int conn)
{
        char name[256], control[CMSG_SPACE(sizeof(int))];
        struct iovec iov = { .iov_base = name, .iov_len = sizeof(name) };
        struct msghdr msg = { .msg_iov = &iov,
                              .msg_iovlen = 1,
                              .msg_control = control,
                              .msg_controllen = sizeof(control) };
        if (recvmsg(conn, &msg, 0) < 0)
                return -1;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                        int fd;
                        memcpy(&fd, CMSG_DATA(c), sizeof(fd));
                        return fd;
                }
        }
        return -1;
}

int main(int argc, char **argv)
{
        struct sockaddr_un addr = { .sun_family = AF_UNIX };
        char seen[65536];
        size_t seen_len = 0;
        int timeout = argc > 4 ? atoi(argv[4]) : 20;

        if (argc < 4) {
                fprintf(stderr, "usage: %s PATH INPUT MARKER [TIMEOUT_S]\n", argv[0]);
                return 2;
        }
        int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", argv[1]);
        unlink(argv[1]);
        if (sock < 0 || bind(sock, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
            listen(sock, 1) < 0) {
                perror("console_receiver: listen");
                return 1;
        }
        /* Tell the test we are listening. */
        printf("listening\n");
        fflush(stdout);
        struct pollfd p = { .fd = sock, .events = POLLIN };
        if (poll(&p, 1, timeout * 1000) <= 0) {
                fprintf(stderr, "console_receiver: no connection\n");
                return 1;
        }
        int conn = accept4(sock, NULL, NULL, SOCK_CLOEXEC);
        int master = conn < 0 ? -1 : receive_fd(conn);
        if (master < 0) {
                fprintf(stderr, "console_receiver: no fd received\n");
                return 1;
        }
        printf("received\n");
        fflush(stdout);
        if (write(master, argv[2], strlen(argv[2])) < 0 || write(master, "\n", 1) < 0) {
                perror("console_receiver: write");
                return 1;
        }
        time_t deadline = time(NULL) + timeout;
        while (time(NULL) < deadline) {
                struct pollfd m = { .fd = master, .events = POLLIN };
                if (poll(&m, 1, 500) <= 0)
                        continue;
                ssize_t n = read(master, seen + seen_len, sizeof(seen) - seen_len - 1);
                if (n <= 0)
                        break;
                fwrite(seen + seen_len, 1, (size_t)n, stdout);
                seen_len += (size_t)n;
                seen[seen_len] = '\0';
                /* The marker alone on a line: output, not the echo of what we typed. */
                char line[256];
                snprintf(line, sizeof(line), "\n%s\r", argv[3]);
                if (strstr(seen, line)) {
                        fflush(stdout);
                        return 0;
                }
        }
        fflush(stdout);
        fprintf(stderr, "\nconsole_receiver: marker \"%s\" not seen\n", argv[3]);
        return 1;
}
