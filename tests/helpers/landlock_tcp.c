/* landlock_tcp: Landlock's TCP rule (runtime/init/init_landlock.c) seen from
 * a strict container, for tests/integration/landlock.bats. Strict's seccomp
 * floor refuses socket, bind and connect, so the rule is reached through a
 * TCP socket made outside and handed in (--preserve-fds), and the one
 * connect that no filter of the floor stops: sendto(MSG_FASTOPEN), which
 * connects an unconnected TCP socket as it sends (sendto is on strict's
 * list, for the container's own socketpairs). Built static: the "inside"
 * role runs in the busybox rootfs.
 *
 *   landlock_tcp probe         what this kernel offers: "abi N" (ABI < 4:
 *                              no TCP rights), else "abi N fastopen-off"
 *                              (net.ipv4.tcp_fastopen has no client bit),
 *                              "abi N fastopen-checked" (a Landlock domain
 *                              without the connect right refuses fast
 *                              open's connect) or "abi N fastopen-unchecked"
 *   landlock_tcp outside CMD...
 *                              fd 3: an unconnected TCP socket, fd 4: a
 *                              listener on 127.0.0.1; runs CMD, then says
 *                              whether the listener got a connection;
 *                              exits with CMD's status
 *   landlock_tcp inside        in the container: connect, bind, then
 *                              sendto(MSG_FASTOPEN) on fd 3 to fd 4's
 *                              address; prints what each got
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif
/* Debian 12's headers stop at Landlock ABI 2: the calls by number. */
#define NR_LANDLOCK_CREATE_RULESET 444
#define NR_LANDLOCK_RESTRICT_SELF 446
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)

struct ruleset_attr {
        uint64_t handled_access_fs;
        uint64_t handled_access_net;
};

static const char *result(long r)
{
        return r < 0 ? strerror(errno) : "ok";
}

static int listener(struct sockaddr_in *addr)
{
        socklen_t len = sizeof(*addr);
        int fd = socket(AF_INET, SOCK_STREAM, 0);

        memset(addr, 0, sizeof(*addr));
        addr->sin_family = AF_INET;
        addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (fd < 0 || bind(fd, (struct sockaddr *)addr, sizeof(*addr)) < 0 || listen(fd, 8) < 0 ||
            getsockname(fd, (struct sockaddr *)addr, &len) < 0) {
                perror("landlock_tcp: listener");
                exit(1);
        }
        return fd;
}

static int probe(void)
{
        long abi = syscall(NR_LANDLOCK_CREATE_RULESET, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
        struct ruleset_attr attr = { .handled_access_net = LANDLOCK_ACCESS_NET_CONNECT_TCP };
        struct sockaddr_in addr;
        FILE *f;
        int mode = 0, status;

        printf("abi %ld", abi < 0 ? 0 : abi);
        if (abi < 4) {
                printf("\n");
                return 0;
        }
        f = fopen("/proc/sys/net/ipv4/tcp_fastopen", "re");
        if (f == NULL || fscanf(f, "%d", &mode) != 1 || (mode & 1) == 0) {
                printf(" fastopen-off\n");
                return 0;
        }
        fclose(f);
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
                int l = listener(&addr), s = socket(AF_INET, SOCK_STREAM, 0);
                int rs = (int)syscall(NR_LANDLOCK_CREATE_RULESET, &attr, sizeof(attr), 0);
                if (s < 0 || rs < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
                    syscall(NR_LANDLOCK_RESTRICT_SELF, rs, 0) < 0) {
                        perror("landlock_tcp: probe");
                        _exit(2);
                }
                long r = sendto(s, "x", 1, MSG_FASTOPEN, (struct sockaddr *)&addr, sizeof(addr));
                (void)l;
                _exit(r < 0 && errno == EACCES ? 0 : 1);
        }
        if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
            WEXITSTATUS(status) > 1) {
                printf("\n");
                return 1;
        }
        printf(WEXITSTATUS(status) == 0 ? " fastopen-checked\n" : " fastopen-unchecked\n");
        return 0;
}

static int outside(char **cmd)
{
        struct sockaddr_in addr;
        int l = listener(&addr), s = socket(AF_INET, SOCK_STREAM, 0), status;

        /* Out of the way first: either may have been made as 3 or 4. */
        l = fcntl(l, F_DUPFD_CLOEXEC, 10);
        s = s < 0 ? -1 : fcntl(s, F_DUPFD_CLOEXEC, 10);
        if (l < 0 || s < 0 || dup2(s, 3) < 0 || dup2(l, 4) < 0) {
                perror("landlock_tcp: outside");
                return 1;
        }
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
                execvp(cmd[0], cmd);
                perror(cmd[0]);
                _exit(127);
        }
        if (pid < 0 || waitpid(pid, &status, 0) < 0) {
                perror("landlock_tcp: outside");
                return 1;
        }
        /* The container has ended: a connect it made is in the queue. */
        int c = fcntl(4, F_SETFL, O_NONBLOCK) < 0 ? -1 : accept4(4, NULL, NULL, SOCK_CLOEXEC);
        printf("listener: %s\n", c >= 0 ? "a connection" : "no connection");
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int inside(void)
{
        struct sockaddr_in addr, any = { .sin_family = AF_INET };
        socklen_t len = sizeof(addr);

        if (getsockname(4, (struct sockaddr *)&addr, &len) < 0) {
                perror("landlock_tcp: fd 4");
                return 1;
        }
        printf("connect: %s\n", result(connect(3, (struct sockaddr *)&addr, sizeof(addr))));
        printf("bind: %s\n", result(bind(3, (struct sockaddr *)&any, sizeof(any))));
        printf("fastopen: %s\n",
               result(sendto(3, "x", 1, MSG_FASTOPEN, (struct sockaddr *)&addr, sizeof(addr))));
        return 0;
}

int main(int argc, char **argv)
{
        if (argc == 2 && strcmp(argv[1], "probe") == 0)
                return probe();
        if (argc >= 3 && strcmp(argv[1], "outside") == 0)
                return outside(argv + 2);
        if (argc == 2 && strcmp(argv[1], "inside") == 0)
                return inside();
        fprintf(stderr, "usage: landlock_tcp probe | outside CMD... | inside\n");
        return 2;
}
