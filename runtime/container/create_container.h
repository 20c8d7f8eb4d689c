/* `create`, shared with `run`: everything from config.json to a container
 * process waiting on exec.fifo, or nothing at all. */
#ifndef SB_CREATE_CONTAINER_H
#define SB_CREATE_CONTAINER_H

#include <stdbool.h>

#include "spec/floor_runtime.h" /* struct output_request, output_limits */

struct sb_error;
struct global_options;
struct restore_request;

struct create_request {
        const char *id;
        const char *bundle; /* NULL: the current directory */
        const char *pid_file;
        const char *console_socket;
        const char *pidfd_socket; /* --pidfd-socket: pidfd_socket.h */
        int preserve_fds;
        bool no_pivot;
        bool no_new_keyring;
        /* A terminal without --console-socket: the pty master comes back to
         * the caller (a foreground `run -t`). */
        bool console_to_caller;
        /* `run --timeout`: seconds, 0 for none; may only lower the limit
         * the operator and the annotation set (spec/floor_runtime.h). */
        int timeout_seconds;
        /* A foreground `run` without --console-socket: sbrun forwards the
         * container's output, so the output limits apply (the policy's,
         * the annotation's and `output`, `run`'s options): a stream with a
         * limit gets a pipe whose read end comes back in the result. */
        bool forward_output;
        struct output_request output;
        /* `restore`: the process comes from a checkpoint's images
         * (runtime/checkpoint/restore_spawn.h) instead of process.args,
         * already started; NULL for create and run. */
        const struct restore_request *restore;
};

struct create_result {
        int pid;                     /* the container process's host pid */
        int console_master;          /* with console_to_caller, else -1 */
        int timeout_seconds;         /* the effective wall-clock limit, 0 for none */
        struct output_limits output; /* with forward_output; 0: none */
        int output_read[2];          /* stdout's and stderr's pipe, -1 where inherited (no
                              * limit, or a terminal: the pty is capped instead) */
        char *cgroup_path;           /* the container's cgroup, NULL if none; caller frees */
};

int container_create(const struct global_options *global, const struct create_request *req,
                     struct create_result *result, struct sb_error *err);

#endif
