/* The output limit of a foreground `run` carried out (the floor decides it:
 * spec/floor_runtime.h, floor_output_limit). The container's stdout and
 * stderr are pipes `run` holds the read ends of (create makes them, only
 * for a stream with a limit); at most the limit of each is copied to
 * run's own stdout or stderr, and the first byte past a limit trips the
 * cap: the caller's deadline is moved to now, so that the container is
 * killed and waited for exactly as at its wall-clock limit (the same
 * kill, the same grace). A terminal is capped the same way: the pty
 * master is read as the stdout stream (console_proxy.c). */
#ifndef SB_OUTPUT_CAP_H
#define SB_OUTPUT_CAP_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "runtime/container/process_wait.h"

enum output_stream { OUTPUT_STDOUT, OUTPUT_STDERR, OUTPUT_STREAMS };

struct output_cap {
        int64_t limit[OUTPUT_STREAMS];     /* bytes; 0: none */
        int64_t forwarded[OUTPUT_STREAMS]; /* bytes written to run's own stream */
        int tripped;                       /* -1, or the stream that passed its limit */
        struct wait_deadline *dl;          /* moved to now when a stream trips */
};

#define OUTPUT_CAP_INIT       \
        {                     \
                .tripped = -1 \
        }

/* "stdout", "stderr". */
const char *output_stream_name(enum output_stream s);

/* Read what is there on from and write it to `to` (the stream s), up to
 * its limit. A read past the limit trips the cap (the excess is dropped).
 * Returns false at EOF, when writing failed (EPIPE: run ignores SIGPIPE
 * while it forwards) and once s tripped: stop reading from. */
bool output_cap_pump(struct output_cap *cap, enum output_stream s, int from, int to);

/* Copy the pipes (fd[s] -1: that stream is not read; each is closed and
 * set to -1 once done with: at its EOF, when it tripped, or when writing
 * it out failed, so that the container meets a broken pipe) until the process
 * pid is reaped (or the deadline's grace is over, as process_wait_status),
 * forwarding signals; then what the pipes still hold, for at most 100 ms
 * (a descendant that holds a pipe open does not keep `run` waiting).
 * *status is the waitpid status. */
void output_cap_wait(struct output_cap *cap, int fd[OUTPUT_STREAMS], int pid, const sigset_t *set,
                     struct wait_deadline *dl, int *status);

#endif
