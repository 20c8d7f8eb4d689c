#include "runtime/container/verdict.h"

#include "common/caller_file.h"
#include "common/cleanup.h"
#include "common/error.h"
#include "oci/json_write.h"
#include "oci/state.h"
#include "runtime/cgroup/cgroup_manager.h"
#include "runtime/container/state_dir.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char *verdict_name(enum verdict_kind kind)
{
        static const char *const names[] = {
                [VERDICT_EXITED] = "exited",
                [VERDICT_SIGNALED] = "signaled",
                [VERDICT_OOM] = "oom",
                [VERDICT_PIDS_LIMIT] = "pids_limit",
                [VERDICT_WORKSPACE_FULL] = "workspace_full",
                [VERDICT_TIMEOUT] = "timeout",
                [VERDICT_SETUP_FAILED] = "setup_failed",
                [VERDICT_OUTPUT_LIMIT] = "output_limit",
        };
        return names[kind];
}

/* io NULL: not read. */
static void cgroup_counters(const char *path, uint64_t *oom_kills, uint64_t *fork_refusals,
                            struct cgroup_io_totals *io)
{
        _cleanup_cgroup_ struct cgroup cg = CGROUP_INIT;
        struct sb_error err = { 0 };

        *oom_kills = *fork_refusals = 0;
        if (path == NULL || cgroup_open(path, &cg, &err) < 0) {
                sb_error_clear(&err);
                return;
        }
        if (io != NULL)
                cgroup_io_totals_read(&cg, io);
        if (cgroup_oom_kills(&cg, oom_kills, &err) < 0)
                sb_error_clear(&err);
        if (cgroup_pids_max_events(&cg, fork_refusals, &err) < 0)
                sb_error_clear(&err);
}

void verdict_classify(struct verdict *v, int status, bool timed_out, const char *cgroup_path)
{
        uint64_t oom_kills, fork_refusals;

        if (WIFSIGNALED(status)) {
                v->kind = VERDICT_SIGNALED;
                v->signal = WTERMSIG(status);
                v->exit_code = 128 + v->signal;
        } else {
                v->kind = VERDICT_EXITED;
                v->signal = 0;
                v->exit_code = WEXITSTATUS(status);
        }
        cgroup_counters(cgroup_path, &oom_kills, &fork_refusals, &v->io);
        if (timed_out) {
                v->kind = VERDICT_TIMEOUT;
                return;
        }
        if (oom_kills > 0)
                v->kind = VERDICT_OOM;
        else if (fork_refusals > 0 && !(v->kind == VERDICT_EXITED && v->exit_code == 0))
                v->kind = VERDICT_PIDS_LIMIT;
        else if (v->n_full > 0 && !(v->kind == VERDICT_EXITED && v->exit_code == 0))
                v->kind = VERDICT_WORKSPACE_FULL;
}

void verdict_output_limit(struct verdict *v, const char *stream, int64_t bytes)
{
        if (v->kind == VERDICT_TIMEOUT)
                return;
        v->kind = VERDICT_OUTPUT_LIMIT;
        v->exit_code = VERDICT_OUTPUT_LIMIT_CODE;
        v->stream = stream;
        v->bytes = bytes;
}

void verdict_release(struct verdict *v)
{
        tmpfs_use_free(v->full, v->n_full);
        v->full = NULL;
        v->n_full = 0;
}

void verdict_write_json(struct json_writer *w, const struct verdict *v)
{
        jw_kv_string(w, "verdict", verdict_name(v->kind));
        jw_kv_int(w, "exit_code", v->exit_code);
        jw_kv_int(w, "signal", v->signal);
        if (v->kind == VERDICT_OUTPUT_LIMIT) {
                jw_kv_string(w, "stream", v->stream);
                jw_kv_int(w, "bytes", v->bytes);
        }
        cgroup_io_totals_write(w, &v->io);
        if (v->n_full == 0)
                return;
        jw_kv_array_begin(w, "full");
        for (size_t i = 0; i < v->n_full; i++) {
                jw_object_begin(w);
                jw_kv_string(w, "path", v->full[i].path);
                jw_kv_bool(w, "space", v->full[i].space);
                jw_kv_bool(w, "inodes", v->full[i].inodes);
                jw_object_end(w);
        }
        jw_array_end(w);
}

int verdict_write_file(const char *path, const struct verdict *v, struct sb_error *err)
{
        _cleanup_jw_ struct json_writer *w = jw_new(NULL, err);
        _cleanup_free_ char *text = NULL, *line = NULL;

        if (w == NULL)
                return -1;
        jw_object_begin(w);
        verdict_write_json(w, v);
        jw_object_end(w);
        text = jw_to_string(w, err);
        if (text == NULL)
                return sb_error_prefix(err, "--verdict-file %s", path);
        if (asprintf(&line, "%s\n", text) < 0)
                return sb_fail(err, ENOMEM, "--verdict-file %s", path);
        /* The container may see the directory (its results are often
         * there) and plant a symlink at the name: the file is replaced,
         * never written through (common/caller_file.h). */
        return caller_file_replace("--verdict-file", path, line, strlen(line), 0644, err);
}

int verdict_annotate_oom(struct oci_state *state)
{
        uint64_t oom_kills, fork_refusals;

        if (oci_state_marker(state, VERDICT_MARKER) != NULL)
                return 0;
        cgroup_counters(state->cgroup_path, &oom_kills, &fork_refusals, NULL);
        if (oom_kills == 0)
                return 0;
        return oci_state_set_marker(state, VERDICT_MARKER, verdict_name(VERDICT_OOM));
}

/* "/tmp,/dev/shm"; "" for none; NULL when out of memory. */
static char *full_paths(const struct verdict *v)
{
        size_t len = 1;
        char *out;

        for (size_t i = 0; i < v->n_full; i++)
                len += strlen(v->full[i].path) + 1;
        out = calloc(1, len);
        for (size_t i = 0; out != NULL && i < v->n_full; i++) {
                if (i > 0)
                        strcat(out, ",");
                strcat(out, v->full[i].path);
        }
        return out;
}

int verdict_record(const char *root, const char *id, const struct verdict *v, struct sb_error *err)
{
        _cleanup_state_dir_ struct state_dir sd = STATE_DIR_INIT;
        char code[16], sig[16], bytes[24];
        int ret = -1;

        struct oci_state *state = state_dir_open_state(root, id, &sd, err);
        if (state == NULL)
                return -1;
        snprintf(code, sizeof(code), "%d", v->exit_code);
        snprintf(sig, sizeof(sig), "%d", v->signal);
        snprintf(bytes, sizeof(bytes), "%lld", (long long)v->bytes);
        bool output = v->kind == VERDICT_OUTPUT_LIMIT;
        _cleanup_free_ char *full = full_paths(v);
        if (full == NULL ||
            oci_state_set_marker(state, VERDICT_MARKER, verdict_name(v->kind)) < 0 ||
            oci_state_set_marker(state, VERDICT_EXIT_CODE_MARKER, code) < 0 ||
            oci_state_set_marker(state, VERDICT_SIGNAL_MARKER, sig) < 0 ||
            (full[0] != '\0' && oci_state_set_marker(state, VERDICT_FULL_MARKER, full) < 0) ||
            (output && oci_state_set_marker(state, VERDICT_STREAM_MARKER, v->stream) < 0) ||
            (output && oci_state_set_marker(state, VERDICT_BYTES_MARKER, bytes) < 0))
                sb_fail(err, ENOMEM, "record the verdict of %s", id);
        else
                ret = state_dir_save(&sd, state, err);
        oci_state_free(state);
        return ret;
}
