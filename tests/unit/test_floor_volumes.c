/* Volumes as the floor judges them (spec/floor_volumes.c): under strict a
 * writable bind of a directory must be bounded by project quota, each
 * missing fact named; read-only and single-file binds are not volumes;
 * the operator's floor.volumes.require_project_quota waives or adds the
 * rule. The host's facts are the fixture's (floor_fixture_volume), so that
 * every case is reached on any machine; tests/integration/volumes.bats
 * probes real file systems. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "tests/unit/floor_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include <cmocka.h>

#define RULE                                                     \
        "strict: a writable volume is bounded by project quota " \
        "(floor.volumes.require_project_quota)"
#define WAIVED "floor.volumes.require_project_quota false in " OPERATOR_POLICY_PATH
#define REQUIRED "floor.volumes.require_project_quota true in " OPERATOR_POLICY_PATH
#define STRICT_POLICY "{'floor':{'profile':'strict'}}"
#define WAIVING_POLICY "{'floor':{'profile':'strict','volumes':{'require_project_quota':false}}}"

static const struct volume_quota not_probed = { .probed = false };
static const struct volume_quota no_quota = { .probed = true, .fs = "ext4 on /dev/vdz" };
static const struct volume_quota no_project = { .probed = true,
                                                .fs = "xfs on /dev/vdz",
                                                .enforced = true };
static const struct volume_quota not_inherited = { .probed = true,
                                                   .fs = "xfs on /dev/vdz",
                                                   .enforced = true,
                                                   .project = 42 };
static const struct volume_quota no_limit = { .probed = true,
                                              .fs = "xfs on /dev/vdz",
                                              .enforced = true,
                                              .project = 42,
                                              .inherited = true };
static const struct volume_quota bounded = { .probed = true,
                                             .fs = "xfs on /dev/vdz",
                                             .enforced = true,
                                             .project = 42,
                                             .inherited = true,
                                             .block_limit = 1 << 20 };
static const struct volume_quota unreadable = {
        .probed = true,
        .fs = "xfs on /dev/vdz",
        .enforced = true,
        .project = 42,
        .inherited = true,
        .unknown = "Q_GETQUOTA of project 42: Operation not permitted",
};

static const struct volume_quota small_tmpfs = { .probed = true,
                                                 .fs = "tmpfs on shm",
                                                 .tmpfs = true,
                                                 .tmpfs_size = 64 << 20 };
static const struct volume_quota big_tmpfs = { .probed = true,
                                               .fs = "tmpfs on tmpfs",
                                               .tmpfs = true,
                                               .tmpfs_size = (uint64_t)1 << 30 };
static const struct volume_quota unlimited_tmpfs = { .probed = true,
                                                     .fs = "tmpfs on tmpfs",
                                                     .tmpfs = true };

/* A config binding source at /data with options (a JSON list's inside),
 * with the annotations TOP (empty or starting with a comma). */
static char *bind_doc(const char *source, const char *options, const char *top)
{
        char *doc = NULL;

        if (asprintf(&doc,
                     SPEC("",
                          ",'mounts':[{'destination':'/data','type':'bind','source':'%s',"
                          "'options':[%s]}]%s",
                          ""),
                     source, options, top) < 0)
                fail_msg("out of memory");
        return doc;
}

/* The merge of doc under policy with every volume's facts set to q. */
static int run_with(struct floor_run *run, const char *doc, const char *policy,
                    const struct volume_quota *q, enum floor_mode mode)
{
        int r;

        floor_fixture_volume = q;
        r = floor_run(run, doc, policy, NULL, NULL, mode);
        floor_fixture_volume = NULL;
        return r;
}

static void expect_refused(const struct volume_quota *q, const char *value)
{
        struct floor_run run;
        char *doc = bind_doc("/srv", "'rbind'", "");
        char *message = NULL;

        assert_int_equal(run_with(&run, doc, STRICT_POLICY, q, FLOOR_EXPLAIN), 0);
        assert_change(&run.report, "mounts[0].source", FLOOR_REFUSED, value, "refused", RULE);
        floor_run_release(&run);
        assert_int_equal(run_with(&run, doc, STRICT_POLICY, q, FLOOR_CREATE), -1);
        assert_int_not_equal(
                asprintf(&message, "mounts[0].source: %s refused (rule: " RULE ")", value), -1);
        assert_string_equal(run.error, message);
        floor_run_release(&run);
        free(message);
        free(doc);
}

static void test_strict_names_what_is_missing(void **state)
{
        (void)state;
        expect_refused(&no_quota,
                       "/srv is on a file system without project quota (ext4 on /dev/vdz)");
        expect_refused(&no_project, "/srv has no project id (xfs on /dev/vdz)");
        expect_refused(&not_inherited,
                       "/srv has project id 42, which what is made in it does not inherit "
                       "(no FS_XFLAG_PROJINHERIT, chattr +P) (xfs on /dev/vdz)");
        expect_refused(&no_limit,
                       "/srv is in project 42, which has no block hard limit (xfs on /dev/vdz)");
        /* What cannot be read bounds nothing (a rootless caller). */
        expect_refused(&unreadable,
                       "/srv has a project quota that cannot be read: Q_GETQUOTA of project 42: "
                       "Operation not permitted (xfs on /dev/vdz)");
        /* A tmpfs is bounded by its size, within strict's tmp ceiling. */
        expect_refused(&big_tmpfs, "/srv is on a tmpfs of 1073741824 bytes, above the tmp "
                                   "ceiling of 67108864 (tmpfs on tmpfs)");
        expect_refused(&unlimited_tmpfs,
                       "/srv is on a tmpfs without a size limit (tmpfs on tmpfs)");
        /* No facts at all (a caller that did not probe): refused too. */
        expect_refused(&not_probed, "/srv was not probed for project quota");
}

/* Bounded: a project with a limit, or a tmpfs within the tmp ceiling (an
 * engine's per-container /dev/shm). */
static void test_strict_takes_a_bounded_volume(void **state)
{
        static const struct volume_quota *const facts[] = { &bounded, &small_tmpfs, NULL };
        struct floor_run run;
        char *doc = bind_doc("/srv", "'rbind'", "");

        (void)state;
        for (const struct volume_quota *const *q = facts; *q != NULL; q++) {
                assert_int_equal(run_with(&run, doc, STRICT_POLICY, *q, FLOOR_CREATE), 0);
                assert_null(floor_change_find(&run.report, "mounts[0].source", 0));
                floor_run_release(&run);
        }
        free(doc);
}

/* Not volumes: a read-only bind (the last of ro and rw wins) and a bind
 * of a single file (the engines' /etc/hosts and the like). */
static void test_what_is_not_a_volume(void **state)
{
        static const char *const options[] = { "'rbind','ro'", "'rw','ro'", NULL };
        struct floor_run run;

        (void)state;
        for (const char *const *o = options; *o != NULL; o++) {
                char *doc = bind_doc("/srv", *o, "");
                assert_int_equal(run_with(&run, doc, STRICT_POLICY, &no_quota, FLOOR_CREATE), 0);
                assert_no_change(&run.report, "mounts[0].source");
                floor_run_release(&run);
                free(doc);
        }
        char *ro_then_rw = bind_doc("/srv", "'ro','rw'", "");
        assert_int_equal(run_with(&run, ro_then_rw, STRICT_POLICY, &no_quota, FLOOR_CREATE), -1);
        floor_run_release(&run);
        free(ro_then_rw);

        char name[] = "/tmp/sbrun-unit-volume.XXXXXX";
        int fd = mkstemp(name);
        assert_true(fd >= 0);
        close(fd);
        char *file = bind_doc(name, "'bind'", "");
        assert_int_equal(run_with(&run, file, STRICT_POLICY, &no_quota, FLOOR_CREATE), 0);
        assert_no_change(&run.report, "mounts[0].source");
        floor_run_release(&run);
        free(file);
        unlink(name);
}

static void test_standard_asks_nothing(void **state)
{
        struct floor_run run;
        char *doc = bind_doc("/srv", "'rbind'", "");

        (void)state;
        assert_int_equal(run_with(&run, doc, NULL, &no_quota, FLOOR_CREATE), 0);
        assert_int_equal(run.profile, POLICY_STANDARD);
        assert_no_change(&run.report, "mounts[0].source");
        floor_run_release(&run);
        free(doc);
}

/* require_project_quota false under strict: allowed, and recorded (create
 * warns with it, explain lists it). */
static void test_waived_by_the_operator(void **state)
{
        struct floor_run run;
        char *doc = bind_doc("/srv", "'rbind'", "");

        (void)state;
        for (int mode = FLOOR_EXPLAIN; mode <= FLOOR_CREATE; mode++) {
                assert_int_equal(
                        run_with(&run, doc, WAIVING_POLICY, &no_project, (enum floor_mode)mode), 0);
                assert_int_equal(run.profile, POLICY_STRICT);
                assert_change(&run.report, "mounts[0].source", FLOOR_DROPPED,
                              "a volume bounded by project quota",
                              "/srv has no project id (xfs on /dev/vdz)", WAIVED);
                floor_run_release(&run);
        }
        free(doc);
}

/* The operator's false does not loosen a stricter profile a container
 * selects itself; the operator's true binds under standard too. */
static void test_policy_and_annotation(void **state)
{
        struct floor_run run;
        char *strict = bind_doc("/srv", "'rbind'", STRICT_ANNOTATION);
        char *standard = bind_doc("/srv", "'rbind'", "");

        (void)state;
        assert_int_equal(run_with(&run, strict,
                                  "{'floor':{'volumes':{'require_project_quota':false}}}",
                                  &no_quota, FLOOR_EXPLAIN),
                         0);
        assert_int_equal(run.profile, POLICY_STRICT);
        assert_change(&run.report, "mounts[0].source", FLOOR_REFUSED,
                      "/srv is on a file system without project quota (ext4 on /dev/vdz)",
                      "refused", RULE);
        floor_run_release(&run);

        assert_int_equal(run_with(&run, standard,
                                  "{'floor':{'volumes':{'require_project_quota':true}}}", &no_quota,
                                  FLOOR_EXPLAIN),
                         0);
        assert_change(&run.report, "mounts[0].source", FLOOR_REFUSED,
                      "/srv is on a file system without project quota (ext4 on /dev/vdz)",
                      "refused", REQUIRED);
        floor_run_release(&run);
        free(strict);
        free(standard);
}

static void test_rule_by_profile_and_policy(void **state)
{
        const struct floor_profile *strict = policy_profile_get(POLICY_STRICT);
        const struct floor_profile *standard = policy_profile_get(POLICY_STANDARD);
        struct operator_policy p;

        (void)state;
        policy_parse("{}", &p);
        assert_false(p.volumes_quota_set);
        assert_int_equal(floor_volume_rule(&p, strict, true), VOLUMES_BOUNDED);
        assert_int_equal(floor_volume_rule(&p, standard, true), VOLUMES_ANY);
        assert_true(floor_locks_file_attrs(&p, strict));
        assert_false(floor_locks_file_attrs(&p, standard));
        operator_policy_release(&p);
        policy_parse("{'floor':{'volumes':{'require_project_quota':false}}}", &p);
        assert_int_equal(floor_volume_rule(&p, strict, true), VOLUMES_ANY_BY_POLICY);
        assert_int_equal(floor_volume_rule(&p, strict, false), VOLUMES_BOUNDED);
        assert_int_equal(floor_volume_rule(&p, standard, true), VOLUMES_ANY);
        /* The waiver lets a volume through; strict's attributes stay fixed. */
        assert_true(floor_locks_file_attrs(&p, strict));
        assert_false(floor_locks_file_attrs(&p, standard));
        operator_policy_release(&p);
        policy_parse("{'floor':{'volumes':{'require_project_quota':true}}}", &p);
        assert_int_equal(floor_volume_rule(&p, strict, true), VOLUMES_BOUNDED);
        assert_int_equal(floor_volume_rule(&p, standard, true), VOLUMES_BOUNDED_BY_POLICY);
        assert_true(floor_locks_file_attrs(&p, standard));
        operator_policy_release(&p);
}

static void test_policy_key(void **state)
{
        (void)state;
        policy_parse_fails("{'floor':{'volumes':{'require_project_quota':'yes'}}}",
                           "floor.volumes.require_project_quota: expected true or false");
        policy_parse_fails("{'floor':{'volumes':{'quota':true}}}",
                           "floor.volumes.quota: unknown setting");
        policy_parse_fails("{'floor':{'volumes':true}}", "floor.volumes: expected an object");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_strict_names_what_is_missing),
                cmocka_unit_test(test_strict_takes_a_bounded_volume),
                cmocka_unit_test(test_what_is_not_a_volume),
                cmocka_unit_test(test_standard_asks_nothing),
                cmocka_unit_test(test_waived_by_the_operator),
                cmocka_unit_test(test_policy_and_annotation),
                cmocka_unit_test(test_rule_by_profile_and_policy),
                cmocka_unit_test(test_policy_key),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
