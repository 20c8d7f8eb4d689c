/* The record of create, once the container waits on exec.fifo: state.json,
 * the copies of config.json and the policy the later commands use, the
 * create hooks and --pid-file. */
#ifndef SB_CREATE_RECORD_H
#define SB_CREATE_RECORD_H

struct sb_error;
struct create_ctx;
struct create_request;
struct state_dir;

int create_record_state(struct create_ctx *c, struct state_dir *sd,
                        const struct create_request *req, struct sb_error *err);

#endif
