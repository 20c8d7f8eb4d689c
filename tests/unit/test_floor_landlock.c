/* Landlock as the floor decides it (spec/floor_landlock.c) from the
 * effective config, the profile, the operator's policy and what the kernel
 * offers: strict requires it, standard has it where the policy asks, a
 * kernel without it fails or is warned about by the mode, and W^X with a
 * writable root, or with a host tree bound both writable and executable
 * (a bind's source that is, contains or is inside a writable bind's, or
 * the root's), is refused. What sbrun-init does with the rules is shown
 * end to end by tests/integration/landlock.bats. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "floor_fixture.h"
#include "spec/floor_landlock.h"

#include "common/landlock.h"

#include <setjmp.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static const struct landlock_host abi7 = { .abi = 7 };
static const struct landlock_host abi2 = { .abi = 2 };
static const struct landlock_host none = { .abi = 0, .absent = "not enabled" };

static bool has(const struct landlock_rules *r, const char *path)
{
        for (size_t i = 0; i < r->n_writable; i++)
                if (strcmp(r->writable[i], path) == 0)
                        return true;
        return false;
}

/* The merge in explain mode, then the decision on its result. */
static int decide(const char *config, const char *policy, const struct landlock_host *host,
                  struct floor_run *run, struct landlock_rules *rules)
{
        floor_run_ok(run, config, policy);
        return floor_landlock_decide(&run->policy, policy_profile_get(run->profile), run->config,
                                     NULL, host, rules, &run->report, &run->err);
}

static void test_standard_has_none_by_default(void **state)
{
        struct floor_run run;
        struct landlock_rules r;

        (void)state;
        assert_int_equal(decide(SPEC("", "", ""), NULL, &abi7, &run, &r), 0);
        assert_int_equal(r.mode, LANDLOCK_OFF);
        assert_null(r.writable);
        assert_null(floor_change_find(&run.report, "landlock", 0));
        floor_run_release(&run);
}

static void test_strict_requires_it(void **state)
{
        struct floor_run run;
        struct landlock_rules r;

        (void)state;
        assert_int_equal(decide(SPEC("", STRICT_ANNOTATION,
                                     ",'devices':[{'path':'/dev/fuse','type':'c','major':10,"
                                     "'minor':229}]"),
                                "{'floor':{'devices':['/dev/fuse']}}", &abi7, &run, &r),
                         0);
        assert_int_equal(r.mode, LANDLOCK_REQUIRED);
        assert_int_equal(r.abi, SB_LANDLOCK_ABI_KNOWN);
        assert_true(r.exec_writable);
        assert_true(r.no_tcp);
        /* The root is read-only under strict; its /tmp, /dev's nodes and
         * the config's devices are the workspace. */
        assert_false(has(&r, "/"));
        assert_true(has(&r, "/tmp"));
        assert_true(has(&r, "/dev/shm"));
        assert_true(has(&r, "/dev/null"));
        assert_true(has(&r, "/dev/pts"));
        assert_true(has(&r, "/dev/fuse"));
        assert_false(has(&r, "/proc"));
        assert_change(&run.report, "landlock", FLOOR_ADDED, "(none)",
                      "ABI 4: writes beneath 12 paths; exec there allowed; TCP denied",
                      "strict: Landlock");
        landlock_rules_release(&r);
        floor_run_release(&run);
}

static void test_writable_mounts(void **state)
{
        struct floor_run run;
        struct landlock_rules r;

        (void)state;
        assert_int_equal(
                decide(SPEC("",
                            ",'mounts':[{'destination':'/data','type':'bind','source':'/tmp',"
                            "'options':['rbind']},{'destination':'/ro','type':'bind',"
                            "'source':'/tmp','options':['rbind','ro']},{'destination':"
                            "'/proc','type':'proc','source':'proc'},{'destination':'/scratch',"
                            "'type':'tmpfs','source':'tmpfs','options':['ro','rw']}]",
                            ""),
                       "{'landlock':{'mode':'required'}}", &abi2, &run, &r),
                0);
        assert_int_equal(r.mode, LANDLOCK_REQUIRED);
        assert_int_equal(r.abi, 2);
        assert_true(has(&r, "/")); /* standard: the root is as the config says */
        assert_true(has(&r, "/data"));
        assert_false(has(&r, "/ro"));
        assert_false(has(&r, "/proc"));
        assert_true(has(&r, "/scratch")); /* the last of ro and rw wins */
        assert_false(r.no_tcp);
        landlock_rules_release(&r);
        floor_run_release(&run);
}

static void test_kernel_without_it(void **state)
{
        struct floor_run run;
        struct landlock_rules r;

        (void)state;
        /* Required: refused, with the way out named. */
        assert_int_equal(decide(SPEC("", STRICT_ANNOTATION, ""), NULL, &none, &run, &r), 0);
        const struct floor_change *c = floor_change_find(&run.report, "landlock", 0);
        assert_non_null(c);
        assert_int_equal(c->action, FLOOR_REFUSED);
        assert_non_null(strstr(c->rule, "this kernel has none (not enabled)"));
        assert_non_null(strstr(c->rule, "\"landlock\": {\"mode\": \"best-effort\"}"));
        floor_run_release(&run);

        /* Best effort: dropped, recorded. */
        assert_int_equal(decide(SPEC("", STRICT_ANNOTATION, ""),
                                "{'landlock':{'mode':'best-effort'}}", &none, &run, &r),
                         0);
        assert_int_equal(r.mode, LANDLOCK_OFF);
        assert_change(&run.report, "landlock", FLOOR_DROPPED, "Landlock", "not available",
                      "landlock.mode best-effort in /etc/sbrun/policy.json");
        floor_run_release(&run);
}

static void test_wx_needs_a_readonly_root(void **state)
{
        struct floor_run run;
        struct landlock_rules r;

        (void)state;
        assert_int_equal(decide(SPEC("", "", ""),
                                "{'landlock':{'mode':'required','exec_writable':false}}", &abi7,
                                &run, &r),
                         0);
        const struct floor_change *c = floor_change_find(&run.report, "root.readonly", 0);
        assert_non_null(c);
        assert_int_equal(c->action, FLOOR_REFUSED);
        floor_run_release(&run);

        /* Under strict the root is read-only: W^X holds. */
        assert_int_equal(decide(SPEC("", STRICT_ANNOTATION, ""),
                                "{'landlock':{'exec_writable':false}}", &abi7, &run, &r),
                         0);
        assert_int_equal(r.mode, LANDLOCK_REQUIRED);
        assert_false(r.exec_writable);
        landlock_rules_release(&r);
        floor_run_release(&run);
}

/* W^X's alias refusal recorded for field (not another rule's), or NULL. */
static const struct floor_change *refused(const struct floor_run *run, const char *field)
{
        const struct floor_change *c;

        for (size_t i = 0; (c = floor_change_find(&run->report, field, i)) != NULL; i++)
                if (c->action == FLOOR_REFUSED && strstr(c->rule, "no host tree both") != NULL)
                        return c;
        return NULL;
}

#define ALIAS_MOUNTS                                                                             \
        ",'mounts':[{'destination':'/data','type':'bind','source':'/usr/share','options':"       \
        "['rbind','rw']},{'destination':'/ro','type':'bind','source':'/usr','options':"          \
        "['rbind','ro']},{'destination':'/apart','type':'bind','source':'/etc','options':"       \
        "['rbind','ro']},{'destination':'/same','type':'bind','source':'/usr/share/','options':" \
        "['rbind','ro']}]"

/* W^X by file: the held sources (the fixture opens them as create does)
 * and the root's host path are compared; exec (no sources) is not. */
static void test_wx_refuses_aliasing_binds(void **state)
{
        const char *wx = "{'landlock':{'exec_writable':false}}";
        struct floor_run run;
        struct landlock_rules r;
        struct stat usr;
        const struct floor_change *c;

        (void)state;
        assert_int_equal(stat("/usr", &usr), 0);
        floor_run_ok(&run, SPEC("", STRICT_ANNOTATION ALIAS_MOUNTS, ""), wx);
        struct landlock_sources src = { .paths = run.binds.paths,
                                        .stats = run.binds.stats,
                                        .n = run.binds.n };
        assert_int_equal(floor_landlock_decide(&run.policy, policy_profile_get(run.profile),
                                               run.config, &src, &abi7, &r, &run.report, &run.err),
                         0);
        landlock_rules_release(&r);
        c = refused(&run, "mounts[1].source");
        assert_non_null(c);
        assert_string_equal(c->requested, "/usr contains mounts[0].source /usr/share (writable at "
                                          "/data): the same files would be executable at /ro");
        assert_non_null(strstr(c->rule, "landlock.exec_writable false in /etc/sbrun/policy.json: "
                                        "no host tree both writable and executable"));
        c = refused(&run, "mounts[3].source");
        assert_non_null(c);
        assert_string_equal(c->requested, "/usr/share is mounts[0].source /usr/share (writable "
                                          "at /data): the same files would be executable at "
                                          "/same");
        assert_null(refused(&run, "mounts[2].source"));
        assert_null(refused(&run, "mounts[0].source"));

        /* The root aliases a writable bind inside it. */
        src.root_path = "/usr";
        src.root_stat = &usr;
        assert_int_equal(floor_landlock_decide(&run.policy, policy_profile_get(run.profile),
                                               run.config, &src, &abi7, &r, &run.report, &run.err),
                         0);
        landlock_rules_release(&r);
        c = refused(&run, "mounts[0].source");
        assert_non_null(c);
        assert_string_equal(c->requested, "/usr/share (writable at /data) is inside root.path "
                                          "/usr: the same files would be executable at /share");
        floor_run_release(&run);

        /* Without W^X, or for exec (no sources), nothing of this. */
        floor_run_ok(&run, SPEC("", STRICT_ANNOTATION ALIAS_MOUNTS, ""), NULL);
        src = (struct landlock_sources){ .paths = run.binds.paths,
                                         .stats = run.binds.stats,
                                         .n = run.binds.n,
                                         .root_path = "/usr",
                                         .root_stat = &usr };
        assert_int_equal(floor_landlock_decide(&run.policy, policy_profile_get(run.profile),
                                               run.config, &src, &abi7, &r, &run.report, &run.err),
                         0);
        landlock_rules_release(&r);
        assert_null(refused(&run, "mounts[1].source"));
        assert_null(refused(&run, "mounts[0].source"));
        floor_run_release(&run);
        assert_int_equal(decide(SPEC("", STRICT_ANNOTATION ALIAS_MOUNTS, ""), wx, &abi7, &run, &r),
                         0);
        landlock_rules_release(&r);
        assert_null(refused(&run, "mounts[1].source"));
        floor_run_release(&run);
}

static void test_policy_keys(void **state)
{
        struct operator_policy p;

        (void)state;
        policy_parse("{}", &p);
        assert_int_equal(p.landlock_mode, LANDLOCK_OFF);
        assert_true(p.landlock_exec_writable);
        operator_policy_release(&p);
        policy_parse_fails("{'landlock':{'mode':'on'}}",
                           "landlock.mode: expected \"off\", \"required\" or \"best-effort\"");
        policy_parse_fails("{'landlock':{'exec_writable':'no'}}",
                           "landlock.exec_writable: expected true or false");
        policy_parse_fails("{'landlock':{'refer':true}}", "landlock.refer: unknown setting");
        policy_parse_fails("{'landlock':true}", "landlock: expected an object");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_standard_has_none_by_default),
                cmocka_unit_test(test_strict_requires_it),
                cmocka_unit_test(test_writable_mounts),
                cmocka_unit_test(test_kernel_without_it),
                cmocka_unit_test(test_wx_needs_a_readonly_root),
                cmocka_unit_test(test_wx_refuses_aliasing_binds),
                cmocka_unit_test(test_policy_keys),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
