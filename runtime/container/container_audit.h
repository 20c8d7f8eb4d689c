/* Lines of the audit trail about a container that exists (kill, delete,
 * verdict): written to the trail of the policy it was created under (its
 * state directory's copy, as exec's floor is), and never failing the
 * command: stopping and removing a container must always work. */
#ifndef SB_CONTAINER_AUDIT_H
#define SB_CONTAINER_AUDIT_H

#include <stdbool.h>

struct audit_line;
struct global_options;
struct sb_error;
struct state_dir;
struct verdict;

/* Commits l to the trail of the container in sd; a failure is a warning. */
void container_audit_commit(struct state_dir *sd, const struct global_options *global,
                            struct audit_line *l);

/* `kill`: the signal, --all, and whether it was sent (failure: why not). */
void container_audit_kill(struct state_dir *sd, const struct global_options *global, const char *id,
                          int signo, bool all, const struct sb_error *failure);

/* The end of a container `run` waited for, or that its watchdog killed:
 * the verdict (runtime/container/verdict.h) with the resource peaks of its
 * cgroup, read before the cgroup goes. */
void container_audit_verdict(const struct global_options *global, const char *id,
                             const struct verdict *v, const char *cgroup_path);

#endif
