/* The one JSON writer of sbrun, over yajl_gen: begin/end an object or an
 * array, keys, strings (escaped by the generator), integers, booleans, null.
 * Calls never fail one by one: the first failure (a key where a value was
 * due, no memory) is remembered and every later call does nothing, so a
 * document is written as a list of fields and checked once when taken out
 * with jw_to_string, jw_print or jw_write_fd. Only oci/ sees yajl. */
#ifndef SB_OCI_JSON_WRITE_H
#define SB_OCI_JSON_WRITE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct sb_error;
struct json_writer;

/* indent NULL: the whole document on one line, no spaces ({"a":1,"b":[2]}).
 * Otherwise one member or element per line, each level indented by indent
 * ("  " as runc's `state`, "\t" as runc's `spec`), ": " after keys. */
struct json_writer *jw_new(const char *indent, struct sb_error *err);
void jw_free(struct json_writer *w);

static inline void jw_freep(struct json_writer **w)
{
        jw_free(*w);
}
#define _cleanup_jw_ __attribute__((cleanup(jw_freep)))

void jw_object_begin(struct json_writer *w);
void jw_object_end(struct json_writer *w);
void jw_array_begin(struct json_writer *w);
void jw_array_end(struct json_writer *w);

/* From now on, a key or string that is not valid UTF-8 is written with each
 * byte that is no part of a valid sequence as the text \xHH (common/utf8.h):
 * for documents that carry bytes sbrun did not choose (the audit trail's
 * exec arguments), which must stay readable JSON. Without it such bytes go
 * out as they are. */
void jw_escape_invalid_utf8(struct json_writer *w);

/* Values: alone as array elements, or after jw_key in an object. */
void jw_key(struct json_writer *w, const char *key);
void jw_string(struct json_writer *w, const char *s); /* NULL writes null */
void jw_int(struct json_writer *w, int64_t v);
void jw_uint(struct json_writer *w, uint64_t v);
void jw_bool(struct json_writer *w, bool v);
void jw_null(struct json_writer *w);
/* An array of the strings of a NULL-terminated vector. */
void jw_strv(struct json_writer *w, const char *const *v);

/* Object members: jw_key followed by the value. */
void jw_kv_string(struct json_writer *w, const char *key, const char *s);
void jw_kv_int(struct json_writer *w, const char *key, int64_t v);
void jw_kv_uint(struct json_writer *w, const char *key, uint64_t v);
void jw_kv_bool(struct json_writer *w, const char *key, bool v);
void jw_kv_null(struct json_writer *w, const char *key);
void jw_kv_strv(struct json_writer *w, const char *key, const char *const *v);
void jw_kv_object_begin(struct json_writer *w, const char *key);
void jw_kv_array_begin(struct json_writer *w, const char *key);

/* The document as a NUL-terminated copy without a trailing newline (caller
 * frees): Go's Marshal and MarshalIndent (runc) end without one either.
 * Fails if a call failed or the document is not complete. */
char *jw_to_string(struct json_writer *w, struct sb_error *err);
/* The document followed by one newline. */
int jw_print(struct json_writer *w, FILE *f, struct sb_error *err);
int jw_write_fd(struct json_writer *w, int fd, struct sb_error *err);

#endif
