/* Which namespaces the container gets and who makes them: the launcher
 * joins (setns) or makes (unshare) net, ipc, uts and cgroup so that it can
 * set the hostname and sysctls in them; bwrap makes the mount and pid ones.
 * A user namespace is entered by the launcher before bwrap runs, as its
 * root: bwrap joins few namespaces itself, and its own --unshare-user maps
 * a single id (docs/design.md, bwrap behaviours: "bwrap cannot join most
 * namespaces", "bwrap maps a single id in a new user namespace"). */
#ifndef SB_NAMESPACES_H
#define SB_NAMESPACES_H

#include <stdbool.h>
#include <sys/types.h>

#include "oci/config.h"

struct sb_error;

struct ns_setup {
        int join_fds[OCI_NS_COUNT]; /* opened namespace files, -1 when not joined */
        bool unshare[OCI_NS_COUNT]; /* made by the launcher */
        bool new_pid;               /* made by bwrap (--unshare-pid --as-pid-1) */
        bool new_user;              /* made by the launcher, mapped by sbrun from outside */
};

int ns_setup_prepare(const struct oci_config *config, struct ns_setup *ns, struct sb_error *err);
void ns_setup_release(struct ns_setup *ns);

/* Refuse sysctls that would change the host, and hostname/domainname
 * without a UTS namespace of the container's own. */
int ns_check_identity(const struct oci_config *config, const struct ns_setup *ns,
                      struct sb_error *err);

/* The inode of /proc/PID/ns/TYPE ("net", "pid", ...; PID 0: our own).
 * 0, or -1 with errno. */
int ns_inode(int pid, const char *type, ino_t *ino);

/* Enter every namespace of the process (pidfd, pid) that differs from ours;
 * new children land in its pid namespace. 0, or -1 with errno. */
int ns_join_process(int pidfd, int pid);

/* For a hook's child (a hook_prepare_fn): enter the namespaces of the
 * process data points to (an int pid), pid namespace included: it returns
 * in a new child inside them, while the caller waits and mirrors its exit. */
int ns_enter_pid(void *data);

#endif
