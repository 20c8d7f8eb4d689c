#include "runtime/container/create_channels.h"
#include "runtime/container/notify_socket.h"

#include "common/error.h"
#include "oci/config.h"
#include "runtime/container/console.h"
#include "runtime/container/create_container.h"
#include "runtime/container/create_ctx.h"
#include "runtime/container/state_dir.h"
#include "runtime/sandbox/bwrap_args.h"
#include "runtime/sandbox/id_map.h"
#include "runtime/sandbox/init_image.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

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

int create_open_channels(struct create_ctx *c, const struct create_request *req,
                         struct state_dir *sd, struct sb_error *err)
{
        if (open_console_channel(c, req, err) < 0)
                return -1;
        int pidns = c->ns.join_fds[OCI_NS_PID];
        c->fds[LFD_PIDNS] = pidns >= 0 ? fcntl(pidns, F_DUPFD_CLOEXEC, 3) :
                                         open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (c->fds[LFD_PIDNS] < 0)
                return sb_fail(err, errno, "pid namespace fd");
        /* Opened here, as host root in the host's cgroup namespace: the
         * kernel checks a write to cgroup.procs against the opener's
         * credentials and namespace, so the init can join from inside its
         * user and cgroup namespaces. */
        int cgroup_dir = container_cgroup_fd(&c->cgroup);
        c->fds[LFD_CGROUP] = cgroup_dir >= 0 ?
                                     openat(cgroup_dir, "cgroup.procs", O_WRONLY | O_CLOEXEC) :
                                     open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (c->fds[LFD_CGROUP] < 0)
                return sb_fail(err, errno, "cgroup %s: open cgroup.procs", c->cgroup.cg.path);
        c->fds[LFD_ROOTFS] = fcntl(c->rootfs_fd, F_DUPFD_CLOEXEC, 3);
        if (c->fds[LFD_ROOTFS] < 0)
                return sb_fail(err, errno, "root.path: dup its fd");
        c->fds[LFD_NOTIFY] = c->notify ? notify_socket_make_dir(sd, err) :
                                         open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (c->fds[LFD_NOTIFY] < 0)
                return c->notify ? -1 : sb_fail(err, errno, "open /dev/null");
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
        /* The container's stderr: ours, or the pipe of its output limit. */
        c->fds[LFD_STDERR] = fcntl(c->output_write[1] >= 0 ? c->output_write[1] : STDERR_FILENO,
                                   F_DUPFD_CLOEXEC, 3);
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
        if (c->cgroup.attach_by_systemd && make_pipe(&c->attach_read, &c->attach_write, err) < 0)
                return -1;
        c->fds[LFD_ARGS] = bwrap_args_memfd(&c->bwrap, err);
        return c->fds[LFD_ARGS] < 0 ? -1 : 0;
}

/* The init opens exec.fifo as the container's root, which in a new user
 * namespace is not the host's root. */
int create_chown_fifo(struct create_ctx *c, struct state_dir *sd, struct sb_error *err)
{
        const struct oci_linux *l = c->config->linux_;
        long long uid, gid;

        if (!c->ns.new_user)
                return 0;
        uid = id_map_to_host(l->uid_mappings, l->n_uid_mappings, 0);
        gid = id_map_to_host(l->gid_mappings, l->n_gid_mappings, 0);
        if (uid < 0 || gid < 0)
                return sb_fail(err, 0, "linux.uidMappings: container uid and gid 0 must be mapped");
        if (fchownat(sd->dir_fd, EXEC_FIFO, (uid_t)uid, (gid_t)gid, AT_SYMLINK_NOFOLLOW) == 0)
                return 0;
        /* A rootless caller cannot give the fifo to a subordinate id its
         * container root maps to. It opens the fifo for writing to others
         * instead: the state directory (0700, the caller's) keeps everyone
         * else from its path, and the init reaches it through its fd. */
        if (errno == EPERM && geteuid() != 0 && fchmodat(sd->dir_fd, EXEC_FIFO, 0622, 0) == 0)
                return 0;
        return sb_fail(err, errno, "chown %s/%s", sd->path, EXEC_FIFO);
}
