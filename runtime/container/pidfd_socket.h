/* --pidfd-socket (create, run, exec), as runc 1.2: a pidfd of the
 * container's process (or the exec'd one) sent over the caller's unix
 * stream socket, one message whose bytes say which ("standard" for the
 * container's first process, "setns" for an exec'd one, runc's words)
 * with the pidfd in SCM_RIGHTS. */
#ifndef SB_PIDFD_SOCKET_H
#define SB_PIDFD_SOCKET_H

#include <sys/types.h>

struct sb_error;

#define PIDFD_KIND_INIT "standard"
#define PIDFD_KIND_EXEC "setns"

/* Connects before anything exists, so that a wrong path fails a request
 * that has made nothing. Returns the socket or -1. */
int pidfd_socket_connect(const char *path, struct sb_error *err);

/* pidfd_open(pid) sent on sock, which is closed. The caller holds pid
 * stable (its process is not reaped yet). */
int pidfd_socket_send(int sock, pid_t pid, const char *kind, struct sb_error *err);

#endif
