/* `run -t`/`exec -t` in the foreground without a console socket: sbrun
 * itself holds the pty master and copies it to and from its own stdio, as
 * `runc run -t` does, with the caller's terminal in raw mode meanwhile. */
#ifndef SB_CONSOLE_PROXY_H
#define SB_CONSOLE_PROXY_H

#include <signal.h>

#include "runtime/container/output_cap.h"
#include "runtime/container/process_wait.h"

/* Copy until the process pid is reaped; returns its exit status (128+N for
 * a signal). set: the signals process_wait_block_signals() blocked. */
int console_proxy_run(int master, int pid, const sigset_t *set);

/* The same with a deadline (may be NULL): at the deadline the container is
 * killed; once its grace is over the proxy stops copying and returns,
 * whatever still holds the pty. *status is the waitpid status. cap (may be
 * NULL): the pty's output is the stdout stream of an output limit, whose
 * trip moves the deadline to now (output_cap.h). */
void console_proxy_wait(int master, int pid, const sigset_t *set, struct wait_deadline *dl,
                        struct output_cap *cap, int *status);

#endif
