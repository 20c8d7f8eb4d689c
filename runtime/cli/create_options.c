#include "runtime/cli/create_options.h"

#include "runtime/container/create_container.h"

void create_options_table(struct create_request *req, struct cli_option table[CREATE_OPTIONS_LEN])
{
        const struct cli_option options[CREATE_OPTIONS_LEN] = {
                { "bundle", 'b', CLI_STRING, .to.string = &req->bundle },
                { "pid-file", 0, CLI_STRING, .to.string = &req->pid_file },
                { "console-socket", 0, CLI_STRING, .to.string = &req->console_socket },
                { "pidfd-socket", 0, CLI_STRING, .to.string = &req->pidfd_socket },
                { "preserve-fds", 0, CLI_INT, .to.integer = &req->preserve_fds, .max = 1000 },
                { "no-pivot", 0, CLI_FLAG, .to.flag = &req->no_pivot },
                { "no-new-keyring", 0, CLI_FLAG, .to.flag = &req->no_new_keyring },
                { NULL },
        };

        for (int i = 0; i < CREATE_OPTIONS_LEN; i++)
                table[i] = options[i];
}
