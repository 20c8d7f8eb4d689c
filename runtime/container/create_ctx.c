#include "runtime/container/create_ctx.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void create_ctx_init(struct create_ctx *c)
{
        memset(c, 0, sizeof(*c));
        c->rootfs_fd = c->ready_read = c->error_read = c->error_write = c->info_read = -1;
        c->userns_sync = c->userns_sync_child = c->console_receiver = -1;
        c->attach_read = c->attach_write = c->pidfd_sock = -1;
        c->output_read[0] = c->output_read[1] = c->output_write[0] = c->output_write[1] = -1;
        for (int i = 0; i < LFD_COUNT; i++)
                c->fds[i] = -1;
        for (int t = 0; t < OCI_NS_COUNT; t++)
                c->ns.join_fds[t] = -1;
        container_cgroup_init(&c->cgroup);
        c->net = (struct net_devices)NET_DEVICES_INIT;
        seccomp_setup_init(&c->seccomp);
}

void create_ctx_release(struct create_ctx *c)
{
        /* First, while its namespace is held: the network devices a failed
         * create moved into the container go back where they were. */
        net_devices_undo(&c->net);
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
        floor_report_release(&c->report);
        bind_sources_release(&c->binds);
        free(c->bundle);
        free(c->rootfs);
        free(c->cwd);
        free(c->created);
        if (c->rootfs_fd >= 0)
                close(c->rootfs_fd);
        ns_setup_release(&c->ns);
        strv_release(&c->bwrap);
        init_mount_list_release(&c->init_mounts);
        mount_table_release(&c->mounts);
        init_plan_release(&c->plan);
        floor_seccomp_release(&c->floor);
        landlock_rules_release(&c->landlock);
        seccomp_setup_release(&c->seccomp);
        for (int i = 0; i < LFD_COUNT; i++) {
                if (c->fds[i] >= 0)
                        close(c->fds[i]);
        }
        int others[] = { c->ready_read,       c->error_read,     c->error_write,
                         c->info_read,        c->userns_sync,    c->userns_sync_child,
                         c->console_receiver, c->attach_read,    c->attach_write,
                         c->output_read[0],   c->output_read[1], c->output_write[0],
                         c->output_write[1],  c->pidfd_sock };
        for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
                if (others[i] >= 0)
                        close(others[i]);
        }
}
