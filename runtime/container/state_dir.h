/* The per-container directory under the state root (<root>/<id>): the state
 * record, exec.fifo, and an exclusive lock so that concurrent commands on
 * one container are serialised. */
#ifndef SB_STATE_DIR_H
#define SB_STATE_DIR_H

#include <stdbool.h>
#include <stddef.h>

struct sb_error;
struct global_options;
struct operator_policy;
struct oci_state;
struct oci_config;

struct state_dir {
        int root_fd;
        int dir_fd; /* also holds the flock */
        char *id;
        char *path;
        bool created_here; /* made by this command: removed when it fails */
};

#define STATE_DIR_INIT                      \
        {                                   \
                .root_fd = -1, .dir_fd = -1 \
        }
#define STATE_RECORD "state.json"
#define EXEC_FIFO "exec.fifo"

/* Make a new directory for id (fails with "container "id" already exists"). */
int state_dir_create(const char *root, const char *id, struct state_dir *sd, struct sb_error *err);
/* Open and lock an existing container's directory. */
int state_dir_open(const char *root, const char *id, struct state_dir *sd, struct sb_error *err);

int state_dir_save(struct state_dir *sd, const struct oci_state *state, struct sb_error *err);
struct oci_state *state_dir_load(struct state_dir *sd, struct sb_error *err);
/* state_dir_save in two steps: the whole record is written (and fails on a
 * full file system) before the step it records, and renamed over
 * STATE_RECORD after it; state_dir_drop_staged when the step failed. */
int state_dir_stage(struct state_dir *sd, const struct oci_state *state, struct sb_error *err);
int state_dir_commit_staged(struct state_dir *sd, struct sb_error *err);
void state_dir_drop_staged(struct state_dir *sd);
/* state_dir_open, then state_dir_load: the record of an existing container,
 * its directory held (and locked) in sd. NULL on failure. */
struct oci_state *state_dir_open_state(const char *root, const char *id, struct state_dir *sd,
                                       struct sb_error *err);

/* A copy of the bundle's config.json, and the parsed copy (hooks for
 * start and delete). */
#define CONFIG_COPY "config.json"
#define POLICY_COPY "policy.json"
/* CRIU's cgroup yard (runtime/checkpoint/criu_run.c): a bind of the cgroup2
 * mount at STATE_CRIU_YARD/unified while CRIU runs. */
#define STATE_CRIU_YARD "criu-cgroup-yard"
int state_dir_save_config(struct state_dir *sd, const char *text, size_t len, struct sb_error *err);
struct oci_config *state_dir_load_config(struct state_dir *sd, struct sb_error *err);
/* The operator policy the container was created under: its floor holds for
 * every later exec even if the policy file changes or --policy differs.
 * A container created by a sbrun without this file gets the current one.
 *
 * Rootless, the state directory is the user's, and so would be a copy: the
 * path the policy was read from is kept instead (POLICY_SOURCE, empty for
 * the built-in default) and exec reads that file again, under the same
 * owner rules as create (spec/operator_policy.h). A user who edits the path
 * gets no more than `--policy` at create would give them. */
#define POLICY_SOURCE "policy.source"
int state_dir_save_policy(struct state_dir *sd, const struct operator_policy *policy,
                          const struct global_options *global, struct sb_error *err);
int state_dir_load_policy(struct state_dir *sd, const struct global_options *global,
                          struct operator_policy *policy, struct sb_error *err);

/* Remove the directory and everything in it. */
int state_dir_remove(struct state_dir *sd, struct sb_error *err);

/* Release fds (and the lock); a directory created by this command and not
 * committed with state_dir_keep() is removed. */
void state_dir_release(struct state_dir *sd);
static inline void state_dir_keep(struct state_dir *sd)
{
        sd->created_here = false;
}

#define _cleanup_state_dir_ __attribute__((cleanup(state_dir_release)))

#endif
