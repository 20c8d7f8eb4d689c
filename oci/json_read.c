/* The JSON reader (oci/json_read.h): yajl builds the tree, this file checks
 * what yajl would let through and converts values with path-naming errors. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* asprintf */
#endif
#include "oci/json_read.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/json_escape.h"
#include "common/strv.h"
#include "oci/config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

/* One pass over the raw text before yajl builds the tree. Refuses nesting
 * that would overflow yajl_tree_free's recursion, and \u0000 escapes: the
 * tree hands strings out as C strings, so "/proc\u0000/x" would silently
 * become "/proc" and we would validate something other than what was sent. */
static int json_prescan(const char *s, size_t len, struct sb_error *err)
{
        size_t depth = 0;
        bool in_string = false;

        for (size_t i = 0; i < len; i++) {
                char c = s[i];

                if (in_string) {
                        if (c == '\\') {
                                if (i + 5 < len && s[i + 1] == 'u' &&
                                    memcmp(s + i + 2, "0000", 4) == 0)
                                        return sb_fail(
                                                err, 0,
                                                "invalid JSON: strings must not contain \\u0000");
                                i++;
                        } else if (c == '"') {
                                in_string = false;
                        }
                        continue;
                }
                if (c == '"') {
                        in_string = true;
                } else if (c == '[' || c == '{') {
                        if (++depth > JSON_MAX_DEPTH)
                                return sb_fail(err, 0, "invalid JSON: nested deeper than %d levels",
                                               JSON_MAX_DEPTH);
                } else if ((c == ']' || c == '}') && depth > 0) {
                        depth--;
                }
        }
        return 0;
}

yajl_val json_parse(const char *json, size_t len, struct sb_error *err)
{
        char errbuf[1024] = "";
        _cleanup_free_ char *text = NULL;
        yajl_val tree;

        if (memchr(json, '\0', len) != NULL)
                return sb_fail(err, 0, "invalid JSON: NUL byte in document"), NULL;
        if (json_prescan(json, len, err) < 0)
                return NULL;
        text = malloc(len + 1);
        if (text == NULL)
                return sb_fail(err, ENOMEM, "parsing JSON"), NULL;
        memcpy(text, json, len);
        text[len] = '\0';

        tree = yajl_tree_parse(text, errbuf, sizeof(errbuf));
        if (tree == NULL) {
                /* yajl's verbose message repeats the input and draws an arrow
                 * on the following lines; the first line is the diagnosis. */
                errbuf[strcspn(errbuf, "\n")] = '\0';
                if (errbuf[0] == '\0')
                        return sb_fail(err, 0, "invalid JSON"), NULL;
                return sb_fail(err, 0, "invalid JSON: %s", errbuf), NULL;
        }
        return tree;
}

void jpath_init(struct jpath *p)
{
        p->buf[0] = '\0';
        p->len = 0;
}

/* A path longer than the buffer is clipped: the message is still useful.
 * Plain copies, no printf: every member read pushes a key, and `sbrun list`
 * reads a record per container, so this runs thousands of times. */
static void jpath_put(struct jpath *p, const char *text)
{
        size_t n = strlen(text), room = sizeof(p->buf) - 1 - p->len;

        if (n > room)
                n = room;
        memcpy(p->buf + p->len, text, n);
        p->len += n;
        p->buf[p->len] = '\0';
}

static size_t jpath_append(struct jpath *p, const char *prefix, const char *text)
{
        size_t saved = p->len;

        jpath_put(p, prefix);
        jpath_put(p, text);
        return saved;
}

size_t jpath_key(struct jpath *p, const char *key)
{
        return jpath_append(p, p->len == 0 ? "" : ".", key);
}

size_t jpath_index(struct jpath *p, size_t i)
{
        char digits[32];

        snprintf(digits, sizeof(digits), "[%zu]", i);
        return jpath_append(p, "", digits);
}

void jpath_pop(struct jpath *p, size_t saved)
{
        p->len = saved;
        p->buf[saved] = '\0';
}

int jfail(const struct jpath *p, struct sb_error *err, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        sb_failv(err, 0, fmt, ap);
        va_end(ap);
        if (p->len > 0)
                sb_error_prefix(err, "%s", p->buf);
        return -1;
}

char *json_describe(yajl_val v)
{
        enum { MAX_SHOWN = 80 };
        char *out = NULL;

        if (v == NULL || YAJL_IS_NULL(v))
                return strdup("null");
        switch (v->type) {
        case yajl_t_string: {
                _cleanup_free_ char *esc = sb_json_escape(v->u.string);
                if (esc == NULL)
                        return NULL;
                if (strlen(esc) > MAX_SHOWN) {
                        if (asprintf(&out, "\"%.*s\"...", MAX_SHOWN, esc) < 0)
                                out = NULL;
                } else if (asprintf(&out, "\"%s\"", esc) < 0) {
                        out = NULL;
                }
                return out;
        }
        case yajl_t_number:
                return strdup(v->u.number.r);
        case yajl_t_true:
                return strdup("true");
        case yajl_t_false:
                return strdup("false");
        case yajl_t_object:
                return strdup("an object");
        case yajl_t_array:
                return strdup("an array");
        default:
                return strdup("null");
        }
}

char *json_describe_string(const char *s)
{
        struct yajl_val_s v = { .type = yajl_t_string, .u.string = (char *)s };

        return json_describe(&v);
}

int jfail_type(const struct jpath *p, yajl_val v, const char *what, struct sb_error *err)
{
        _cleanup_free_ char *shown = json_describe(v);

        return jfail(p, err, "expected %s, got %s", what, shown ? shown : "?");
}

yajl_val json_member(yajl_val obj, const char *key)
{
        if (!YAJL_IS_OBJECT(obj))
                return NULL;
        for (size_t i = obj->u.object.len; i-- > 0;) {
                if (strcmp(obj->u.object.keys[i], key) == 0) {
                        yajl_val v = obj->u.object.values[i];
                        return YAJL_IS_NULL(v) ? NULL : v;
                }
        }
        return NULL;
}

int json_each_member(yajl_val obj, struct jpath *p,
                     int (*fn)(const char *key, yajl_val value, struct jpath *p, void *ctx,
                               struct sb_error *err),
                     void *ctx, struct sb_error *err)
{
        for (size_t i = 0; i < json_object_len(obj); i++) {
                const char *key = obj->u.object.keys[i];
                size_t saved = jpath_key(p, key);
                int r = fn(key, obj->u.object.values[i], p, ctx, err);

                jpath_pop(p, saved);
                if (r < 0)
                        return -1;
        }
        return 0;
}

int json_to_string(yajl_val v, const struct jpath *p, char **out, struct sb_error *err)
{
        char *s;

        if (!YAJL_IS_STRING(v))
                return jfail_type(p, v, "a string", err);
        s = strdup(v->u.string);
        if (s == NULL)
                return sb_fail(err, ENOMEM, "%s", p->buf);
        *out = s;
        return 0;
}

int json_to_bool(yajl_val v, const struct jpath *p, bool *out, struct sb_error *err)
{
        if (YAJL_IS_TRUE(v))
                *out = true;
        else if (YAJL_IS_FALSE(v))
                *out = false;
        else
                return jfail_type(p, v, "a boolean", err);
        return 0;
}

/* yajl keeps the number's text; only "-?[0-9]+" is an integer to us, so
 * 1.5 and 1e3 are refused rather than rounded. */
static bool is_integer_text(const char *s)
{
        if (*s == '-')
                s++;
        if (*s == '\0')
                return false;
        for (; *s; s++)
                if (*s < '0' || *s > '9')
                        return false;
        return true;
}

int json_to_int(yajl_val v, const struct jpath *p, int64_t min, int64_t max, int64_t *out,
                struct sb_error *err)
{
        const char *text;
        long long n;

        if (!YAJL_IS_NUMBER(v) || !is_integer_text(v->u.number.r))
                return jfail_type(p, v, "an integer", err);
        text = v->u.number.r;
        errno = 0;
        n = strtoll(text, NULL, 10);
        if (errno == ERANGE || n < min || n > max)
                return jfail(p, err, "%s is out of range (%" PRId64 " to %" PRId64 ")", text, min,
                             max);
        *out = n;
        return 0;
}

int json_to_uint(yajl_val v, const struct jpath *p, uint64_t max, uint64_t *out,
                 struct sb_error *err)
{
        const char *text;
        unsigned long long n;

        if (!YAJL_IS_NUMBER(v) || !is_integer_text(v->u.number.r))
                return jfail_type(p, v, "an integer", err);
        text = v->u.number.r;
        if (text[0] == '-')
                return jfail_type(p, v, "a non-negative integer", err);
        errno = 0;
        n = strtoull(text, NULL, 10);
        if (errno == ERANGE || n > max)
                return jfail(p, err, "%s is out of range (0 to %" PRIu64 ")", text, max);
        *out = n;
        return 0;
}

int json_check_object(yajl_val v, const struct jpath *p, struct sb_error *err)
{
        return YAJL_IS_OBJECT(v) ? 0 : jfail_type(p, v, "an object", err);
}

int json_check_array(yajl_val v, const struct jpath *p, struct sb_error *err)
{
        return YAJL_IS_ARRAY(v) ? 0 : jfail_type(p, v, "an array", err);
}

/* Every json_get_* is "find the member, point the path at it, convert":
 * member_enter does the first two (returning NULL when the member is
 * absent), member_leave pops the path and maps the result to -1 / 1. */
static yajl_val member_enter(yajl_val obj, const char *key, struct jpath *p, size_t *saved)
{
        yajl_val v = json_member(obj, key);

        if (v != NULL)
                *saved = jpath_key(p, key);
        return v;
}

static int member_leave(struct jpath *p, size_t saved, int r)
{
        jpath_pop(p, saved);
        return r < 0 ? -1 : 1;
}

int json_get_string(yajl_val obj, const char *key, struct jpath *p, char **out,
                    struct sb_error *err)
{
        size_t saved = 0;
        yajl_val v = member_enter(obj, key, p, &saved);

        return v == NULL ? 0 : member_leave(p, saved, json_to_string(v, p, out, err));
}

int json_require_string(yajl_val obj, const char *key, struct jpath *p, char **out,
                        struct sb_error *err)
{
        int r = json_get_string(obj, key, p, out, err);

        if (r == 0)
                return json_fail_required(p, key, err);
        return r;
}

int json_fail_required(struct jpath *p, const char *key, struct sb_error *err)
{
        size_t saved = jpath_key(p, key);

        jfail(p, err, "required");
        jpath_pop(p, saved);
        return -1;
}

int json_get_bool(yajl_val obj, const char *key, struct jpath *p, bool *out, struct sb_error *err)
{
        size_t saved = 0;
        yajl_val v = member_enter(obj, key, p, &saved);

        return v == NULL ? 0 : member_leave(p, saved, json_to_bool(v, p, out, err));
}

int json_get_int(yajl_val obj, const char *key, struct jpath *p, int64_t min, int64_t max,
                 int64_t *out, struct sb_error *err)
{
        size_t saved = 0;
        yajl_val v = member_enter(obj, key, p, &saved);

        return v == NULL ? 0 : member_leave(p, saved, json_to_int(v, p, min, max, out, err));
}

int json_get_uint(yajl_val obj, const char *key, struct jpath *p, uint64_t max, uint64_t *out,
                  struct sb_error *err)
{
        size_t saved = 0;
        yajl_val v = member_enter(obj, key, p, &saved);

        return v == NULL ? 0 : member_leave(p, saved, json_to_uint(v, p, max, out, err));
}

/* The sized getters: json_get_int / json_get_uint with their type's range. */
int json_get_i32(yajl_val obj, const char *key, struct jpath *p, int32_t *out, struct sb_error *err)
{
        int64_t v = 0;
        int r = json_get_int(obj, key, p, INT32_MIN, INT32_MAX, &v, err);

        if (r > 0)
                *out = (int32_t)v;
        return r;
}

int json_get_i64(yajl_val obj, const char *key, struct jpath *p, int64_t *out, struct sb_error *err)
{
        return json_get_int(obj, key, p, INT64_MIN, INT64_MAX, out, err);
}

int json_get_u16(yajl_val obj, const char *key, struct jpath *p, uint16_t *out,
                 struct sb_error *err)
{
        uint64_t v = 0;
        int r = json_get_uint(obj, key, p, UINT16_MAX, &v, err);

        if (r > 0)
                *out = (uint16_t)v;
        return r;
}

int json_get_u32(yajl_val obj, const char *key, struct jpath *p, uint32_t *out,
                 struct sb_error *err)
{
        uint64_t v = 0;
        int r = json_get_uint(obj, key, p, UINT32_MAX, &v, err);

        if (r > 0)
                *out = (uint32_t)v;
        return r;
}

int json_get_u64(yajl_val obj, const char *key, struct jpath *p, uint64_t *out,
                 struct sb_error *err)
{
        return json_get_uint(obj, key, p, UINT64_MAX, out, err);
}

int json_get_object(yajl_val obj, const char *key, struct jpath *p, yajl_val *out,
                    struct sb_error *err)
{
        size_t saved = 0;
        yajl_val v = member_enter(obj, key, p, &saved);

        if (v == NULL)
                return 0;
        if (member_leave(p, saved, json_check_object(v, p, err)) < 0)
                return -1;
        *out = v;
        return 1;
}

int json_get_array(yajl_val obj, const char *key, struct jpath *p, yajl_val *out,
                   struct sb_error *err)
{
        size_t saved = 0;
        yajl_val v = member_enter(obj, key, p, &saved);

        if (v == NULL)
                return 0;
        if (member_leave(p, saved, json_check_array(v, p, err)) < 0)
                return -1;
        *out = v;
        return 1;
}

int json_get_strv(yajl_val obj, const char *key, struct jpath *p, char ***out, size_t *n,
                  struct sb_error *err)
{
        yajl_val arr = NULL;
        size_t len, saved;
        char **v;
        int r = json_get_array(obj, key, p, &arr, err);

        if (r <= 0)
                return r;
        len = arr->u.array.len;
        v = calloc(len + 1, sizeof(*v));
        if (v == NULL)
                return sb_fail(err, ENOMEM, "%s", key);
        saved = jpath_key(p, key);
        for (size_t i = 0; i < len; i++) {
                size_t at = jpath_index(p, i);
                if (json_to_string(arr->u.array.values[i], p, &v[i], err) < 0) {
                        jpath_pop(p, saved);
                        strv_free_n(v, len);
                        return -1;
                }
                jpath_pop(p, at);
        }
        jpath_pop(p, saved);
        *out = v;
        *n = len;
        return 1;
}

static struct oci_kv *kv_find(struct oci_kv *kv, size_t n, const char *key)
{
        for (size_t i = 0; i < n; i++)
                if (strcmp(kv[i].key, key) == 0)
                        return &kv[i];
        return NULL;
}

int json_get_string_map(yajl_val obj, const char *key, struct jpath *p, struct oci_kv **out,
                        size_t *n, struct sb_error *err)
{
        yajl_val map = NULL;
        struct oci_kv *kv;
        size_t len, used = 0, saved;
        int r = json_get_object(obj, key, p, &map, err);

        if (r <= 0)
                return r;
        len = map->u.object.len;
        kv = calloc(len + 1, sizeof(*kv));
        if (kv == NULL)
                return sb_fail(err, ENOMEM, "%s", key);
        saved = jpath_key(p, key);
        for (size_t i = 0; i < len; i++) {
                const char *k = map->u.object.keys[i];
                size_t at = jpath_key(p, k);
                char *value = NULL;
                struct oci_kv *dup;

                if (json_to_string(map->u.object.values[i], p, &value, err) < 0) {
                        jpath_pop(p, saved);
                        oci_kv_free(kv, used);
                        return -1;
                }
                jpath_pop(p, at);
                /* A repeated key replaces the earlier value, as in Go. */
                dup = kv_find(kv, used, k);
                if (dup != NULL) {
                        free(dup->value);
                        dup->value = value;
                        continue;
                }
                kv[used].key = strdup(k);
                kv[used].value = value;
                used++;
                if (kv[used - 1].key == NULL) {
                        jpath_pop(p, saved);
                        oci_kv_free(kv, used);
                        return sb_fail(err, ENOMEM, "%s", key);
                }
        }
        jpath_pop(p, saved);
        *out = kv;
        *n = used;
        return 1;
}

void json_free(yajl_val v)
{
        if (v != NULL)
                yajl_tree_free(v);
}

bool json_is_object(yajl_val v)
{
        return v != NULL && YAJL_IS_OBJECT(v);
}

bool json_is_array(yajl_val v)
{
        return v != NULL && YAJL_IS_ARRAY(v);
}

bool json_is_string(yajl_val v)
{
        return v != NULL && YAJL_IS_STRING(v);
}

bool json_is_number(yajl_val v)
{
        return v != NULL && YAJL_IS_NUMBER(v);
}

bool json_is_true(yajl_val v)
{
        return v != NULL && YAJL_IS_TRUE(v);
}

bool json_is_false(yajl_val v)
{
        return v != NULL && YAJL_IS_FALSE(v);
}

size_t json_object_len(yajl_val obj)
{
        return json_is_object(obj) ? obj->u.object.len : 0;
}

const char *json_object_key(yajl_val obj, size_t i)
{
        return i < json_object_len(obj) ? obj->u.object.keys[i] : NULL;
}

yajl_val json_object_value(yajl_val obj, size_t i)
{
        return i < json_object_len(obj) ? obj->u.object.values[i] : NULL;
}

size_t json_array_len(yajl_val arr)
{
        return json_is_array(arr) ? arr->u.array.len : 0;
}

yajl_val json_array_at(yajl_val arr, size_t i)
{
        return i < json_array_len(arr) ? arr->u.array.values[i] : NULL;
}

const char *json_string_value(yajl_val v)
{
        return json_is_string(v) ? v->u.string : NULL;
}

const char *json_number_text(yajl_val v)
{
        return json_is_number(v) ? v->u.number.r : NULL;
}

bool json_integer_value(yajl_val v, int64_t *out)
{
        long long n;

        if (!json_is_number(v) || !is_integer_text(v->u.number.r))
                return false;
        errno = 0;
        n = strtoll(v->u.number.r, NULL, 10);
        if (errno == ERANGE)
                return false;
        *out = n;
        return true;
}
