#include "runtime/container/create_container.h"

#include "config.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"
#include "common/log.h"
#include "common/strv.h"
#include "oci/config.h"
#include "oci/state.h"
#include "runtime/sandbox/bind_sources.h"
#include "runtime/container/global_options.h"
#include "runtime/cgroup/container_cgroup.h"
#include "runtime/container/container_id.h"
#include "hooks/hooks.h"
#include "runtime/container/console.h"
#include "runtime/container/container_status.h"
#include "runtime/sandbox/exec_lookup.h"
#include "runtime/sandbox/init_image.h"
#include "runtime/sandbox/launcher.h"
#include "runtime/sandbox/mount_translate.h"
#include "runtime/sandbox/namespaces.h"
#include "runtime/container/pid_file.h"
#include "runtime/sandbox/plan_build.h"
#include "runtime/sandbox/rootfs_path.h"
#include "runtime/seccomp/floor_seccomp.h"
#include "runtime/seccomp/seccomp_setup.h"
#include "runtime/container/state_dir.h"
#include "runtime/container/wall_clock.h"
#include "runtime/container/watchdog.h"
#include "spec/effective.h"
#include "spec/operator_policy.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What one create holds; released in one place whatever happened. */
struct create_ctx {
        struct operator_policy policy; /* read once: every decision uses the same one */
        struct oci_config *config;
        char *config_text; /* what was parsed, saved as the state's copy */
        size_t config_len;
        struct bind_sources binds;   /* held from before the floor's check to bwrap */
        enum policy_profile profile; /* the floor's choice; its seccomp programs follow */
        char *bundle;
        char *rootfs;
        int rootfs_fd;
        struct ns_setup ns;
        struct strv bwrap;
        struct init_mount_list init_mounts;
        struct mount_table mounts;
        struct init_plan plan;
        char *cwd;
        char *exec_path;
        int fds[LFD_COUNT];
        int ready_read, error_read, error_write, info_read;
        pid_t launcher;
        int container_pid;
        int userns_sync, userns_sync_child;
        int console_receiver; /* our end of the console pair, for console_to_caller */
        int preserve_fds;     /* --preserve-fds plus inherited LISTEN_FDS */
        int listen_fds;
        struct container_cgroup cgroup;
        struct floor_seccomp floor;
        struct seccomp_setup seccomp;
        int timeout; /* effective wall-clock limit in seconds, 0: none */
};

static void create_ctx_release(struct create_ctx *c)
{
        /* A container that did not get all the way is killed before bwrap,
         * whose death would otherwise orphan it. */
        if (c->container_pid > 0)
                kill(c->container_pid, SIGKILL);
        if (c->launcher > 0) {
                kill(c->launcher, SIGKILL);
                while (waitpid(c->launcher, NULL, 0) < 0 && errno == EINTR)
                        ;
        }
        /* After the launcher is reaped: cgroup.kill ends whatever is left. */
        container_cgroup_release(&c->cgroup);
        oci_config_free(c->config);
        free(c->config_text);
        operator_policy_release(&c->policy);
        bind_sources_release(&c->binds);
        free(c->bundle);
        free(c->rootfs);
        free(c->cwd);
        free(c->exec_path);
        if (c->rootfs_fd >= 0)
                close(c->rootfs_fd);
        ns_setup_release(&c->ns);
        strv_release(&c->bwrap);
        init_mount_list_release(&c->init_mounts);
        mount_table_release(&c->mounts);
        init_plan_release(&c->plan);
        floor_seccomp_release(&c->floor);
        seccomp_setup_release(&c->seccomp);
        for (int i = 0; i < LFD_COUNT; i++) {
                if (c->fds[i] >= 0)
                        close(c->fds[i]);
        }
        int others[] = { c->ready_read,  c->error_read,        c->error_write,     c->info_read,
                         c->userns_sync, c->userns_sync_child, c->console_receiver };
        for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
                if (others[i] >= 0)
                        close(others[i]);
        }
}

static void create_ctx_init(struct create_ctx *c)
{
        memset(c, 0, sizeof(*c));
        c->rootfs_fd = c->ready_read = c->error_read = c->error_write = c->info_read = -1;
        c->userns_sync = c->userns_sync_child = c->console_receiver = -1;
        for (int i = 0; i < LFD_COUNT; i++)
                c->fds[i] = -1;
        for (int t = 0; t < OCI_NS_COUNT; t++)
                c->ns.join_fds[t] = -1;
        container_cgroup_init(&c->cgroup);
        seccomp_setup_init(&c->seccomp);
}

static int resolve_bundle(const struct create_request *req, struct create_ctx *c,
                          struct sb_error *err)
{
        const char *bundle = req->bundle ? req->bundle : ".";
        char real[PATH_MAX];

        if (realpath(bundle, real) == NULL)
                return sb_fail(err, errno, "--bundle: \"%s\"", bundle);
        c->bundle = strdup(real);
        c->config = oci_config_load_bundle_text(c->bundle, &c->config_text, &c->config_len, err);
        if (c->config == NULL)
                return -1;
        if (c->config->process == NULL)
                return sb_fail(err, 0, "config.json: process: required to create a container");
        return 0;
}

static int open_rootfs(struct create_ctx *c, struct sb_error *err)
{
        _cleanup_free_ char *joined = NULL;
        const char *path = c->config->root.path;
        char real[PATH_MAX];

        if (path[0] != '/') {
                if (asprintf(&joined, "%s/%s", c->bundle, path) < 0)
                        return sb_fail(err, ENOMEM, "root.path");
                path = joined;
        }
        if (realpath(path, real) == NULL)
                return sb_fail(err, errno, "root.path: \"%s\"", c->config->root.path);
        c->rootfs = strdup(real);
        c->rootfs_fd = open(real, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (c->rootfs == NULL || c->rootfs_fd < 0)
                return sb_fail(err, errno, "root.path: open \"%s\"", real);
        return 0;
}

static bool covered_by_mount(const char *path, void *data)
{
        const struct create_ctx *c = data;
        return mount_table_find(&c->mounts, path) != NULL;
}

/* runc creates a missing cwd and refuses one that is not a directory. */
static int resolve_cwd(struct create_ctx *c, struct sb_error *err)
{
        _cleanup_free_ char *clean = NULL;
        _cleanup_close_ int fd = -1;
        struct stat st;

        if (rootfs_clean_path(c->config->process->cwd, &clean, err) < 0)
                return sb_error_prefix(err, "process.cwd");
        if (mount_table_find(&c->mounts, clean) != NULL) {
                /* Inside a mount the rootfs on disk says nothing; bwrap's
                 * --dir makes it after the mounts. */
                c->cwd = SB_STEAL_PTR(clean);
                return 0;
        }
        if (rootfs_resolve(c->rootfs_fd, clean, ROOTFS_CREATE_DIR, &c->cwd, &fd, err) < 0)
                return sb_error_prefix(err, "process.cwd: \"%s\"", c->config->process->cwd);
        if (fstat(fd, &st) < 0)
                return sb_fail(err, errno, "process.cwd: \"%s\"", c->config->process->cwd);
        if (!S_ISDIR(st.st_mode))
                return sb_fail(err, 0, "process.cwd: \"%s\": not a directory",
                               c->config->process->cwd);
        return 0;
}

static int make_memfd(const char *name, const void *data, size_t len, struct sb_error *err)
{
        _cleanup_close_ int fd = memfd_create(name, MFD_CLOEXEC);

        if (fd < 0)
                return sb_fail(err, errno, "memfd_create %s", name);
        if (sb_write_all(fd, data, len) < 0 || lseek(fd, 0, SEEK_SET) < 0)
                return sb_fail(err, errno, "write %s", name);
        return SB_STEAL_FD(fd);
}

static int build_bwrap_args(struct create_ctx *c, int preserve_fds, struct sb_error *err)
{
        struct strv *a = &c->bwrap;

        strv_add(a, "--bind");
        strv_add(a, c->rootfs);
        strv_add(a, "/");
        if (c->ns.new_pid) {
                /* The user process is pid 1 of its namespace, as with runc. */
                strv_add(a, "--unshare-pid");
                strv_add(a, "--as-pid-1");
        } else if (c->ns.join_fds[OCI_NS_PID] >= 0) {
                strv_add(a, "--pidns");
                strv_addf(a, "%d", launcher_fd_number(preserve_fds, LFD_PIDNS));
        }
        c->mounts.in_userns = c->ns.new_user || c->ns.join_fds[OCI_NS_USER] >= 0;
        if (mounts_translate(c->config, c->bundle, c->rootfs_fd, &c->binds,
                             launcher_fd_number(preserve_fds, LFD_COUNT), a, &c->init_mounts,
                             &c->mounts, err) < 0)
                return -1;
        if (resolve_cwd(c, err) < 0)
                return -1;
        strv_add(a, "--dir");
        strv_add(a, c->cwd);
        strv_add(a, "--chdir");
        strv_add(a, c->cwd);
        strv_add(a, "--info-fd");
        strv_addf(a, "%d", launcher_fd_number(preserve_fds, LFD_INFO));
        return a->failed ? sb_fail(err, ENOMEM, "bwrap arguments") : 0;
}

static int args_memfd(const struct strv *a, struct sb_error *err)
{
        size_t len = 0;
        for (size_t i = 0; i < a->n; i++)
                len += strlen(a->items[i]) + 1;
        _cleanup_free_ char *buf = malloc(len ? len : 1);
        if (buf == NULL)
                return sb_fail(err, ENOMEM, "bwrap arguments");
        char *p = buf;
        for (size_t i = 0; i < a->n; i++) {
                size_t n = strlen(a->items[i]) + 1;
                memcpy(p, a->items[i], n);
                p += n;
        }
        return make_memfd("sbrun-bwrap-args", buf, len, err);
}

static int count_listen_fds(void)
{
        const char *v = getenv("LISTEN_FDS");
        char *end = NULL;
        long n;

        if (v == NULL)
                return 0;
        n = strtol(v, &end, 10);
        return (end != v && *end == '\0' && n > 0 && n < 1000) ? (int)n : 0;
}

static int prepare_plan(struct create_ctx *c, int preserve_fds, int listen_fds,
                        const char *session_keyring, struct sb_error *err)
{
        struct plan_inputs in = {
                .exec_path = c->exec_path,
                .cwd = c->cwd,
                .mounts = &c->init_mounts,
                .preserve_fds = preserve_fds,
                .listen_fds = listen_fds,
                .ready_fd = launcher_fd_number(preserve_fds, LFD_READY),
                .fifo_fd = launcher_fd_number(preserve_fds, LFD_FIFO),
                .stderr_fd = launcher_fd_number(preserve_fds, LFD_STDERR),
                .console_fd = launcher_fd_number(preserve_fds, LFD_CONSOLE),
                .session_keyring = session_keyring,
        };
        _cleanup_free_ uint8_t *encoded = NULL;
        size_t len = 0;

        if (plan_build(c->config, &in, &c->plan, err) < 0)
                return -1;
        /* The floor first: the spec's filter is stacked on top of it. */
        if (floor_seccomp_to_plan(&c->floor, &c->plan, err) < 0)
                return -1;
        if (seccomp_setup_to_plan(&c->seccomp, launcher_fd_number(preserve_fds, LFD_SECCOMP),
                                  &c->plan, err) < 0)
                return -1;
        if (init_plan_encode(&c->plan, &encoded, &len, err) < 0)
                return -1;
        c->fds[LFD_PLAN] = make_memfd("sbrun-init-plan", encoded, len, err);
        return c->fds[LFD_PLAN] < 0 ? -1 : 0;
}

static void close_fd(int *fd)
{
        if (*fd >= 0)
                close(*fd);
        *fd = -1;
}

static int make_pipe(int *read_end, int *write_end, struct sb_error *err)
{
        int p[2];
        if (pipe2(p, O_CLOEXEC) < 0)
                return sb_fail(err, errno, "pipe");
        *read_end = p[0];
        *write_end = p[1];
        return 0;
}

static int open_console_channel(struct create_ctx *c, const struct create_request *req,
                                struct sb_error *err)
{
        if (!c->config->process->terminal) {
                /* Every launcher fd slot is filled; this one stays unused. */
                c->fds[LFD_CONSOLE] = open("/dev/null", O_RDONLY | O_CLOEXEC);
                return c->fds[LFD_CONSOLE] < 0 ? sb_fail(err, errno, "open /dev/null") : 0;
        }
        if (req->console_socket != NULL) {
                c->fds[LFD_CONSOLE] = console_socket_connect(req->console_socket, err);
                return c->fds[LFD_CONSOLE] < 0 ? -1 : 0;
        }
        return console_socket_pair(&c->console_receiver, &c->fds[LFD_CONSOLE], err);
}

static int open_channels(struct create_ctx *c, const struct create_request *req,
                         struct state_dir *sd, struct sb_error *err)
{
        if (open_console_channel(c, req, err) < 0)
                return -1;
        int pidns = c->ns.join_fds[OCI_NS_PID];
        c->fds[LFD_PIDNS] = pidns >= 0 ? fcntl(pidns, F_DUPFD_CLOEXEC, 3) :
                                         open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (c->fds[LFD_PIDNS] < 0)
                return sb_fail(err, errno, "pid namespace fd");
        c->fds[LFD_SECCOMP] = seccomp_setup_open_channel(&c->seccomp, err);
        if (c->fds[LFD_SECCOMP] < 0)
                return -1;
        if (mkfifoat(sd->dir_fd, EXEC_FIFO, 0600) < 0)
                return sb_fail(err, errno, "create %s/%s", sd->path, EXEC_FIFO);
        c->fds[LFD_FIFO] = openat(sd->dir_fd, EXEC_FIFO, O_PATH | O_CLOEXEC);
        if (c->fds[LFD_FIFO] < 0)
                return sb_fail(err, errno, "open %s/%s", sd->path, EXEC_FIFO);
        c->fds[LFD_INIT_IMAGE] = init_image_memfd(err);
        if (c->fds[LFD_INIT_IMAGE] < 0)
                return -1;
        /* The memfd must not be close-on-exec: it is executed after bwrap's exec. */
        c->fds[LFD_STDERR] = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
        if (c->fds[LFD_STDERR] < 0)
                return sb_fail(err, errno, "dup stderr");
        if (make_pipe(&c->ready_read, &c->fds[LFD_READY], err) < 0 ||
            make_pipe(&c->error_read, &c->error_write, err) < 0 ||
            make_pipe(&c->info_read, &c->fds[LFD_INFO], err) < 0)
                return -1;
        if (c->ns.new_user) {
                int sv[2];
                if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
                        return sb_fail(err, errno, "socketpair");
                c->userns_sync = sv[0];
                c->userns_sync_child = sv[1];
        }
        c->fds[LFD_ARGS] = args_memfd(&c->bwrap, err);
        return c->fds[LFD_ARGS] < 0 ? -1 : 0;
}

/* The host id that container id `id` maps to, or -1. */
static long long map_to_host(const struct oci_idmap *maps, size_t n, uint32_t id)
{
        for (size_t i = 0; i < n; i++) {
                if (id >= maps[i].container_id && id - maps[i].container_id < maps[i].size)
                        return (long long)maps[i].host_id + (id - maps[i].container_id);
        }
        return -1;
}

/* The init opens exec.fifo as the container's root, which in a new user
 * namespace is not the host's root. */
static int chown_fifo(struct create_ctx *c, struct state_dir *sd, struct sb_error *err)
{
        const struct oci_linux *l = c->config->linux_;
        long long uid, gid;

        if (!c->ns.new_user)
                return 0;
        uid = map_to_host(l->uid_mappings, l->n_uid_mappings, 0);
        gid = map_to_host(l->gid_mappings, l->n_gid_mappings, 0);
        if (uid < 0 || gid < 0)
                return sb_fail(err, 0, "linux.uidMappings: container uid and gid 0 must be mapped");
        if (fchownat(sd->dir_fd, EXEC_FIFO, (uid_t)uid, (gid_t)gid, AT_SYMLINK_NOFOLLOW) < 0)
                return sb_fail(err, errno, "chown %s/%s", sd->path, EXEC_FIFO);
        return 0;
}

static int write_id_map(pid_t pid, const char *file, const char *field,
                        const struct oci_idmap *maps, size_t n, struct sb_error *err)
{
        char path[64];
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        _cleanup_close_ int fd = -1;

        text = calloc(n, 3 * 11 + 3);
        if (text == NULL)
                return sb_fail(err, ENOMEM, "%s", field);
        for (size_t i = 0; i < n; i++)
                len += (size_t)sprintf(text + len, "%u %u %u\n", maps[i].container_id,
                                       maps[i].host_id, maps[i].size);
        snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
        fd = open(path, O_WRONLY | O_CLOEXEC);
        /* The kernel takes the whole map in one write, or none of it. */
        if (fd < 0 || write(fd, text, len) != (ssize_t)len)
                return sb_fail(err, errno, "%s: write %s", field, path);
        return 0;
}

/* Every range of uidMappings and gidMappings, written from outside: bwrap
 * alone could map only one id (fact 12). */
static int map_user_namespace(struct create_ctx *c, struct sb_error *err)
{
        const struct oci_linux *l = c->config->linux_;
        char byte = 0;

        if (!c->ns.new_user)
                return 0;
        close_fd(&c->userns_sync_child);
        if (read(c->userns_sync, &byte, 1) != 1 || byte != 'U')
                return 0; /* the launcher failed: wait_ready reports why */
        if (write_id_map(c->launcher, "uid_map", "linux.uidMappings", l->uid_mappings,
                         l->n_uid_mappings, err) < 0 ||
            write_id_map(c->launcher, "gid_map", "linux.gidMappings", l->gid_mappings,
                         l->n_gid_mappings, err) < 0)
                return -1;
        if (write(c->userns_sync, "M", 1) != 1)
                return sb_fail(err, errno, "user namespace: release the launcher");
        return 0;
}

static char *read_all_nonblocking(int fd)
{
        char *text = NULL;
        size_t len = 0;
        struct sb_error ignored = { 0 };

        fcntl(fd, F_SETFL, O_NONBLOCK);
        if (sb_read_fd(fd, 64 * 1024, &text, &len, &ignored) < 0) {
                sb_error_clear(&ignored);
                return NULL;
        }
        while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
                text[--len] = '\0';
        return text;
}

/* The launcher, bwrap and init report through the ready pipe: 'R' when the
 * container waits on exec.fifo, 'E<message>' on failure, nothing if bwrap
 * died (its own message is then on the error pipe). */
static int wait_ready(struct create_ctx *c, struct sb_error *err)
{
        char first;
        ssize_t n;

        do
                n = read(c->ready_read, &first, 1);
        while (n < 0 && errno == EINTR);
        if (n == 1 && first == 'R')
                return 0;
        if (n == 1 && first == 'E') {
                _cleanup_free_ char *msg = NULL;
                sb_read_fd(c->ready_read, 64 * 1024, &msg, NULL, err);
                return sb_fail(err, 0, "%s", msg ? msg : "container setup failed");
        }
        int status = 0;
        while (waitpid(c->launcher, &status, 0) < 0 && errno == EINTR)
                ;
        c->launcher = 0;
        _cleanup_free_ char *bwrap_msg = read_all_nonblocking(c->error_read);
        if (WIFEXITED(status))
                return sb_fail(err, 0, "bwrap failed (exit status %d): %s", WEXITSTATUS(status),
                               bwrap_msg && *bwrap_msg ? bwrap_msg : "no message");
        return sb_fail(err, 0, "bwrap was killed by signal %d", WTERMSIG(status));
}

static int read_child_pid(struct create_ctx *c, struct sb_error *err)
{
        _cleanup_free_ char *info = read_all_nonblocking(c->info_read);
        const char *key = info ? strstr(info, "\"child-pid\"") : NULL;

        if (key == NULL)
                return sb_fail(err, 0, "bwrap did not report the container pid");
        key = strchr(key, ':');
        c->container_pid = key ? atoi(key + 1) : 0;
        if (c->container_pid <= 0)
                return sb_fail(err, 0, "bwrap reported an invalid container pid");
        return 0;
}

static int spawn(struct create_ctx *c, struct sb_error *err)
{
        struct strv argv = { 0 };
        struct launcher_config lc = {
                .error_pipe = c->error_write,
                .preserve_fds = c->preserve_fds,
                .userns_sync = c->userns_sync_child,
                .cgroup_fd = container_cgroup_fd(&c->cgroup),
                .hostname = c->config->hostname,
                .domainname = c->config->domainname,
                .sysctl = c->config->linux_ ? c->config->linux_->sysctl : NULL,
                .n_sysctl = c->config->linux_ ? c->config->linux_->n_sysctl : 0,
                .rlimits = c->config->process->rlimits,
                .n_rlimits = c->config->process->n_rlimits,
                .has_oom_score_adj = c->config->process->has_oom_score_adj,
                .oom_score_adj = c->config->process->oom_score_adj,
                .extra_fds = c->binds.passed,
                .n_extra_fds = c->binds.n_passed,
        };

        for (int i = 0; i < LFD_COUNT; i++)
                lc.fds[i] = c->fds[i];
        for (int t = 0; t < OCI_NS_COUNT; t++) {
                lc.ns_fds[t] = c->ns.join_fds[t];
                lc.unshare[t] = c->ns.unshare[t];
        }
        lc.unshare[OCI_NS_USER] = c->ns.new_user;
        if (lc.hostname && !*lc.hostname)
                lc.hostname = NULL;
        if (lc.domainname && !*lc.domainname)
                lc.domainname = NULL;
        strv_add(&argv, SBRUN_BWRAP_PATH);
        strv_add(&argv, "--args");
        strv_addf(&argv, "%d", launcher_fd_number(c->preserve_fds, LFD_ARGS));
        strv_add(&argv, "--");
        strv_addf(&argv, "/proc/self/fd/%d", launcher_fd_number(c->preserve_fds, LFD_INIT_IMAGE));
        strv_addf(&argv, "%d", launcher_fd_number(c->preserve_fds, LFD_PLAN));
        if (argv.failed) {
                strv_release(&argv);
                return sb_fail(err, ENOMEM, "bwrap arguments");
        }
        lc.bwrap_argv = argv.items;
        if (sb_log_debug_enabled()) {
                for (size_t i = 0; i < c->bwrap.n; i++)
                        sb_debug("bwrap arg: %s", c->bwrap.items[i]);
        }
        c->launcher = launcher_spawn(&lc, err);
        strv_release(&argv);
        if (c->launcher < 0) {
                c->launcher = 0;
                return -1;
        }
        /* Only the launcher's side may hold the write ends, or no EOF comes. */
        close_fd(&c->fds[LFD_READY]);
        close_fd(&c->fds[LFD_INFO]);
        close_fd(&c->error_write);
        return 0;
}

static char *now_rfc3339(void)
{
        struct timespec ts;
        struct tm tm;
        char base[32];
        char *out = NULL;

        clock_gettime(CLOCK_REALTIME, &ts);
        gmtime_r(&ts.tv_sec, &tm);
        strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
        if (asprintf(&out, "%s.%09ldZ", base, ts.tv_nsec) < 0)
                return NULL;
        return out;
}

/* prestart (deprecated, still used) and createRuntime in the runtime's
 * namespaces, then createContainer in the container's: all once the
 * container exists, before create returns; a failure fails create. */
static int run_create_hooks(struct create_ctx *c, const struct oci_state *state,
                            struct sb_error *err)
{
        const struct oci_hooks *hooks = &c->config->hooks;

        if (hooks_run(hooks, HOOK_PRESTART, state, NULL, NULL, err) < 0 ||
            hooks_run(hooks, HOOK_CREATE_RUNTIME, state, NULL, NULL, err) < 0 ||
            hooks_run(hooks, HOOK_CREATE_CONTAINER, state, ns_enter_pid, &c->container_pid, err) <
                    0)
                return -1;
        return 0;
}

static int record_state(struct create_ctx *c, struct state_dir *sd,
                        const struct create_request *req, struct sb_error *err)
{
        struct oci_state state = {
                .oci_version = (char *)SBRUN_OCI_VERSION,
                .id = sd->id,
                .status = (char *)"created",
                .pid = c->container_pid,
                .bundle = c->bundle,
                .rootfs = c->rootfs,
                .owner = (char *)"",
                .cgroup_path = c->cgroup.cg.path,
        };
        _cleanup_free_ char *created = now_rfc3339();
        _cleanup_free_ struct oci_kv *annotations = NULL;

        state.created = created;
        if (container_cgroup_annotations(&c->cgroup, c->config->annotations,
                                         c->config->n_annotations, &annotations,
                                         &state.n_annotations, err) < 0)
                return -1;
        state.annotations = annotations;
        if (proc_stat_identity(c->container_pid, &state.pid_start_time, NULL) < 0)
                return sb_fail(err, errno, "container process %d vanished", c->container_pid);
        if (state_dir_save(sd, &state, err) < 0)
                return -1;
        /* start and delete run the later hooks from this copy, and exec
         * takes the floor from it and the policy: the bundle may change or
         * go while the container lives. */
        if (state_dir_save_config(sd, c->config_text, c->config_len, err) < 0 ||
            state_dir_save_policy(sd, &c->policy, err) < 0)
                return -1;
        if (run_create_hooks(c, &state, err) < 0)
                return -1;
        if (req->pid_file && pid_file_write(req->pid_file, c->container_pid, err) < 0)
                return -1;
        return 0;
}

static int check_request(const struct create_request *req, const struct oci_config *config,
                         struct sb_error *err)
{
        bool terminal = config->process->terminal;

        if (terminal && req->console_socket == NULL && !req->console_to_caller)
                return sb_fail(
                        err, 0,
                        "process.terminal: a terminal needs --console-socket (or `sbrun run` in the foreground)");
        if (!terminal && req->console_socket != NULL)
                return sb_fail(err, 0, "--console-socket: cannot be used without process.terminal");
        if (req->no_pivot)
                sb_warn("--no-pivot: ignored, bwrap always uses pivot_root (stricter)");
        return 0;
}

/* The floor is merged before anything exists: a refusal leaves nothing. */
static int apply_floor(const struct global_options *global, struct create_ctx *c,
                       struct sb_error *err)
{
        struct effective_options opts = {
                .policy = &c->policy,
                .state_root = global->root,
                .bind_paths = c->binds.paths,
                .bind_stats = c->binds.stats,
                .n_bind_paths = c->binds.n,
        };
        struct floor_report report = { 0 };
        int ret = effective_spec_apply(c->config, &opts, &report, &c->profile, err);

        floor_report_release(&report);
        return ret;
}

int container_create(const struct global_options *global, const struct create_request *req,
                     struct create_result *result, struct sb_error *err)
{
        _cleanup_state_dir_ struct state_dir sd = STATE_DIR_INIT;
        struct create_ctx c;
        int ret = -1;

        create_ctx_init(&c);
        result->cgroup_path = NULL;
        result->console_master = -1;
        if (container_id_validate(req->id, err) < 0)
                goto out;
        if (operator_policy_load(global->policy_path, &c.policy, err) < 0)
                goto out;
        if (resolve_bundle(req, &c, err) < 0 || check_request(req, c.config, err) < 0)
                goto out;
        if (bind_sources_open(c.config, c.bundle, &c.binds, err) < 0 ||
            apply_floor(global, &c, err) < 0)
                goto out;
        if (wall_clock_limit(&c.policy, c.config, req->timeout_seconds, &c.timeout, err) < 0)
                goto out;
        if (ns_setup_prepare(c.config, &c.ns, err) < 0 ||
            ns_check_identity(c.config, &c.ns, err) < 0)
                goto out;
        /* Socket activation: fds announced by LISTEN_FDS follow the
         * --preserve-fds ones and are passed on the same way (as crun). */
        c.listen_fds = count_listen_fds();
        c.preserve_fds = req->preserve_fds + c.listen_fds;
        if (open_rootfs(&c, err) < 0 || build_bwrap_args(&c, c.preserve_fds, err) < 0)
                goto out;
        if (exec_lookup(c.rootfs_fd, c.config->process->args[0], c.cwd, c.config->process->env,
                        covered_by_mount, &c, &c.exec_path, err) < 0)
                goto out;
        /* A bad profile fails here, before anything exists to undo. */
        if (seccomp_setup_prepare(c.config, global->root, &c.seccomp, err) < 0)
                goto out;
        /* Fails closed here on a host without cgroup v2 controllers. */
        if (container_cgroup_plan(&c.cgroup, global, &c.policy, c.config, req->id, err) < 0)
                goto out;
        /* After the checks a request can fail, so that a refused one leaves
         * no cache entry in the state root either. */
        if (floor_seccomp_prepare(c.profile, global->root, &c.floor, err) < 0)
                goto out;

        if (state_dir_create(global->root, req->id, &sd, err) < 0)
                goto out;
        if (container_cgroup_create(&c.cgroup, err) < 0)
                goto out;
        if (open_channels(&c, req, &sd, err) < 0 || chown_fifo(&c, &sd, err) < 0)
                goto out;
        if (prepare_plan(&c, c.preserve_fds, c.listen_fds, req->no_new_keyring ? NULL : req->id,
                         err) < 0)
                goto out;
        if (spawn(&c, err) < 0 || map_user_namespace(&c, err) < 0)
                goto out;
        if (wait_ready(&c, err) < 0)
                goto out;
        if (read_child_pid(&c, err) < 0)
                goto out;
        if (seccomp_setup_notify(&c.seccomp, c.config, req->id, c.container_pid, c.bundle, err) < 0)
                goto out;
        result->console_master = -1;
        if (c.console_receiver >= 0) {
                /* Sent before READY: it is already queued on the socket. */
                result->console_master = console_receive_master(c.console_receiver, err);
                if (result->console_master < 0)
                        goto out;
        }
        /* The container waits on exec.fifo now. Its outer bwrap goes, so the
         * process is reparented to the caller's subreaper (conmon, the
         * containerd shim, or `sbrun run`), which can wait for it. */
        kill(c.launcher, SIGKILL);
        while (waitpid(c.launcher, NULL, 0) < 0 && errno == EINTR)
                ;
        c.launcher = 0;
        /* Before the record: a watchdog that cannot start fails the create
         * (fail closed), and one started for a create that fails later
         * sees the container killed and exits. */
        if (c.timeout > 0 && watchdog_spawn(global->root, req->id, c.container_pid,
                                            c.cgroup.cg.path, c.timeout, err) < 0) {
                if (result->console_master >= 0)
                        close(result->console_master);
                goto out;
        }
        if (record_state(&c, &sd, req, err) < 0) {
                if (result->console_master >= 0)
                        close(result->console_master);
                goto out;
        }
        state_dir_keep(&sd);
        container_cgroup_keep(&c.cgroup);
        result->pid = c.container_pid;
        result->timeout_seconds = c.timeout;
        result->cgroup_path = c.cgroup.cg.path ? strdup(c.cgroup.cg.path) : NULL;
        c.container_pid = 0;
        ret = 0;
out:
        create_ctx_release(&c);
        return ret;
}
