/* `exec`: a new process in a running container's namespaces, cgroup and
 * confinement, set up by the same sbrun-init final steps as the first one. */
#ifndef SB_EXEC_CONTAINER_H
#define SB_EXEC_CONTAINER_H

#include <stdbool.h>

struct sb_error;
struct global_options;
struct oci_process;

struct exec_options {
        const char *id;
        int preserve_fds;
        bool detach;
        const char *pid_file;
        const char *console_socket;
        const char *pidfd_socket; /* --pidfd-socket: pidfd_socket.h */
        const char *cgroup;       /* --cgroup: runtime/cgroup/sub_cgroup.h */
        bool ignore_paused;       /* --ignore-paused: exec into a frozen container */
};

/* Takes ownership of process. Returns the exit status sbrun exec exits
 * with: the process's own (128+N for a signal) in the foreground. */
int container_exec(const struct global_options *global, const struct exec_options *opts,
                   struct oci_process *process, struct sb_error *err);

#endif
