/* File descriptors of the container process: the exec.fifo wait, stderr,
 * and closing everything the process must not inherit. Shared by the init
 * of `create` and by `sbrun exec`. */
#ifndef SB_INIT_FDS_H
#define SB_INIT_FDS_H

#include <stddef.h>

struct sb_error;

/* "sbrun-init: <message>: <strerror>\n" on fd 2, unbuffered. */
void init_print_error(const struct sb_error *err);

/* Block until `sbrun start` reads exec.fifo (fifo_fd: an O_PATH fd of it),
 * hand it one byte, close fifo_fd. */
int init_wait_exec_fifo(int fifo_fd, struct sb_error *err);

/* dup2(stderr_fd, 2) and close stderr_fd; nothing when stderr_fd < 0. */
int init_redirect_stderr(int stderr_fd, struct sb_error *err);

/* Close every fd but 0-2 and 3..3+preserve_fds-1. */
int init_close_fds(int preserve_fds, struct sb_error *err);

#endif
