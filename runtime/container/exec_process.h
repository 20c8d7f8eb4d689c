/* The process `sbrun exec` runs: a --process document (as podman and
 * containerd write it), or the container's own process with runc's flags
 * laid over it. */
#ifndef SB_EXEC_PROCESS_H
#define SB_EXEC_PROCESS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/strv.h"

struct sb_error;
struct oci_process;
struct oci_config;

struct exec_overrides {
        char **args; /* positional arguments after the ID */
        size_t n_args;
        const char *cwd;
        struct strv env;  /* KEY=VALUE, each replacing the same key */
        const char *user; /* UID[:GID] */
        struct strv additional_gids;
        struct strv caps; /* added to bounding, effective and permitted */
        bool tty;
        bool no_new_privs;
        const char *apparmor;      /* --apparmor: process.apparmorProfile */
        const char *process_label; /* --process-label: process.selinuxLabel */
};

/* From a --process file: the document alone decides. */
struct oci_process *exec_process_from_file(const char *path, struct sb_error *err);

/* From the container's config: args replace, the rest is laid over it.
 * Takes the process out of config (config->process becomes NULL). */
struct oci_process *exec_process_from_config(struct oci_config *config,
                                             const struct exec_overrides *o, struct sb_error *err);

void exec_overrides_release(struct exec_overrides *o);

#endif
