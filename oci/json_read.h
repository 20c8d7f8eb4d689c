/* The one JSON reader of sbrun: json_parse() refuses what the tree could not
 * represent faithfully (NUL bytes, \u0000, deep nesting), and typed access
 * whose errors name the JSON path ("process.rlimits[1].type: ...").
 * Every layer reads JSON through this header; only oci/ sees the yajl tree
 * behind json_val, so nothing else needs yajl's headers. */
#ifndef SB_OCI_JSON_READ_H
#define SB_OCI_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sb_error;
struct oci_kv;

/* A node of a parsed document; the same type as yajl_val inside oci/. */
typedef struct yajl_val_s *json_val;

/* Deeper documents are refused before yajl sees them: freeing the tree
 * recurses once per level, so "[[[[…" could exhaust the stack. */
#define JSON_MAX_DEPTH 128

/* Parse len bytes (need not be NUL-terminated). On error: "invalid JSON: …". */
json_val json_parse(const char *json, size_t len, struct sb_error *err);
void json_free(json_val v);

static inline void json_tree_freep(json_val *v)
{
        json_free(*v);
}
#define _cleanup_json_tree_ __attribute__((cleanup(json_tree_freep)))

/* The shape of a value. All accept NULL (absent) and say false / 0 / NULL. */
bool json_is_object(json_val v);
bool json_is_array(json_val v);
bool json_is_string(json_val v);
bool json_is_number(json_val v);
bool json_is_true(json_val v);
bool json_is_false(json_val v);
size_t json_object_len(json_val obj);
const char *json_object_key(json_val obj, size_t i);
json_val json_object_value(json_val obj, size_t i);
size_t json_array_len(json_val arr);
json_val json_array_at(json_val arr, size_t i);
/* The string, or NULL when v is not a string. */
const char *json_string_value(json_val v);
/* A number as written in the document ("1.5", "2e3"), or NULL. */
const char *json_number_text(json_val v);
/* True when v is an integer ("-?[0-9]+", no fraction or exponent) that fits
 * in int64_t; *out is then its value. */
bool json_integer_value(json_val v, int64_t *out);

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
int jfail_type(const struct jpath *p, json_val v, const char *what, struct sb_error *err);
/* The value as a message shows it: "lots" quoted, 3, true, an array. Caller frees. */
char *json_describe(json_val v);
char *json_describe_string(const char *s);

/* The member `key` of an object, or NULL when absent or null (null means
 * "not set", as for Go's encoding/json). The last duplicate wins, likewise. */
json_val json_member(json_val obj, const char *key);

/* Calls fn for each member of object obj, in document order (duplicates
 * included), with p at the member; stops at the first failure. */
int json_each_member(json_val obj, struct jpath *p,
                     int (*fn)(const char *key, json_val value, struct jpath *p, void *ctx,
                               struct sb_error *err),
                     void *ctx, struct sb_error *err);

/* Conversions of a value at path p. They store nothing on error. */
int json_to_string(json_val v, const struct jpath *p, char **out, struct sb_error *err);
int json_to_bool(json_val v, const struct jpath *p, bool *out, struct sb_error *err);
int json_to_int(json_val v, const struct jpath *p, int64_t min, int64_t max, int64_t *out,
                struct sb_error *err);
int json_to_uint(json_val v, const struct jpath *p, uint64_t max, uint64_t *out,
                 struct sb_error *err);
int json_check_object(json_val v, const struct jpath *p, struct sb_error *err);
int json_check_array(json_val v, const struct jpath *p, struct sb_error *err);

/* Members of an object. Return -1 on error, 0 when absent (nothing stored),
 * 1 when present and stored. json_get_int and json_get_uint take the range;
 * the sized forms are those with the range of their type. */
int json_get_string(json_val obj, const char *key, struct jpath *p, char **out,
                    struct sb_error *err);
int json_get_bool(json_val obj, const char *key, struct jpath *p, bool *out, struct sb_error *err);
int json_get_int(json_val obj, const char *key, struct jpath *p, int64_t min, int64_t max,
                 int64_t *out, struct sb_error *err);
int json_get_uint(json_val obj, const char *key, struct jpath *p, uint64_t max, uint64_t *out,
                  struct sb_error *err);
int json_get_i32(json_val obj, const char *key, struct jpath *p, int32_t *out,
                 struct sb_error *err);
int json_get_i64(json_val obj, const char *key, struct jpath *p, int64_t *out,
                 struct sb_error *err);
int json_get_u16(json_val obj, const char *key, struct jpath *p, uint16_t *out,
                 struct sb_error *err);
int json_get_u32(json_val obj, const char *key, struct jpath *p, uint32_t *out,
                 struct sb_error *err);
int json_get_u64(json_val obj, const char *key, struct jpath *p, uint64_t *out,
                 struct sb_error *err);
/* An object / array member: *out is the tree node (borrowed). */
int json_get_object(json_val obj, const char *key, struct jpath *p, json_val *out,
                    struct sb_error *err);
int json_get_array(json_val obj, const char *key, struct jpath *p, json_val *out,
                   struct sb_error *err);
/* An array of strings as a NULL-terminated vector. */
int json_get_strv(json_val obj, const char *key, struct jpath *p, char ***out, size_t *n,
                  struct sb_error *err);
/* An object whose values are all strings, in document order. */
int json_get_string_map(json_val obj, const char *key, struct jpath *p, struct oci_kv **out,
                        size_t *n, struct sb_error *err);
/* Fail with "<path>.key: required" when absent; like json_get_string otherwise. */
int json_require_string(json_val obj, const char *key, struct jpath *p, char **out,
                        struct sb_error *err);
int json_fail_required(struct jpath *p, const char *key, struct sb_error *err);

#endif
