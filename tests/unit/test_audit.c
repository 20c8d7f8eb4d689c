/* The audit trail's parts that need no host: the policy's "audit" settings
 * and what a failed line means (spec/audit_policy.c), SHA-256 on the
 * standard's vectors (common/sha256.c), and a line read back
 * (oci/audit_record.c). Writing, rotating and reading the log for real is
 * tests/integration/audit.bats. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "common/error.h"
#include "common/sha256.h"
#include "oci/audit_record.h"
#include "spec/audit_policy.h"
#include "spec/operator_policy.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static int parse(const char *doc, struct operator_policy *p, char **msg)
{
        struct sb_error err = { 0 };
        int r = operator_policy_parse(doc, strlen(doc), "test", p, &err);

        *msg = r < 0 ? sb_error_text(&err) : NULL;
        sb_error_clear(&err);
        return r;
}

static void test_defaults_and_settings(void **state)
{
        struct operator_policy p;
        char *msg;

        (void)state;
        assert_int_equal(parse("{}", &p, &msg), 0);
        assert_int_equal(p.audit.sink, AUDIT_FILE);
        assert_null(p.audit.path); /* AUDIT_DEFAULT_LOG */
        assert_false(p.audit.fsync);
        assert_int_equal(p.audit.max_size, 64 << 20);
        assert_int_equal(p.audit.keep, 4);
        operator_policy_release(&p);

        assert_int_equal(parse("{\"audit\": {\"log\": \"/srv/log/a.jsonl\", \"fsync\": true, "
                               "\"max_size\": \"1M\", \"keep\": 9}}",
                               &p, &msg),
                         0);
        assert_string_equal(p.audit.path, "/srv/log/a.jsonl");
        assert_true(p.audit.fsync);
        assert_int_equal(p.audit.max_size, 1 << 20);
        assert_int_equal(p.audit.keep, 9);
        operator_policy_release(&p);

        assert_int_equal(parse("{\"audit\": {\"log\": \"journald\"}}", &p, &msg), 0);
        assert_int_equal(p.audit.sink, AUDIT_JOURNALD);
        operator_policy_release(&p);
        assert_int_equal(parse("{\"audit\": {\"log\": \"off\"}}", &p, &msg), 0);
        assert_int_equal(p.audit.sink, AUDIT_OFF);
        operator_policy_release(&p);
}

static void test_bad_settings_are_refused_by_name(void **state)
{
        static const struct {
                const char *doc, *want;
        } cases[] = {
                { "{\"audit\": {\"log\": \"audit.jsonl\"}}",
                  "audit.log: \"audit.jsonl\" is not a clean" },
                { "{\"audit\": {\"log\": \"/var/log/../x\"}}", "is not a clean absolute path" },
                { "{\"audit\": {\"log\": \"/var/log/sbrun/\"}}", "is not a clean absolute path" },
                { "{\"audit\": {\"log\": 1}}", "audit.log: expected a path" },
                { "{\"audit\": {\"fsync\": \"yes\"}}", "audit.fsync: expected true or false" },
                { "{\"audit\": {\"max_size\": \"1k\"}}",
                  "audit.max_size: expected a size of at least" },
                { "{\"audit\": {\"keep\": 101}}", "audit.keep: expected a number of files from 1" },
                { "{\"audit\": {\"rotate\": 1}}", "audit.rotate: unknown setting" },
                { "{\"audit\": []}", "expected an object" },
        };
        struct operator_policy p;
        char *msg;

        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                assert_int_equal(parse(cases[i].doc, &p, &msg), -1);
                if (strstr(msg, cases[i].want) == NULL)
                        fail_msg("%s: got \"%s\", want \"%s\"", cases[i].doc, msg, cases[i].want);
                free(msg);
        }
}

static void test_which_failures_are_fatal(void **state)
{
        (void)state;
        assert_true(audit_failure_fatal(POLICY_STRICT, AUDIT_CREATE));
        assert_true(audit_failure_fatal(POLICY_STRICT, AUDIT_EXEC));
        assert_false(audit_failure_fatal(POLICY_STRICT, AUDIT_KILL));
        assert_false(audit_failure_fatal(POLICY_STRICT, AUDIT_DELETE));
        assert_false(audit_failure_fatal(POLICY_STRICT, AUDIT_VERDICT));
        for (int e = AUDIT_CREATE; e <= AUDIT_VERDICT; e++)
                assert_false(audit_failure_fatal(POLICY_STANDARD, (enum audit_event)e));
}

static void test_sha256_vectors(void **state)
{
        char hex[SHA256_HEX_LEN + 1], *million = malloc(1000000);
        struct sha256 s;

        (void)state;
        sha256_hex("", 0, hex);
        assert_string_equal(hex,
                            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        sha256_hex("abc", 3, hex);
        assert_string_equal(hex,
                            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        /* Two blocks, and the padding's edge (56 bytes). */
        sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, hex);
        assert_string_equal(hex,
                            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
        /* A million 'a', fed in uneven pieces. */
        assert_non_null(million);
        memset(million, 'a', 1000000);
        sha256_init(&s);
        for (size_t off = 0, step = 1; off < 1000000; off += step, step = step * 3 % 997 + 1)
                sha256_update(&s, million + off, off + step > 1000000 ? 1000000 - off : step);
        sha256_final_hex(&s, hex);
        assert_string_equal(hex,
                            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
        free(million);
}

static void test_record_read_back(void **state)
{
        const char *line =
                "{\"time\":\"2026-12-05T10:00:00.000000001Z\",\"event\":\"verdict\",\"id\":\"c1\","
                "\"caller\":{\"uid\":0,\"pid\":5,\"ppid\":4,\"parent\":\"conmon\"},"
                "\"verdict\":\"workspace_full\",\"exit_code\":1,\"signal\":0,"
                "\"full\":[{\"path\":\"/work\",\"space\":false,\"inodes\":true}]}";
        struct sb_error err = { 0 };
        struct audit_record *r = audit_record_parse(line, strlen(line), &err);

        (void)state;
        assert_non_null(r);
        assert_string_equal(r->time, "2026-12-05T10:00:00.000000001Z");
        assert_string_equal(r->event, "verdict");
        assert_string_equal(r->id, "c1");
        assert_string_equal(r->parent, "conmon");
        assert_int_equal(r->uid, 0);
        assert_string_equal(r->detail, "workspace_full exit_code=1 full=/work(inodes)");
        audit_record_free(r);

        /* output_limit names its stream and the bytes forwarded. */
        const char *capped =
                "{\"time\":\"2026-12-05T10:00:00.000000002Z\",\"event\":\"verdict\",\"id\":\"c2\","
                "\"verdict\":\"output_limit\",\"exit_code\":125,\"signal\":9,"
                "\"stream\":\"stderr\",\"bytes\":65536}";
        r = audit_record_parse(capped, strlen(capped), &err);
        assert_non_null(r);
        assert_string_equal(r->detail, "output_limit exit_code=125 stderr bytes=65536");
        audit_record_free(r);
        assert_null(audit_record_parse("{\"event\":", 9, &err));
        sb_error_clear(&err);
        assert_null(audit_record_parse("[1]", 3, &err));
        sb_error_clear(&err);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_defaults_and_settings),
                cmocka_unit_test(test_bad_settings_are_refused_by_name),
                cmocka_unit_test(test_which_failures_are_fatal),
                cmocka_unit_test(test_sha256_vectors),
                cmocka_unit_test(test_record_read_back),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
