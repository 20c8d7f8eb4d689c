/* What `checkpoint` and `restore` check alike of their command lines. */
#ifndef SB_CHECKPOINT_OPTIONS_H
#define SB_CHECKPOINT_OPTIONS_H

#include <stdbool.h>

struct sb_error;

/* --manage-cgroups-mode one of CRIU's, --empty-ns network only, and no
 * option sbrun refuses (unsupported, when unsupported_set). */
int checkpoint_check_modes(const char *command, const char *cgroups_mode, const char *empty_ns,
                           bool unsupported_set, const char *unsupported, struct sb_error *err);

#endif
