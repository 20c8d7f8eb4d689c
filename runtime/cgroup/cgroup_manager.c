#include "runtime/cgroup/cgroup_manager.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"
#include "common/log.h"
#include "runtime/cgroup/cgroup_resources.h"
#include "runtime/cgroup/cgroup_root.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The controllers sbrun enables for a container when the host offers them. */
static const char *const known_controllers[] = { "cpuset", "cpu",  "io",   "memory", "hugetlb",
                                                 "pids",   "rdma", "misc", NULL };

static int read_at(int dirfd, const char *file, char **out, struct sb_error *err)
{
        _cleanup_close_ int fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC);

        if (fd < 0)
                return sb_fail(err, errno, "open %s", file);
        if (sb_read_fd(fd, 4 * 1024 * 1024, out, NULL, err) < 0)
                return sb_error_prefix(err, "read %s", file);
        return 0;
}

/* One write(): the kernel parses each write of an interface file alone. */
static int write_at(int dirfd, const char *file, const char *value)
{
        _cleanup_close_ int fd = openat(dirfd, file, O_WRONLY | O_CLOEXEC);
        size_t len = strlen(value);

        if (fd < 0)
                return -1;
        ssize_t n = write(fd, value, len);
        if (n < 0)
                return -1;
        if ((size_t)n != len) {
                errno = EIO;
                return -1;
        }
        return 0;
}

/* The value of "key N" in a flat-keyed file (cgroup.events, memory.events). */
static int keyed_value(const char *text, const char *key, uint64_t *value)
{
        size_t len = strlen(key);

        for (const char *line = text; line && *line;) {
                if (strncmp(line, key, len) == 0 && line[len] == ' ') {
                        *value = strtoull(line + len + 1, NULL, 10);
                        return 0;
                }
                line = strchr(line, '\n');
                if (line)
                        line++;
        }
        return -1;
}

static long long now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Removed while we held it open: every interface file is gone with it. A
 * systemd scope's cgroup goes as soon as its last process exits. */
static bool cgroup_gone(struct cgroup *cg)
{
        return faccessat(cg->dir_fd, "cgroup.procs", F_OK, 0) < 0 && errno == ENOENT;
}

/* A cgroup removed under us can only have been empty: waiting for
 * "populated 0" is then done (the open or read fails with ENOENT or ENODEV:
 * systemd removed the scope between our kill and our wait). */
static bool emptied_by_removal(struct cgroup *cg, const char *key, uint64_t want)
{
        int saved = errno;
        bool done = (saved == ENOENT || saved == ENODEV) && strcmp(key, "populated") == 0 &&
                    want == 0 && cgroup_gone(cg);
        errno = saved;
        return done;
}

/* Wait until cgroup.events shows key == want. The kernel wakes pollers of
 * the file (POLLPRI) when it changes; the short timeout only guards
 * against a missed wake-up. */
static int wait_event(struct cgroup *cg, const char *key, uint64_t want, struct sb_error *err)
{
        _cleanup_close_ int fd = openat(cg->dir_fd, "cgroup.events", O_RDONLY | O_CLOEXEC);
        long long deadline = now_ms() + CGROUP_WAIT_MS;
        char buf[256];

        if (fd < 0) {
                if (emptied_by_removal(cg, key, want))
                        return 0;
                return sb_fail(err, errno, "cgroup %s: open cgroup.events", cg->path);
        }
        for (;;) {
                ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
                uint64_t value;
                if (n < 0) {
                        if (emptied_by_removal(cg, key, want))
                                return 0;
                        return sb_fail(err, errno, "cgroup %s: read cgroup.events", cg->path);
                }
                buf[n] = '\0';
                if (keyed_value(buf, key, &value) == 0 && value == want)
                        return 0;
                long long left = deadline - now_ms();
                if (left <= 0)
                        return sb_fail(err, ETIMEDOUT, "cgroup %s: \"%s %" PRIu64 "\" did not come",
                                       cg->path, key, want);
                struct pollfd pfd = { .fd = fd, .events = POLLPRI };
                poll(&pfd, 1, left < 50 ? (int)left : 50);
        }
}

static bool is_required(const char *name)
{
        for (size_t i = 0; cgroup_required_controllers[i]; i++) {
                if (strcmp(cgroup_required_controllers[i], name) == 0)
                        return true;
        }
        return false;
}

/* Make the controllers reach the children of dirfd. Each one is written
 * alone so a failure names it; only the required ones must succeed. */
static int enable_controllers(int dirfd, const char *path, struct sb_error *err)
{
        _cleanup_free_ char *available = NULL, *enabled = NULL;

        if (read_at(dirfd, "cgroup.controllers", &available, err) < 0 ||
            read_at(dirfd, "cgroup.subtree_control", &enabled, err) < 0)
                return sb_error_prefix(err, "cgroup v2: %s", path);
        for (size_t i = 0; known_controllers[i]; i++) {
                const char *name = known_controllers[i];
                char op[32];
                if (cgroup_list_has(enabled, name))
                        continue;
                if (!cgroup_list_has(available, name)) {
                        if (is_required(name))
                                return sb_fail(err, 0,
                                               "cgroup v2: the %s controller is not "
                                               "available in %s",
                                               name, path);
                        continue;
                }
                snprintf(op, sizeof(op), "+%s", name);
                if (write_at(dirfd, "cgroup.subtree_control", op) == 0)
                        continue;
                if (is_required(name))
                        return sb_fail(err, errno,
                                       "cgroup v2: enable the %s controller in "
                                       "%s/cgroup.subtree_control%s",
                                       name, path,
                                       errno == EBUSY ? " (the cgroup holds processes)" : "");
                sb_debug("cgroup v2: %s not enabled in %s: %s", name, path, strerror(errno));
        }
        return 0;
}

static int check_unpopulated(int dirfd, const char *path, struct sb_error *err)
{
        _cleanup_free_ char *events = NULL;
        uint64_t populated = 0;

        if (read_at(dirfd, "cgroup.events", &events, err) < 0)
                return sb_error_prefix(err, "cgroup %s", path);
        if (keyed_value(events, "populated", &populated) == 0 && populated != 0)
                return sb_fail(err, 0, "linux.cgroupsPath: cgroup %s already holds processes",
                               path);
        return 0;
}

int cgroup_create(const struct cgroup_root *root, const char *rel, struct cgroup *cg,
                  struct sb_error *err)
{
        _cleanup_free_ char *copy = strdup(rel);
        _cleanup_free_ char *at = strdup(root->mount);
        _cleanup_close_ int cur = open(root->mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        char *save = NULL;

        if (copy == NULL || at == NULL)
                return sb_fail(err, ENOMEM, "cgroup v2");
        if (cur < 0)
                return sb_fail(err, errno, "cgroup v2: open %s", root->mount);
        char *part = strtok_r(copy, "/", &save);
        while (part != NULL) {
                char *next_part = strtok_r(NULL, "/", &save);
                bool leaf = next_part == NULL;
                bool made = false;
                int next = openat(cur, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (next < 0 && errno == ENOENT) {
                        if (enable_controllers(cur, at, err) < 0)
                                return -1;
                        if (mkdirat(cur, part, 0755) == 0)
                                made = true;
                        else if (errno != EEXIST)
                                return sb_fail(err, errno, "cgroup v2: mkdir %s/%s", at, part);
                        next = openat(cur, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                } else if (next >= 0 && leaf) {
                        /* An existing leaf still needs its controllers. */
                        if (enable_controllers(cur, at, err) < 0) {
                                close(next);
                                return -1;
                        }
                }
                if (next < 0)
                        return sb_fail(err, errno, "cgroup v2: open %s/%s", at, part);
                close(cur);
                cur = next;
                char *longer = NULL;
                if (asprintf(&longer, "%s/%s", at, part) < 0)
                        return sb_fail(err, ENOMEM, "cgroup v2");
                free(at);
                at = longer;
                if (leaf) {
                        cg->created = made;
                        if (!made && check_unpopulated(cur, at, err) < 0)
                                return -1;
                }
                part = next_part;
        }
        cg->dir_fd = SB_STEAL_FD(cur);
        cg->path = SB_STEAL_PTR(at);
        return 0;
}

int cgroup_open(const char *path, struct cgroup *cg, struct sb_error *err)
{
        _cleanup_close_ int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct statfs sfs;

        if (fd < 0)
                return sb_fail(err, errno, "cgroup %s", path);
        /* The path comes from the state record: never write kill or freeze
         * files anywhere but in a cgroup2 filesystem. */
        if (fstatfs(fd, &sfs) < 0 || sfs.f_type != CGROUP2_SUPER_MAGIC)
                return sb_fail(err, EINVAL, "cgroup %s: not a cgroup v2 directory", path);
        cg->path = strdup(path);
        if (cg->path == NULL)
                return sb_fail(err, ENOMEM, "cgroup %s", path);
        cg->dir_fd = SB_STEAL_FD(fd);
        cg->created = false;
        return 0;
}

static int controller_of(const char *file, char *out, size_t len)
{
        size_t n = strcspn(file, ".");

        if (n == 0 || n >= len)
                return -1;
        memcpy(out, file, n);
        out[n] = '\0';
        return 0;
}

static int apply_one(struct cgroup *cg, const struct cgroup_setting *s, const char *available,
                     struct sb_error *err)
{
        char controller[32];

        if (controller_of(s->file, controller, sizeof(controller)) < 0)
                return sb_fail(err, 0, "%s: \"%s\" is not a cgroup v2 interface file", s->field,
                               s->file);
        if (strcmp(controller, "cgroup") != 0 && !cgroup_list_has(available, controller))
                return sb_fail(err, 0,
                               "%s: the %s controller is not available in %s "
                               "(available: %s)",
                               s->field, controller, cg->path, *available ? available : "none");
        if (write_at(cg->dir_fd, s->file, s->value) == 0)
                return 0;
        if (errno == ENOENT && s->fallback_file) {
                if (write_at(cg->dir_fd, s->fallback_file, s->fallback_value) == 0)
                        return 0;
                if (errno == ENOENT)
                        return sb_fail(err, 0, "%s: neither %s nor %s exists in %s", s->field,
                                       s->file, s->fallback_file, cg->path);
                return sb_fail(err, errno, "%s: write \"%s\" to %s", s->field, s->fallback_value,
                               s->fallback_file);
        }
        if (errno == ENOENT && s->optional)
                return 0;
        if (errno == ENOENT)
                return sb_fail(err, 0, "%s: %s does not exist in %s", s->field, s->file, cg->path);
        return sb_fail(err, errno, "%s: write \"%s\" to %s", s->field, s->value, s->file);
}

int cgroup_apply(struct cgroup *cg, const struct cgroup_settings *settings, struct sb_error *err)
{
        _cleanup_free_ char *available = NULL;

        if (settings->n == 0)
                return 0;
        if (read_at(cg->dir_fd, "cgroup.controllers", &available, err) < 0)
                return sb_error_prefix(err, "cgroup %s", cg->path);
        available[strcspn(available, "\n")] = '\0';
        for (size_t i = 0; i < settings->n; i++) {
                if (apply_one(cg, &settings->items[i], available, err) < 0)
                        return -1;
        }
        return 0;
}

int cgroup_read(struct cgroup *cg, const char *file, char **out, struct sb_error *err)
{
        if (read_at(cg->dir_fd, file, out, err) < 0)
                return sb_error_prefix(err, "cgroup %s", cg->path);
        size_t len = strlen(*out);
        while (len > 0 && (*out)[len - 1] == '\n')
                (*out)[--len] = '\0';
        return 0;
}

static int append_pids(int dirfd, pid_t **pids, size_t *n, size_t *cap, int depth,
                       struct sb_error *err)
{
        _cleanup_free_ char *text = NULL;
        DIR *dir;
        struct dirent *de;

        if (depth > 64)
                return 0;
        if (read_at(dirfd, "cgroup.procs", &text, err) < 0)
                return -1;
        for (char *p = text; *p;) {
                char *end = NULL;
                long pid = strtol(p, &end, 10);
                if (end == p)
                        break;
                if (*n == *cap) {
                        size_t bigger = *cap ? *cap * 2 : 64;
                        pid_t *grown = realloc(*pids, bigger * sizeof(**pids));
                        if (grown == NULL)
                                return sb_fail(err, ENOMEM, "cgroup.procs");
                        *pids = grown;
                        *cap = bigger;
                }
                (*pids)[(*n)++] = (pid_t)pid;
                p = end + strspn(end, "\n");
        }
        int copy = fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
        if (copy < 0 || (dir = fdopendir(copy)) == NULL) {
                if (copy >= 0)
                        close(copy);
                return sb_fail(err, errno, "read cgroup directory");
        }
        int ret = 0;
        while (ret == 0 && (de = readdir(dir)) != NULL) {
                if (de->d_type != DT_DIR || de->d_name[0] == '.')
                        continue;
                _cleanup_close_ int sub =
                        openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (sub >= 0)
                        ret = append_pids(sub, pids, n, cap, depth + 1, err);
        }
        closedir(dir);
        return ret;
}

int cgroup_pids(struct cgroup *cg, pid_t **pids, size_t *n, struct sb_error *err)
{
        size_t cap = 0;

        *pids = NULL;
        *n = 0;
        if (append_pids(cg->dir_fd, pids, n, &cap, 0, err) < 0) {
                free(*pids);
                *pids = NULL;
                *n = 0;
                return sb_error_prefix(err, "cgroup %s", cg->path);
        }
        return 0;
}

int cgroup_freeze(struct cgroup *cg, bool frozen, struct sb_error *err)
{
        if (write_at(cg->dir_fd, "cgroup.freeze", frozen ? "1" : "0") < 0)
                return sb_fail(err, errno, "cgroup %s: write cgroup.freeze", cg->path);
        return wait_event(cg, "frozen", frozen ? 1 : 0, err);
}

int cgroup_path_frozen(const char *path)
{
        _cleanup_close_ int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        _cleanup_free_ char *events = NULL;
        struct sb_error ignored = { 0 };
        uint64_t frozen = 0;

        if (fd < 0)
                return -1;
        if (read_at(fd, "cgroup.events", &events, &ignored) < 0) {
                sb_error_clear(&ignored);
                return -1;
        }
        if (keyed_value(events, "frozen", &frozen) < 0)
                return -1;
        return frozen != 0;
}

static bool is_frozen(struct cgroup *cg)
{
        _cleanup_free_ char *events = NULL;
        struct sb_error ignored = { 0 };
        uint64_t frozen = 0;

        if (read_at(cg->dir_fd, "cgroup.events", &events, &ignored) < 0) {
                sb_error_clear(&ignored);
                return false;
        }
        return keyed_value(events, "frozen", &frozen) == 0 && frozen != 0;
}

int cgroup_signal(struct cgroup *cg, int signo, struct sb_error *err)
{
        _cleanup_free_ pid_t *pids = NULL;
        bool was_frozen = is_frozen(cg);
        size_t n = 0;
        int ret = 0;

        if (!was_frozen && cgroup_freeze(cg, true, err) < 0)
                return -1;
        if (cgroup_pids(cg, &pids, &n, err) < 0)
                ret = -1;
        for (size_t i = 0; ret == 0 && i < n; i++) {
                /* The tree is frozen: these pids cannot exit and be reused. */
                int fd = (int)syscall(SYS_pidfd_open, pids[i], 0);
                if (fd < 0)
                        continue;
                syscall(SYS_pidfd_send_signal, fd, signo, NULL, 0);
                close(fd);
        }
        if (!was_frozen) {
                struct sb_error thaw = { 0 };
                if (cgroup_freeze(cg, false, ret == 0 ? err : &thaw) < 0)
                        ret = -1;
                sb_error_clear(&thaw);
        }
        return ret;
}

int cgroup_kill_nowait(struct cgroup *cg, struct sb_error *err)
{
        if (write_at(cg->dir_fd, "cgroup.kill", "1") < 0) {
                /* ENODEV: the file was open-able, its cgroup was removed. */
                if ((errno == ENOENT || errno == ENODEV) && cgroup_gone(cg))
                        return 0;
                /* cgroup.kill came with Linux 5.14. */
                if (errno != ENOENT)
                        return sb_fail(err, errno, "cgroup %s: write cgroup.kill", cg->path);
                if (cgroup_signal(cg, SIGKILL, err) < 0)
                        return -1;
        }
        return 0;
}

int cgroup_kill(struct cgroup *cg, struct sb_error *err)
{
        if (cgroup_kill_nowait(cg, err) < 0)
                return -1;
        if (cgroup_gone(cg))
                return 0;
        return wait_event(cg, "populated", 0, err);
}

/* Children first: the container may have made cgroups of its own. */
static int remove_children(int dirfd, int depth)
{
        int copy = fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
        DIR *dir = copy >= 0 ? fdopendir(copy) : NULL;
        struct dirent *de;
        int ret = 0;

        if (dir == NULL) {
                if (copy >= 0)
                        close(copy);
                return -1;
        }
        while ((de = readdir(dir)) != NULL) {
                if (de->d_type != DT_DIR || de->d_name[0] == '.' || depth > 64)
                        continue;
                int sub =
                        openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (sub >= 0) {
                        remove_children(sub, depth + 1);
                        close(sub);
                }
                if (unlinkat(dirfd, de->d_name, AT_REMOVEDIR) < 0)
                        ret = -1;
        }
        closedir(dir);
        return ret;
}

int cgroup_destroy(struct cgroup *cg, struct sb_error *err)
{
        _cleanup_close_ int parent = -1;
        const char *name = strrchr(cg->path, '/');

        if (cgroup_kill(cg, err) < 0)
                return -1;
        if (cgroup_gone(cg)) {
                cg->created = false;
                return 0;
        }
        remove_children(cg->dir_fd, 0);
        parent = openat(cg->dir_fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (parent < 0 || name == NULL)
                return sb_fail(err, errno, "cgroup %s: open its parent", cg->path);
        /* An exiting task may keep the cgroup busy for a moment after
         * "populated 0": usually well under a millisecond, so the wait
         * starts short and doubles up to 20 ms; a pid namespace full of a
         * fork bomb's zombies, torn down under emulation, can take seconds,
         * so it is bounded like the wait for "populated 0". */
        useconds_t pause = 500;
        long long deadline = now_ms() + CGROUP_WAIT_MS;
        while (unlinkat(parent, name + 1, AT_REMOVEDIR) < 0) {
                if (errno == ENOENT)
                        break;
                if (errno != EBUSY || now_ms() > deadline)
                        return sb_fail(err, errno, "cgroup %s: remove", cg->path);
                usleep(pause);
                if (pause < 20 * 1000)
                        pause *= 2;
        }
        cg->created = false;
        return 0;
}

int cgroup_oom_kills(struct cgroup *cg, uint64_t *count, struct sb_error *err)
{
        _cleanup_free_ char *events = NULL;

        *count = 0;
        if (read_at(cg->dir_fd, "memory.events", &events, err) < 0) {
                if (err->errnum != ENOENT)
                        return sb_error_prefix(err, "cgroup %s", cg->path);
                sb_error_clear(err); /* no memory controller: no OOM kills */
                return 0;
        }
        keyed_value(events, "oom_kill", count);
        return 0;
}

int cgroup_pids_max_events(struct cgroup *cg, uint64_t *count, struct sb_error *err)
{
        _cleanup_free_ char *events = NULL;

        *count = 0;
        if (read_at(cg->dir_fd, "pids.events", &events, err) < 0) {
                if (err->errnum != ENOENT)
                        return sb_error_prefix(err, "cgroup %s", cg->path);
                sb_error_clear(err); /* no pids controller: no refusals */
                return 0;
        }
        keyed_value(events, "max", count);
        return 0;
}

void cgroup_release(struct cgroup *cg)
{
        if (cg->created && cg->dir_fd >= 0) {
                struct sb_error ignored = { 0 };
                if (cgroup_destroy(cg, &ignored) < 0) {
                        _cleanup_free_ char *text = sb_error_text(&ignored);
                        sb_warn("%s", text ? text : "cgroup cleanup failed");
                }
                sb_error_clear(&ignored);
        }
        if (cg->dir_fd >= 0)
                close(cg->dir_fd);
        free(cg->path);
        cg->dir_fd = -1;
        cg->path = NULL;
        cg->created = false;
}
