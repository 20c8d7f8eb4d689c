#ifndef SB_START_CONTAINER_H
#define SB_START_CONTAINER_H

struct sb_error;
struct global_options;

#include <sys/types.h>

/* Release a created container's process through exec.fifo. With
 * NOTIFY_SOCKET in the caller's environment and a container created with
 * it, then wait for the process's READY=1 and pass it on with
 * MAINPID=notify_mainpid (0: the container's process; a foreground `run`
 * names itself, as runc does), runtime/container/notify_socket.h. */
int container_start(const struct global_options *global, const char *id, pid_t notify_mainpid,
                    struct sb_error *err);

#endif
