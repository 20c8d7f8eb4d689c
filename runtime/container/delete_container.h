#ifndef SB_DELETE_CONTAINER_H
#define SB_DELETE_CONTAINER_H

#include <stdbool.h>

struct sb_error;
struct global_options;

/* Remove a container: a stopped or created one always; a running one only
 * with force, after SIGKILL has ended all of its processes. */
int container_delete(const struct global_options *global, const char *id, bool force,
                     struct sb_error *err);

#endif
