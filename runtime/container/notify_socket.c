#include "runtime/container/notify_socket.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/log.h"
#include "oci/config.h"
#include "runtime/container/state_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* runc waits 30 s for systemd to close the pipe of BARRIER=1 and goes on
 * with a warning: a listener that keeps fds it does not understand. */
#define NOTIFY_BARRIER_MS 30000

/* systemd's sd_notify reads a datagram of any size; runc reads 4096 bytes.
 * READY=1 in a longer message is found in its first 64 KiB. */
#define NOTIFY_MAX_MESSAGE 65536

const char *notify_socket_host(void)
{
        const char *v = getenv("NOTIFY_SOCKET");
        return v != NULL && *v != '\0' ? v : NULL;
}

static int host_address(const char *host, struct sockaddr_un *sa, socklen_t *len,
                        struct sb_error *err)
{
        size_t n = strlen(host);

        memset(sa, 0, sizeof(*sa));
        sa->sun_family = AF_UNIX;
        if (host[0] != '/' && host[0] != '@')
                return sb_fail(err, 0,
                               "NOTIFY_SOCKET: \"%s\": not an absolute path or an abstract "
                               "socket (@NAME)",
                               host);
        if (n >= sizeof(sa->sun_path))
                return sb_fail(err, 0, "NOTIFY_SOCKET: \"%s\": longer than a socket address (%zu)",
                               host, sizeof(sa->sun_path) - 1);
        memcpy(sa->sun_path, host, n);
        if (host[0] == '@') /* abstract: a leading NUL, the length says where it ends */
                sa->sun_path[0] = '\0';
        *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (host[0] == '/'));
        return 0;
}

int notify_socket_check(const char *host, struct sb_error *err)
{
        struct sockaddr_un sa;
        socklen_t len;
        return host_address(host, &sa, &len, err);
}

int notify_socket_set_env(struct oci_process *p, struct sb_error *err)
{
        static const char name[] = "NOTIFY_SOCKET=";
        char *value = strdup("NOTIFY_SOCKET=" NOTIFY_SOCKET_IN_CONTAINER);
        size_t kept = 0;

        if (value == NULL)
                return sb_fail(err, ENOMEM, "NOTIFY_SOCKET");
        for (size_t i = 0; i < p->n_env; i++) {
                if (strncmp(p->env[i], name, sizeof(name) - 1) == 0)
                        free(p->env[i]);
                else
                        p->env[kept++] = p->env[i];
        }
        char **env = realloc(p->env, (kept + 2) * sizeof(*env));
        if (env == NULL) {
                free(value);
                p->n_env = kept;
                if (p->env != NULL)
                        p->env[kept] = NULL;
                return sb_fail(err, ENOMEM, "NOTIFY_SOCKET");
        }
        env[kept++] = value;
        env[kept] = NULL;
        p->env = env;
        p->n_env = kept;
        return 0;
}

int notify_socket_make_dir(struct state_dir *sd, struct sb_error *err)
{
        if (mkdirat(sd->dir_fd, NOTIFY_DIR, 0755) < 0)
                return sb_fail(err, errno, "create %s/%s", sd->path, NOTIFY_DIR);
        /* mkdir's mode goes through the umask; the container's users must
         * reach the socket. */
        int fd = openat(sd->dir_fd, NOTIFY_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return sb_fail(err, errno, "open %s/%s", sd->path, NOTIFY_DIR);
        if (fchmodat(sd->dir_fd, NOTIFY_DIR, 0755, 0) < 0) {
                close(fd);
                return sb_fail(err, errno, "chmod %s/%s", sd->path, NOTIFY_DIR);
        }
        return fd;
}

int notify_proxy_open(struct state_dir *sd, const char *host, struct notify_proxy *p,
                      struct sb_error *err)
{
        _cleanup_close_ int dir = -1, hfd = -1, pfd = -1;
        struct sockaddr_un sa;
        socklen_t len;

        dir = openat(sd->dir_fd, NOTIFY_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dir < 0 && errno == ENOENT) {
                sb_debug("start: NOTIFY_SOCKET ignored: the container was created without one");
                return 0;
        }
        if (dir < 0)
                return sb_fail(err, errno, "open %s/%s", sd->path, NOTIFY_DIR);
        /* The caller's own socket, named by the caller: a symlink or a
         * socket it does not own leads only to what it could reach itself.
         * Connected before the process runs, so that a wrong one fails a
         * start that has started nothing. */
        if (host_address(host, &sa, &len, err) < 0)
                return -1;
        hfd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (hfd < 0)
                return sb_fail(err, errno, "NOTIFY_SOCKET: socket");
        if (connect(hfd, (struct sockaddr *)&sa, len) < 0)
                return sb_fail(err, errno, "NOTIFY_SOCKET: connect to \"%s\"", host);

        /* Bound through the directory's fd: the state root's path may be
         * longer than sun_path, and never is resolved again by name. A
         * socket left by an earlier start that failed goes first. */
        unlinkat(dir, NOTIFY_SOCK, 0);
        memset(&sa, 0, sizeof(sa));
        sa.sun_family = AF_UNIX;
        snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d/%s", dir, NOTIFY_SOCK);
        pfd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (pfd < 0)
                return sb_fail(err, errno, "notify proxy: socket");
        if (bind(pfd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
                return sb_fail(err, errno, "notify proxy: bind %s/%s/%s", sd->path, NOTIFY_DIR,
                               NOTIFY_SOCK);
        /* Any user of the container (its ids are not the host's) may send. */
        if (fchmodat(dir, NOTIFY_SOCK, 0777, 0) < 0) {
                int e = errno;
                unlinkat(dir, NOTIFY_SOCK, 0);
                return sb_fail(err, e, "notify proxy: chmod %s/%s/%s", sd->path, NOTIFY_DIR,
                               NOTIFY_SOCK);
        }
        p->dir = SB_STEAL_FD(dir);
        p->sock = SB_STEAL_FD(pfd);
        p->host = SB_STEAL_FD(hfd);
        return 0;
}

/* One datagram: a line READY=1 (sd_notify's assignments, one a line). */
static bool says_ready(const char *msg, size_t len)
{
        const char *p = msg, *end = msg + len;

        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                size_t n = (size_t)((nl ? nl : end) - p);
                if (n == 7 && memcmp(p, "READY=1", 7) == 0)
                        return true;
                p += n + 1;
        }
        return false;
}

/* sd_notify_barrier: systemd closes the pipe's write end once it has read
 * everything sent before, so that start does not exit (taking its
 * credentials with it) before systemd knew who sent READY=1. */
static void barrier(int host_fd)
{
        int p[2];
        char byte;

        if (pipe2(p, O_CLOEXEC) < 0)
                return;
        char data[] = "BARRIER=1";
        union {
                char buf[CMSG_SPACE(sizeof(int))];
                struct cmsghdr align;
        } control = { 0 };
        struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) - 1 };
        struct msghdr msg = { .msg_iov = &iov,
                              .msg_iovlen = 1,
                              .msg_control = control.buf,
                              .msg_controllen = sizeof(control.buf) };
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &p[1], sizeof(int));
        ssize_t sent = sendmsg(host_fd, &msg, MSG_NOSIGNAL);
        close(p[1]);
        if (sent >= 0) {
                struct pollfd pfd = { .fd = p[0], .events = POLLIN };
                int r;
                while ((r = poll(&pfd, 1, NOTIFY_BARRIER_MS)) < 0 && errno == EINTR)
                        ;
                if (r == 0)
                        sb_warn("NOTIFY_SOCKET: no answer to BARRIER=1 in %d s; going on",
                                NOTIFY_BARRIER_MS / 1000);
                else if (r > 0 && read(p[0], &byte, 1) > 0)
                        sb_warn("NOTIFY_SOCKET: unexpected data on the BARRIER=1 pipe");
        }
        close(p[0]);
}

static int tell_host(int host_fd, pid_t mainpid, struct sb_error *err)
{
        char msg[64];
        int n = snprintf(msg, sizeof(msg), "READY=1\nMAINPID=%d\n", (int)mainpid);

        if (send(host_fd, msg, (size_t)n, MSG_NOSIGNAL) != n)
                return sb_fail(err, errno, "NOTIFY_SOCKET: send READY=1");
        barrier(host_fd);
        return 0;
}

int notify_proxy_forward(const struct notify_proxy *p, int pidfd, pid_t mainpid,
                         struct sb_error *err)
{
        _cleanup_free_ char *buf = malloc(NOTIFY_MAX_MESSAGE);
        int ret = -1;

        if (buf == NULL)
                return sb_fail(err, ENOMEM, "notify proxy");
        for (;;) {
                struct pollfd pfds[2] = {
                        { .fd = p->sock, .events = POLLIN },
                        { .fd = pidfd, .events = POLLIN },
                };
                int r = poll(pfds, 2, -1);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r < 0) {
                        sb_fail(err, errno, "notify proxy: poll");
                        break;
                }
                if (pfds[0].revents & POLLIN) {
                        /* recv, not recvmsg: fds the container sends along
                         * (FDSTORE=1) are closed by the kernel, never kept. */
                        ssize_t n = recv(p->sock, buf, NOTIFY_MAX_MESSAGE, MSG_DONTWAIT);
                        if (n > 0 && says_ready(buf, (size_t)n)) {
                                ret = tell_host(p->host, mainpid, err);
                                break;
                        }
                        continue;
                }
                if (pfds[1].revents & POLLIN) {
                        sb_debug("notify proxy: the container ended before READY=1");
                        ret = 0;
                        break;
                }
        }
        return ret;
}

void notify_proxy_release(struct notify_proxy *p)
{
        if (p->dir >= 0 && p->sock >= 0)
                unlinkat(p->dir, NOTIFY_SOCK, 0);
        int fds[] = { p->dir, p->sock, p->host };
        for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
                if (fds[i] >= 0)
                        close(fds[i]);
        }
        p->dir = p->sock = p->host = -1;
}
