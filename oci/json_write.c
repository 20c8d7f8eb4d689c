/* The JSON writer (oci/json_write.h): yajl_gen with a sticky status and a
 * nesting count, so that an unbalanced document is refused, not emitted. */
#include "oci/json_write.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"
#include "common/utf8.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_gen.h>

struct json_writer {
        yajl_gen g;
        yajl_gen_status status;
        size_t depth; /* objects and arrays open */
        bool started; /* a top-level value was begun */
        bool escape_invalid_utf8;
};

struct json_writer *jw_new(const char *indent, struct sb_error *err)
{
        struct json_writer *w = calloc(1, sizeof(*w));

        if (w == NULL || (w->g = yajl_gen_alloc(NULL)) == NULL) {
                free(w);
                sb_fail(err, ENOMEM, "allocating JSON generator");
                return NULL;
        }
        w->status = yajl_gen_status_ok;
        if (indent != NULL) {
                yajl_gen_config(w->g, yajl_gen_beautify, 1);
                yajl_gen_config(w->g, yajl_gen_indent_string, indent);
        }
        return w;
}

void jw_free(struct json_writer *w)
{
        if (w == NULL)
                return;
        yajl_gen_free(w->g);
        free(w);
}

/* Values and keys alike: only the first failure is kept. */
#define JW_CALL(w, call)                               \
        do {                                           \
                (w)->started = true;                   \
                if ((w)->status == yajl_gen_status_ok) \
                        (w)->status = (call);          \
        } while (0)

void jw_object_begin(struct json_writer *w)
{
        JW_CALL(w, yajl_gen_map_open(w->g));
        w->depth++;
}

void jw_object_end(struct json_writer *w)
{
        JW_CALL(w, yajl_gen_map_close(w->g));
        if (w->depth > 0)
                w->depth--;
}

void jw_array_begin(struct json_writer *w)
{
        JW_CALL(w, yajl_gen_array_open(w->g));
        w->depth++;
}

void jw_array_end(struct json_writer *w)
{
        JW_CALL(w, yajl_gen_array_close(w->g));
        if (w->depth > 0)
                w->depth--;
}

void jw_escape_invalid_utf8(struct json_writer *w)
{
        w->escape_invalid_utf8 = true;
}

/* Keys and string values: yajl_gen passes any byte through, so a string
 * that is no UTF-8 would make a document no JSON reader takes. */
static void gen_string(struct json_writer *w, const char *s)
{
        _cleanup_free_ char *fixed = NULL;

        if (w->escape_invalid_utf8 && !sb_utf8_valid(s)) {
                fixed = sb_utf8_backslash_invalid(s);
                if (fixed == NULL) {
                        JW_CALL(w, yajl_gen_invalid_string);
                        return;
                }
                s = fixed;
        }
        JW_CALL(w, yajl_gen_string(w->g, (const unsigned char *)s, strlen(s)));
}

void jw_key(struct json_writer *w, const char *key)
{
        gen_string(w, key);
}

void jw_string(struct json_writer *w, const char *s)
{
        if (s == NULL)
                JW_CALL(w, yajl_gen_null(w->g));
        else
                gen_string(w, s);
}

void jw_int(struct json_writer *w, int64_t v)
{
        JW_CALL(w, yajl_gen_integer(w->g, (long long)v));
}

/* yajl_gen_integer takes a long long; large unsigned values go as text. */
void jw_uint(struct json_writer *w, uint64_t v)
{
        char buf[32];
        int n = snprintf(buf, sizeof(buf), "%" PRIu64, v);

        JW_CALL(w, yajl_gen_number(w->g, buf, (size_t)n));
}

void jw_bool(struct json_writer *w, bool v)
{
        JW_CALL(w, yajl_gen_bool(w->g, v));
}

void jw_null(struct json_writer *w)
{
        JW_CALL(w, yajl_gen_null(w->g));
}

void jw_strv(struct json_writer *w, const char *const *v)
{
        jw_array_begin(w);
        for (; v != NULL && *v != NULL; v++)
                jw_string(w, *v);
        jw_array_end(w);
}

void jw_kv_string(struct json_writer *w, const char *key, const char *s)
{
        jw_key(w, key);
        jw_string(w, s);
}

void jw_kv_int(struct json_writer *w, const char *key, int64_t v)
{
        jw_key(w, key);
        jw_int(w, v);
}

void jw_kv_uint(struct json_writer *w, const char *key, uint64_t v)
{
        jw_key(w, key);
        jw_uint(w, v);
}

void jw_kv_bool(struct json_writer *w, const char *key, bool v)
{
        jw_key(w, key);
        jw_bool(w, v);
}

void jw_kv_null(struct json_writer *w, const char *key)
{
        jw_key(w, key);
        jw_null(w);
}

void jw_kv_strv(struct json_writer *w, const char *key, const char *const *v)
{
        jw_key(w, key);
        jw_strv(w, v);
}

void jw_kv_object_begin(struct json_writer *w, const char *key)
{
        jw_key(w, key);
        jw_object_begin(w);
}

void jw_kv_array_begin(struct json_writer *w, const char *key)
{
        jw_key(w, key);
        jw_array_begin(w);
}

/* The finished document in yajl's buffer, without the newline yajl ends a
 * beautified document with. */
static int document(struct json_writer *w, const unsigned char **buf, size_t *len,
                    struct sb_error *err)
{
        if (w->status == yajl_gen_status_ok)
                w->status = yajl_gen_get_buf(w->g, buf, len);
        if (w->status != yajl_gen_status_ok)
                return sb_fail(err, 0, "generating JSON failed (yajl_gen status %d)",
                               (int)w->status);
        if (!w->started || w->depth != 0)
                return sb_fail(err, 0, "generating JSON failed (incomplete document)");
        while (*len > 0 && (*buf)[*len - 1] == '\n')
                (*len)--;
        return 0;
}

char *jw_to_string(struct json_writer *w, struct sb_error *err)
{
        const unsigned char *buf = NULL;
        size_t len = 0;
        char *out;

        if (document(w, &buf, &len, err) < 0)
                return NULL;
        out = malloc(len + 1);
        if (out == NULL) {
                sb_fail(err, ENOMEM, "generating JSON");
                return NULL;
        }
        memcpy(out, buf, len);
        out[len] = '\0';
        return out;
}

int jw_print(struct json_writer *w, FILE *f, struct sb_error *err)
{
        const unsigned char *buf = NULL;
        size_t len = 0;

        if (document(w, &buf, &len, err) < 0)
                return -1;
        if (fwrite(buf, 1, len, f) != len || fputc('\n', f) == EOF)
                return sb_fail(err, errno, "writing JSON");
        return 0;
}

int jw_write_fd(struct json_writer *w, int fd, struct sb_error *err)
{
        const unsigned char *buf = NULL;
        size_t len = 0;

        if (document(w, &buf, &len, err) < 0)
                return -1;
        /* Document and newline in one write(). */
        _cleanup_free_ char *line = malloc(len + 1);
        if (line == NULL)
                return sb_fail(err, ENOMEM, "writing JSON");
        memcpy(line, buf, len);
        line[len] = '\n';
        if (sb_write_all(fd, line, len + 1) < 0)
                return sb_fail(err, errno, "writing JSON");
        return 0;
}
