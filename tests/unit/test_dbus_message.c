/* sbrun's D-Bus wire format (runtime/dbus/dbus_message.h): a call laid out
 * byte for byte as the specification says (header fields, their padding,
 * an array's length counted after the padding to its first element, an
 * empty array's padding), what systemd sends read back, and the reader's
 * bounds on messages that lie about their sizes. */
#include "runtime/dbus/dbus_message.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static void expect_bytes(const uint8_t *got, size_t got_len, const uint8_t *want, size_t want_len)
{
        if (got_len != want_len)
                fail_msg("%zu bytes, not %zu", got_len, want_len);
        for (size_t i = 0; i < want_len; i++) {
                if (got[i] != want[i])
                        fail_msg("byte %zu: %#04x, not %#04x", i, got[i], want[i]);
        }
}

/* The smallest call with a body: every header field padded to 8, the
 * body after the header padded to 8. */
static void test_call_layout(void **state)
{
        (void)state;
        static const uint8_t want[] = {
                'l',
                1,
                0,
                1,
                6,
                0,
                0,
                0,
                7,
                0,
                0,
                0,
                39,
                0,
                0,
                0,
                /* 16: PATH, "o", "/a" */
                1,
                1,
                'o',
                0,
                2,
                0,
                0,
                0,
                '/',
                'a',
                0,
                0,
                0,
                0,
                0,
                0,
                /* 32: MEMBER, "s", "M" */
                3,
                1,
                's',
                0,
                1,
                0,
                0,
                0,
                'M',
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                /* 48: SIGNATURE, "g", "s"; then padding to the body at 56 */
                8,
                1,
                'g',
                0,
                1,
                's',
                0,
                0,
                /* 56: the body, "x" */
                1,
                0,
                0,
                0,
                'x',
                0,
        };
        struct dbus_writer body = { 0 };
        struct dbus_call_head h = { .path = "/a", .member = "M", .signature = "s" };
        uint8_t *msg;
        size_t len;

        dbus_put_string(&body, "x");
        assert_int_equal(dbus_message_build(&h, 7, &body, &msg, &len), 0);
        expect_bytes(msg, len, want, sizeof(want));
        assert_int_equal(dbus_message_size(msg, len), (long)len);
        free(msg);
        dbus_writer_release(&body);
}

/* a(sv) holding ("A", <au [5]>), then an empty a(sa(sv)): an array's
 * length does not count the padding before its first element, and an
 * empty array of structs is still padded to 8. */
static void test_array_layout(void **state)
{
        (void)state;
        static const uint8_t want[] = {
                20,  0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 'A', 0, 2, 'a',
                'u', 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0, 0,   0, 0, 0,
        };
        struct dbus_writer w = { 0 };

        dbus_array_open(&w, 8);
        dbus_struct_open(&w);
        dbus_put_string(&w, "A");
        dbus_variant_open(&w, "au");
        dbus_array_open(&w, 4);
        dbus_put_u32(&w, 5);
        dbus_array_close(&w);
        dbus_array_close(&w);
        dbus_array_open(&w, 8);
        dbus_array_close(&w);
        assert_false(w.failed);
        expect_bytes(w.buf, w.len, want, sizeof(want));
        dbus_writer_release(&w);
}

static void test_writer_failure_sticks(void **state)
{
        (void)state;
        struct dbus_writer w = { 0 };
        struct dbus_call_head h = { .path = "/", .member = "M", .signature = "" };
        uint8_t *msg = NULL;
        size_t len;

        /* An array left open, then one closed too many. */
        dbus_array_open(&w, 4);
        assert_int_equal(dbus_message_build(&h, 1, &w, &msg, &len), -EINVAL);
        dbus_array_close(&w);
        dbus_array_close(&w);
        assert_true(w.failed);
        dbus_put_u32(&w, 1);
        assert_int_equal(dbus_message_build(&h, 1, &w, &msg, &len), -EINVAL);
        assert_null(msg);
        dbus_writer_release(&w);
}

/* A message of type, built as a call and retyped (the header's second
 * byte), so that what systemd sends can be made here. */
static uint8_t *made(const struct dbus_call_head *h, const struct dbus_writer *body, uint8_t type,
                     size_t *len)
{
        uint8_t *msg;

        assert_int_equal(dbus_message_build(h, 3, body, &msg, len), 0);
        msg[1] = type;
        return msg;
}

static void test_read_job_removed(void **state)
{
        (void)state;
        struct dbus_writer body = { 0 };
        struct dbus_call_head h = { .path = "/org/freedesktop/systemd1",
                                    .interface = "org.freedesktop.systemd1.Manager",
                                    .member = "JobRemoved",
                                    .signature = "uoss" };
        struct dbus_message m;
        struct dbus_reader r;
        const char *job, *unit, *result;
        uint32_t id;
        size_t len;

        dbus_put_u32(&body, 42);
        dbus_put_string(&body, "/org/freedesktop/systemd1/job/42");
        dbus_put_string(&body, "sbtest-1.scope");
        dbus_put_string(&body, "done");
        uint8_t *msg = made(&h, &body, DBUS_SIGNAL, &len);
        assert_int_equal(dbus_message_parse(msg, len, &m), 0);
        assert_int_equal(m.type, DBUS_SIGNAL);
        assert_string_equal(m.interface, "org.freedesktop.systemd1.Manager");
        assert_string_equal(m.member, "JobRemoved");
        dbus_reader_init(&r, &m);
        assert_true(dbus_get_u32(&r, &id));
        assert_true(dbus_get_string(&r, &job));
        assert_true(dbus_get_string(&r, &unit));
        assert_true(dbus_get_string(&r, &result));
        assert_int_equal(id, 42);
        assert_string_equal(job, "/org/freedesktop/systemd1/job/42");
        assert_string_equal(unit, "sbtest-1.scope");
        assert_string_equal(result, "done");
        /* The signature is used up: nothing more to read. */
        assert_false(dbus_get_u32(&r, &id));
        dbus_message_release(&m);
        dbus_writer_release(&body);
}

/* A property's value behind its variant, and a variant of another type
 * refused rather than read as the one asked for. */
static void test_read_variant(void **state)
{
        (void)state;
        struct dbus_writer body = { 0 };
        struct dbus_call_head h = { .path = "/", .member = "Get", .signature = "v" };
        struct dbus_message m;
        struct dbus_reader r;
        bool b = false;
        const char *s;
        size_t len;

        dbus_variant_open(&body, "b");
        dbus_put_bool(&body, true);
        uint8_t *msg = made(&h, &body, DBUS_METHOD_CALL, &len);
        assert_int_equal(dbus_message_parse(msg, len, &m), 0);
        dbus_reader_init(&r, &m);
        assert_true(dbus_get_variant(&r, "b"));
        assert_true(dbus_get_bool(&r, &b));
        assert_true(b);
        dbus_reader_init(&r, &m);
        assert_false(dbus_get_variant(&r, "s"));
        assert_false(dbus_get_string(&r, &s));
        dbus_message_release(&m);
        dbus_writer_release(&body);
}

/* Replies and errors need the fields that say what they answer. */
static void test_required_fields(void **state)
{
        (void)state;
        struct dbus_call_head h = { .path = "/", .member = "M" };
        struct dbus_message m;
        size_t len;

        /* A return without REPLY_SERIAL, an error without its name, a
         * signal without an interface, a type the wire has not. */
        static const uint8_t types[] = { DBUS_METHOD_RETURN, DBUS_ERROR, DBUS_SIGNAL, 9 };
        for (size_t i = 0; i < sizeof(types); i++) {
                uint8_t *msg = made(&h, NULL, types[i], &len);
                assert_int_equal(dbus_message_parse(msg, len, &m), -EBADMSG);
        }
}

/* The reader stays inside the message: sizes that point past its end,
 * a string without its NUL, a bool that is neither 0 nor 1. */
static void test_bounds(void **state)
{
        (void)state;
        struct dbus_writer body = { 0 };
        struct dbus_call_head h = { .path = "/", .member = "M", .signature = "sb" };
        struct dbus_message m;
        struct dbus_reader r;
        const char *s;
        bool b;
        size_t len;

        dbus_put_string(&body, "abc");
        dbus_put_u32(&body, 2); /* as "b" */
        uint8_t *msg = made(&h, &body, DBUS_METHOD_CALL, &len);
        size_t at = len - body.len;

        /* Truncated: the size says more than there is. */
        uint8_t *copy = malloc(len);
        memcpy(copy, msg, len);
        assert_int_equal(dbus_message_parse(copy, len - 1, &m), -EBADMSG);

        /* The bool is 2. */
        copy = malloc(len);
        memcpy(copy, msg, len);
        assert_int_equal(dbus_message_parse(copy, len, &m), 0);
        dbus_reader_init(&r, &m);
        assert_true(dbus_get_string(&r, &s));
        assert_string_equal(s, "abc");
        assert_false(dbus_get_bool(&r, &b));
        dbus_message_release(&m);

        /* The string's length runs past the body; then its NUL is a byte. */
        copy = malloc(len);
        memcpy(copy, msg, len);
        copy[at] = 200;
        assert_int_equal(dbus_message_parse(copy, len, &m), 0);
        dbus_reader_init(&r, &m);
        assert_false(dbus_get_string(&r, &s));
        dbus_message_release(&m);
        msg[at + 4 + 3] = 'd';
        assert_int_equal(dbus_message_parse(msg, len, &m), 0);
        dbus_reader_init(&r, &m);
        assert_false(dbus_get_string(&r, &s));
        dbus_message_release(&m);
        dbus_writer_release(&body);

        /* Not D-Bus, or more than sbrun reads. */
        static const uint8_t http[16] = "HTTP/1.1 200 OK";
        uint8_t huge[16] = { 'l', 1, 0, 1, 0, 0, 0, 0x10, 1, 0, 0, 0, 0, 0, 0, 0 };
        assert_int_equal(dbus_message_size(http, sizeof(http)), -1);
        assert_int_equal(dbus_message_size(huge, sizeof(huge)), -1);
        assert_int_equal(dbus_message_size(huge, 15), 0);
}

/* A header field the reader does not know is stepped over, whatever its
 * type, and the ones after it are still read. */
static void test_unknown_field(void **state)
{
        (void)state;
        struct dbus_writer w = { 0 };
        struct dbus_message m;

        dbus_put_byte(&w, 'l');
        dbus_put_byte(&w, DBUS_SIGNAL);
        dbus_put_byte(&w, 0);
        dbus_put_byte(&w, 1);
        dbus_put_u32(&w, 0);
        dbus_put_u32(&w, 9);
        dbus_array_open(&w, 8);
        dbus_struct_open(&w);
        dbus_put_byte(&w, 0x40);
        dbus_variant_open(&w, "a{sv}");
        dbus_array_open(&w, 8);
        dbus_struct_open(&w);
        dbus_put_string(&w, "k");
        dbus_variant_open(&w, "t");
        dbus_put_u64(&w, 1);
        dbus_array_close(&w);
        const struct {
                uint8_t code;
                const char *sig, *value;
        } fields[] = { { 1, "o", "/p" }, { 2, "s", "i.f" }, { 3, "s", "Sig" } };
        for (size_t i = 0; i < 3; i++) {
                dbus_struct_open(&w);
                dbus_put_byte(&w, fields[i].code);
                dbus_variant_open(&w, fields[i].sig);
                dbus_put_string(&w, fields[i].value);
        }
        dbus_array_close(&w);
        dbus_struct_open(&w); /* pad to 8: the (empty) body */
        assert_false(w.failed);
        assert_int_equal(dbus_message_parse(w.buf, w.len, &m), 0);
        assert_string_equal(m.path, "/p");
        assert_string_equal(m.interface, "i.f");
        assert_string_equal(m.member, "Sig");
        dbus_message_release(&m);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_call_layout),
                cmocka_unit_test(test_array_layout),
                cmocka_unit_test(test_writer_failure_sticks),
                cmocka_unit_test(test_read_job_removed),
                cmocka_unit_test(test_read_variant),
                cmocka_unit_test(test_required_fields),
                cmocka_unit_test(test_bounds),
                cmocka_unit_test(test_unknown_field),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
