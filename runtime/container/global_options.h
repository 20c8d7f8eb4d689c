/* The options that come before the command name, as runc takes them: every
 * room below the command line reads them, none parses them. */
#ifndef SB_GLOBAL_OPTIONS_H
#define SB_GLOBAL_OPTIONS_H

#include <stdbool.h>

struct global_options {
        const char *root; /* state root, default /run/sbrun */
        const char *log_path;
        bool log_json;
        bool debug;
        bool systemd_cgroup;
        const char *policy_path; /* --policy FILE; NULL: /etc/sbrun/policy.json */
};

#endif
