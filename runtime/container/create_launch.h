/* The launch of create: fork the launcher (which becomes bwrap, which runs
 * sbrun-init), map a new user namespace from outside, wait for the init's
 * word on the ready pipe and learn the container's pid from bwrap. The
 * bytes exchanged are in runtime/init/handshake.h. */
#ifndef SB_CREATE_LAUNCH_H
#define SB_CREATE_LAUNCH_H

struct sb_error;
struct create_ctx;

/* Fork the launcher with the fds of create_open_channels (c->launcher). */
int create_spawn(struct create_ctx *c, struct sb_error *err);
/* A new user namespace: write its uid and gid maps, then let the launcher
 * go on. A launcher that failed before is left to create_wait_ready. */
int create_map_user_namespace(struct create_ctx *c, struct sb_error *err);
/* HANDSHAKE_READY from sbrun-init, or the failure of whoever stopped. */
int create_wait_ready(struct create_ctx *c, struct sb_error *err);
/* The container's host pid from bwrap's --info-fd (c->container_pid). */
int create_read_child_pid(struct create_ctx *c, struct sb_error *err);
/* The pty master the init sent for console_to_caller; -1 without one. */
int create_receive_console(struct create_ctx *c, int *master, struct sb_error *err);
/* Kill and reap the outer bwrap: the container is reparented to the
 * caller's subreaper. */
void create_release_launcher(struct create_ctx *c);

#endif
