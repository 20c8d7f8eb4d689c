#ifndef SB_START_CONTAINER_H
#define SB_START_CONTAINER_H

struct sb_error;
struct global_options;

/* Release a created container's process through exec.fifo. */
int container_start(const struct global_options *global, const char *id, struct sb_error *err);

#endif
