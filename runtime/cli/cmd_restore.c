/* `restore`: a container made again from a checkpoint's images, as runc's
 * restore: create's whole decision for the bundle's config under the
 * policy in force now, then CRIU's processes in place of a new one,
 * checked before they run (runtime/checkpoint/restore_spawn.h). In the
 * foreground sbrun waits for the process and deletes the container after,
 * as `run` does; --detach returns once it runs. */
#include "common/cleanup.h"
#include "common/error.h"
#include "common/log.h"
#include "runtime/checkpoint/restore_spawn.h"
#include "runtime/cli/checkpoint_options.h"
#include "runtime/cli/cli.h"
#include "runtime/cli/cli_options.h"
#include "runtime/cli/commands.h"
#include "runtime/container/create_container.h"
#include "runtime/container/delete_container.h"
#include "runtime/container/process_wait.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

struct restore_options {
        bool detach, no_subreaper, lazy_pages;
        const char *lsm_profile, *lsm_mount_context;
};

static int parse_options(int argc, char **argv, struct restore_options *o,
                         struct create_request *req, struct restore_request *r,
                         struct sb_error *err)
{
        const struct cli_option options[] = {
                { "bundle", 'b', CLI_STRING, .to.string = &req->bundle, .arg = "DIR",
                  .help = "the bundle: the directory holding config.json (default: the "
                          "current directory)" },
                { "image-path", 0, CLI_STRING, .to.string = &r->image_path, .arg = "DIR",
                  .help = "the checkpoint's images (default ./checkpoint)" },
                { "work-path", 0, CLI_STRING, .to.string = &r->work_path, .arg = "DIR",
                  .help = "write CRIU's log there (default: the image path)" },
                { "pid-file", 0, CLI_STRING, .to.string = &req->pid_file, .arg = "FILE",
                  .help = "write the restored process's host pid to FILE" },
                { "console-socket", 0, CLI_STRING, .to.string = &req->console_socket,
                  .arg = "SOCKET",
                  .help = "refused: sbrun restores no container with a "
                          "terminal" },
                { "detach", 'd', CLI_FLAG, .to.flag = &o->detach,
                  .help = "return once the container runs, without waiting for it" },
                { "no-subreaper", 0, CLI_FLAG, .to.flag = &o->no_subreaper,
                  .help = "accepted, ignored: a foreground restore is always the container's "
                          "subreaper" },
                { "no-pivot", 0, CLI_FLAG, .to.flag = &req->no_pivot,
                  .help = "accepted, ignored with a warning, as for create" },
                { "tcp-established", 0, CLI_FLAG, .to.flag = &r->tcp_established,
                  .help = "restore established TCP connections" },
                { "ext-unix-sk", 0, CLI_FLAG, .to.flag = &r->ext_unix_sk,
                  .help = "allow UNIX sockets connected outside the container" },
                { "shell-job", 0, CLI_FLAG, .to.flag = &r->shell_job,
                  .help = "allow a process of a shell's session and terminal" },
                { "file-locks", 0, CLI_FLAG, .to.flag = &r->file_locks,
                  .help = "restore file locks" },
                { "manage-cgroups-mode", 0, CLI_STRING, .to.string = &r->manage_cgroups_mode,
                  .arg = "MODE",
                  .help = "CRIU's cgroup mode: soft (default), full, strict or "
                          "ignore" },
                { "empty-ns", 0, CLI_STRING, .to.string = &r->empty_ns, .arg = "NS",
                  .help = "network: the namespace is not restored (its setup is the caller's)" },
                { "auto-dedup", 0, CLI_FLAG, .to.flag = &r->auto_dedup,
                  .help = "remove from the images what is restored" },
                { "lazy-pages", 0, CLI_FLAG, .to.flag = &o->lazy_pages,
                  .help = "refused: sbrun runs no lazy-pages daemon" },
                { "lsm-profile", 0, CLI_STRING, .to.string = &o->lsm_profile, .arg = "PROFILE",
                  .help = "refused: the config's process.apparmorProfile decides" },
                { "lsm-mount-context", 0, CLI_STRING, .to.string = &o->lsm_mount_context,
                  .arg = "CONTEXT", .help = "refused: the config's linux.mountLabel decides" },
                { NULL },
        };
        const struct cli_command cmd = {
                .name = "restore",
                .usage = "usage: sbrun restore [options] ID\n\n"
                         "Restore container ID from a checkpoint's images, under the floor of\n"
                         "the policy in force now: a checkpoint whose confinement differs from\n"
                         "what the floor decides for the bundle's config is refused.\n",
                .options = options,
        };
        int next;

        /* containerd's runc shim (go-runc) spells it with one dash, as
         * runc's parser takes it. */
        for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
                if (strcmp(argv[i], "-no-subreaper") == 0)
                        argv[i] = (char *)"--no-subreaper";
        int ret = cli_parse(&cmd, argc, argv, &next, err);
        if (ret != 0)
                return ret;
        if (cli_require_id("restore", argc, argv, next, &req->id, err) < 0)
                return -1;
        if (req->console_socket != NULL)
                return sb_fail(err, 0,
                               "restore: --console-socket: sbrun does not restore a container "
                               "with a terminal");
        return checkpoint_check_modes("restore", r->manage_cgroups_mode, r->empty_ns,
                                      o->lazy_pages || o->lsm_profile || o->lsm_mount_context,
                                      o->lazy_pages  ? "--lazy-pages" :
                                      o->lsm_profile ? "--lsm-profile" :
                                                       "--lsm-mount-context",
                                      err);
}

int cmd_restore(const struct global_options *global, int argc, char **argv, struct sb_error *err)
{
        struct restore_options o = { 0 };
        struct restore_request r = { .criu = global->criu };
        struct create_request req = { .restore = &r };
        struct create_result result;
        sigset_t set;

        int parsed = parse_options(argc, argv, &o, &req, &r, err);
        if (parsed != 0)
                return parsed < 0 ? 1 : 0;
        if (global->rootless)
                return sb_fail(err, 0,
                               "restore: a rootless caller cannot restore (CRIU needs "
                               "root here, as for runc)"),
                       1;
        if (!o.detach) {
                /* CRIU's restored tree is reparented to us when criu exits. */
                if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
                        return sb_fail(err, errno, "restore: become a subreaper"), 1;
                process_wait_block_signals(&set);
        }
        if (container_create(global, &req, &result, err) < 0)
                return 1;
        free(result.cgroup_path);
        if (o.detach)
                return 0;
        int code = process_wait_forward(result.pid, &set);
        struct sb_error cleanup = { 0 };
        if (container_delete(global, req.id, true, &cleanup) < 0) {
                _cleanup_free_ char *text = sb_error_text(&cleanup);
                sb_warn("restore: delete after exit: %s", text ? text : "failed");
        }
        sb_error_clear(&cleanup);
        return code;
}
