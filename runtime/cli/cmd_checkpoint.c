/* `checkpoint` and `restore`'s shared option checks live here with
 * checkpoint's command line: runc's options, each carried out through
 * CRIU or refused by name (runtime/checkpoint/). */
#include "common/error.h"
#include "runtime/checkpoint/checkpoint_container.h"
#include "runtime/cli/checkpoint_options.h"
#include "runtime/cli/cli.h"
#include "runtime/cli/cli_options.h"
#include "runtime/cli/commands.h"

#include <string.h>

int checkpoint_check_modes(const char *command, const char *cgroups_mode, const char *empty_ns,
                           bool unsupported_set, const char *unsupported, struct sb_error *err)
{
        static const char *const modes[] = { "soft", "full", "strict", "ignore" };
        bool known = cgroups_mode == NULL;

        for (size_t i = 0; !known && i < sizeof(modes) / sizeof(modes[0]); i++)
                known = strcmp(cgroups_mode, modes[i]) == 0;
        if (!known)
                return sb_fail(err, 0,
                               "%s: --manage-cgroups-mode \"%s\": soft, full, strict or ignore",
                               command, cgroups_mode);
        if (empty_ns != NULL && strcmp(empty_ns, "network") != 0)
                return sb_fail(err, 0, "%s: --empty-ns \"%s\": only network is supported (as runc)",
                               command, empty_ns);
        if (unsupported_set)
                return sb_fail(err, 0, "%s: %s is not supported by sbrun", command, unsupported);
        return 0;
}

int cmd_checkpoint(const struct global_options *global, int argc, char **argv, struct sb_error *err)
{
        struct checkpoint_request req = { .criu = global->criu };
        const char *status_fd = NULL, *page_server = NULL;
        bool lazy_pages = false;
        const struct cli_option options[] = {
                { "image-path", 0, CLI_STRING, .to.string = &req.image_path, .arg = "DIR",
                  .help = "write the images into DIR (default ./checkpoint)" },
                { "work-path", 0, CLI_STRING, .to.string = &req.work_path, .arg = "DIR",
                  .help = "write CRIU's log there (default: the image path)" },
                { "parent-path", 0, CLI_STRING, .to.string = &req.parent_path, .arg = "DIR",
                  .help = "a --pre-dump's images, relative to the image path" },
                { "leave-running", 0, CLI_FLAG, .to.flag = &req.leave_running,
                  .help = "keep the container running after the dump" },
                { "tcp-established", 0, CLI_FLAG, .to.flag = &req.tcp_established,
                  .help = "dump established TCP connections" },
                { "ext-unix-sk", 0, CLI_FLAG, .to.flag = &req.ext_unix_sk,
                  .help = "allow UNIX sockets connected outside the container" },
                { "shell-job", 0, CLI_FLAG, .to.flag = &req.shell_job,
                  .help = "allow a process of a shell's session and terminal" },
                { "file-locks", 0, CLI_FLAG, .to.flag = &req.file_locks,
                  .help = "dump file locks" },
                { "pre-dump", 0, CLI_FLAG, .to.flag = &req.pre_dump,
                  .help = "dump memory only, leaving the container running (then checkpoint "
                          "--parent-path)" },
                { "manage-cgroups-mode", 0, CLI_STRING, .to.string = &req.manage_cgroups_mode,
                  .arg = "MODE",
                  .help = "CRIU's cgroup mode: soft (default), full, strict or "
                          "ignore" },
                { "empty-ns", 0, CLI_STRING, .to.string = &req.empty_ns, .arg = "NS",
                  .help = "network: the namespace is not dumped (its setup is the caller's)" },
                { "auto-dedup", 0, CLI_FLAG, .to.flag = &req.auto_dedup,
                  .help = "remove from the parent images what this dump holds" },
                { "lazy-pages", 0, CLI_FLAG, .to.flag = &lazy_pages,
                  .help = "refused: sbrun runs no lazy-pages daemon" },
                { "status-fd", 0, CLI_STRING, .to.string = &status_fd, .arg = "FD",
                  .help = "refused (with --lazy-pages only)" },
                { "page-server", 0, CLI_STRING, .to.string = &page_server, .arg = "ADDR:PORT",
                  .help = "refused: the images are written to the image path" },
                { NULL },
        };
        const struct cli_command cmd = {
                .name = "checkpoint",
                .usage = "usage: sbrun checkpoint [options] ID\n\n"
                         "Dump the processes of running container ID with CRIU into the image\n"
                         "path; the container is deleted unless --leave-running or --pre-dump.\n"
                         "A container CRIU cannot restore as confined (Landlock, a terminal, a\n"
                         "seccomp listener) is refused.\n",
                .options = options,
        };
        int next;

        int r = cli_parse(&cmd, argc, argv, &next, err);
        if (r != 0)
                return r < 0 ? 1 : 0;
        if (cli_require_id("checkpoint", argc, argv, next, &req.id, err) < 0)
                return 1;
        if (checkpoint_check_modes("checkpoint", req.manage_cgroups_mode, req.empty_ns,
                                   lazy_pages || status_fd || page_server,
                                   lazy_pages ? "--lazy-pages" :
                                   status_fd  ? "--status-fd" :
                                                "--page-server",
                                   err) < 0)
                return 1;
        return container_checkpoint(global, &req, err) < 0 ? 1 : 0;
}
