/* Ending a whole container at its wall-clock deadline, whoever enforces
 * it (the foreground `run` or the watchdog of a detached container). */
#ifndef SB_DEADLINE_KILL_H
#define SB_DEADLINE_KILL_H

struct sb_error;

/* One write to cgroup.kill when the container has a cgroup; otherwise
 * SIGKILL to its pid-namespace init (pidfd), which ends every process in
 * the namespace, plus each process found in it, as delete does. It does
 * not wait: the caller's deadline bounds how long it waits for the exit. */
int deadline_kill(int pidfd, int pid, const char *cgroup_path, struct sb_error *err);

#endif
