/* Waiting for a container process as its subreaper, forwarding the signals
 * a foreground `run` or `exec` receives, as runc does. */
#ifndef SB_PROCESS_WAIT_H
#define SB_PROCESS_WAIT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

/* A wall-clock deadline for a wait. At at_ms expire() kills the container
 * (once); the wait then gives up after DEADLINE_GRACE_MS even if the
 * process cannot be reaped, so that the caller always returns in time. */
struct wait_deadline {
        int64_t at_ms; /* CLOCK_MONOTONIC ms; 0: none */
        void (*expire)(void *data);
        void *data;
        bool expired;
};

#define DEADLINE_GRACE_MS 1500

/* Block SIGCHLD and the forwarded signals; call before the process exists. */
void process_wait_block_signals(sigset_t *set);

/* Milliseconds until the next thing the deadline needs (firing it, or
 * giving up after it); -1 for no deadline. Fires expire() when due. */
int wait_deadline_step(struct wait_deadline *dl);
/* True once the grace after the deadline is over. */
bool wait_deadline_given_up(const struct wait_deadline *dl);

/* Reap children (orphans reparented to us too) until pid is reaped, or
 * the deadline's grace is over; *status is the waitpid status (a SIGKILL
 * status when given up). dl may be NULL. */
void process_wait_status(int pid, const sigset_t *set, struct wait_deadline *dl, int *status);

/* The shell's view of a wait status: the exit code, 128+N for a signal. */
int process_wait_code(int status);

/* process_wait_status without a deadline, as an exit code. */
int process_wait_forward(int pid, const sigset_t *set);

/* SIGINT, SIGTERM, SIGHUP or SIGQUIT if one is pending (held blocked by
 * process_wait_block_signals while there is no process to forward it to
 * yet), else 0. */
int process_wait_pending_stop(void);

/* Block until fd is readable (data or EOF), with a way out: every 100 ms
 * it looks for a pending stop signal (process_wait_pending_stop) and, when
 * child > 0, for that child's exit. Returns 0 when fd is readable, the
 * signal number when one is pending, -1 with *status set when child exited
 * (reaped), -2 with errno set when poll fails. */
int process_wait_readable(int fd, int child, int *status);

#endif
