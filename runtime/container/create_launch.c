#include "runtime/container/create_launch.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"
#include "common/log.h"
#include "oci/config.h"
#include "oci/json_read.h"
#include "runtime/cgroup/systemd_scope.h"
#include "runtime/container/console.h"
#include "runtime/container/create_ctx.h"
#include "runtime/container/process_wait.h"
#include "runtime/init/handshake.h"
#include "runtime/sandbox/bwrap_args.h"
#include "runtime/sandbox/id_map.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void close_fd(int *fd)
{
        if (*fd >= 0)
                close(*fd);
        *fd = -1;
}

/* Rootless with the systemd driver: the launcher waits until the user's
 * systemd moved it into the scope (systemd_scope_attach), so that bwrap and
 * the init are born there and the init's join is a move within it. */
static int attach_launcher(struct create_ctx *c, struct sb_error *err)
{
        const char attached = HANDSHAKE_ATTACHED;

        if (c->attach_write < 0)
                return 0;
        close_fd(&c->attach_read);
        if (systemd_scope_attach(c->cgroup.unit, c->launcher, err) < 0)
                return -1;
        if (write(c->attach_write, &attached, 1) != 1)
                return sb_fail(err, errno, "release the launcher");
        close_fd(&c->attach_write);
        return 0;
}

int create_spawn(struct create_ctx *c, struct sb_error *err)
{
        struct strv argv = { 0 };
        struct launcher_config lc = {
                .error_pipe = c->error_write,
                .stdout_fd = c->output_write[0],
                .preserve_fds = c->preserve_fds,
                .userns_sync = c->userns_sync_child,
                .attach_wait = c->attach_read,
                .attach_other = c->attach_write,
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
        /* sbrun-init makes it, right after it joined the cgroup, so that it is
         * rooted there (create_plan.c). */
        lc.unshare[OCI_NS_CGROUP] = false;
        if (lc.hostname && !*lc.hostname)
                lc.hostname = NULL;
        if (lc.domainname && !*lc.domainname)
                lc.domainname = NULL;
        if (bwrap_command(c->preserve_fds, &argv, err) < 0) {
                strv_release(&argv);
                return -1;
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
        close_fd(&c->output_write[0]);
        close_fd(&c->output_write[1]);
        return attach_launcher(c, err);
}

/* Every range of uidMappings and gidMappings is written from outside, by
 * us: bwrap's own --unshare-user maps only a single id (the caller's), so
 * the launcher unshares the user namespace and waits while we map it. */
int create_map_user_namespace(struct create_ctx *c, struct sb_error *err)
{
        const struct oci_linux *l = c->config->linux_;
        const char mapped = HANDSHAKE_USERNS_MAPPED;
        char byte = 0;

        if (!c->ns.new_user)
                return 0;
        close_fd(&c->userns_sync_child);
        if (read(c->userns_sync, &byte, 1) != 1 || byte != HANDSHAKE_USERNS_UNSHARED)
                return 0; /* the launcher failed: create_wait_ready reports why */
        if (id_map_user_namespace(c->launcher, l, err) < 0)
                return -1;
        if (write(c->userns_sync, &mapped, 1) != 1)
                return sb_fail(err, errno, "user namespace: release the launcher");
        return 0;
}

static char *read_all_nonblocking(int fd, size_t *out_len)
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
        if (out_len)
                *out_len = len;
        return text;
}

/* Wait until the ready pipe has something to say or EOF. Every wait has a
 * way out: the pipe's write end is also held by the outer bwrap, so a
 * launcher that died (killed by the OOM killer, say) is noticed by its
 * exit rather than by EOF, and a SIGINT or SIGTERM that `run` holds
 * pending ends the wait too (create_ctx_release then kills what exists). */
static int wait_ready_readable(struct create_ctx *c, struct sb_error *err)
{
        int status;
        int r = process_wait_readable(c->ready_read, c->launcher, &status);

        if (r == -2)
                return sb_fail(err, errno, "wait for the container's setup");
        if (r > 0)
                return sb_fail(err, EINTR, "container setup interrupted by signal %d (%s)", r,
                               strsignal(r));
        if (r == -1) {
                /* Whatever it wrote before it went is read below. */
                c->launcher_status = status;
                c->launcher = 0;
        }
        return 0;
}

/* A setup the kernel's OOM killer ended says so: the cgroup counts it. */
static int note_oom_kill(struct create_ctx *c, struct sb_error *err)
{
        struct sb_error ignored = { 0 };
        uint64_t kills = 0;

        if (c->cgroup.cg.dir_fd >= 0 && cgroup_oom_kills(&c->cgroup.cg, &kills, &ignored) == 0 &&
            kills > 0)
                sb_error_prefix(err,
                                "OOM: the kernel's OOM killer killed %" PRIu64
                                " process(es) of the container's setup at its memory limit "
                                "(linux.resources.memory.limit; memory.events in %s)",
                                kills, c->cgroup.cg.path);
        sb_error_clear(&ignored);
        return -1;
}

/* The launcher, bwrap and init report through the ready pipe:
 * HANDSHAKE_READY when the container waits on exec.fifo, HANDSHAKE_ERROR
 * and a message on failure, nothing if bwrap died (its own message is then
 * on the error pipe). */
int create_wait_ready(struct create_ctx *c, struct sb_error *err)
{
        char first;
        ssize_t n = 0;

        if (wait_ready_readable(c, err) < 0)
                return -1;
        if (c->launcher == 0) {
                int flags = fcntl(c->ready_read, F_GETFL);
                if (flags >= 0)
                        fcntl(c->ready_read, F_SETFL, flags | O_NONBLOCK);
        }
        do
                n = read(c->ready_read, &first, 1);
        while (n < 0 && errno == EINTR);
        if (n == 1 && first == HANDSHAKE_READY)
                return 0;
        if (n == 1 && first == HANDSHAKE_ERROR) {
                _cleanup_free_ char *msg = NULL;
                sb_read_fd(c->ready_read, 64 * 1024, &msg, NULL, err);
                sb_fail(err, 0, "%s", msg ? msg : "container setup failed");
                return note_oom_kill(c, err);
        }
        int status = c->launcher_status;
        if (c->launcher != 0) {
                while (waitpid(c->launcher, &status, 0) < 0 && errno == EINTR)
                        ;
                c->launcher = 0;
        }
        _cleanup_free_ char *bwrap_msg = read_all_nonblocking(c->error_read, NULL);
        if (WIFEXITED(status))
                sb_fail(err, 0, "bwrap failed (exit status %d): %s", WEXITSTATUS(status),
                        bwrap_msg && *bwrap_msg ? bwrap_msg : "no message");
        else
                sb_fail(err, 0, "bwrap was killed by signal %d", WTERMSIG(status));
        return note_oom_kill(c, err);
}

/* bwrap writes {"child-pid": N, "<type>-namespace": ID, ...} and closes the
 * fd before it lets its child go on, so the whole document is there once
 * the init, a descendant of that child, has said HANDSHAKE_READY. */
int create_read_child_pid(struct create_ctx *c, struct sb_error *err)
{
        size_t len = 0;
        _cleanup_free_ char *info = read_all_nonblocking(c->info_read, &len);
        struct sb_error ignored = { 0 };
        _cleanup_json_tree_ json_val doc = info ? json_parse(info, len, &ignored) : NULL;
        struct jpath path;
        int64_t pid = 0;
        int found;

        sb_error_clear(&ignored);
        jpath_init(&path);
        found = doc ? json_get_int(doc, "child-pid", &path, 1, INT_MAX, &pid, &ignored) : 0;
        sb_error_clear(&ignored);
        if (found == 0)
                return sb_fail(err, 0, "bwrap did not report the container pid");
        if (found < 0)
                return sb_fail(err, 0, "bwrap reported an invalid container pid");
        c->container_pid = (int)pid;
        return 0;
}

int create_receive_console(struct create_ctx *c, int *master, struct sb_error *err)
{
        *master = -1;
        if (c->console_receiver < 0)
                return 0;
        /* Sent before HANDSHAKE_READY: it is already queued on the socket. */
        *master = console_receive_master(c->console_receiver, err);
        return *master < 0 ? -1 : 0;
}

void create_release_launcher(struct create_ctx *c)
{
        kill(c->launcher, SIGKILL);
        while (waitpid(c->launcher, NULL, 0) < 0 && errno == EINTR)
                ;
        c->launcher = 0;
}
