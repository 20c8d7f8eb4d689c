/* process.args[0] as the container will see it: looked up by sbrun-init
 * after the container's mounts are made, before create returns (a program
 * a bind mount brings, like podman's /run/podman-init, is found), and by
 * exec through the running container's root. Failures use runc's wording,
 * which engines map to exit codes 126 and 127. Linked into sbrun-init and
 * into sbrun. */
#ifndef SB_EXEC_LOOKUP_H
#define SB_EXEC_LOOKUP_H

struct sb_error;

/* Resolve program in the tree under root_fd (a directory fd of the
 * container's root; paths resolve as if it were "/"): with a '/' relative
 * to cwd, else through PATH from env (or the default PATH). *out is the
 * absolute path inside the container. */
int exec_lookup(int root_fd, const char *program, const char *cwd, char *const *env, char **out,
                struct sb_error *err);

#endif
