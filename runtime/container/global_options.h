/* The options that come before the command name, as runc takes them: every
 * room below the command line reads them, none parses them. */
#ifndef SB_GLOBAL_OPTIONS_H
#define SB_GLOBAL_OPTIONS_H

#include <stdbool.h>
#include <sys/types.h>

struct global_options {
        const char *root; /* state root: --root, or rootless_state_root() */
        const char *log_path;
        bool log_json;
        bool debug;
        bool systemd_cgroup;
        const char *policy_path; /* --policy FILE; NULL: /etc/sbrun/policy.json */
        uid_t host_root;         /* what the host's root shows as: rootless_host_root_uid() */
        bool rootless;           /* rootless_detect() */
        bool in_userns;          /* rootless_in_user_namespace(): rootless podman's */
        const char *criu;        /* --criu PATH; NULL: criu from PATH */
};

#endif
