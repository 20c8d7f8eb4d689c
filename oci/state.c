/* The state record sbrun keeps per container, and the OCI state document it
 * shows to `sbrun state` and to hooks. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* asprintf */
#endif
#include "oci/state.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "oci/json_util.h"

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
        free(s);
}

/* Absent strings stay absent in the record, so NULL reads back as NULL. */
static void gen_optional_string(struct jgen *j, const char *key, const char *value)
{
        if (value != NULL)
                jgen_kv_string(j, key, value);
}

static void gen_annotations(struct jgen *j, const struct oci_kv *kv, size_t n)
{
        jgen_key(j, "annotations");
        jgen_map_open(j);
        for (size_t i = 0; i < n; i++)
                jgen_kv_string(j, kv[i].key, kv[i].value);
        jgen_map_close(j);
}

char *oci_state_to_record_json(const struct oci_state *s, struct sb_error *err)
{
        struct jgen j;

        if (jgen_init(&j, false, err) < 0)
                return NULL;
        jgen_map_open(&j);
        gen_optional_string(&j, "ociVersion", s->oci_version);
        gen_optional_string(&j, "id", s->id);
        gen_optional_string(&j, "status", s->status);
        jgen_kv_int(&j, "pid", s->pid);
        jgen_kv_uint(&j, "pidStartTime", s->pid_start_time);
        gen_optional_string(&j, "bundle", s->bundle);
        gen_optional_string(&j, "rootfs", s->rootfs);
        gen_optional_string(&j, "created", s->created);
        gen_optional_string(&j, "owner", s->owner);
        jgen_kv_bool(&j, "started", s->started);
        gen_optional_string(&j, "cgroupPath", s->cgroup_path);
        if (s->n_annotations > 0)
                gen_annotations(&j, s->annotations, s->n_annotations);
        jgen_map_close(&j);
        return jgen_finish(&j, err);
}

static int parse_record(yajl_val tree, struct oci_state *s, struct sb_error *err)
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
                    0)
                return -1;
        s->pid = (int)pid;
        if (s->n_annotations == 0) {
                free(s->annotations);
                s->annotations = NULL;
        }
        return 0;
}

struct oci_state *oci_state_from_record_json(const char *json, size_t len, const char *origin,
                                             struct sb_error *err)
{
        _cleanup_json_tree_ yajl_val tree = json_parse(json, len, err);
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
char *oci_state_to_json(const struct oci_state *s, bool pretty, struct sb_error *err)
{
        _cleanup_free_ const struct oci_kv **sorted = NULL;
        struct jgen j;
        bool stopped = s->status != NULL && strcmp(s->status, "stopped") == 0;

        if (s->n_annotations > 0) {
                sorted = calloc(s->n_annotations, sizeof(*sorted));
                if (sorted == NULL) {
                        sb_fail(err, ENOMEM, "state");
                        return NULL;
                }
                for (size_t i = 0; i < s->n_annotations; i++)
                        sorted[i] = &s->annotations[i];
                qsort(sorted, s->n_annotations, sizeof(*sorted), kv_cmp);
        }
        if (jgen_init(&j, pretty, err) < 0)
                return NULL;
        jgen_map_open(&j);
        jgen_kv_string(&j, "ociVersion", s->oci_version ? s->oci_version : "");
        jgen_kv_string(&j, "id", s->id ? s->id : "");
        /* runc reports pid 0 for a stopped container: the number may
         * already belong to an unrelated process. */
        jgen_kv_int(&j, "pid", stopped ? 0 : s->pid);
        jgen_kv_string(&j, "status", s->status ? s->status : "");
        jgen_kv_string(&j, "bundle", s->bundle ? s->bundle : "");
        jgen_kv_string(&j, "rootfs", s->rootfs ? s->rootfs : "");
        jgen_kv_string(&j, "created", s->created ? s->created : "");
        if (s->n_annotations > 0) {
                jgen_key(&j, "annotations");
                jgen_map_open(&j);
                for (size_t i = 0; i < s->n_annotations; i++)
                        jgen_kv_string(&j, sorted[i]->key, sorted[i]->value);
                jgen_map_close(&j);
        }
        jgen_kv_string(&j, "owner", s->owner ? s->owner : "");
        jgen_map_close(&j);
        return jgen_finish(&j, err);
}
