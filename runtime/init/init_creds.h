/* What the container process becomes just before execve: capabilities,
 * groups and ids, umask, no_new_privs, seccomp. Shared by the init of
 * `create` and by `sbrun exec`; raw syscalls, no libcap or libseccomp. */
#ifndef SB_INIT_CREDS_H
#define SB_INIT_CREDS_H

#include "runtime/init/init_plan.h"

struct sb_error;

/* Bounding set, supplementary groups, gid, uid, then (if has_capabilities)
 * the effective/permitted/inheritable sets and the ambient set. */
int init_set_credentials(const struct init_plan *plan, struct sb_error *err);

/* umask (if has_umask) and PR_SET_NO_NEW_PRIVS (if no_new_privileges). */
int init_set_process_attrs(const struct init_plan *plan, struct sb_error *err);

/* Install the plan's BPF programs in order. Call last before execve. */
int init_load_seccomp(const struct init_plan *plan, struct sb_error *err);

/* execve(exec_path, args, env); on failure prints the reason and exits 127
 * (126 for EACCES), as shells and runc do. */
_Noreturn void init_exec(const struct init_plan *plan);

/* The whole tail, in order: stderr, Landlock, keyring, a new session without a
 * controlling terminal (a terminal's session was made when the pty was
 * attached), I/O priority, scheduler and personality (init_sched.h),
 * credentials, umask, no_new_privs, close fds, the final CPU affinity,
 * seccomp, execve. Errors go to stderr, exit 1. */
_Noreturn void init_become_process(const struct init_plan *plan);

#endif
