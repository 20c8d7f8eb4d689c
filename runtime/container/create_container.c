#include "runtime/container/create_container.h"

#include "common/error.h"
#include "common/fault.h"
#include "common/log.h"
#include "oci/config.h"
#include "runtime/cgroup/container_cgroup.h"
#include "runtime/checkpoint/restore_spawn.h"
#include "runtime/audit/audit_log.h"
#include "common/cleanup.h"
#include "runtime/container/container_id.h"
#include "runtime/container/create_audit.h"
#include "runtime/container/create_channels.h"
#include "runtime/container/create_ctx.h"
#include "runtime/container/create_launch.h"
#include "runtime/container/create_plan.h"
#include "runtime/container/create_record.h"
#include "runtime/container/create_bundle.h"
#include "runtime/container/global_options.h"
#include "runtime/container/notify_socket.h"
#include "runtime/container/pidfd_socket.h"
#include "runtime/host/floor_host.h"
#include "runtime/host/landlock_host.h"
#include "runtime/host/lsm_host.h"
#include "runtime/host/net_devices.h"
#include "runtime/container/state_dir.h"
#include "runtime/container/watchdog.h"
#include "runtime/sandbox/bind_sources.h"
#include "runtime/sandbox/bwrap_binary.h"
#include "runtime/sandbox/namespaces.h"
#include "runtime/seccomp/floor_seccomp.h"
#include "runtime/seccomp/seccomp_setup.h"
#include "spec/effective.h"
#include "spec/floor_decide.h"
#include "spec/floor_lsm.h"
#include "spec/floor_runtime.h"
#include "spec/floor_volumes.h"
#include "spec/operator_policy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The whole decision (spec/floor_decide.h) before anything exists, so
 * that a refusal leaves nothing: the floor merged in, the root and every
 * bind source judged by what they are, the wall-clock limit (`run
 * --timeout` in requested), the LSM labels this host offers (an unloaded
 * profile fails here) and Landlock as this kernel offers it. */
static int decide(const struct global_options *global, struct create_ctx *c,
                  const struct create_request *req, struct sb_error *err)
{
        struct floor_host_facts facts;
        struct lsm_host_facts lsm = { 0 };
        struct landlock_host landlock;
        _cleanup_free_ char *audit_dir = audit_settings_dir(&c->policy.audit, global);
        struct floor_tree_paths trees;
        struct floor_decision d;

        floor_host_tree_paths(global, audit_dir, &trees);
        landlock_host_probe(&landlock);
        int ret = floor_host_gather(c->config, &c->binds, c->rootfs_fd, &trees, &facts, err);
        struct effective_options opts = {
                .policy = &c->policy,
                .state_root = global->root,
                .audit_dir = audit_dir,
                .host = &facts.host,
                .bind_paths = c->binds.paths,
                .bind_stats = c->binds.stats,
                .n_bind_paths = c->binds.n,
        };
        struct stat root;
        /* W^X compares the root's host path and every bind's. */
        const struct landlock_sources sources = {
                .paths = c->binds.paths,
                .stats = c->binds.stats,
                .n = c->binds.n,
                .root_path = c->rootfs,
                .root_stat = &root,
                .ids = facts.host.binds,
                .root_id = facts.host.root,
        };
        const struct floor_decide_inputs in = { .effective = &opts,
                                                .timeout_requested = req->timeout_seconds,
                                                .output = &req->output,
                                                .lsm = &lsm,
                                                .landlock = &landlock,
                                                .sources = &sources };

        if (ret == 0 && fstat(c->rootfs_fd, &root) < 0)
                ret = sb_fail(err, errno, "root.path: %s", c->rootfs);
        if (ret == 0)
                ret = lsm_host_probe(&lsm, err);
        if (ret == 0) {
                ret = floor_decide(c->config, &in, &c->report, &d, err);
                c->profile = d.profile;
        }
        if (ret == 0) {
                c->timeout = d.timeout;
                c->output = d.output;
                c->landlock = d.landlock;
        }
        lsm_host_facts_release(&lsm);
        floor_host_release(&facts);
        return ret;
}

/* The output limits apply where sbrun forwards the output: a foreground
 * `run` (without a terminal, whose pty the proxy caps). Elsewhere the
 * container's stdio is the caller's (an engine's, whose log driver caps
 * it), as always. */
static int output_pipes(struct create_ctx *c, const struct create_request *req,
                        struct sb_error *err)
{
        const int64_t limit[2] = { c->output.out, c->output.err };

        if (!req->forward_output) {
                c->output.out = c->output.err = 0;
                return 0;
        }
        if (c->config->process->terminal) {
                /* One pty carries both streams, read as stdout: the
                 * smaller limit is its limit. */
                if (c->output.err > 0 && (c->output.out == 0 || c->output.err < c->output.out))
                        c->output.out = c->output.err;
                c->output.err = 0;
                return 0;
        }
        for (int s = 0; s < 2; s++) {
                int p[2];
                if (limit[s] == 0)
                        continue;
                if (pipe2(p, O_CLOEXEC) < 0)
                        return sb_fail(err, errno, "output limit: pipe");
                c->output_read[s] = p[0];
                c->output_write[s] = p[1];
        }
        return 0;
}

/* create's own: bwrap and the init, which waits on exec.fifo for start. */
static int launch(struct create_ctx *cc, const struct create_request *req, struct state_dir *sd,
                  struct create_result *result, struct sb_error *err)
{
        if (create_open_channels(cc, req, sd, err) < 0)
                return -1;
        SB_FAULT_POINT("create.after-exec-fifo");
        if (create_chown_fifo(cc, sd, err) < 0)
                return -1;
        if (create_plan_prepare(cc, req->no_new_keyring ? NULL : req->id, err) < 0)
                return -1;
        if (create_spawn(cc, err) < 0)
                return -1;
        SB_FAULT_POINT("create.after-launcher-fork");
        if (create_map_user_namespace(cc, err) < 0)
                return -1;
        if (create_wait_ready(cc, err) < 0)
                return -1;
        container_cgroup_joined(&cc->cgroup);
        SB_FAULT_POINT("create.after-ready");
        if (create_read_child_pid(cc, err) < 0)
                return -1;
        /* Before the create hooks and the process: both see the devices. */
        if (net_devices_move_in(cc->config->linux_, cc->container_pid, &cc->net, err) < 0)
                return -1;
        if (seccomp_setup_notify(&cc->seccomp, cc->config, req->id, cc->container_pid, cc->bundle,
                                 err) < 0)
                return -1;
        /* While bwrap holds it unreaped: the pid is the process's. */
        if (cc->pidfd_sock >= 0) {
                int sock = cc->pidfd_sock;
                cc->pidfd_sock = -1;
                if (pidfd_socket_send(sock, cc->container_pid, PIDFD_KIND_INIT, err) < 0)
                        return -1;
        }
        if (create_receive_console(cc, &result->console_master, err) < 0)
                return -1;
        SB_FAULT_POINT("create.after-bwrap-up");
        if (create_record_pending(cc, sd, err) < 0)
                return -1;
        SB_FAULT_POINT("create.after-pid-record");
        /* The container waits on exec.fifo now. Its outer bwrap goes, so the
         * process is reparented to the caller's subreaper (conmon, the
         * containerd shim, or `sbrun run`), which can wait for it. */
        create_release_launcher(cc);
        SB_FAULT_POINT("create.after-launcher-release");
        return 0;
}

/* restore's: CRIU's processes in place of bwrap's, checked, already
 * running (runtime/checkpoint/restore_spawn.h). */
static int restore(struct create_ctx *cc, const struct create_request *req, struct state_dir *sd,
                   struct sb_error *err)
{
        if (restore_spawn(cc, req->restore, sd->path, err) < 0)
                return -1;
        cc->restored = true;
        return create_record_pending(cc, sd, err);
}

/* Every step in the order it happens. Until the state directory exists a
 * failure leaves nothing behind; after it, create_ctx_release undoes all. */
int container_create(const struct global_options *global, const struct create_request *req,
                     struct create_result *result, struct sb_error *err)
{
        _cleanup_state_dir_ struct state_dir sd = STATE_DIR_INIT;
        struct create_ctx c;
        int ret = -1;

        create_ctx_init(&c);
        c.global = global;
        result->cgroup_path = NULL;
        result->console_master = -1;
        result->output_read[0] = result->output_read[1] = -1;
        result->output.out = result->output.err = 0;
        if (container_id_validate(req->id, err) < 0)
                goto out;
        /* The program every container is made by: a missing or replaceable
         * one fails before anything exists. */
        if (bwrap_binary_check(sbrun_bwrap_path, global->host_root, err) < 0)
                goto out;
        if (operator_policy_load(global->policy_path, global->host_root, &c.policy, err) < 0)
                goto out;
        c.policy_loaded = true;
        c.profile = c.policy.profile;
        if (create_load_bundle(&c, req->bundle, err) < 0)
                goto out;
        if (check_request(req, c.config, err) < 0)
                goto out;
        /* The caller's socket stays outside; the process gets the proxy's. */
        const char *notify_host = notify_socket_host();
        if (notify_host != NULL) {
                if (notify_socket_check(notify_host, err) < 0 ||
                    notify_socket_set_env(c.config->process, err) < 0)
                        goto out;
                c.notify = true;
        }
        if (req->pidfd_socket != NULL &&
            (c.pidfd_sock = pidfd_socket_connect(req->pidfd_socket, err)) < 0)
                goto out;
        if (bind_sources_open(c.config, c.bundle, &c.binds, err) < 0)
                goto out;
        /* The root is a source like the binds: opened once, judged by what
         * it is, and bound through that fd. */
        if (create_open_rootfs(&c, err) < 0)
                goto out;
        if (decide(global, &c, req, err) < 0)
                goto out;
        if (output_pipes(&c, req, err) < 0)
                goto out;
        if (ns_setup_prepare(c.config, &c.ns, err) < 0)
                goto out;
        if (ns_check_identity(c.config, &c.ns, err) < 0)
                goto out;
        /* Socket activation: fds announced by LISTEN_FDS follow the
         * --preserve-fds ones and are passed on the same way (as crun). */
        c.listen_fds = count_listen_fds();
        c.preserve_fds = req->preserve_fds + c.listen_fds;
        if (create_build_bwrap_args(&c, err) < 0)
                goto out;
        /* A bad profile fails here, before anything exists to undo. */
        if (seccomp_setup_prepare(c.config, global->root, &c.seccomp, err) < 0)
                goto out;
        /* Fails closed here on a host without cgroup v2 controllers. */
        if (container_cgroup_plan(&c.cgroup, global->systemd_cgroup, &c.policy, c.config, req->id,
                                  err) < 0)
                goto out;
        /* After the checks a request can fail, so that a refused one leaves
         * no cache entry in the state root either. */
        if (floor_seccomp_prepare(c.profile,
                                  floor_locks_file_attrs(&c.policy, policy_profile_get(c.profile)),
                                  c.notify, global->root, &c.floor, err) < 0)
                goto out;

        /* The devices linux.netDevices moves are there to be moved. */
        if (net_devices_check(c.config->linux_, global->rootless, err) < 0)
                goto out;

        if (state_dir_create(global->root, req->id, &sd, err) < 0)
                goto out;
        SB_FAULT_POINT("create.after-state-dir");
        if (create_record_pending(&c, &sd, err) < 0)
                goto out;
        SB_FAULT_POINT("create.after-pending-record");
        if (container_cgroup_create(&c.cgroup, err) < 0)
                goto out;
        SB_FAULT_POINT("create.after-cgroup");
        if (req->restore != NULL ? restore(&c, req, &sd, err) < 0 :
                                   launch(&c, req, &sd, result, err) < 0)
                goto out;
        /* Before the record: a watchdog that cannot start fails the create
         * (fail closed), and one started for a create that fails later
         * sees the container killed and exits. */
        if (c.timeout > 0 &&
            watchdog_spawn(global, req->id, c.container_pid, c.cgroup.cg.path, c.timeout, err) < 0)
                goto out;
        SB_FAULT_POINT("create.before-state-record");
        if (create_record_state(&c, &sd, req, err) < 0)
                goto out;
        SB_FAULT_POINT("create.before-commit");
        /* Last: strict undoes a container its trail cannot record. */
        if (create_audit_created(&c, req, err) < 0) {
                c.policy_loaded = false; /* nothing more to record */
                goto out;
        }

        state_dir_keep(&sd);
        net_devices_keep(&c.net);
        container_cgroup_keep(&c.cgroup);
        result->pid = c.container_pid;
        result->timeout_seconds = c.timeout;
        result->output = c.output;
        for (int s = 0; s < 2; s++) {
                result->output_read[s] = c.output_read[s];
                c.output_read[s] = -1;
        }
        result->cgroup_path = c.cgroup.cg.path ? strdup(c.cgroup.cg.path) : NULL;
        c.container_pid = 0;
        ret = 0;
out:
        if (ret < 0 && c.policy_loaded)
                create_audit_failed(&c, req, err);
        if (ret < 0 && result->console_master >= 0) {
                close(result->console_master);
                result->console_master = -1;
        }
        create_ctx_release(&c);
        return ret;
}
