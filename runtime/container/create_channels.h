/* The fds create opens for the launcher to hand on at fixed numbers (enum
 * launcher_fd), and the pipes and socket create reads the launch on. */
#ifndef SB_CREATE_CHANNELS_H
#define SB_CREATE_CHANNELS_H

struct sb_error;
struct create_ctx;
struct create_request;
struct state_dir;

/* The console channel, a pid namespace to join, the seccomp hand-over,
 * exec.fifo in the state directory, sbrun-init's image, stderr, the ready,
 * error and info pipes, the user namespace socket and bwrap's --args. */
int create_open_channels(struct create_ctx *c, const struct create_request *req,
                         struct state_dir *sd, struct sb_error *err);

/* exec.fifo owned by the container's root when it has a user namespace. */
int create_chown_fifo(struct create_ctx *c, struct state_dir *sd, struct sb_error *err);

#endif
