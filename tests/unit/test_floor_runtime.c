/* The floor's decisions about how a container runs: the wall-clock limit
 * (the operator's ceiling may only be lowered) and whether a host that
 * cannot enforce resource limits may run the container at all. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "spec/floor_runtime.h"

#include "common/error.h"
#include "oci/config.h"
#include "spec/floor.h"
#include "spec/operator_policy.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static struct operator_policy policy_with(int max_seconds, bool enforce)
{
        struct operator_policy p = { 0 };
        p.source = (char *)"/etc/sbrun/test-policy.json";
        p.timeout_max_seconds = max_seconds;
        p.cgroups_enforce = enforce;
        return p;
}

static int wall_clock(int max_seconds, const char *annotation, int requested, int *seconds,
                      struct floor_report *report, struct sb_error *err)
{
        struct oci_kv kv = { (char *)TIMEOUT_ANNOTATION, (char *)annotation };
        struct oci_config config = { 0 };
        struct operator_policy p = policy_with(max_seconds, true);

        if (annotation != NULL) {
                config.annotations = &kv;
                config.n_annotations = 1;
        }
        return floor_wall_clock(&p, &config, requested, seconds, report, err);
}

static void test_annotation_above_ceiling_is_clamped(void **state)
{
        struct floor_report report = { 0 };
        struct sb_error err = { 0 };
        int seconds = -1;

        (void)state;
        assert_int_equal(wall_clock(3600, "36000", 0, &seconds, &report, &err), 0);
        assert_int_equal(seconds, 3600);
        assert_int_equal(report.n, 1);
        assert_int_equal(report.changes[0].action, FLOOR_CLAMPED);
        assert_string_equal(report.changes[0].field, "annotations.run.sbrun.timeout");
        assert_string_equal(report.changes[0].requested, "36000 s");
        assert_string_equal(report.changes[0].effective, "3600 s");
        assert_non_null(strstr(report.changes[0].rule, "timeout.max_seconds"));
        floor_report_release(&report);
}

static void test_lower_requests_lower_the_limit(void **state)
{
        struct floor_report report = { 0 };
        struct sb_error err = { 0 };
        int seconds = -1;

        (void)state;
        assert_int_equal(wall_clock(3600, "60", 0, &seconds, &report, &err), 0);
        assert_int_equal(seconds, 60);
        assert_int_equal(report.n, 0);
        /* --timeout lowers it further, never raises it. */
        assert_int_equal(wall_clock(3600, "60", 10, &seconds, &report, &err), 0);
        assert_int_equal(seconds, 10);
        assert_int_equal(wall_clock(3600, "60", 120, &seconds, &report, &err), 0);
        assert_int_equal(seconds, 60);
        assert_int_equal(report.n, 1);
        assert_string_equal(report.changes[0].field, "--timeout");
        floor_report_release(&report);
}

static void test_no_ceiling_no_request_no_limit(void **state)
{
        struct floor_report report = { 0 };
        struct sb_error err = { 0 };
        int seconds = -1;

        (void)state;
        assert_int_equal(wall_clock(0, NULL, 0, &seconds, &report, &err), 0);
        assert_int_equal(seconds, 0);
        /* Without a ceiling, the annotation alone sets the limit. */
        assert_int_equal(wall_clock(0, "5", 0, &seconds, &report, &err), 0);
        assert_int_equal(seconds, 5);
        /* A ceiling alone applies to a spec that asks for none. */
        assert_int_equal(wall_clock(30, NULL, 0, &seconds, &report, &err), 0);
        assert_int_equal(seconds, 30);
        assert_int_equal(report.n, 0);
        floor_report_release(&report);
}

static void test_bad_annotation_is_an_error_naming_it(void **state)
{
        static const char *const bad[] = { "", "0", "-5", "ten", "10s", "99999999999" };
        struct floor_report report = { 0 };
        int seconds;

        (void)state;
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct sb_error err = { 0 };
                assert_int_equal(wall_clock(3600, bad[i], 0, &seconds, &report, &err), -1);
                assert_non_null(strstr(err.msg, "annotations.run.sbrun.timeout"));
                sb_error_clear(&err);
        }
        floor_report_release(&report);
}

/* A host that can enforce limits: nothing to decide, whatever the policy. */
static void test_enforcing_host_has_nothing_to_decide(void **state)
{
        struct floor_report report = { .explain = true };
        struct sb_error err = { 0 };
        bool unenforced = true;

        (void)state;
        for (int enforce = 0; enforce <= 1; enforce++) {
                struct operator_policy p = policy_with(0, enforce);
                struct oci_config config = { 0 };
                assert_int_equal(
                        floor_cgroups_decide(&p, &config, "c1", NULL, &unenforced, &report, &err),
                        0);
                assert_false(unenforced);
                assert_int_equal(report.n, 0);
        }
}

static void test_unenforceable_host_refuses_by_default(void **state)
{
        struct operator_policy p = policy_with(0, true);
        struct oci_config config = { 0 };
        struct floor_report report = { 0 };
        struct sb_error err = { 0 };
        bool unenforced = true;

        (void)state;
        assert_int_equal(floor_cgroups_decide(&p, &config, "c1", "no controllers", &unenforced,
                                              &report, &err),
                         -1);
        assert_false(unenforced);
        assert_non_null(strstr(err.msg, "no controllers"));
        assert_non_null(strstr(err.msg, "\"enforce\": false} in /etc/sbrun/test-policy.json"));
        sb_error_clear(&err);

        /* explain records the refusal instead. */
        report.explain = true;
        assert_int_equal(floor_cgroups_decide(&p, &config, "c1", "no controllers", &unenforced,
                                              &report, &err),
                         0);
        assert_int_equal(report.n, 1);
        assert_int_equal(report.changes[0].action, FLOOR_REFUSED);
        assert_string_equal(report.changes[0].field, "linux.resources");
        floor_report_release(&report);
}

static void test_opt_out_runs_unenforced_and_says_so(void **state)
{
        struct operator_policy p = policy_with(0, false);
        struct oci_config config = { 0 };
        struct floor_report report = { 0 };
        struct sb_error err = { 0 };
        bool unenforced = false;

        (void)state;
        assert_int_equal(floor_cgroups_decide(&p, &config, "c1", "no controllers", &unenforced,
                                              &report, &err),
                         0);
        assert_true(unenforced);
        assert_int_equal(report.n, 1);
        assert_int_equal(report.changes[0].action, FLOOR_DROPPED);
        assert_string_equal(report.changes[0].effective, "not enforced");
        floor_report_release(&report);
}

static int output(int64_t ceiling, enum policy_profile own, enum policy_profile profile,
                  const char *annotation, const struct output_request *req,
                  struct output_limits *limits, struct floor_report *report, struct sb_error *err)
{
        struct oci_kv kv = { (char *)OUTPUT_LIMIT_ANNOTATION, (char *)annotation };
        struct oci_config config = { 0 };
        struct operator_policy p = policy_with(0, true);

        p.output_limit = ceiling;
        p.profile = own;
        if (annotation != NULL) {
                config.annotations = &kv;
                config.n_annotations = 1;
        }
        return floor_output_limit(&p, profile, &config, req, limits, report, err);
}

/* standard has no output ceiling, strict 16 MiB; the operator's replaces
 * the default of its own profile, and a stricter profile keeps the lower. */
static void test_output_ceiling_by_profile(void **state)
{
        struct floor_report report = { 0 };
        struct sb_error err = { 0 };
        struct output_limits l;

        (void)state;
        assert_int_equal(output(0, POLICY_STANDARD, POLICY_STANDARD, NULL, NULL, &l, &report, &err),
                         0);
        assert_int_equal(l.out, 0);
        assert_int_equal(l.err, 0);
        assert_int_equal(output(0, POLICY_STANDARD, POLICY_STRICT, NULL, NULL, &l, &report, &err),
                         0);
        assert_int_equal(l.out, 16 << 20);
        assert_int_equal(l.err, 16 << 20);
        /* The operator's own profile: its value replaces the default. */
        assert_int_equal(
                output(64 << 20, POLICY_STRICT, POLICY_STRICT, NULL, NULL, &l, &report, &err), 0);
        assert_int_equal(l.out, 64 << 20);
        /* strict picked by annotation under a standard policy: the lower. */
        assert_int_equal(
                output(64 << 20, POLICY_STANDARD, POLICY_STRICT, NULL, NULL, &l, &report, &err), 0);
        assert_int_equal(l.out, 16 << 20);
        assert_int_equal(
                output(4096, POLICY_STANDARD, POLICY_STRICT, NULL, NULL, &l, &report, &err), 0);
        assert_int_equal(l.out, 4096);
        assert_int_equal(report.n, 0);
        floor_report_release(&report);
}

static void test_output_requests_only_lower(void **state)
{
        struct floor_report report = { 0 };
        struct sb_error err = { 0 };
        struct output_limits l;
        struct output_request req = { .both = 1 << 20 };

        (void)state;
        /* Above the ceiling: clamped and recorded. */
        assert_int_equal(
                output(4096, POLICY_STANDARD, POLICY_STANDARD, NULL, &req, &l, &report, &err), 0);
        assert_int_equal(l.out, 4096);
        assert_int_equal(l.err, 4096);
        assert_true(report.n >= 1);
        assert_int_equal(report.changes[0].action, FLOOR_CLAMPED);
        assert_string_equal(report.changes[0].field, "--output-limit");
        assert_non_null(strstr(report.changes[0].rule, "limits.output"));
        floor_report_release(&report);
        memset(&report, 0, sizeof(report));

        /* A stream's own option wins over --output-limit for that stream. */
        req = (struct output_request){ .both = 1000, .err = 10 };
        assert_int_equal(output(0, POLICY_STANDARD, POLICY_STANDARD, NULL, &req, &l, &report, &err),
                         0);
        assert_int_equal(l.out, 1000);
        assert_int_equal(l.err, 10);
        /* The annotation lowers the ceiling too, and binds the options. */
        req = (struct output_request){ .out = 1 << 20 };
        assert_int_equal(output(0, POLICY_STANDARD, POLICY_STANDARD, "2k", &req, &l, &report, &err),
                         0);
        assert_int_equal(l.out, 2048);
        assert_int_equal(l.err, 2048);
        assert_int_equal(report.n, 1);
        assert_string_equal(report.changes[0].field, "--stdout-limit");
        floor_report_release(&report);
        memset(&report, 0, sizeof(report));
        assert_int_equal(
                output(4096, POLICY_STANDARD, POLICY_STANDARD, "1g", NULL, &l, &report, &err), 0);
        assert_int_equal(l.out, 4096);
        assert_string_equal(report.changes[0].field, "annotations." OUTPUT_LIMIT_ANNOTATION);
        floor_report_release(&report);
}

static void test_bad_output_annotation_is_an_error_naming_it(void **state)
{
        struct floor_report report = { 0 };
        struct sb_error err = { 0 };
        struct output_limits l;

        (void)state;
        assert_int_equal(output(0, POLICY_STANDARD, POLICY_STANDARD, "0", NULL, &l, &report, &err),
                         -1);
        assert_non_null(strstr(err.msg, "annotations.run.sbrun.output_limit: \"0\""));
        sb_error_clear(&err);
        assert_int_equal(
                output(0, POLICY_STANDARD, POLICY_STANDARD, "1.5m", NULL, &l, &report, &err), -1);
        sb_error_clear(&err);
        floor_report_release(&report);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_annotation_above_ceiling_is_clamped),
                cmocka_unit_test(test_output_ceiling_by_profile),
                cmocka_unit_test(test_output_requests_only_lower),
                cmocka_unit_test(test_bad_output_annotation_is_an_error_naming_it),
                cmocka_unit_test(test_lower_requests_lower_the_limit),
                cmocka_unit_test(test_no_ceiling_no_request_no_limit),
                cmocka_unit_test(test_bad_annotation_is_an_error_naming_it),
                cmocka_unit_test(test_enforcing_host_has_nothing_to_decide),
                cmocka_unit_test(test_unenforceable_host_refuses_by_default),
                cmocka_unit_test(test_opt_out_runs_unenforced_and_says_so),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
