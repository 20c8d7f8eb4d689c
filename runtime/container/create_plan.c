#include "runtime/container/create_plan.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"
#include "runtime/container/create_ctx.h"
#include "runtime/sandbox/plan_build.h"

#include <stdint.h>
#include <stdlib.h>

int create_plan_prepare(struct create_ctx *c, const char *session_keyring, struct sb_error *err)
{
        const int preserve_fds = c->preserve_fds;
        struct plan_inputs in = {
                .cwd = c->cwd,
                .mounts = &c->init_mounts,
                .preserve_fds = preserve_fds,
                .listen_fds = c->listen_fds,
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
        if (container_cgroup_fd(&c->cgroup) >= 0)
                c->plan.cgroup_procs_fd = launcher_fd_number(preserve_fds, LFD_CGROUP);
        c->plan.unshare_cgroupns = c->ns.unshare[OCI_NS_CGROUP];
        /* The floor first: the spec's filter is stacked on top of it. */
        if (floor_seccomp_to_plan(&c->floor, &c->plan, err) < 0)
                return -1;
        if (seccomp_setup_to_plan(&c->seccomp, launcher_fd_number(preserve_fds, LFD_SECCOMP),
                                  &c->plan, err) < 0)
                return -1;
        if (init_plan_encode(&c->plan, &encoded, &len, err) < 0)
                return -1;
        c->fds[LFD_PLAN] = sb_memfd_with("sbrun-init-plan", encoded, len, err);
        return c->fds[LFD_PLAN] < 0 ? -1 : 0;
}
