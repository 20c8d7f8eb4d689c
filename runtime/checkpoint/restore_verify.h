/* A restored container checked before it runs: CRIU leaves every restored
 * task stopped (--leave-stopped), and `restore` lets them go only once
 * each has the confinement the floor decides for the restore's config
 * under the policy in force now, read from the kernel, not assumed:
 *   - no_new_privs, and seccomp filtering with the floor's programs and
 *     the config's exactly, oldest first (a process may have stacked
 *     more of its own);
 *   - no capability outside the config's sets after the floor;
 *   - the namespaces the config asks: new ones that are not sbrun's,
 *     joined ones that are the very namespace;
 *   - the container's cgroup (or one below it);
 *   - every mount from outside one of the sources this restore judged
 *     (the root, the config's binds, the standard /dev nodes), and at each
 *     place at least the flags the config asks and the checkpointed
 *     container had: what CRIU left weaker (a read-only root, nosuid) is
 *     set again with mount_setattr in the container's mount namespace,
 *     then read back.
 * Any failure fails the restore (create_ctx_release kills what CRIU made). */
#ifndef SB_RESTORE_VERIFY_H
#define SB_RESTORE_VERIFY_H

#include <sys/types.h>

struct sb_error;
struct create_ctx;
struct checkpoint_record;

int restore_verify(struct create_ctx *c, const struct checkpoint_record *record,
                   struct sb_error *err);

/* SIGCONT to every process of the container. */
int restore_resume(struct create_ctx *c, struct sb_error *err);

#endif
