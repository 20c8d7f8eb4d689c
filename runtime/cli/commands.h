/* One function per command, each in its own cmd_*.c file. */
#ifndef SB_COMMANDS_H
#define SB_COMMANDS_H

#include "runtime/container/global_options.h"

struct sb_error;

/* A command returns its process exit status (0 on success); a failure is
 * reported through *err and exit status 1 unless the command says otherwise. */
typedef int (*command_fn)(const struct global_options *global, int argc, char **argv,
                          struct sb_error *err);

int cmd_create(const struct global_options *global, int argc, char **argv, struct sb_error *err);
int cmd_start(const struct global_options *global, int argc, char **argv, struct sb_error *err);
int cmd_state(const struct global_options *global, int argc, char **argv, struct sb_error *err);
int cmd_kill(const struct global_options *global, int argc, char **argv, struct sb_error *err);
int cmd_delete(const struct global_options *global, int argc, char **argv, struct sb_error *err);
int cmd_run(const struct global_options *global, int argc, char **argv, struct sb_error *err);
int cmd_list(const struct global_options *global, int argc, char **argv, struct sb_error *err);
int cmd_spec(const struct global_options *global, int argc, char **argv, struct sb_error *err);
int cmd_features(const struct global_options *global, int argc, char **argv, struct sb_error *err);
int cmd_exec(const struct global_options *global, int argc, char **argv, struct sb_error *err);
int cmd_ps(const struct global_options *global, int argc, char **argv, struct sb_error *err);
int cmd_pause(const struct global_options *global, int argc, char **argv, struct sb_error *err);
int cmd_resume(const struct global_options *global, int argc, char **argv, struct sb_error *err);
int cmd_update(const struct global_options *global, int argc, char **argv, struct sb_error *err);
int cmd_events(const struct global_options *global, int argc, char **argv, struct sb_error *err);
int cmd_check(const struct global_options *global, int argc, char **argv, struct sb_error *err);
int cmd_audit(const struct global_options *global, int argc, char **argv, struct sb_error *err);
int cmd_policy(const struct global_options *global, int argc, char **argv, struct sb_error *err);
int cmd_checkpoint(const struct global_options *global, int argc, char **argv,
                   struct sb_error *err);
int cmd_restore(const struct global_options *global, int argc, char **argv, struct sb_error *err);

#endif
