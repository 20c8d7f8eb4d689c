/* process.args[0] is looked up during `create`, as runc does, so that a
 * missing program fails `create` with the wording engines map to 127. */
#ifndef SB_EXEC_LOOKUP_H
#define SB_EXEC_LOOKUP_H

#include <stdbool.h>

struct sb_error;

/* `covered` says whether a container path lies under a mount destination, where
 * the rootfs on disk says nothing about what the container will see. */
typedef bool (*exec_path_covered_fn)(const char *path, void *data);

/* Resolve program (args[0]) in the rootfs: with a '/' relative to cwd, else
 * through PATH from env (or the default PATH). *out is the absolute path
 * inside the container. */
int exec_lookup(int rootfs_fd, const char *program, const char *cwd, char *const *env,
                exec_path_covered_fn covered, void *data, char **out, struct sb_error *err);

#endif
