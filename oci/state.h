/* The container's persistent record (<root>/<id>/state.json) and the OCI
 * state document that `sbrun state` prints and hooks read on stdin. */
#ifndef SB_OCI_STATE_H
#define SB_OCI_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "oci/config.h"

struct sb_error;
struct json_writer;

struct oci_state {
        char *oci_version;
        char *id;
        char *status;            /* "creating", "created", "running", "stopped", "paused" */
        int pid;                 /* host pid of the container process, 0 if none */
        uint64_t pid_start_time; /* field 22 of /proc/<pid>/stat: defeats pid reuse */
        char *bundle;
        char *rootfs;
        char *created; /* RFC 3339 */
        char *owner;
        bool started;               /* `start` has released the process */
        char *cgroup_path;          /* absolute path of the container's cgroup, may be NULL */
        struct oci_kv *annotations; /* config.json's, exactly */
        size_t n_annotations;
        /* sbrun's own facts about the container ("resources": "unenforced",
         * "verdict", "exit_code", "signal"): kept apart from the
         * annotations, so that a hook sees only the config's, and printed
         * by `sbrun state` as the object "sbrun". */
        struct oci_kv *markers;
        size_t n_markers;
};

/* Set (or replace) marker key. Returns -1 only when out of memory. */
int oci_state_set_marker(struct oci_state *state, const char *key, const char *value);
/* The marker's value, or NULL. */
const char *oci_state_marker(const struct oci_state *state, const char *key);

/* sbrun's record, with private fields. */
char *oci_state_to_record_json(const struct oci_state *state, struct sb_error *err);
struct oci_state *oci_state_from_record_json(const char *json, size_t len, const char *origin,
                                             struct sb_error *err);

/* The runtime-spec state document (ociVersion, id, status, pid, bundle,
 * annotations) plus runc's `created`, `rootfs`, `owner`. pretty selects
 * runc's indented output for `sbrun state`. */
char *oci_state_to_json(const struct oci_state *state, bool pretty, struct sb_error *err);
/* The same document as a value of a larger one (list, the seccomp
 * listener's container process state). */
int oci_state_write(struct json_writer *w, const struct oci_state *state, struct sb_error *err);

void oci_state_free(struct oci_state *state);

#endif
