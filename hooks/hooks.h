/* The six OCI hook kinds, run at the moments runtime-spec config.md gives. */
#ifndef SB_HOOKS_H
#define SB_HOOKS_H

#include "hooks/hook_exec.h"

struct sb_error;
struct oci_hooks;
struct oci_hook_list;
struct oci_state;

enum hook_kind {
        HOOK_PRESTART,
        HOOK_CREATE_RUNTIME,
        HOOK_CREATE_CONTAINER,
        HOOK_START_CONTAINER,
        HOOK_POSTSTART,
        HOOK_POSTSTOP,
};

const char *hook_kind_name(enum hook_kind kind);
const struct oci_hook_list *hook_list(const struct oci_hooks *hooks, enum hook_kind kind);

/* Run every hook of one kind with the state (status as the spec gives for
 * the kind) on stdin. Every kind but poststop fails on the first failure
 * (for poststart the caller then stops the running container, as runtime-spec
 * 1.3 and runc do); poststop logs each failure as a warning and goes on. prepare (may be NULL) runs in each hook's child before exec,
 * to enter the container's namespaces for createContainer (whose path is
 * opened before, in the runtime's namespace) and startContainer (whose path
 * is the container's). */
int hooks_run(const struct oci_hooks *hooks, enum hook_kind kind, const struct oci_state *state,
              hook_prepare_fn prepare, void *data, struct sb_error *err);

#endif
