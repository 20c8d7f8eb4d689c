/* The state record must read back exactly as written (a lost field would
 * lose track of a container), and `sbrun state` must print what runc
 * prints, because engines parse it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "oci/state.h"

#include "common/error.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

static struct oci_kv annotations[] = {
        { "org.opencontainers.image.stopSignal", "15" },
        { "io.container.manager", "libpod" },
        { "quote\"and\\slash", "line\nbreak" },
};

static struct oci_state sample(void)
{
        return (struct oci_state){
                .oci_version = "1.2.0",
                .id = "c1",
                .status = "running",
                .pid = 4242,
                .pid_start_time = UINT64_MAX,
                .bundle = "/run/bundles/c1",
                .rootfs = "/run/bundles/c1/rootfs",
                .created = "2026-11-29T09:43:59.449845035Z",
                .owner = "",
                .started = true,
                .cgroup_path = "/sys/fs/cgroup/sbrun/c1",
                .annotations = annotations,
                .n_annotations = sizeof(annotations) / sizeof(annotations[0]),
        };
}

static void assert_str_or_null_equal(const char *a, const char *b)
{
        if (a == NULL || b == NULL)
                assert_ptr_equal(a, b);
        else
                assert_string_equal(a, b);
}

static void assert_states_equal(const struct oci_state *a, const struct oci_state *b)
{
        assert_str_or_null_equal(a->oci_version, b->oci_version);
        assert_str_or_null_equal(a->id, b->id);
        assert_str_or_null_equal(a->status, b->status);
        assert_int_equal(a->pid, b->pid);
        assert_true(a->pid_start_time == b->pid_start_time);
        assert_str_or_null_equal(a->bundle, b->bundle);
        assert_str_or_null_equal(a->rootfs, b->rootfs);
        assert_str_or_null_equal(a->created, b->created);
        assert_str_or_null_equal(a->owner, b->owner);
        assert_int_equal(a->started, b->started);
        assert_str_or_null_equal(a->cgroup_path, b->cgroup_path);
        assert_int_equal(a->n_annotations, b->n_annotations);
        for (size_t i = 0; i < a->n_annotations; i++) {
                assert_string_equal(a->annotations[i].key, b->annotations[i].key);
                assert_string_equal(a->annotations[i].value, b->annotations[i].value);
        }
        assert_int_equal(a->n_markers, b->n_markers);
        for (size_t i = 0; i < a->n_markers; i++) {
                assert_string_equal(a->markers[i].key, b->markers[i].key);
                assert_string_equal(a->markers[i].value, b->markers[i].value);
        }
}

static void round_trip(const struct oci_state *in)
{
        struct sb_error err = { 0 };
        char *json = oci_state_to_record_json(in, &err);
        struct oci_state *out;
        char *again;

        assert_non_null(json);
        out = oci_state_from_record_json(json, strlen(json), "state.json", &err);
        if (out == NULL)
                fail_msg("%s", err.msg);
        assert_states_equal(in, out);
        again = oci_state_to_record_json(out, &err);
        assert_string_equal(json, again);
        free(again);
        free(json);
        oci_state_free(out);
}

static void test_record_round_trip(void **state)
{
        struct oci_state s = sample();

        round_trip(&s);
}

/* sbrun's markers survive the record, print as "sbrun" and never mix
 * with the config's annotations. */
static void test_markers_apart_from_annotations(void **state)
{
        struct oci_state s = sample();
        struct sb_error err = { 0 };

        assert_int_equal(oci_state_set_marker(&s, "resources", "unenforced"), 0);
        assert_int_equal(oci_state_set_marker(&s, "verdict", "exited"), 0);
        assert_int_equal(oci_state_set_marker(&s, "verdict", "oom"), 0);
        assert_int_equal(s.n_markers, 2);
        assert_string_equal(oci_state_marker(&s, "verdict"), "oom");
        assert_null(oci_state_marker(&s, "signal"));
        round_trip(&s);

        char *json = oci_state_to_json(&s, false, &err);
        assert_non_null(json);
        assert_non_null(
                strstr(json, ",\"sbrun\":{\"resources\":\"unenforced\",\"verdict\":\"oom\"}}"));
        assert_null(strstr(json, "\"run.sbrun."));
        free(json);
        for (size_t i = 0; i < s.n_markers; i++) {
                free(s.markers[i].key);
                free(s.markers[i].value);
        }
        free(s.markers);
}

static void test_record_round_trip_sparse(void **state)
{
        struct oci_state s = { .id = "c2", .status = "creating" };

        round_trip(&s);
}

static void test_record_errors(void **state)
{
        struct sb_error err = { 0 };
        const char *missing_id = "{\"status\":\"created\"}";
        const char *bad_pid = "{\"id\":\"x\",\"status\":\"created\",\"pid\":-5}";

        assert_null(oci_state_from_record_json(missing_id, strlen(missing_id), "state.json", &err));
        assert_string_equal(err.msg, "state.json: id: required");
        sb_error_clear(&err);
        assert_null(oci_state_from_record_json(bad_pid, strlen(bad_pid), "state.json", &err));
        assert_string_equal(err.msg, "state.json: pid: -5 is out of range (0 to 2147483647)");
        sb_error_clear(&err);
        assert_null(oci_state_from_record_json("{\"id\":", 6, "state.json", &err));
        assert_string_equal(err.msg, "state.json: invalid JSON: parse error: premature EOF");
        sb_error_clear(&err);
}

/* Records outside the plain form the fast reader takes (escapes, unknown or
 * repeated keys, null, non-ASCII, a fraction, white space) read as the full
 * parser reads them; errors in them are the full parser's. */
static struct oci_state *read_record(const char *json)
{
        struct sb_error err = { 0 };
        struct oci_state *s = oci_state_from_record_json(json, strlen(json), "state.json", &err);

        if (s == NULL)
                fail_msg("%s: %s", json, err.msg);
        return s;
}

/* The error message for a record that must not read (kept for the test's
 * life: the tests compare it). */
static const char *record_error(const char *json)
{
        static char msg[4][512];
        static int next;
        struct sb_error err = { 0 };
        struct oci_state *s = oci_state_from_record_json(json, strlen(json), "state.json", &err);

        if (s != NULL) {
                oci_state_free(s);
                return NULL;
        }
        next = (next + 1) % 4;
        snprintf(msg[next], sizeof(msg[next]), "%s", err.msg);
        sb_error_clear(&err);
        return msg[next];
}

static void test_record_unusual_forms(void **state)
{
        struct oci_state *s;

        s = read_record(" {\n \"id\" : \"a\\\"b\", \"status\":\"created\", \"pid\":7 }\n");
        assert_string_equal(s->id, "a\"b");
        assert_int_equal(s->pid, 7);
        oci_state_free(s);
        s = read_record("{\"id\":\"x\",\"status\":\"created\",\"bundle\":\"/a\\/b\\tc\"}");
        assert_string_equal(s->bundle, "/a/b\tc");
        oci_state_free(s);
        s = read_record("{\"id\":\"x\",\"status\":\"created\",\"future\":[1,{}],\"bundle\":null}");
        assert_null(s->bundle);
        oci_state_free(s);
        /* A repeated key: the last one counts. */
        s = read_record("{\"id\":\"x\",\"status\":\"created\",\"id\":\"y\"}");
        assert_string_equal(s->id, "y");
        oci_state_free(s);
        s = read_record(
                "{\"id\":\"x\",\"status\":\"created\",\"sbrun\":{\"k\":\"1\",\"k\":\"2\"}}");
        assert_int_equal(s->n_markers, 1);
        assert_string_equal(s->markers[0].value, "2");
        oci_state_free(s);
        s = read_record("{\"id\":\"x\",\"status\":\"created\",\"annotations\":{},"
                        "\"bundle\":\"/b\u00e9\xc3\xa9\",\"started\":true,\"pidStartTime\":0}");
        assert_null(s->annotations);
        assert_int_equal(s->n_annotations, 0);
        assert_string_equal(s->bundle, "/b\xc3\xa9\xc3\xa9");
        assert_true(s->started);
        oci_state_free(s);
        s = read_record(
                "{\"id\":\"x\",\"status\":\"created\",\"annotations\":{\"a\":\"1\",\"b\":\"2\"}}");
        assert_int_equal(s->n_annotations, 2);
        assert_string_equal(s->annotations[1].key, "b");
        oci_state_free(s);

        assert_non_null(strstr(record_error("{\"id\":\"x\",\"status\":\"c\",\"pid\":1.5}"), "pid"));
        assert_non_null(record_error("{\"id\":\"x\",\"status\":\"c\",\"pid\":01}"));
        assert_non_null(record_error("{\"id\":\"x\",\"status\":\"c\"} x"));
        assert_non_null(record_error("{\"id\":\"x\",\"status\":\"c\",\"bundle\":\"\x01\"}"));
        assert_string_equal(record_error("{\"id\":\"x\",\"status\":\"c\",\"pid\":2147483648}"),
                            "state.json: pid: 2147483648 is out of range (0 to 2147483647)");
        assert_string_equal(record_error("{\"id\":\"x\"}"), "state.json: status: required");
}

static void test_public_state_pretty(void **state)
{
        struct sb_error err = { 0 };
        struct oci_state s = sample();
        char *json = oci_state_to_json(&s, true, &err);

        /* runc: json.MarshalIndent(state, "", "  "), annotations sorted. */
        assert_string_equal(json, "{\n"
                                  "  \"ociVersion\": \"1.2.0\",\n"
                                  "  \"id\": \"c1\",\n"
                                  "  \"pid\": 4242,\n"
                                  "  \"status\": \"running\",\n"
                                  "  \"bundle\": \"/run/bundles/c1\",\n"
                                  "  \"rootfs\": \"/run/bundles/c1/rootfs\",\n"
                                  "  \"created\": \"2026-11-29T09:43:59.449845035Z\",\n"
                                  "  \"annotations\": {\n"
                                  "    \"io.container.manager\": \"libpod\",\n"
                                  "    \"org.opencontainers.image.stopSignal\": \"15\",\n"
                                  "    \"quote\\\"and\\\\slash\": \"line\\nbreak\"\n"
                                  "  },\n"
                                  "  \"owner\": \"\"\n"
                                  "}");
        free(json);
}

static void test_public_state_compact_stopped(void **state)
{
        struct sb_error err = { 0 };
        struct oci_state s = {
                .oci_version = "1.2.0", .id = "c3", .status = "stopped", .pid = 999, .bundle = "/b"
        };
        char *json = oci_state_to_json(&s, false, &err);

        /* A stopped container's pid may already name another process. */
        assert_string_equal(json, "{\"ociVersion\":\"1.2.0\",\"id\":\"c3\",\"pid\":0,"
                                  "\"status\":\"stopped\",\"bundle\":\"/b\",\"rootfs\":\"\","
                                  "\"created\":\"\",\"owner\":\"\"}");
        free(json);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_record_round_trip),
                cmocka_unit_test(test_record_round_trip_sparse),
                cmocka_unit_test(test_markers_apart_from_annotations),
                cmocka_unit_test(test_record_errors),
                cmocka_unit_test(test_record_unusual_forms),
                cmocka_unit_test(test_public_state_pretty),
                cmocka_unit_test(test_public_state_compact_stopped),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
