#include "runtime/container/create_plan.h"

#include "common/error.h"
#include "runtime/container/create_ctx.h"
#include "runtime/sandbox/plan_build.h"

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
        const struct plan_confinement conf = {
                .floor = &c->floor,
                .seccomp = &c->seccomp,
                .cgroup = container_cgroup_fd(&c->cgroup) >= 0,
                .landlock = &c->landlock,
        };

        if (plan_build(c->config, &in, &c->plan, err) < 0)
                return -1;
        c->plan.unshare_cgroupns = c->ns.unshare[OCI_NS_CGROUP];
        c->fds[LFD_PLAN] = plan_seal(&c->plan, &conf, "sbrun-init-plan", err);
        return c->fds[LFD_PLAN] < 0 ? -1 : 0;
}
