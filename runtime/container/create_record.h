/* The record of create, once the container waits on exec.fifo: state.json,
 * the copies of config.json and the policy the later commands use, the
 * create hooks and --pid-file. */
#ifndef SB_CREATE_RECORD_H
#define SB_CREATE_RECORD_H

struct sb_error;
struct create_ctx;
struct create_request;
struct state_dir;

/* state.json marked incomplete (CREATE_MARKER): first, with the copies of
 * config.json and the policy, before anything else exists (pid 0, the
 * planned cgroup), then again once the container has a pid. A create killed
 * at any later step leaves a record `delete --force` cleans up from. */
int create_record_pending(struct create_ctx *c, struct state_dir *sd, struct sb_error *err);
/* The create hooks and --pid-file, then the complete record. */
int create_record_state(struct create_ctx *c, struct state_dir *sd,
                        const struct create_request *req, struct sb_error *err);

#endif
