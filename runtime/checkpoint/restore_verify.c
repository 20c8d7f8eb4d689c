#include "runtime/checkpoint/restore_verify.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "runtime/checkpoint/checkpoint_record.h"
#include "runtime/checkpoint/proc_task.h"
#include "runtime/container/create_ctx.h"
#include "runtime/host/path_identity.h"
#include "runtime/sandbox/namespaces.h"
#include "runtime/sandbox/rootfs_path.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

static int tasks_of(const struct create_ctx *c, pid_t **tids, size_t *n, struct sb_error *err)
{
        if (c->cgroup.cg.path != NULL)
                return cgroup_threads_read(c->cgroup.cg.path, tids, n, err);
        *tids = malloc(sizeof(**tids));
        if (*tids == NULL)
                return sb_fail(err, ENOMEM, "restore");
        (*tids)[0] = c->container_pid;
        *n = 1;
        return 0;
}

/* Every program the floor and the config require is among the task's
 * filters (a process may have stacked more of its own). Not their order:
 * CRIU 3.17 restores the stack reversed, and the kernel runs every filter
 * and takes the action of the highest precedence, so order decides only
 * between two actions of one kind (which errno): never allow or deny. */
static int check_filters(const struct create_ctx *c, pid_t tid, struct sb_error *err)
{
        struct task_filters f;
        size_t want = c->floor.n + (c->seccomp.bpf != NULL);
        bool used[64] = { false };

        if (task_filters_read(tid, &f, err) < 0)
                return -1;
        bool same = f.n >= want && f.n <= sizeof(used) / sizeof(used[0]);
        for (size_t i = 0; same && i < want; i++) {
                const void *bpf = i < c->floor.n ? c->floor.bpf[i] : c->seccomp.bpf;
                size_t size = i < c->floor.n ? c->floor.size[i] : c->seccomp.size;
                bool found = false;
                for (size_t k = 0; k < f.n && !found; k++)
                        if (!used[k] && f.size[k] == size && memcmp(f.bpf[k], bpf, size) == 0)
                                found = used[k] = true;
                same = found;
        }
        size_t had = f.n;
        task_filters_release(&f);
        if (!same)
                return sb_fail(
                        err, 0,
                        "restored task %d: its %zu seccomp filters are not the %zu the floor "
                        "requires now (the floor's and linux.seccomp's): a checkpoint taken "
                        "under another profile or policy cannot be restored under this one",
                        (int)tid, had, want);
        return 0;
}

static int check_task(const struct create_ctx *c, pid_t tid, struct sb_error *err)
{
        static const char *const names[5] = { "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb" };
        const struct oci_capabilities *caps = &c->config->process->capabilities;
        const uint64_t allowed[5] = { caps->inheritable, caps->permitted, caps->effective,
                                      caps->bounding, caps->ambient };
        struct task_confinement t;

        if (task_confinement_read(tid, &t, err) < 0)
                return -1;
        if (t.no_new_privs != 1)
                return sb_fail(err, 0, "restored task %d: NoNewPrivs is %d, not 1", (int)tid,
                               t.no_new_privs);
        if (t.seccomp_mode != 2)
                return sb_fail(err, 0, "restored task %d: Seccomp is %d, not 2 (filtering)",
                               (int)tid, t.seccomp_mode);
        for (int i = 0; i < 5; i++)
                if (t.cap[i] & ~allowed[i])
                        return sb_fail(err, 0,
                                       "restored task %d: %s %016llx has capabilities outside "
                                       "the config's %016llx",
                                       (int)tid, names[i], (unsigned long long)t.cap[i],
                                       (unsigned long long)allowed[i]);
        return check_filters(c, tid, err);
}

/* The proc name of each namespace type, in enum oci_namespace_type's order. */
static const char *const ns_proc_name[OCI_NS_COUNT] = {
        [OCI_NS_PID] = "pid",       [OCI_NS_NETWORK] = "net", [OCI_NS_MOUNT] = "mnt",
        [OCI_NS_IPC] = "ipc",       [OCI_NS_UTS] = "uts",     [OCI_NS_USER] = "user",
        [OCI_NS_CGROUP] = "cgroup", [OCI_NS_TIME] = "time",
};

static int check_namespaces(const struct create_ctx *c, pid_t tid, bool root_task,
                            struct sb_error *err)
{
        const struct oci_linux *lx = c->config->linux_;
        for (size_t i = 0; lx != NULL && i < lx->n_namespaces; i++) {
                const struct oci_namespace *ns = &lx->namespaces[i];
                const char *name = ns_proc_name[ns->type];
                ino_t mine, theirs;
                struct stat joined;

                if (name == NULL || ns_inode((int)tid, name, &theirs) < 0)
                        return sb_fail(err, errno, "restored task %d: its %s namespace", (int)tid,
                                       name ? name : "?");
                if (ns->path == NULL) {
                        if (ns_inode(0, name, &mine) < 0)
                                return sb_fail(err, errno, "sbrun's own %s namespace", name);
                        if (mine == theirs)
                                return sb_fail(err, 0,
                                               "restored task %d runs in the host's %s "
                                               "namespace, not a new one",
                                               (int)tid, name);
                } else if (root_task) {
                        int fd = c->ns.join_fds[ns->type];
                        if (fd < 0 || fstat(fd, &joined) < 0 || joined.st_ino != theirs)
                                return sb_fail(err, 0,
                                               "restored task %d is not in the %s namespace %s",
                                               (int)tid, name, ns->path);
                }
        }
        return 0;
}

static int check_cgroup(const struct create_ctx *c, pid_t tid, struct sb_error *err)
{
        char path[64], want[4096];
        _cleanup_free_ char *line = NULL;
        size_t cap = 0, len;

        if (c->cgroup.rel == NULL)
                return 0;
        len = (size_t)snprintf(want, sizeof(want), "0::/%s",
                               c->cgroup.rel[0] == '/' ? c->cgroup.rel + 1 : c->cgroup.rel);
        snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)tid);
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (f == NULL || getline(&line, &cap, f) <= 0)
                return sb_fail(err, errno, "restored task %d: %s", (int)tid, path);
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, want, len) != 0 || (line[len] != '\0' && line[len] != '/'))
                return sb_fail(err, 0, "restored task %d is in cgroup %s, not the container's %s",
                               (int)tid, line + 3, want + 3);
        return 0;
}

/* ---- mounts -------------------------------------------------------------- */

struct judged_source {
        dev_t dev;
        char *fs_path; /* what may be mounted: this, or anything below it */
};

struct mount_want {
        char *point;
        unsigned flags;
};

/* A file system this namespace's mounts do not have: a new instance
 * (CRIU's tmpfs, proc, devpts, mqueue), none of the host's. */
static bool new_instance(const struct task_mount *m, const struct task_mounts *host)
{
        static const char *const types[] = { "tmpfs", "proc", "devpts", "mqueue" };
        bool known = false;

        for (size_t i = 0; i < sizeof(types) / sizeof(types[0]) && !known; i++)
                known = strcmp(m->fstype, types[i]) == 0;
        for (size_t i = 0; known && i < host->n; i++)
                if (host->m[i].major == m->major && host->m[i].minor == m->minor)
                        return false;
        return known;
}

static bool below(const char *path, const char *top)
{
        size_t n = strlen(top);

        if (strcmp(top, "/") == 0)
                return true;
        return strncmp(path, top, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static int add_source(struct judged_source **v, size_t *n, int fd, struct sb_error *err)
{
        struct floor_identity id = { 0 };

        if (path_identity_of_fd(fd, &id, err) < 0)
                return -1;
        struct judged_source *s = realloc(*v, (*n + 1) * sizeof(**v));
        if (s == NULL || id.fs_path == NULL) {
                floor_identity_release(&id);
                if (s != NULL)
                        *v = s;
                return sb_fail(err, ENOMEM, "restore: sources");
        }
        *v = s;
        s[*n].dev = id.dev;
        s[*n].fs_path = strdup(id.fs_path);
        floor_identity_release(&id);
        if (s[*n].fs_path == NULL)
                return sb_fail(err, ENOMEM, "restore: sources");
        (*n)++;
        return 0;
}

/* The standard nodes bwrap binds into /dev, and /dev/null over masked files. */
static const char *const dev_nodes[] = { "/dev/null",   "/dev/zero",    "/dev/full",
                                         "/dev/random", "/dev/urandom", "/dev/tty" };

static int judged_sources(const struct create_ctx *c, struct judged_source **v, size_t *n,
                          struct sb_error *err)
{
        *v = NULL;
        *n = 0;
        if (add_source(v, n, c->rootfs_fd, err) < 0)
                return sb_error_prefix(err, "root.path");
        for (size_t i = 0; i < c->binds.n; i++)
                if (c->binds.fds[i] >= 0 && c->binds.paths[i] != NULL &&
                    add_source(v, n, c->binds.fds[i], err) < 0)
                        return sb_error_prefix(err, "mounts[%zu].source", i);
        for (size_t i = 0; i < sizeof(dev_nodes) / sizeof(dev_nodes[0]); i++) {
                _cleanup_close_ int fd = open(dev_nodes[i], O_PATH | O_NOFOLLOW | O_CLOEXEC);
                if (fd >= 0 && add_source(v, n, fd, err) < 0)
                        return sb_error_prefix(err, "%s", dev_nodes[i]);
        }
        return 0;
}

static void sources_release(struct judged_source *v, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(v[i].fs_path);
        free(v);
}

/* Each mount is one of: a judged source (the root exactly; a bind's or a
 * /dev node's file system at or below its root), a new instance, sysfs
 * (the floor's flags make it read-only), or cgroup2 at or below the
 * container's cgroup. */
static int check_mount_sources(const struct create_ctx *c, const struct task_mounts *t,
                               const struct judged_source *src, size_t n_src, struct sb_error *err)
{
        struct task_mounts host = { 0 };
        _cleanup_free_ char *cg = NULL;
        int ret = -1;

        /* The root exactly: src[0] is root.path's (judged_sources). */
        const struct task_mount *root = task_mounts_top(t, "/");
        if (root == NULL || major(src[0].dev) != root->major || minor(src[0].dev) != root->minor ||
            strcmp(root->root, src[0].fs_path) != 0)
                return sb_fail(err, 0,
                               "the restored container's root is not the root.path this "
                               "restore judged (%s)",
                               src[0].fs_path);
        if (task_mounts_read(getpid(), &host, err) < 0)
                return -1;
        if (c->cgroup.rel != NULL &&
            asprintf(&cg, "/%s", c->cgroup.rel[0] == '/' ? c->cgroup.rel + 1 : c->cgroup.rel) < 0) {
                sb_fail(err, ENOMEM, "restore");
                goto out;
        }
        for (size_t i = 0; i < t->n; i++) {
                const struct task_mount *m = &t->m[i];
                bool judged =
                        new_instance(m, &host) || strcmp(m->fstype, "sysfs") == 0 ||
                        (strcmp(m->fstype, "cgroup2") == 0 && cg != NULL && below(m->root, cg));
                for (size_t s = 0; !judged && s < n_src; s++)
                        judged = major(src[s].dev) == m->major && minor(src[s].dev) == m->minor &&
                                 below(m->root, src[s].fs_path);
                if (!judged) {
                        sb_fail(err, 0,
                                "the restored container has a mount at %s (%s %u:%u %s) that is "
                                "none of the sources this restore judged (the root, the "
                                "config's binds, the /dev nodes)",
                                m->point, m->fstype, m->major, m->minor, m->root);
                        goto out;
                }
        }
        ret = 0;
out:
        task_mounts_release(&host);
        return ret;
}

static int want_add(struct mount_want **v, size_t *n, const char *point, unsigned flags,
                    struct sb_error *err)
{
        _cleanup_free_ char *clean = NULL;

        if (point[0] != '/' || rootfs_clean_path(point, &clean, err) < 0) {
                sb_error_clear(err);
                return 0; /* the floor refused such a path already, or it is none of ours */
        }
        for (size_t i = 0; i < *n; i++)
                if (strcmp((*v)[i].point, clean) == 0) {
                        (*v)[i].flags |= flags;
                        return 0;
                }
        struct mount_want *w = realloc(*v, (*n + 1) * sizeof(**v));
        if (w == NULL)
                return sb_fail(err, ENOMEM, "restore: mounts");
        *v = w;
        w[*n] = (struct mount_want){ .point = clean, .flags = flags };
        clean = NULL;
        (*n)++;
        return 0;
}

static unsigned option_flags(const struct oci_mount *m)
{
        unsigned flags = 0;

        for (size_t i = 0; i < m->n_options; i++)
                flags |= mount_flags_parse(m->options[i]);
        return flags;
}

/* The flags at each place: what the config asks (after the floor) and what
 * the checkpointed container had, whichever is more. */
static int wanted_flags(const struct create_ctx *c, const struct checkpoint_record *record,
                        struct mount_want **v, size_t *n, struct sb_error *err)
{
        const struct oci_linux *lx = c->config->linux_;

        *v = NULL;
        *n = 0;
        if (want_add(v, n, "/", c->config->root.readonly ? MOUNT_ATTR_RDONLY : 0, err) < 0)
                return -1;
        for (size_t i = 0; i < c->config->n_mounts; i++)
                if (want_add(v, n, c->config->mounts[i].destination,
                             option_flags(&c->config->mounts[i]), err) < 0)
                        return -1;
        for (size_t i = 0; lx != NULL && i < lx->n_readonly_paths; i++)
                if (want_add(v, n, lx->readonly_paths[i], MOUNT_ATTR_RDONLY, err) < 0)
                        return -1;
        for (size_t i = 0; i < record->n_mounts; i++)
                if (want_add(v, n, record->mounts[i].point, record->mounts[i].flags, err) < 0)
                        return -1;
        return 0;
}

static void wants_release(struct mount_want *v, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(v[i].point);
        free(v);
}

/* In a child: into the container's mount namespace (mount_setattr acts
 * only on mounts of the caller's), each place resolved from the
 * container's root without following a symlink, the missing flags set. */
static int set_flags(pid_t pid, const struct mount_want *fix, size_t n, struct sb_error *err)
{
        char path[64];

        snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
        _cleanup_close_ int root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
        _cleanup_close_ int mnt = open(path, O_RDONLY | O_CLOEXEC);
        if (root < 0 || mnt < 0)
                return sb_fail(err, errno, "restored container %d: its root", (int)pid);
        pid_t child = fork();
        if (child < 0)
                return sb_fail(err, errno, "restore: fork");
        if (child == 0) {
                if (setns(mnt, CLONE_NEWNS) < 0)
                        _exit(100);
                for (size_t i = 0; i < n; i++) {
                        struct open_how how = {
                                .flags = O_PATH | O_CLOEXEC,
                                .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS |
                                           RESOLVE_NO_MAGICLINKS,
                        };
                        struct mount_attr attr = { .attr_set = fix[i].flags };
                        int fd = (int)syscall(SYS_openat2, root,
                                              fix[i].point[1] ? fix[i].point + 1 : ".", &how,
                                              sizeof(how));
                        if (fd < 0 || syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH, &attr,
                                              sizeof(attr)) < 0)
                                _exit(101 + (int)(i < 100 ? i : 100));
                        close(fd);
                }
                _exit(0);
        }
        int status;
        while (waitpid(child, &status, 0) < 0)
                if (errno != EINTR)
                        return sb_fail(err, errno, "restore: wait");
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
                return 0;
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        if (code > 100 && (size_t)(code - 101) < n)
                return sb_fail(err, 0, "restored container: cannot set %s on %s",
                               mount_flags_text(fix[code - 101].flags), fix[code - 101].point);
        return sb_fail(err, 0, "restored container: cannot enter its mount namespace");
}

/* Whether point is there in the container of pid, resolved in its root. */
static bool exists_in(pid_t pid, const char *point)
{
        char path[64];
        struct open_how how = { .flags = O_PATH | O_CLOEXEC,
                                .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };

        snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
        _cleanup_close_ int root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (root < 0)
                return true; /* cannot tell: as if there */
        int fd = (int)syscall(SYS_openat2, root, point[1] ? point + 1 : ".", &how, sizeof(how));
        if (fd >= 0)
                close(fd);
        return fd >= 0 || errno != ENOENT;
}

/* Places whose topmost mount lacks flags. A place with no mount is an error
 * unless nothing is there (a read-only or masked path this kernel lacks,
 * /proc/asound: sbrun-init skips those too). */
static int missing_flags(pid_t pid, const struct task_mounts *t, const struct mount_want *want,
                         size_t n, struct mount_want *fix, size_t *n_fix, struct sb_error *err)
{
        *n_fix = 0;
        for (size_t i = 0; i < n; i++) {
                const struct task_mount *top = task_mounts_top(t, want[i].point);
                if (top == NULL) {
                        if (want[i].flags == 0 || !exists_in(pid, want[i].point))
                                continue;
                        return sb_fail(err, 0, "the restored container has no mount at %s",
                                       want[i].point);
                }
                unsigned lack = want[i].flags & ~top->flags;
                if (lack != 0)
                        fix[(*n_fix)++] =
                                (struct mount_want){ .point = want[i].point, .flags = lack };
        }
        return 0;
}

static int check_mounts(const struct create_ctx *c, const struct checkpoint_record *record,
                        struct sb_error *err)
{
        struct task_mounts t = { 0 };
        struct judged_source *src = NULL;
        struct mount_want *want = NULL, *fix = NULL;
        size_t n_src = 0, n_want = 0, n_fix = 0;
        int ret = -1;

        if (judged_sources(c, &src, &n_src, err) < 0 ||
            wanted_flags(c, record, &want, &n_want, err) < 0)
                goto out;
        fix = calloc(n_want + 1, sizeof(*fix));
        if (fix == NULL) {
                sb_fail(err, ENOMEM, "restore: mounts");
                goto out;
        }
        if (task_mounts_read(c->container_pid, &t, err) < 0 ||
            check_mount_sources(c, &t, src, n_src, err) < 0 ||
            missing_flags(c->container_pid, &t, want, n_want, fix, &n_fix, err) < 0)
                goto out;
        if (n_fix > 0) {
                if (set_flags(c->container_pid, fix, n_fix, err) < 0)
                        goto out;
                task_mounts_release(&t);
                if (task_mounts_read(c->container_pid, &t, err) < 0 ||
                    missing_flags(c->container_pid, &t, want, n_want, fix, &n_fix, err) < 0)
                        goto out;
                if (n_fix > 0) {
                        sb_fail(err, 0, "the restored container's mount at %s stays without %s",
                                fix[0].point, mount_flags_text(fix[0].flags));
                        goto out;
                }
        }
        ret = 0;
out:
        task_mounts_release(&t);
        sources_release(src, n_src);
        wants_release(want, n_want);
        free(fix);
        return ret;
}

int restore_verify(struct create_ctx *c, const struct checkpoint_record *record,
                   struct sb_error *err)
{
        _cleanup_free_ pid_t *tids = NULL;
        size_t n = 0;

        if (tasks_of(c, &tids, &n, err) < 0)
                return -1;
        if (n == 0)
                return sb_fail(err, 0, "no task was restored into the container's cgroup");
        for (size_t i = 0; i < n; i++)
                if (check_task(c, tids[i], err) < 0 ||
                    check_namespaces(c, tids[i], tids[i] == c->container_pid, err) < 0 ||
                    check_cgroup(c, tids[i], err) < 0)
                        return sb_error_prefix(err, "restore");
        if (check_mounts(c, record, err) < 0)
                return sb_error_prefix(err, "restore");
        return 0;
}

int restore_resume(struct create_ctx *c, struct sb_error *err)
{
        _cleanup_free_ pid_t *tids = NULL;
        size_t n = 0;

        if (tasks_of(c, &tids, &n, err) < 0)
                return -1;
        /* A signal to any thread continues its whole stopped process. */
        for (size_t i = 0; i < n; i++)
                if (kill(tids[i], SIGCONT) < 0 && errno != ESRCH)
                        return sb_fail(err, errno, "restore: continue task %d", (int)tids[i]);
        return 0;
}
