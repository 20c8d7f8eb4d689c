/* Running one OCI hook: the state JSON on its stdin, its own argv and env
 * (nothing inherited), a timeout after which it is killed and counts as
 * failed, its output captured so it never lands in the container's stdio.
 * Used by sbrun on the host and by sbrun-init inside the container, so it
 * needs nothing but libc. */
#ifndef SB_HOOK_EXEC_H
#define SB_HOOK_EXEC_H

#include <stddef.h>

struct sb_error;

struct hook_spec {
        const char *path;
        char *const *args; /* argv; NULL or empty: { path } */
        char *const *env;  /* NULL: empty environment */
        int timeout;       /* seconds; 0: none */
};

/* Called in the child before exec (setns into a container, …); returns 0
 * or -1 with errno set. */
typedef int (*hook_prepare_fn)(void *data);

/* Returns 0 when the hook exited 0; otherwise -1 with *err saying how it
 * failed (exit status, signal, timeout). *output (may be NULL) receives what
 * it printed, at most 64 KiB; the caller frees it. exec_fd >= 0: execute
 * that file (resolved before entering another namespace) instead of path. */
int hook_exec(const struct hook_spec *hook, const char *state_json, int exec_fd,
              hook_prepare_fn prepare, void *data, char **output, struct sb_error *err);

#endif
