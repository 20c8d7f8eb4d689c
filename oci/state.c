/* The state record sbrun keeps per container, and the OCI state document it
 * shows to `sbrun state` and to hooks. */
#include "oci/state.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "oci/json_read.h"
#include "oci/json_write.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

void oci_state_free(struct oci_state *s)
{
        if (s == NULL)
                return;
        free(s->oci_version);
        free(s->id);
        free(s->status);
        free(s->bundle);
        free(s->rootfs);
        free(s->created);
        free(s->owner);
        free(s->cgroup_path);
        oci_kv_free(s->annotations, s->n_annotations);
        oci_kv_free(s->markers, s->n_markers);
        free(s);
}

const char *oci_state_marker(const struct oci_state *s, const char *key)
{
        for (size_t i = 0; i < s->n_markers; i++)
                if (strcmp(s->markers[i].key, key) == 0)
                        return s->markers[i].value;
        return NULL;
}

int oci_state_set_marker(struct oci_state *s, const char *key, const char *value)
{
        char *copy = strdup(value);

        if (copy == NULL)
                return -1;
        for (size_t i = 0; i < s->n_markers; i++) {
                if (strcmp(s->markers[i].key, key) == 0) {
                        free(s->markers[i].value);
                        s->markers[i].value = copy;
                        return 0;
                }
        }
        struct oci_kv *grown = realloc(s->markers, (s->n_markers + 1) * sizeof(*grown));
        if (grown == NULL) {
                free(copy);
                return -1;
        }
        s->markers = grown;
        grown[s->n_markers].key = strdup(key);
        grown[s->n_markers].value = copy;
        if (grown[s->n_markers].key == NULL) {
                free(copy);
                return -1;
        }
        s->n_markers++;
        return 0;
}

/* Absent strings stay absent in the record, so NULL reads back as NULL. */
static void gen_optional_string(struct json_writer *w, const char *key, const char *value)
{
        if (value != NULL)
                jw_kv_string(w, key, value);
}

static void gen_map(struct json_writer *w, const char *name, const struct oci_kv *kv, size_t n)
{
        jw_kv_object_begin(w, name);
        for (size_t i = 0; i < n; i++)
                jw_kv_string(w, kv[i].key, kv[i].value);
        jw_object_end(w);
}

char *oci_state_to_record_json(const struct oci_state *s, struct sb_error *err)
{
        _cleanup_jw_ struct json_writer *w = jw_new(NULL, err);

        if (w == NULL)
                return NULL;
        jw_object_begin(w);
        gen_optional_string(w, "ociVersion", s->oci_version);
        gen_optional_string(w, "id", s->id);
        gen_optional_string(w, "status", s->status);
        jw_kv_int(w, "pid", s->pid);
        jw_kv_uint(w, "pidStartTime", s->pid_start_time);
        gen_optional_string(w, "bundle", s->bundle);
        gen_optional_string(w, "rootfs", s->rootfs);
        gen_optional_string(w, "created", s->created);
        gen_optional_string(w, "owner", s->owner);
        jw_kv_bool(w, "started", s->started);
        gen_optional_string(w, "cgroupPath", s->cgroup_path);
        if (s->n_annotations > 0)
                gen_map(w, "annotations", s->annotations, s->n_annotations);
        if (s->n_markers > 0)
                gen_map(w, "sbrun", s->markers, s->n_markers);
        jw_object_end(w);
        return jw_to_string(w, err);
}

static int parse_record(json_val tree, struct oci_state *s, struct sb_error *err)
{
        struct jpath p;
        int64_t pid = 0;

        jpath_init(&p);
        if (json_check_object(tree, &p, err) < 0 ||
            json_get_string(tree, "ociVersion", &p, &s->oci_version, err) < 0 ||
            json_require_string(tree, "id", &p, &s->id, err) < 0 ||
            json_require_string(tree, "status", &p, &s->status, err) < 0 ||
            json_get_int(tree, "pid", &p, 0, INT_MAX, &pid, err) < 0 ||
            json_get_u64(tree, "pidStartTime", &p, &s->pid_start_time, err) < 0 ||
            json_get_string(tree, "bundle", &p, &s->bundle, err) < 0 ||
            json_get_string(tree, "rootfs", &p, &s->rootfs, err) < 0 ||
            json_get_string(tree, "created", &p, &s->created, err) < 0 ||
            json_get_string(tree, "owner", &p, &s->owner, err) < 0 ||
            json_get_bool(tree, "started", &p, &s->started, err) < 0 ||
            json_get_string(tree, "cgroupPath", &p, &s->cgroup_path, err) < 0 ||
            json_get_string_map(tree, "annotations", &p, &s->annotations, &s->n_annotations, err) <
                    0 ||
            json_get_string_map(tree, "sbrun", &p, &s->markers, &s->n_markers, err) < 0)
                return -1;
        s->pid = (int)pid;
        if (s->n_annotations == 0) {
                free(s->annotations);
                s->annotations = NULL;
        }
        if (s->n_markers == 0) {
                free(s->markers);
                s->markers = NULL;
        }
        return 0;
}

struct oci_state *oci_state_from_record_json(const char *json, size_t len, const char *origin,
                                             struct sb_error *err)
{
        _cleanup_json_tree_ json_val tree = json_parse(json, len, err);
        struct oci_state *s;

        if (tree == NULL) {
                sb_error_prefix(err, "%s", origin);
                return NULL;
        }
        s = calloc(1, sizeof(*s));
        if (s == NULL) {
                sb_fail(err, ENOMEM, "%s", origin);
                return NULL;
        }
        if (parse_record(tree, s, err) < 0) {
                oci_state_free(s);
                sb_error_prefix(err, "%s", origin);
                return NULL;
        }
        return s;
}

static int kv_cmp(const void *a, const void *b)
{
        const struct oci_kv *const *x = a;
        const struct oci_kv *const *y = b;

        return strcmp((*x)->key, (*y)->key);
}

/* Go writes strings, never null, for these fields; and map keys sorted. */
int oci_state_write(struct json_writer *w, const struct oci_state *s, struct sb_error *err)
{
        _cleanup_free_ const struct oci_kv **sorted = NULL;
        bool stopped = s->status != NULL && strcmp(s->status, "stopped") == 0;

        if (s->n_annotations > 0) {
                sorted = calloc(s->n_annotations, sizeof(*sorted));
                if (sorted == NULL)
                        return sb_fail(err, ENOMEM, "state");
                for (size_t i = 0; i < s->n_annotations; i++)
                        sorted[i] = &s->annotations[i];
                qsort(sorted, s->n_annotations, sizeof(*sorted), kv_cmp);
        }
        jw_object_begin(w);
        jw_kv_string(w, "ociVersion", s->oci_version ? s->oci_version : "");
        jw_kv_string(w, "id", s->id ? s->id : "");
        /* runc reports pid 0 for a stopped container: the number may
         * already belong to an unrelated process. */
        jw_kv_int(w, "pid", stopped ? 0 : s->pid);
        jw_kv_string(w, "status", s->status ? s->status : "");
        jw_kv_string(w, "bundle", s->bundle ? s->bundle : "");
        jw_kv_string(w, "rootfs", s->rootfs ? s->rootfs : "");
        jw_kv_string(w, "created", s->created ? s->created : "");
        if (s->n_annotations > 0) {
                jw_kv_object_begin(w, "annotations");
                for (size_t i = 0; i < s->n_annotations; i++)
                        jw_kv_string(w, sorted[i]->key, sorted[i]->value);
                jw_object_end(w);
        }
        jw_kv_string(w, "owner", s->owner ? s->owner : "");
        if (s->n_markers > 0)
                gen_map(w, "sbrun", s->markers, s->n_markers);
        jw_object_end(w);
        return 0;
}

char *oci_state_to_json(const struct oci_state *s, bool pretty, struct sb_error *err)
{
        _cleanup_jw_ struct json_writer *w = jw_new(pretty ? "  " : NULL, err);

        if (w == NULL || oci_state_write(w, s, err) < 0)
                return NULL;
        return jw_to_string(w, err);
}
