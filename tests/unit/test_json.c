/* The one JSON reader and writer of sbrun (oci/json_read.h,
 * oci/json_write.h): what the reader refuses before the tree is built,
 * the messages of its typed getters (they reach the user naming the
 * config field), and what the writer emits. */
#include "oci/json_read.h"
#include "oci/json_write.h"

#include "common/error.h"
#include "common/json_escape.h"
#include "common/text_escape.h"
#include "oci/config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

static json_val parse_ok(const char *text)
{
        struct sb_error err = { 0 };
        json_val v = json_parse(text, strlen(text), &err);

        if (v == NULL)
                fail_msg("%s: %s", text, err.msg);
        return v;
}

static void expect_parse_error(const char *text, size_t len, const char *message)
{
        struct sb_error err = { 0 };

        assert_null(json_parse(text, len, &err));
        assert_non_null(err.msg);
        assert_string_equal(err.msg, message);
        sb_error_clear(&err);
}

/* n nested arrays: "[[[...]]]". */
static char *nested(size_t n)
{
        char *s = malloc(2 * n + 1);

        assert_non_null(s);
        memset(s, '[', n);
        memset(s + n, ']', n);
        s[2 * n] = '\0';
        return s;
}

static void test_parse_depth_limit(void **state)
{
        (void)state;
        char *ok = nested(JSON_MAX_DEPTH);
        char *deep = nested(JSON_MAX_DEPTH + 1);

        json_free(parse_ok(ok));
        expect_parse_error(deep, strlen(deep), "invalid JSON: nested deeper than 128 levels");
        /* Brackets inside strings are not nesting. */
        char *in_string = malloc(2 * JSON_MAX_DEPTH + 8);
        assert_non_null(in_string);
        sprintf(in_string, "[\"%s\"]", deep);
        json_free(parse_ok(in_string));
        free(in_string);
        free(ok);
        free(deep);
}

static void test_parse_refuses_nul(void **state)
{
        (void)state;
        static const char with_nul[] = "{\"a\":\"x\"}\0{}";

        expect_parse_error(with_nul, sizeof(with_nul) - 1, "invalid JSON: NUL byte in document");
        expect_parse_error("{\"path\":\"/proc\\u0000/x\"}", 24,
                           "invalid JSON: strings must not contain \\u0000");
        /* An escaped backslash before u0000 is not an escape of NUL. */
        json_val v = parse_ok("{\"s\":\"a\\\\u0000\"}");
        assert_string_equal(json_string_value(json_member(v, "s")), "a\\u0000");
        json_free(v);
}

static void test_parse_syntax_error(void **state)
{
        (void)state;
        struct sb_error err = { 0 };

        assert_null(json_parse("{\"a\":", 5, &err));
        assert_non_null(err.msg);
        assert_string_equal(err.msg, "invalid JSON: parse error: premature EOF");
        sb_error_clear(&err);
        /* The length is what counts, not a terminator. */
        json_val v = json_parse("[1]garbage", 3, &err);
        assert_non_null(v);
        assert_int_equal(json_array_len(v), 1);
        json_free(v);
}

static const char doc[] = "{\"s\":\"text\",\"t\":true,\"n\":-5,\"big\":70000,\"f\":1.5,\"e\":1e3,"
                          "\"neg\":-1,\"huge\":99999999999999999999,\"nul\":null,"
                          "\"o\":{\"list\":[\"a\",3]},\"map\":{\"k\":\"v\",\"k\":\"w\"}}";

/* The getter's message for member key of doc (at path "cfg"). */
static char *getter_error(int (*get)(json_val, const char *, struct jpath *, struct sb_error *),
                          const char *key)
{
        struct sb_error err = { 0 };
        struct jpath p;
        json_val v = parse_ok(doc);
        char *msg;

        jpath_init(&p);
        jpath_key(&p, "cfg");
        assert_int_equal(get(v, key, &p, &err), -1);
        assert_string_equal(p.buf, "cfg"); /* the path is popped back */
        assert_non_null(err.msg);
        msg = strdup(err.msg);
        sb_error_clear(&err);
        json_free(v);
        return msg;
}

static int get_u16(json_val o, const char *key, struct jpath *p, struct sb_error *err)
{
        uint16_t out = 7;
        int r = json_get_u16(o, key, p, &out, err);

        if (r < 0)
                assert_int_equal(out, 7); /* nothing stored on error */
        return r;
}

static int get_i32(json_val o, const char *key, struct jpath *p, struct sb_error *err)
{
        int32_t out;
        return json_get_i32(o, key, p, &out, err);
}

static int get_i64(json_val o, const char *key, struct jpath *p, struct sb_error *err)
{
        int64_t out;
        return json_get_i64(o, key, p, &out, err);
}

static int get_string(json_val o, const char *key, struct jpath *p, struct sb_error *err)
{
        char *out = NULL;
        int r = json_get_string(o, key, p, &out, err);

        free(out);
        return r;
}

static int get_bool(json_val o, const char *key, struct jpath *p, struct sb_error *err)
{
        bool out;
        return json_get_bool(o, key, p, &out, err);
}

static int get_object(json_val o, const char *key, struct jpath *p, struct sb_error *err)
{
        json_val out;
        return json_get_object(o, key, p, &out, err);
}

static int require_string(json_val o, const char *key, struct jpath *p, struct sb_error *err)
{
        char *out = NULL;
        int r = json_require_string(o, key, p, &out, err);

        free(out);
        return r;
}

static void expect_getter_error(int (*get)(json_val, const char *, struct jpath *,
                                           struct sb_error *),
                                const char *key, const char *message)
{
        char *msg = getter_error(get, key);

        assert_string_equal(msg, message);
        free(msg);
}

static void test_getter_errors(void **state)
{
        (void)state;
        expect_getter_error(get_u16, "big", "cfg.big: 70000 is out of range (0 to 65535)");
        expect_getter_error(get_u16, "neg", "cfg.neg: expected a non-negative integer, got -1");
        expect_getter_error(get_u16, "f", "cfg.f: expected an integer, got 1.5");
        expect_getter_error(get_u16, "e", "cfg.e: expected an integer, got 1e3");
        expect_getter_error(get_u16, "s", "cfg.s: expected an integer, got \"text\"");
        expect_getter_error(get_i32, "huge",
                            "cfg.huge: 99999999999999999999 is out of range "
                            "(-2147483648 to 2147483647)");
        expect_getter_error(get_i64, "huge",
                            "cfg.huge: 99999999999999999999 is out of range "
                            "(-9223372036854775808 to 9223372036854775807)");
        expect_getter_error(get_i32, "t", "cfg.t: expected an integer, got true");
        expect_getter_error(get_string, "n", "cfg.n: expected a string, got -5");
        expect_getter_error(get_string, "o", "cfg.o: expected a string, got an object");
        expect_getter_error(get_bool, "s", "cfg.s: expected a boolean, got \"text\"");
        expect_getter_error(get_object, "s", "cfg.s: expected an object, got \"text\"");
        expect_getter_error(require_string, "absent", "cfg.absent: required");
        expect_getter_error(require_string, "nul", "cfg.nul: required");
}

static void test_getter_values(void **state)
{
        (void)state;
        struct sb_error err = { 0 };
        struct jpath p;
        json_val v = parse_ok(doc), o = NULL;
        int32_t i32 = 0;
        uint16_t u16 = 0;
        char **strv = NULL;
        struct oci_kv *kv = NULL;
        size_t n = 0;

        jpath_init(&p);
        assert_int_equal(json_get_i32(v, "n", &p, &i32, &err), 1);
        assert_int_equal(i32, -5);
        /* Absent and null: 0, nothing stored. */
        assert_int_equal(json_get_u16(v, "absent", &p, &u16, &err), 0);
        assert_int_equal(json_get_u16(v, "nul", &p, &u16, &err), 0);
        assert_int_equal(u16, 0);
        /* The last duplicate wins, in place. */
        assert_int_equal(json_get_string_map(v, "map", &p, &kv, &n, &err), 1);
        assert_int_equal(n, 1);
        assert_string_equal(kv[0].value, "w");
        oci_kv_free(kv, n);
        /* The element's index is in the path. */
        assert_int_equal(json_get_object(v, "o", &p, &o, &err), 1);
        jpath_key(&p, "o");
        assert_int_equal(json_get_strv(o, "list", &p, &strv, &n, &err), -1);
        assert_null(strv);
        assert_string_equal(err.msg, "o.list[1]: expected a string, got 3");
        assert_string_equal(p.buf, "o");
        sb_error_clear(&err);
        json_free(v);
}

static void test_accessors(void **state)
{
        (void)state;
        json_val v = parse_ok(doc);
        int64_t n = 0;

        assert_true(json_integer_value(json_member(v, "n"), &n));
        assert_int_equal(n, -5);
        assert_false(json_integer_value(json_member(v, "f"), &n));
        assert_false(json_integer_value(json_member(v, "e"), &n));
        assert_false(json_integer_value(json_member(v, "huge"), &n));
        assert_false(json_integer_value(json_member(v, "s"), &n));
        assert_string_equal(json_number_text(json_member(v, "e")), "1e3");
        assert_null(json_string_value(json_member(v, "n")));
        assert_true(json_is_true(json_member(v, "t")));
        assert_int_equal(json_object_len(v), 11);
        assert_string_equal(json_object_key(v, 0), "s");
        assert_null(json_object_key(v, 11));
        assert_null(json_array_at(v, 0)); /* not an array */
        assert_int_equal(json_array_len(NULL), 0);
        json_free(v);
}

static int count_member(const char *key, json_val value, struct jpath *p, void *ctx,
                        struct sb_error *err)
{
        (void)value;
        if (strcmp(key, "t") == 0)
                return jfail(p, err, "refused");
        ++*(int *)ctx;
        return 0;
}

static void test_each_member(void **state)
{
        (void)state;
        struct sb_error err = { 0 };
        struct jpath p;
        json_val v = parse_ok(doc);
        int seen = 0;

        jpath_init(&p);
        jpath_key(&p, "top");
        assert_int_equal(json_each_member(v, &p, count_member, &seen, &err), -1);
        assert_int_equal(seen, 1);
        assert_string_equal(err.msg, "top.t: refused");
        assert_string_equal(p.buf, "top");
        sb_error_clear(&err);
        json_free(v);
}

/* The writer's document as a string; fails the test on error. */
static char *finish(struct json_writer *w)
{
        struct sb_error err = { 0 };
        char *out = jw_to_string(w, &err);

        if (out == NULL)
                fail_msg("%s", err.msg);
        jw_free(w);
        return out;
}

static struct json_writer *writer(const char *indent)
{
        struct sb_error err = { 0 };
        struct json_writer *w = jw_new(indent, &err);

        assert_non_null(w);
        return w;
}

static void test_write_nesting(void **state)
{
        (void)state;
        struct json_writer *w = writer(NULL);

        jw_object_begin(w);
        jw_kv_string(w, "id", "c1");
        jw_kv_array_begin(w, "list");
        jw_object_begin(w);
        jw_kv_bool(w, "on", true);
        jw_kv_null(w, "none");
        jw_kv_string(w, "unset", NULL);
        jw_object_end(w);
        jw_array_begin(w);
        jw_array_end(w);
        jw_strv(w, (const char *const[]){ "a", "b", NULL });
        jw_array_end(w);
        jw_kv_object_begin(w, "empty");
        jw_object_end(w);
        jw_object_end(w);
        char *out = finish(w);
        assert_string_equal(out,
                            "{\"id\":\"c1\",\"list\":[{\"on\":true,\"none\":null,\"unset\":null},"
                            "[],[\"a\",\"b\"]],\"empty\":{}}");
        free(out);

        w = writer("\t");
        jw_object_begin(w);
        jw_kv_strv(w, "args", (const char *const[]){ "sh", NULL });
        jw_kv_int(w, "n", 1);
        jw_object_end(w);
        out = finish(w);
        assert_string_equal(out, "{\n\t\"args\": [\n\t\t\"sh\"\n\t],\n\t\"n\": 1\n}");
        free(out);
}

static void test_write_numbers(void **state)
{
        (void)state;
        struct json_writer *w = writer(NULL);

        jw_array_begin(w);
        jw_int(w, 0);
        jw_int(w, -1);
        jw_int(w, INT64_MIN);
        jw_int(w, INT64_MAX);
        jw_uint(w, UINT64_MAX);
        jw_bool(w, false);
        jw_null(w);
        jw_array_end(w);
        char *out = finish(w);
        assert_string_equal(out, "[0,-1,-9223372036854775808,9223372036854775807,"
                                 "18446744073709551615,false,null]");
        free(out);
}

/* Whatever the bytes, the reader must get the same string back. */
static void test_write_escaping(void **state)
{
        (void)state;
        static const char raw[] = "quote\" back\\ nl\n cr\r tab\t bell\x07 esc\x1b /slash é";
        struct json_writer *w = writer(NULL);

        jw_object_begin(w);
        jw_kv_string(w, "k\"ey\n", raw);
        jw_object_end(w);
        char *out = finish(w);
        assert_string_equal(out, "{\"k\\\"ey\\n\":\"quote\\\" back\\\\ nl\\n cr\\r tab\\t "
                                 "bell\\u0007 esc\\u001B /slash é\"}");
        json_val v = parse_ok(out);
        assert_string_equal(json_object_key(v, 0), "k\"ey\n");
        assert_string_equal(json_string_value(json_object_value(v, 0)), raw);
        json_free(v);
        free(out);
}

/* Bytes that are no UTF-8 (an exec argument): as the text \xHH where the
 * writer is told to, so the document stays JSON; valid sequences, however
 * long, stay; overlong forms and surrogates are no UTF-8. */
static void test_write_invalid_utf8(void **state)
{
        (void)state;
        struct json_writer *w = writer(NULL);

        jw_escape_invalid_utf8(w);
        jw_array_begin(w);
        jw_string(w, "a\xff b\xc3 é € \xf0\x9f\x98\x80 \xc0\xaf \xed\xa0\x80");
        jw_array_end(w);
        char *out = finish(w);
        assert_string_equal(out, "[\"a\\\\xff b\\\\xc3 é € \xf0\x9f\x98\x80 \\\\xc0\\\\xaf "
                                 "\\\\xed\\\\xa0\\\\x80\"]");
        json_val v = parse_ok(out);
        json_free(v);
        free(out);

        /* The log's escaping (common/json_escape.h) does the same. */
        char *esc = sb_json_escape("a\xff \"é\"");
        assert_string_equal(esc, "a\\\\xff \\\"é\\\"");
        free(esc);
}

/* A table cell (common/text_escape.h): nothing that ends the row or drives
 * the terminal; backslashes and printable text as they are. */
static void test_text_escape(void **state)
{
        (void)state;
        static const struct {
                const char *in, *out;
        } cases[] = {
                { "plain é \\n", "plain é \\n" },
                { "a\nb\rc\td", "a\\nb\\rc\\td" },
                { "\x1b[2J\x7f\x01", "\\x1b[2J\\x7f\\x01" },
                { "csi\xc2\x9b", "csi\\u009b" },
                { "\xe2\x80\xa8ls \xe2\x80\xaertl \xe2\x81\xa6iso",
                  "\\u2028ls \\u202ertl \\u2066iso" },
                { "\xff\xc3", "\\xff\\xc3" },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char *got = sb_text_escape(cases[i].in);
                assert_string_equal(got, cases[i].out);
                free(got);
        }
}

static void expect_write_error(struct json_writer *w, const char *message)
{
        struct sb_error err = { 0 };

        assert_null(jw_to_string(w, &err));
        assert_non_null(err.msg);
        assert_string_equal(err.msg, message);
        sb_error_clear(&err);
        jw_free(w);
}

static void test_write_errors(void **state)
{
        (void)state;
        struct json_writer *w = writer(NULL);

        /* An object's member needs a key: the error sticks. */
        jw_object_begin(w);
        jw_int(w, 1);
        jw_kv_int(w, "a", 2);
        jw_object_end(w);
        expect_write_error(w, "generating JSON failed (yajl_gen status 1)");

        w = writer(NULL);
        jw_object_begin(w);
        jw_kv_array_begin(w, "open");
        jw_array_end(w);
        expect_write_error(w, "generating JSON failed (incomplete document)");

        expect_write_error(writer(NULL), "generating JSON failed (incomplete document)");
}

static void test_write_fd_and_file(void **state)
{
        (void)state;
        struct sb_error err = { 0 };
        struct json_writer *w = writer("  ");
        char buf[64] = "";
        int p[2];

        jw_object_begin(w);
        jw_kv_int(w, "a", 1);
        jw_object_end(w);
        assert_int_equal(pipe(p), 0);
        assert_int_equal(jw_write_fd(w, p[1], &err), 0);
        close(p[1]);
        assert_int_equal(read(p[0], buf, sizeof(buf) - 1), 13);
        close(p[0]);
        assert_string_equal(buf, "{\n  \"a\": 1\n}\n");

        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        assert_non_null(f);
        assert_int_equal(jw_print(w, f, &err), 0);
        fclose(f);
        assert_string_equal(text, "{\n  \"a\": 1\n}\n");
        free(text);
        jw_free(w);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_depth_limit),  cmocka_unit_test(test_parse_refuses_nul),
                cmocka_unit_test(test_parse_syntax_error), cmocka_unit_test(test_getter_errors),
                cmocka_unit_test(test_getter_values),      cmocka_unit_test(test_accessors),
                cmocka_unit_test(test_each_member),        cmocka_unit_test(test_write_nesting),
                cmocka_unit_test(test_write_numbers),      cmocka_unit_test(test_write_escaping),
                cmocka_unit_test(test_write_errors),       cmocka_unit_test(test_write_fd_and_file),
                cmocka_unit_test(test_write_invalid_utf8), cmocka_unit_test(test_text_escape),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
