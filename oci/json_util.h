/* Typed access to a yajl tree with errors that name the JSON path
 * ("process.rlimits[1].type: ..."), and a sticky-error wrapper over yajl_gen.
 * Used only inside oci/: other layers never see raw JSON. */
#ifndef SB_OCI_JSON_UTIL_H
#define SB_OCI_JSON_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

struct sb_error;
struct oci_kv;

/* Deeper documents are refused before yajl sees them: yajl_tree_free
 * recurses once per level, so "[[[[…" could exhaust the stack. */
#define JSON_MAX_DEPTH 128

static inline void json_tree_freep(yajl_val *v)
{
        if (*v != NULL)
                yajl_tree_free(*v);
}
#define _cleanup_json_tree_ __attribute__((cleanup(json_tree_freep)))

/* Parse len bytes (need not be NUL-terminated). On error: "invalid JSON: …". */
yajl_val json_parse(const char *json, size_t len, struct sb_error *err);

/* The path of the value being read; grows and shrinks as the parser descends. */
struct jpath {
        char buf[512];
        size_t len;
};

void jpath_init(struct jpath *p);
/* Push ".key" (or "key" at the root) / "[i]"; return the length to pop back to. */
size_t jpath_key(struct jpath *p, const char *key);
size_t jpath_index(struct jpath *p, size_t i);
void jpath_pop(struct jpath *p, size_t saved);

/* Fail with "<path>: <message>" (just the message at the root); errnum 0. */
int jfail(const struct jpath *p, struct sb_error *err, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
/* "<path>: expected <what>, got <value>". */
int jfail_type(const struct jpath *p, yajl_val v, const char *what, struct sb_error *err);
/* The value as a message shows it: "lots" quoted, 3, true, an array. Caller frees. */
char *json_describe(yajl_val v);
char *json_describe_string(const char *s);

/* The member `key` of an object, or NULL when absent or null (null means
 * "not set", as for Go's encoding/json). The last duplicate wins, likewise. */
yajl_val json_member(yajl_val obj, const char *key);

/* Conversions of a value at path p. They store nothing on error. */
int json_to_string(yajl_val v, const struct jpath *p, char **out, struct sb_error *err);
int json_to_bool(yajl_val v, const struct jpath *p, bool *out, struct sb_error *err);
int json_to_int(yajl_val v, const struct jpath *p, int64_t min, int64_t max, int64_t *out,
                struct sb_error *err);
int json_to_uint(yajl_val v, const struct jpath *p, uint64_t max, uint64_t *out,
                 struct sb_error *err);
int json_check_object(yajl_val v, const struct jpath *p, struct sb_error *err);
int json_check_array(yajl_val v, const struct jpath *p, struct sb_error *err);

/* Members of an object. Return -1 on error, 0 when absent (nothing stored),
 * 1 when present and stored. */
int json_get_string(yajl_val obj, const char *key, struct jpath *p, char **out,
                    struct sb_error *err);
int json_get_bool(yajl_val obj, const char *key, struct jpath *p, bool *out, struct sb_error *err);
int json_get_int(yajl_val obj, const char *key, struct jpath *p, int64_t min, int64_t max,
                 int64_t *out, struct sb_error *err);
int json_get_uint(yajl_val obj, const char *key, struct jpath *p, uint64_t max, uint64_t *out,
                  struct sb_error *err);
int json_get_i32(yajl_val obj, const char *key, struct jpath *p, int32_t *out,
                 struct sb_error *err);
int json_get_i64(yajl_val obj, const char *key, struct jpath *p, int64_t *out,
                 struct sb_error *err);
int json_get_u16(yajl_val obj, const char *key, struct jpath *p, uint16_t *out,
                 struct sb_error *err);
int json_get_u32(yajl_val obj, const char *key, struct jpath *p, uint32_t *out,
                 struct sb_error *err);
int json_get_u64(yajl_val obj, const char *key, struct jpath *p, uint64_t *out,
                 struct sb_error *err);
/* An object / array member: *out is the tree node (borrowed). */
int json_get_object(yajl_val obj, const char *key, struct jpath *p, yajl_val *out,
                    struct sb_error *err);
int json_get_array(yajl_val obj, const char *key, struct jpath *p, yajl_val *out,
                   struct sb_error *err);
/* An array of strings as a NULL-terminated vector. */
int json_get_strv(yajl_val obj, const char *key, struct jpath *p, char ***out, size_t *n,
                  struct sb_error *err);
/* An object whose values are all strings, in document order. */
int json_get_string_map(yajl_val obj, const char *key, struct jpath *p, struct oci_kv **out,
                        size_t *n, struct sb_error *err);
/* Fail with "<path>.key: required" when absent; like json_get_string otherwise. */
int json_require_string(yajl_val obj, const char *key, struct jpath *p, char **out,
                        struct sb_error *err);
int json_fail_required(struct jpath *p, const char *key, struct sb_error *err);

bool json_is_absolute_path(const char *s);

void oci_kv_free(struct oci_kv *kv, size_t n);
void strv_free_n(char **v, size_t n);

/* yajl_gen with a sticky error: after the first failure every call is a
 * no-op, and jgen_finish reports it once. */
struct jgen {
        yajl_gen g;
        yajl_gen_status status;
};

int jgen_init(struct jgen *j, bool pretty, struct sb_error *err);
void jgen_map_open(struct jgen *j);
void jgen_map_close(struct jgen *j);
void jgen_key(struct jgen *j, const char *key);
void jgen_string(struct jgen *j, const char *s); /* NULL writes null */
void jgen_int(struct jgen *j, long long v);
void jgen_uint(struct jgen *j, uint64_t v);
void jgen_bool(struct jgen *j, bool v);
/* key + value helpers. */
void jgen_kv_string(struct jgen *j, const char *key, const char *s);
void jgen_kv_int(struct jgen *j, const char *key, long long v);
void jgen_kv_uint(struct jgen *j, const char *key, uint64_t v);
void jgen_kv_bool(struct jgen *j, const char *key, bool v);
/* The document as a NUL-terminated copy without a trailing newline (caller
 * frees); frees the generator. */
char *jgen_finish(struct jgen *j, struct sb_error *err);
void jgen_free(struct jgen *j);

#endif
