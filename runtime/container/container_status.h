/* A container's status is read from its process, never trusted from the
 * record alone: a pid may have been reused, so the start time recorded at
 * create must match too. */
#ifndef SB_CONTAINER_STATUS_H
#define SB_CONTAINER_STATUS_H

#include <stdbool.h>
#include <stdint.h>

struct sb_error;
struct oci_state;

/* Field 22 (starttime) and field 3 (state letter) of /proc/<pid>/stat.
 * Returns -1 with errno ESRCH when there is no such process. */
int proc_stat_identity(int pid, uint64_t *start_time, char *state_letter);

/* True when the recorded process still exists and is not a zombie. */
bool container_process_alive(const struct oci_state *state);

/* The marker of a record that create wrote as soon as the container had a
 * pid, before its hooks and --pid-file: if create dies before it replaces
 * the record, the container is "creating" for ever, can be deleted but not
 * started (runtime/container/create_record.c). */
#define CREATE_MARKER "create"
#define CREATE_INCOMPLETE "incomplete"

/* "creating", "created", "running", "paused" or "stopped" (static string). */
const char *container_status(const struct oci_state *state);

/* A pidfd for the container process, checked against the recorded start
 * time after opening, so signals can never reach a recycled pid.
 * Returns -1 with errnum ESRCH when the process is gone. */
int container_pidfd(const struct oci_state *state, struct sb_error *err);

/* Wait until the process behind pidfd has exited (not necessarily reaped). */
int pidfd_wait_exit(int pidfd, int timeout_ms);

#endif
