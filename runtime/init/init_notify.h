/* SCMP_ACT_NOTIFY inside the container: take the listener socket and state
 * that create queued on the plan's notify socket, and after the filter is
 * loaded send the state with the listener fd (runtime/seccomp/seccomp_notify.h). */
#ifndef SB_INIT_NOTIFY_H
#define SB_INIT_NOTIFY_H

#include <stddef.h>

struct sb_error;

struct init_notify {
        int listener_sock; /* connected to listenerPath by create */
        char *state;       /* container process state JSON */
        size_t state_len;
};

/* Before the filter: a syscall it denies must not stop the hand-over. */
int init_notify_receive(int channel, struct init_notify *n, struct sb_error *err);

/* After the filter: one sendmsg with the state and listener_fd
 * (SCM_RIGHTS), then both fds and the state are released. */
int init_notify_deliver(struct init_notify *n, int listener_fd, struct sb_error *err);

void init_notify_release(struct init_notify *n);

#endif
