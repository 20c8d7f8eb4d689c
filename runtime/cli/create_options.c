#include "runtime/cli/create_options.h"

#include "runtime/container/create_container.h"

void create_options_table(struct create_request *req, struct cli_option table[CREATE_OPTIONS_LEN])
{
        const struct cli_option options[CREATE_OPTIONS_LEN] = {
                { "bundle", 'b', CLI_STRING, .to.string = &req->bundle, .arg = "DIR",
                  .help = "the bundle: the directory holding config.json (default: the current "
                          "directory)" },
                { "pid-file", 0, CLI_STRING, .to.string = &req->pid_file, .arg = "FILE",
                  .help = "write the container process's host pid to FILE (a new file renamed "
                          "over it, never written through a symlink)" },
                { "console-socket", 0, CLI_STRING, .to.string = &req->console_socket,
                  .arg = "SOCKET",
                  .help = "send the pty master of a process.terminal container to this AF_UNIX "
                          "socket (refused without process.terminal)" },
                { "pidfd-socket", 0, CLI_STRING, .to.string = &req->pidfd_socket, .arg = "SOCKET",
                  .help = "send a pidfd of the container process to this AF_UNIX stream socket "
                          "(runc's protocol)" },
                { "preserve-fds", 0, CLI_INT, .to.integer = &req->preserve_fds, .max = 1000,
                  .arg = "N",
                  .help = "pass N more open file descriptors, from fd 3 on, to the container "
                          "process (0 to 1000)" },
                { "no-pivot", 0, CLI_FLAG, .to.flag = &req->no_pivot,
                  .help = "accepted, ignored with a warning: bwrap always uses pivot_root "
                          "(stricter)" },
                { "no-new-keyring", 0, CLI_FLAG, .to.flag = &req->no_new_keyring,
                  .help = "join no new session keyring: the container keeps the one sbrun "
                          "runs with (else it gets a new one named after the container)" },
                { NULL },
        };

        for (int i = 0; i < CREATE_OPTIONS_LEN; i++)
                table[i] = options[i];
}
