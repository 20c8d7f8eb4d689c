/* The outcome of a container, machine-readable.
 *
 *   {"verdict": "exited", "exit_code": 0, "signal": 0}
 *
 * and, where a tmpfs was full, whatever the verdict,
 *   "full": [{"path": "/tmp", "space": true, "inodes": false}]
 * and, where the container had a cgroup with the io controller, what it
 * read and wrote (io.stat summed over its disks) and waited on I/O
 * (io.pressure's totals, where the kernel has PSI):
 *   "io": {"rbytes": N, "wbytes": N, "rios": N, "wios": N,
 *          "pressure_some_usec": N, "pressure_full_usec": N}
 *
 * verdict, first match wins:
 *   setup_failed  create (or start) failed before any container code ran;
 *                 exit_code is sbrun's own status (1), signal 0. A missing
 *                 executable is found by create, so it is setup_failed too.
 *   timeout       the wall-clock limit expired and sbrun killed the
 *                 container (signal 9, exit_code 137).
 *   output_limit  a foreground `run` read more of the container's stdout
 *                 or stderr than its output limit and killed the container
 *                 (runtime/container/output_cap.h): "stream" names it
 *                 ("stdout", "stderr") and "bytes" is what was forwarded of
 *                 it, the limit. exit_code is VERDICT_OUTPUT_LIMIT_CODE
 *                 (125), which no other verdict gives (1 is setup_failed's,
 *                 126 and 127 a missing or non-executable program's, 128+N
 *                 a signal's); signal is the one that ended the container
 *                 process (9 as a rule).
 *   oom           the container's cgroup counts an OOM kill (memory.events
 *                 oom_kill > 0), whatever process it hit.
 *   pids_limit    the cgroup counts refused forks (pids.events max > 0)
 *                 and the container process did not exit with status 0.
 *   workspace_full  a writable tmpfs of the container (its workspace,
 *                 /tmp, /dev/shm: each capped by the floor) had no free
 *                 block or no free inode when it ended, and the container
 *                 process did not exit with status 0 (it met ENOSPC).
 *                 Known only to a foreground `run`, which holds the mounts
 *                 (runtime/container/tmpfs_watch.h).
 *   signaled      the container process was killed by a signal
 *                 (exit_code 128+signal).
 *   exited        it exited with exit_code (signal 0).
 *
 * `run --verdict-file PATH` writes it to PATH; the state of a stopped
 * container shows it as the annotations run.sbrun.verdict,
 * run.sbrun.exit_code and run.sbrun.signal (the OCI state shape stays),
 * recorded by `run --keep` and by the watchdog of a detached container
 * (which knows only its own "timeout": an engine, not sbrun, reaps a
 * detached container). For a detached container without one, `state`
 * reads "oom" from its cgroup while it exists (no exit code). */
#ifndef SB_VERDICT_H
#define SB_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/cgroup/io_totals.h"
#include "runtime/container/tmpfs_watch.h"

struct sb_error;
struct oci_state;

enum verdict_kind {
        VERDICT_EXITED,
        VERDICT_SIGNALED,
        VERDICT_OOM,
        VERDICT_PIDS_LIMIT,
        VERDICT_WORKSPACE_FULL,
        VERDICT_TIMEOUT,
        VERDICT_SETUP_FAILED,
        VERDICT_OUTPUT_LIMIT,
};

#define VERDICT_OUTPUT_LIMIT_CODE 125

struct verdict {
        enum verdict_kind kind;
        int exit_code;
        int signal;
        struct tmpfs_use *full; /* set before verdict_classify; verdict_release frees */
        size_t n_full;
        const char *stream;         /* output_limit: "stdout" or "stderr" */
        int64_t bytes;              /* output_limit: what was forwarded of it */
        struct cgroup_io_totals io; /* read by verdict_classify from the cgroup */
};

void verdict_release(struct verdict *v);
static inline void verdict_releasep(struct verdict *v)
{
        verdict_release(v);
}
#define _cleanup_verdict_ __attribute__((cleanup(verdict_releasep)))

/* Markers of the state (oci/state.h), never annotations: config.json
 * cannot forge a verdict, and hooks see only the config's annotations. */
#define VERDICT_MARKER "verdict"
#define VERDICT_EXIT_CODE_MARKER "exit_code"
#define VERDICT_SIGNAL_MARKER "signal"
#define VERDICT_FULL_MARKER "full"     /* the full tmpfs' paths, comma-separated */
#define VERDICT_STREAM_MARKER "stream" /* output_limit's stream */
#define VERDICT_BYTES_MARKER "bytes"   /* and what was forwarded of it */

const char *verdict_name(enum verdict_kind kind);

/* From a waitpid status; cgroup_path (may be NULL) is read for the OOM and
 * pids counters and the io totals, so call it before the cgroup is
 * destroyed. */
void verdict_classify(struct verdict *v, int status, bool timed_out, const char *cgroup_path);

/* After verdict_classify: the output limit of stream ("stdout",
 * "stderr", a literal) tripped after bytes were forwarded. Wins over every
 * verdict but timeout (a wall clock that fired first). */
void verdict_output_limit(struct verdict *v, const char *stream, int64_t bytes);

int verdict_write_file(const char *path, const struct verdict *v, struct sb_error *err);
/* Its members ("verdict", "exit_code", "signal") into an open object. */
struct json_writer;
void verdict_write_json(struct json_writer *w, const struct verdict *v);

/* Into the state record of container id under root, as markers. */
int verdict_record(const char *root, const char *id, const struct verdict *v, struct sb_error *err);

/* A stopped container with no recorded verdict (an engine reaped it, so
 * only the engine knows its exit code): "oom" into state's markers if
 * its cgroup counted an OOM kill. Returns -1 only when out of memory. */
int verdict_annotate_oom(struct oci_state *state);

#endif
