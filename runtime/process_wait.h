/* Waiting for a container process as its subreaper, forwarding the signals
 * a foreground `run` or `exec` receives, as runc does. */
#ifndef SB_PROCESS_WAIT_H
#define SB_PROCESS_WAIT_H

#include <signal.h>

/* Block SIGCHLD and the forwarded signals; call before the process exists. */
void process_wait_block_signals(sigset_t *set);

/* Reap children (orphans reparented to us too) until pid is reaped;
 * returns its exit status, 128+N for a signal. */
int process_wait_forward(int pid, const sigset_t *set);

#endif
