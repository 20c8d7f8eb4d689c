/* The container's terminal: a pty made in the container's own devpts, its
 * master sent to the engine over the console socket (runc's protocol), its
 * slave the process's stdio and controlling terminal. */
#ifndef SB_INIT_CONSOLE_H
#define SB_INIT_CONSOLE_H

#include "runtime/init/init_plan.h"

struct sb_error;

/* Make the pty, send the master on plan->console_fd, bind the slave over
 * /dev/console when bind_console. Returns the slave fd (O_CLOEXEC). */
int init_console_setup(const struct init_plan *plan, bool bind_console, struct sb_error *err);

/* New session, the slave as controlling terminal and as fds 0, 1 and 2. */
int init_console_attach(int slave, struct sb_error *err);

#endif
