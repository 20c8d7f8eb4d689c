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

/* The record as sbrun writes it, read without yajl: `sbrun list` reads one
 * record per container, and building yajl's tree costs ten times the rest.
 * The fast reader takes only the plain form of the record (the known keys,
 * each once; strings without escapes, control or non-ASCII bytes; unsigned
 * integers; true/false; the two string maps without a repeated key) and
 * answers 0 ("not plain") for anything else, which parse_record then reads,
 * so that errors, and every unusual record, get the full parser's answer. */
struct plain {
        const char *p, *end;
};

static bool plain_ws(struct plain *r)
{
        while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r'))
                r->p++;
        return r->p < r->end;
}

static bool plain_char(struct plain *r, char c)
{
        if (!plain_ws(r) || *r->p != c)
                return false;
        r->p++;
        return true;
}

/* 1: *out is the string (caller frees); 0: not plain; -1: no memory. */
static int plain_string(struct plain *r, char **out)
{
        const char *start;

        if (!plain_char(r, '"'))
                return 0;
        start = r->p;
        while (r->p < r->end && *r->p != '"') {
                unsigned char c = (unsigned char)*r->p;
                if (c < 0x20 || c >= 0x80 || c == '\\')
                        return 0;
                r->p++;
        }
        if (r->p == r->end)
                return 0;
        *out = strndup(start, (size_t)(r->p - start));
        r->p++;
        return *out == NULL ? -1 : 1;
}

/* Digits only, no leading zero, at most MAX_DIGITS of them. */
static int plain_uint(struct plain *r, int max_digits, uint64_t *out)
{
        uint64_t v = 0;
        int n = 0;

        if (!plain_ws(r))
                return 0;
        while (r->p < r->end && *r->p >= '0' && *r->p <= '9') {
                if (++n > max_digits || (n == 2 && v == 0))
                        return 0;
                v = v * 10 + (uint64_t)(*r->p - '0');
                r->p++;
        }
        if (n == 0 || (r->p < r->end && (*r->p == '.' || *r->p == 'e' || *r->p == 'E')))
                return 0;
        *out = v;
        return 1;
}

static int plain_bool(struct plain *r, bool *out)
{
        if (!plain_ws(r))
                return 0;
        if ((size_t)(r->end - r->p) >= 4 && memcmp(r->p, "true", 4) == 0) {
                r->p += 4;
                *out = true;
                return 1;
        }
        if ((size_t)(r->end - r->p) >= 5 && memcmp(r->p, "false", 5) == 0) {
                r->p += 5;
                *out = false;
                return 1;
        }
        return 0;
}

static int plain_map(struct plain *r, struct oci_kv **out, size_t *n)
{
        if (!plain_char(r, '{'))
                return 0;
        if (plain_char(r, '}'))
                return 1;
        do {
                char *key = NULL, *value = NULL;
                int ok = plain_string(r, &key);

                if (ok == 1)
                        ok = plain_char(r, ':') ? plain_string(r, &value) : 0;
                for (size_t i = 0; ok == 1 && i < *n; i++)
                        if (strcmp((*out)[i].key, key) == 0)
                                ok = 0; /* the full parser's rule for a repeat */
                if (ok == 1) {
                        struct oci_kv *grown = realloc(*out, (*n + 1) * sizeof(*grown));
                        if (grown != NULL) {
                                *out = grown;
                                grown[*n].key = key;
                                grown[*n].value = value;
                                (*n)++;
                        }
                        ok = grown != NULL ? 1 : -1;
                }
                if (ok != 1) {
                        free(key);
                        free(value);
                        return ok;
                }
        } while (plain_char(r, ','));
        return plain_char(r, '}') ? 1 : 0;
}

/* The record's keys, in the order of keys[] below. */
enum plain_key {
        K_OCI_VERSION,
        K_ID,
        K_STATUS,
        K_PID,
        K_PID_START_TIME,
        K_BUNDLE,
        K_ROOTFS,
        K_CREATED,
        K_OWNER,
        K_STARTED,
        K_CGROUP_PATH,
        K_ANNOTATIONS,
        K_SBRUN,
        K_COUNT
};

static int plain_record(const char *json, size_t len, struct oci_state *s)
{
        static const char *const keys[K_COUNT] = {
                "ociVersion", "id",    "status",  "pid",        "pidStartTime", "bundle", "rootfs",
                "created",    "owner", "started", "cgroupPath", "annotations",  "sbrun"
        };
        char **strings[K_CGROUP_PATH + 1] = {
                &s->oci_version, &s->id,      &s->status, NULL, NULL,           &s->bundle,
                &s->rootfs,      &s->created, &s->owner,  NULL, &s->cgroup_path
        };
        struct plain r = { json, json + len };
        unsigned seen = 0;
        uint64_t num;
        int ok = 1;

        if (!plain_char(&r, '{') || plain_char(&r, '}'))
                return 0;
        do {
                _cleanup_free_ char *key = NULL;
                size_t k = 0;

                ok = plain_string(&r, &key);
                if (ok != 1 || !plain_char(&r, ':'))
                        return ok < 0 ? -1 : 0;
                while (k < K_COUNT && strcmp(keys[k], key) != 0)
                        k++;
                if (k == K_COUNT || (seen & (1u << k)))
                        return 0;
                seen |= 1u << k;
                if (k == K_PID) {
                        ok = plain_uint(&r, 10, &num);
                        if (ok == 1 && num > INT_MAX)
                                ok = 0;
                        s->pid = (int)num;
                } else if (k == K_PID_START_TIME) {
                        ok = plain_uint(&r, 18, &s->pid_start_time);
                } else if (k == K_STARTED) {
                        ok = plain_bool(&r, &s->started);
                } else if (k == K_ANNOTATIONS) {
                        ok = plain_map(&r, &s->annotations, &s->n_annotations);
                } else if (k == K_SBRUN) {
                        ok = plain_map(&r, &s->markers, &s->n_markers);
                } else {
                        ok = plain_string(&r, strings[k]);
                }
                if (ok != 1)
                        return ok;
        } while (plain_char(&r, ','));
        if (!plain_char(&r, '}') || plain_ws(&r))
                return 0;
        /* id and status are required: without them, the full parser says so. */
        return (seen & (1u << K_ID)) && (seen & (1u << K_STATUS)) ? 1 : 0;
}

struct oci_state *oci_state_from_record_json(const char *json, size_t len, const char *origin,
                                             struct sb_error *err)
{
        _cleanup_json_tree_ json_val tree = NULL;
        struct oci_state *s = calloc(1, sizeof(*s));
        int plain;

        if (s == NULL) {
                sb_fail(err, ENOMEM, "%s", origin);
                return NULL;
        }
        plain = plain_record(json, len, s);
        if (plain == 1)
                return s;
        oci_state_free(s);
        if (plain < 0) {
                sb_fail(err, ENOMEM, "%s", origin);
                return NULL;
        }
        tree = json_parse(json, len, err);
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
