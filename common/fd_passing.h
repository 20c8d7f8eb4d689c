/* Passing one fd over a unix socket (SCM_RIGHTS) with a message beside it:
 * the pty master on the console socket, the seccomp listener and its state.
 * libc only, so the static sbrun-init links it too. */
#ifndef SB_FD_PASSING_H
#define SB_FD_PASSING_H

#include <stddef.h>
#include <sys/types.h>

/* Send fd with len bytes of data (len > 0: the fd travels with them).
 * Returns the bytes sent, or -1 with errno. Never raises SIGPIPE. */
ssize_t sb_send_fd(int sock, int fd, const void *data, size_t len);

/* Receive one message of at most cap bytes and the fd that came with it
 * (close-on-exec). Returns the bytes received, or -1 with errno: EPROTO
 * when no fd came or the message did not fit. */
ssize_t sb_recv_fd(int sock, void *buf, size_t cap, int *fd);

#endif
