/* The processes of a container. Until the cgroup manager lands they are
 * found by the container's pid namespace. */
#ifndef SB_CONTAINER_PROCS_H
#define SB_CONTAINER_PROCS_H

struct sb_error;

/* Signal every process that shares the pid namespace of pid (as its
 * children see it), other than pid itself. */
int container_procs_signal_all(int pid, int signo, struct sb_error *err);

#endif
