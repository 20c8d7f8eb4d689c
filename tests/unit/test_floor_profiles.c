/* The floor's profiles (spec/floor.c, spec/policy_profiles.c) and the
 * operator policy that picks one (spec/operator_policy*.c): standard and
 * strict defaults, the run.sbrun.policy annotation that may only tighten,
 * and operator ceilings against profile ceilings. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "tests/unit/floor_fixture.h"

#include "spec/operator_policy_floor.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include <cmocka.h>

#define MiB (1024LL * 1024)

static const struct oci_rlimit *rlimit(const struct oci_process *p, int resource)
{
        for (size_t i = 0; i < p->n_rlimits; i++) {
                if (p->rlimits[i].resource == resource)
                        return &p->rlimits[i];
        }
        return NULL;
}

static void test_default_policy_is_standard(void **state)
{
        struct floor_run run;
        (void)state;

        floor_run_ok(&run, SPEC("", "", ""), NULL);
        assert_int_equal(run.profile, POLICY_STANDARD);
        const struct oci_resources *r = run.config->linux_->resources;
        /* standard: a pids ceiling, no memory or cpu ceiling, no rlimit
         * ceilings beyond RLIMIT_CORE, the root left writable, no /tmp. */
        assert_true(r->has_pids_limit);
        assert_int_equal(r->pids_limit, 4096);
        assert_change(&run.report, "linux.resources.pids.limit", FLOOR_ADDED, "(none)", "4096",
                      "standard pids ceiling");
        assert_null(r->memory);
        assert_null(r->cpu);
        assert_no_change(&run.report, "linux.resources.memory.limit");
        assert_no_change(&run.report, "linux.resources.cpu");
        assert_null(rlimit(run.config->process, RLIMIT_FSIZE));
        assert_null(rlimit(run.config->process, RLIMIT_NOFILE));
        assert_false(run.config->root.readonly);
        assert_int_equal(run.config->n_mounts, 0);
        assert_change(&run.report, "linux.seccomp", FLOOR_ADDED, "(none)", "standard floor filter",
                      "standard: floor seccomp filter always installed");
        floor_run_release(&run);
}

static void assert_strict_floor(const struct floor_run *run)
{
        const struct oci_resources *r = run->config->linux_->resources;
        const struct oci_process *p = run->config->process;

        assert_int_equal(run->profile, POLICY_STRICT);
        assert_int_equal(r->pids_limit, 256);
        assert_non_null(r->memory);
        assert_true(r->memory->has_limit);
        assert_int_equal(r->memory->limit, 512 * MiB);
        assert_int_equal(r->memory->swap, 512 * MiB); /* memory+swap == memory: no swap */
        assert_non_null(r->cpu);
        assert_int_equal(r->cpu->quota, 100000);
        assert_int_equal(r->cpu->period, 100000);
        assert_non_null(rlimit(p, RLIMIT_FSIZE));
        assert_int_equal(rlimit(p, RLIMIT_FSIZE)->hard, 64 * MiB);
        assert_non_null(rlimit(p, RLIMIT_NOFILE));
        assert_int_equal(rlimit(p, RLIMIT_NOFILE)->hard, 1024);
        assert_true(run->config->root.readonly);
        assert_int_equal(run->config->n_mounts, 1);
        assert_string_equal(run->config->mounts[0].destination, "/tmp");
        assert_string_equal(run->config->mounts[0].type, "tmpfs");
        assert_change(&run->report, "linux.resources.pids.limit", FLOOR_ADDED, "(none)", "256",
                      "strict pids ceiling");
        assert_change(&run->report, "linux.resources.memory.limit", FLOOR_ADDED, "(none)",
                      "536870912", "strict memory ceiling");
        assert_change(&run->report, "linux.resources.memory.swap", FLOOR_FORCED, "(none)",
                      "536870912", "strict: no swap");
        assert_change(&run->report, "linux.resources.cpu", FLOOR_ADDED, "(none)", "100000/100000",
                      "strict cpu ceiling");
        assert_change(&run->report, "process.rlimits.RLIMIT_FSIZE", FLOOR_ADDED, "(none)",
                      "67108864", "strict fsize ceiling");
        assert_change(&run->report, "process.rlimits.RLIMIT_NOFILE", FLOOR_ADDED, "(none)", "1024",
                      "strict nofile ceiling");
        assert_change(&run->report, "root.readonly", FLOOR_FORCED, "false", "true",
                      "strict: read-only root");
        assert_change(&run->report, "mounts./tmp", FLOOR_ADDED, "(none)", "tmpfs size=67108864",
                      "strict: size-capped /tmp");
        assert_change(&run->report, "linux.seccomp", FLOOR_ADDED, "(none)", "strict floor filter",
                      "strict: floor seccomp filter always installed");
}

static void test_operator_default_strict(void **state)
{
        struct floor_run run;
        (void)state;

        floor_run_ok(&run, SPEC("", "", ""), "{'floor':{'profile':'strict'}}");
        assert_strict_floor(&run);
        /* The operator's own default: nothing was asked for. */
        assert_no_change(&run.report, "annotations[\"run.sbrun.policy\"]");
        floor_run_release(&run);
}

static void test_annotation_selects_strict(void **state)
{
        struct floor_run run;
        (void)state;

        floor_run_ok(&run, SPEC("", STRICT_ANNOTATION, ""), NULL);
        assert_strict_floor(&run);
        assert_change(&run.report, "annotations[\"run.sbrun.policy\"]", FLOOR_FORCED, "strict",
                      "strict", "a stricter profile may be selected");
        floor_run_release(&run);
}

static void test_annotation_same_profile(void **state)
{
        struct floor_run run;
        (void)state;

        floor_run_ok(&run, SPEC("", ",'annotations':{'run.sbrun.policy':'standard'}", ""), NULL);
        assert_int_equal(run.profile, POLICY_STANDARD);
        assert_no_change(&run.report, "annotations[\"run.sbrun.policy\"]");
        floor_run_release(&run);
        floor_run_ok(&run, SPEC("", STRICT_ANNOTATION, ""), "{'floor':{'profile':'strict'}}");
        assert_int_equal(run.profile, POLICY_STRICT);
        assert_no_change(&run.report, "annotations[\"run.sbrun.policy\"]");
        floor_run_release(&run);
}

static void test_annotation_cannot_loosen(void **state)
{
        struct floor_run run;
        (void)state;

        /* Refused, not ignored, and in explain mode as well: the container
         * would otherwise run under a profile it did not ask for. */
        for (int mode = FLOOR_EXPLAIN; mode <= FLOOR_CREATE; mode++) {
                assert_int_equal(
                        floor_run(&run,
                                  SPEC("", ",'annotations':{'run.sbrun.policy':'standard'}", ""),
                                  "{'floor':{'profile':'strict'}}", NULL, NULL, mode),
                        -1);
                assert_string_equal(run.error, "annotations[\"run.sbrun.policy\"]: \"standard\" is "
                                               "looser than the operator's \"strict\" profile: "
                                               "refused (rule: only a stricter profile may be "
                                               "selected)");
                floor_run_release(&run);
        }
}

static void test_annotation_unknown_profile(void **state)
{
        struct floor_run run;
        (void)state;

        assert_int_equal(floor_run(&run, SPEC("", ",'annotations':{'run.sbrun.policy':'none'}", ""),
                                   NULL, NULL, NULL, FLOOR_EXPLAIN),
                         -1);
        assert_string_equal(run.error, "annotations[\"run.sbrun.policy\"]: \"none\" is not a "
                                       "profile (standard, strict)");
        floor_run_release(&run);
}

/* Under the operator's default profile the operator's ceiling replaces the
 * profile's, higher or lower: the operator may loosen its own floor. */
static void test_operator_ceiling_replaces_default(void **state)
{
        struct floor_run run;
        (void)state;

        floor_run_ok(&run, SPEC("", "", ""), "{'floor':{'ceilings':{'pids':10000}}}");
        assert_int_equal(run.config->linux_->resources->pids_limit, 10000);
        assert_change(&run.report, "linux.resources.pids.limit", FLOOR_ADDED, "(none)", "10000",
                      "standard pids ceiling");
        floor_run_release(&run);

        floor_run_ok(&run, SPEC("", "", ""),
                     "{'floor':{'profile':'strict','ceilings':{'memory':'1G','pids':100}}}");
        assert_int_equal(run.profile, POLICY_STRICT);
        assert_int_equal(run.config->linux_->resources->memory->limit, 1024 * MiB);
        assert_int_equal(run.config->linux_->resources->pids_limit, 100);
        assert_change(&run.report, "linux.resources.memory.limit", FLOOR_ADDED, "(none)",
                      "1073741824", "strict memory ceiling");
        floor_run_release(&run);
}

/* A stricter profile asked for by annotation: the lower of its ceiling and
 * the operator's applies, so neither side can raise the other's. */
static void test_operator_ceiling_under_stricter_profile(void **state)
{
        struct floor_run run;
        (void)state;

        floor_run_ok(&run, SPEC("", STRICT_ANNOTATION, ""),
                     "{'floor':{'ceilings':{'pids':10000,'memory':'2G','cpu':4,'nofile':65536,"
                     "'fsize':'1G','tmp':'1G'}}}");
        const struct oci_resources *r = run.config->linux_->resources;
        assert_int_equal(r->pids_limit, 256);
        assert_int_equal(r->memory->limit, 512 * MiB);
        assert_int_equal(r->cpu->quota, 100000);
        assert_change(&run.report, "process.rlimits.RLIMIT_NOFILE", FLOOR_ADDED, "(none)", "1024",
                      "strict nofile ceiling");
        assert_change(&run.report, "process.rlimits.RLIMIT_FSIZE", FLOOR_ADDED, "(none)",
                      "67108864", "strict fsize ceiling");
        assert_change(&run.report, "mounts./tmp", FLOOR_ADDED, "(none)", "tmpfs size=67108864",
                      "strict: size-capped /tmp");
        floor_run_release(&run);

        floor_run_ok(&run, SPEC("", STRICT_ANNOTATION, ""),
                     "{'floor':{'ceilings':{'pids':100,'memory':'128M','cpu':'0.5','nofile':64,"
                     "'fsize':'1M','tmp':'8M'}}}");
        r = run.config->linux_->resources;
        assert_int_equal(r->pids_limit, 100);
        assert_int_equal(r->memory->limit, 128 * MiB);
        assert_int_equal(r->cpu->quota, 50000);
        assert_int_equal(r->cpu->period, 100000);
        assert_change(&run.report, "process.rlimits.RLIMIT_NOFILE", FLOOR_ADDED, "(none)", "64",
                      "strict nofile ceiling");
        assert_change(&run.report, "process.rlimits.RLIMIT_FSIZE", FLOOR_ADDED, "(none)", "1048576",
                      "strict fsize ceiling");
        assert_change(&run.report, "mounts./tmp", FLOOR_ADDED, "(none)", "tmpfs size=8388608",
                      "strict: size-capped /tmp");
        floor_run_release(&run);
}

/* exec: the process added to a running container gets the profile of the
 * container (its annotation, under the policy it was created with). */
static void test_exec_process_same_profile(void **state)
{
        struct floor_run run;
        struct sb_error err = { 0 };
        enum policy_profile profile = 0;
        char *json = dq("{'args':['sh'],'cwd':'/','noNewPrivileges':false,"
                        "'capabilities':{'bounding':['CAP_SYS_ADMIN','CAP_CHOWN'],"
                        "'effective':['CAP_CHOWN']},"
                        "'rlimits':[{'type':'RLIMIT_NOFILE','hard':1048576,'soft':1048576}]}");
        struct oci_process *p = oci_process_parse(json, strlen(json), "process.json", &err);
        (void)state;

        assert_non_null(p);
        floor_run_ok(&run, SPEC("", STRICT_ANNOTATION, ""), NULL);
        assert_int_equal(effective_process_apply(run.config, p, &run.policy, &profile, &err), 0);
        assert_int_equal(profile, POLICY_STRICT);
        assert_true(p->no_new_privileges);
        assert_int_equal(p->capabilities.bounding, 0);
        assert_int_equal(p->capabilities.effective, 0);
        assert_int_equal(rlimit(p, RLIMIT_NOFILE)->hard, 1024);
        assert_int_equal(rlimit(p, RLIMIT_NOFILE)->soft, 1024);
        assert_int_equal(rlimit(p, RLIMIT_CORE)->hard, 0);
        oci_process_free(p);
        floor_run_release(&run);
        free(json);
}

static void expect_policy_error(const char *doc, const char *message)
{
        struct operator_policy policy = { .profile = POLICY_STANDARD };
        struct sb_error err = { 0 };
        char *json = dq(doc);
        yajl_val tree = yajl_tree_parse(json, NULL, 0);

        assert_non_null(tree);
        assert_int_equal(operator_policy_parse_floor(tree, "policy.json", &policy, &err), -1);
        assert_string_equal(err.msg, message);
        sb_error_clear(&err);
        operator_policy_release(&policy);
        yajl_tree_free(tree);
        free(json);
}

static void test_policy_floor_errors(void **state)
{
        (void)state;
        expect_policy_error(
                "{'profile':'lax'}",
                "policy policy.json: floor.profile: expected \"standard\" or \"strict\"");
        expect_policy_error("{'ceilings':{'pids':0}}",
                            "policy policy.json: floor.ceilings.pids: expected a positive size");
        expect_policy_error("{'ceilings':{'memory':'-1G'}}",
                            "policy policy.json: floor.ceilings.memory: expected a positive size");
        expect_policy_error("{'ceilings':{'cpu':'0'}}", "policy policy.json: floor.ceilings.cpu: "
                                                        "expected a positive number of CPUs");
        expect_policy_error("{'ceilings':{'swap':'1G'}}",
                            "policy policy.json: floor.ceilings.swap: unknown ceiling");
        expect_policy_error("{'devices':['/etc/passwd']}",
                            "policy policy.json: floor.devices[0]: expected a path under /dev");
        expect_policy_error("{'net_devices':['eth0','a/b']}",
                            "policy policy.json: floor.net_devices[1]: expected a network device "
                            "name");
        expect_policy_error("{'net_devices':'eth0'}",
                            "policy policy.json: floor.net_devices: expected an array");
        expect_policy_error("{'profiles':'strict'}",
                            "policy policy.json: floor.profiles: unknown setting");
}

static void expect_text_error(const char *text, size_t len, const char *message)
{
        struct operator_policy policy;
        struct sb_error err = { 0 };

        assert_int_equal(operator_policy_parse(text, len, "p.json", &policy, &err), -1);
        assert_non_null(err.msg);
        if (strstr(err.msg, message) == NULL)
                fail_msg("%s: got \"%s\", expected \"%s\"", text, err.msg, message);
        sb_error_clear(&err);
        /* Nothing to release on failure. */
        assert_null(policy.devices);
        assert_null(policy.source);
}

/* The whole document from its text, as operator_policy_load parses the file. */
static void test_policy_text(void **state)
{
        static const char text[] = "{\"cgroups\": {\"enforce\": false}, \"timeout\": "
                                   "{\"max_seconds\": 60}, \"floor\": {\"devices\": "
                                   "[\"/dev/fuse\"]}}";
        struct operator_policy policy;
        struct sb_error err = { 0 };

        (void)state;
        assert_int_equal(operator_policy_parse(text, strlen(text), "p.json", &policy, &err), 0);
        assert_false(policy.cgroups_enforce);
        assert_int_equal(policy.timeout_max_seconds, 60);
        assert_int_equal(policy.profile, POLICY_STANDARD);
        assert_int_equal(policy.n_devices, 1);
        assert_null(policy.source);
        operator_policy_release(&policy);

        expect_text_error("{}\0{\"floor\": 1}", 15, "policy p.json: contains a NUL byte");
        expect_text_error("[]", 2, "policy p.json: expected a JSON object");
        expect_text_error("{", 1, "policy p.json: ");
        expect_text_error("{\"cgroup\": {}}", 14, "policy p.json: cgroup: unknown setting");
        expect_text_error("{\"limits\": {\"output\": 0}}", 25,
                          "policy p.json: limits.output: expected a positive size");
        expect_text_error("{\"limits\": {\"stdout\": 1}}", 25,
                          "policy p.json: limits.stdout: unknown setting");
        static const char limits[] = "{\"limits\": {\"output\": \"16m\"}}";
        assert_int_equal(operator_policy_parse(limits, strlen(limits), "p.json", &policy, &err), 0);
        assert_int_equal(policy.output_limit, 16 << 20);
        operator_policy_release(&policy);
        expect_text_error("{\"floor\": {\"devices\": [\"/dev/fuse\", 1]}}", 40,
                          "policy p.json: floor.devices[1]");
}

static void test_parse_size_and_cpus(void **state)
{
        int64_t n = 0, quota = 0;
        uint64_t period = 0;
        (void)state;

        assert_int_equal(policy_parse_size("512M", &n), 0);
        assert_int_equal(n, 512 * MiB);
        assert_int_equal(policy_parse_size("1g", &n), 0);
        assert_int_equal(n, 1024 * MiB);
        assert_int_equal(policy_parse_size("4k", &n), 0);
        assert_int_equal(n, 4096);
        assert_int_equal(policy_parse_size("1048576", &n), 0);
        assert_int_equal(n, 1048576);
        assert_int_equal(policy_parse_size("0", &n), -1);
        assert_int_equal(policy_parse_size("-1", &n), -1);
        assert_int_equal(policy_parse_size("12X", &n), -1);
        assert_int_equal(policy_parse_size("1MB", &n), -1);
        assert_int_equal(policy_parse_size("", &n), -1);
        assert_int_equal(policy_parse_size("9000000T", &n), -1); /* past INT64_MAX */
        assert_int_equal(policy_parse_cpus("1.5", &quota, &period), 0);
        assert_int_equal(quota, 150000);
        assert_int_equal(period, 100000);
        assert_int_equal(policy_parse_cpus("0", &quota, &period), -1);
        assert_int_equal(policy_parse_cpus("-2", &quota, &period), -1);
        assert_int_equal(policy_parse_cpus("two", &quota, &period), -1);
        assert_int_equal(policy_parse_cpus("5000", &quota, &period), -1);
}

/* The loader reads the same policy from a file, and refuses a file that
 * someone other than root could have written. */
static void test_policy_file(void **state)
{
        char path[] = "/tmp/sbrun-unit-policy.XXXXXX";
        const char *text = "{\"floor\":{\"profile\":\"strict\",\"ceilings\":{\"pids\":77},"
                           "\"devices\":[\"/dev/fuse\"]}}";
        struct operator_policy policy;
        struct sb_error err = { 0 };
        int fd;
        (void)state;

        if (geteuid() != 0)
                skip(); /* the file must be owned by root */
        fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
        assert_int_equal(fchmod(fd, 0644), 0);
        close(fd);
        assert_int_equal(operator_policy_load(path, 0, &policy, &err), 0);
        assert_string_equal(policy.source, path);
        assert_int_equal(policy.profile, POLICY_STRICT);
        assert_int_equal(policy.ceilings.pids, 77);
        assert_true(policy.cgroups_enforce);
        assert_int_equal(policy.n_devices, 1);
        assert_string_equal(policy.devices[0], "/dev/fuse");
        assert_null(policy.devices[1]);
        assert_string_equal(operator_policy_text(&policy), text);
        operator_policy_release(&policy);

        assert_int_equal(chmod(path, 0664), 0);
        assert_int_equal(operator_policy_load(path, 0, &policy, &err), -1);
        assert_non_null(strstr(err.msg, "must be owned by root and not writable by group or "
                                        "others (owner uid 0, mode 0664); refused"));
        sb_error_clear(&err);
        unlink(path);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_default_policy_is_standard),
                cmocka_unit_test(test_operator_default_strict),
                cmocka_unit_test(test_annotation_selects_strict),
                cmocka_unit_test(test_annotation_same_profile),
                cmocka_unit_test(test_annotation_cannot_loosen),
                cmocka_unit_test(test_annotation_unknown_profile),
                cmocka_unit_test(test_operator_ceiling_replaces_default),
                cmocka_unit_test(test_operator_ceiling_under_stricter_profile),
                cmocka_unit_test(test_exec_process_same_profile),
                cmocka_unit_test(test_policy_floor_errors),
                cmocka_unit_test(test_policy_text),
                cmocka_unit_test(test_parse_size_and_cpus),
                cmocka_unit_test(test_policy_file),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
