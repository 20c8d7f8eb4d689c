/* The io ceiling as the floor decides it (spec/floor_io.c): which ceiling
 * is in force (strict's default, none under standard, the operator's, the
 * lower of the two under a stricter profile by annotation), the disks it
 * is added for, blockIO clamped to it at create and at update, io.* files
 * refused under it, and a source with no disk or a cgroup without the io
 * controller refused under strict or waived with a record. The host's
 * facts are the fixture's (floor_fixture_io_root, floor_fixture_io_bind),
 * so that every case is reached on any machine; tests/vm/io_ceiling.bats
 * holds real disks to it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "tests/unit/floor_fixture.h"

#include "spec/floor_io.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#define MiB (UINT64_C(1) << 20)
#define STRICT_POLICY "{'floor':{'profile':'strict'}}"
/* Strict, with its volumes rule waived: a writable bind reaches the io
 * concern whatever the test machine's project quota. */
#define STRICT_ANY_VOLUME "{'floor':{'profile':'strict','volumes':{'require_project_quota':false}"
#define STRICT_RULE                                                                   \
        "strict: every disk the container reads or writes is held to the io ceiling " \
        "(floor.ceilings.io.require_enforced)"
#define STRICT_ADDED "rbps=33554432 wbps=33554432 riops=1000 wiops=1000"

static const struct floor_io_backing two_disks = { .kind = FLOOR_IO_DISKS,
                                                   .fs = "overlay",
                                                   .disks = { { 8, 0 }, { 253, 1 } },
                                                   .n_disks = 2 };
static const struct floor_io_backing sda = { .kind = FLOOR_IO_DISKS,
                                             .fs = "ext4 on /dev/sda1",
                                             .disks = { { 8, 0 } },
                                             .n_disks = 1 };
static const struct floor_io_backing nine_p = { .kind = FLOOR_IO_NO_DISK, .fs = "9p on share" };
static const struct floor_io_backing memory = { .kind = FLOOR_IO_MEMORY, .fs = "memory" };

/* The merge of doc under policy, the root on root and every bind on bind. */
static int run_io(struct floor_run *run, const char *doc, const char *policy,
                  const struct floor_io_backing *root, const struct floor_io_backing *bind,
                  enum floor_mode mode)
{
        int r;

        floor_fixture_io_root = root;
        floor_fixture_io_bind = bind;
        r = floor_run(run, doc, policy, NULL, NULL, mode);
        floor_fixture_io_root = floor_fixture_io_bind = NULL;
        return r;
}

static char *bind_doc(const char *options, const char *linux_)
{
        char *doc = NULL;

        assert_int_not_equal(
                asprintf(&doc,
                         "{'ociVersion':'1.2.0','root':{'path':'rootfs'},"
                         "'process':{'args':['sh'],'cwd':'/'},"
                         "'mounts':[{'destination':'/data','type':'bind','source':'/srv',"
                         "'options':[%s]}],'linux':{" NAMESPACES "%s}}",
                         options, linux_),
                -1);
        return doc;
}

static struct floor_ceilings select_ceilings(const char *config_doc, const char *policy_doc,
                                             enum floor_io_rule *rule)
{
        struct floor_run run;
        struct floor_context ctx;

        floor_run_ok(&run, config_doc, policy_doc);
        assert_int_equal(floor_select(&run.policy, run.config, NULL, &ctx, &run.report, &run.err),
                         0);
        *rule = ctx.io_rule;
        struct floor_ceilings c = ctx.ceilings;
        floor_run_release(&run);
        return c;
}

static void test_policy_keys(void **state)
{
        struct operator_policy p;
        (void)state;

        policy_parse("{'floor':{'ceilings':{'io':{'read_bps':'10M','write_bps':1048576,"
                     "'read_iops':'2k','write_iops':300,'weight':50,'require_enforced':false}}}}",
                     &p);
        assert_int_equal(p.ceilings.io.rbps, 10 * MiB);
        assert_int_equal(p.ceilings.io.wbps, 1 * MiB);
        assert_int_equal(p.ceilings.io.riops, 2048);
        assert_int_equal(p.ceilings.io.wiops, 300);
        assert_int_equal(p.ceilings.io.weight, 50);
        assert_true(p.io_require_set);
        assert_false(p.io_require);
        operator_policy_release(&p);

        policy_parse_fails("{'floor':{'ceilings':{'io':{'weight':0}}}}",
                           "floor.ceilings.io.weight: expected an io.weight from 1 to 10000");
        policy_parse_fails("{'floor':{'ceilings':{'io':{'weight':10001}}}}",
                           "floor.ceilings.io.weight: expected an io.weight from 1 to 10000");
        policy_parse_fails("{'floor':{'ceilings':{'io':{'read_bps':0}}}}",
                           "floor.ceilings.io.read_bps: expected a positive size");
        policy_parse_fails("{'floor':{'ceilings':{'io':{'write_iops':'-1'}}}}",
                           "floor.ceilings.io.write_iops: expected a positive size");
        policy_parse_fails("{'floor':{'ceilings':{'io':{'rbps':1}}}}",
                           "floor.ceilings.io.rbps: unknown io ceiling");
        policy_parse_fails("{'floor':{'ceilings':{'io':{'require_enforced':'no'}}}}",
                           "floor.ceilings.io.require_enforced: expected true or false");
        policy_parse_fails("{'floor':{'ceilings':{'io':'1M'}}}",
                           "floor.ceilings.io: expected an object");
}

/* strict's default, none under standard, the operator's replacing the
 * default profile's, and under a stricter profile by annotation the lower
 * of the two: the annotation may only lower it. */
static void test_ceiling_selection(void **state)
{
        const char *plain = SPEC("", "", "");
        const char *strict = SPEC("", STRICT_ANNOTATION, "");
        enum floor_io_rule rule;
        struct floor_ceilings c;
        (void)state;

        c = select_ceilings(plain, NULL, &rule);
        assert_false(floor_io_ceiling_set(&c.io));
        assert_int_equal(rule, IO_RULE_NONE);

        c = select_ceilings(plain, STRICT_POLICY, &rule);
        assert_int_equal(c.io.rbps, 32 * MiB);
        assert_int_equal(c.io.wbps, 32 * MiB);
        assert_int_equal(c.io.riops, 1000);
        assert_int_equal(c.io.wiops, 1000);
        assert_int_equal(c.io.weight, 100);
        assert_int_equal(rule, IO_REQUIRED);

        /* The operator's own profile: its value replaces strict's, up or down. */
        c = select_ceilings(
                plain, "{'floor':{'profile':'strict','ceilings':{'io':{'read_bps':'1G'}}}}", &rule);
        assert_int_equal(c.io.rbps, 1024 * MiB);
        assert_int_equal(c.io.wbps, 32 * MiB);

        /* standard with an operator ceiling: held, not required. */
        c = select_ceilings(plain, "{'floor':{'ceilings':{'io':{'write_bps':'8M'}}}}", &rule);
        assert_int_equal(c.io.wbps, 8 * MiB);
        assert_int_equal(c.io.rbps, 0);
        assert_int_equal(rule, IO_NOT_REQUIRED);

        /* strict by annotation: the lower of strict's and the operator's. */
        c = select_ceilings(
                strict, "{'floor':{'ceilings':{'io':{'read_bps':'1G','write_bps':'1M'}}}}", &rule);
        assert_int_equal(c.io.rbps, 32 * MiB);
        assert_int_equal(c.io.wbps, 1 * MiB);
        assert_int_equal(c.io.riops, 1000);
        assert_int_equal(rule, IO_REQUIRED);

        /* A waiver under strict as the default profile; none under strict by
         * annotation, whose rule the policy cannot loosen. */
        c = select_ceilings(
                plain,
                "{'floor':{'profile':'strict','ceilings':{'io':{'require_enforced':false}}}}",
                &rule);
        assert_int_equal(rule, IO_WAIVED_BY_POLICY);
        c = select_ceilings(strict, "{'floor':{'ceilings':{'io':{'require_enforced':false}}}}",
                            &rule);
        assert_int_equal(rule, IO_REQUIRED);
        c = select_ceilings(
                plain, "{'floor':{'ceilings':{'io':{'read_iops':100,'require_enforced':true}}}}",
                &rule);
        assert_int_equal(rule, IO_REQUIRED_BY_POLICY);
}

/* Every disk behind the root and the binds gets the ceiling, once, naming
 * what it backs. */
static void test_disks_added(void **state)
{
        struct floor_run run;
        char *doc = bind_doc("'rbind'", "");
        const struct oci_block_io *io;
        (void)state;

        assert_int_equal(run_io(&run, doc, STRICT_ANY_VOLUME "}}", &two_disks, &sda, FLOOR_CREATE),
                         0);
        assert_change(&run.report, "linux.resources.blockIO[8:0]", FLOOR_ADDED, "(none)",
                      STRICT_ADDED, "strict io ceiling on the disk of root.path, mounts[0].source");
        assert_change(&run.report, "linux.resources.blockIO[253:1]", FLOOR_ADDED, "(none)",
                      STRICT_ADDED, "strict io ceiling on the disk of root.path");
        io = run.config->linux_->resources->block_io;
        assert_non_null(io);
        assert_int_equal(io->throttle_read_bps.n, 2);
        assert_int_equal(io->throttle_write_iops.n, 2);
        assert_int_equal(io->throttle_read_bps.devices[0].major, 8);
        assert_int_equal(io->throttle_read_bps.devices[0].minor, 0);
        assert_int_equal(io->throttle_read_bps.devices[0].rate, 32 * MiB);
        assert_int_equal(io->throttle_write_iops.devices[1].major, 253);
        assert_int_equal(io->throttle_write_iops.devices[1].rate, 1000);
        /* The kernel's default weight is within strict's: none written. */
        assert_false(io->has_weight);
        floor_run_release(&run);

        /* standard has no ceiling: nothing is added. */
        assert_int_equal(run_io(&run, doc, NULL, &two_disks, &sda, FLOOR_CREATE), 0);
        assert_no_change(&run.report, "linux.resources.blockIO[8:0]");
        assert_null(run.config->linux_->resources == NULL ?
                            NULL :
                            run.config->linux_->resources->block_io);
        floor_run_release(&run);

        /* Memory needs nothing. */
        assert_int_equal(run_io(&run, doc, STRICT_ANY_VOLUME "}}", &memory, &memory, FLOOR_CREATE),
                         0);
        assert_null(floor_change_find(&run.report, "linux.resources.blockIO[8:0]", 0));
        floor_run_release(&run);
        free(doc);
}

/* A spec's throttles: above the ceiling or no limit (0) clamped, below
 * kept, and then no second entry added for that disk. */
static void test_blockio_clamped(void **state)
{
        struct floor_run run;
        char *doc = bind_doc("'rbind'",
                             ",'resources':{'blockIO':{'weight':1000,"
                             "'weightDevice':[{'major':8,'minor':0,'weight':500}],"
                             "'throttleReadBpsDevice':[{'major':8,'minor':0,'rate':1073741824}],"
                             "'throttleWriteBpsDevice':[{'major':8,'minor':0,'rate':0}],"
                             "'throttleReadIOPSDevice':[{'major':8,'minor':0,'rate':10}]}}");
        const struct oci_block_io *io;
        (void)state;

        assert_int_equal(run_io(&run, doc, STRICT_ANY_VOLUME "}}", &sda, &sda, FLOOR_EXPLAIN), 0);
        assert_change(&run.report, "linux.resources.blockIO.throttleReadBpsDevice[0]",
                      FLOOR_CLAMPED, "8:0 rbps=1073741824", "8:0 rbps=33554432",
                      "strict io ceiling");
        assert_change(&run.report, "linux.resources.blockIO.throttleWriteBpsDevice[0]",
                      FLOOR_CLAMPED, "8:0 wbps=0 (no limit)", "8:0 wbps=33554432",
                      "strict io ceiling");
        assert_no_change(&run.report, "linux.resources.blockIO.throttleReadIOPSDevice[0]");
        /* io.weight 100 is blkio 19 at most (io.weight 91). */
        assert_change(&run.report, "linux.resources.blockIO.weight", FLOOR_CLAMPED,
                      "1000 (io.weight 10000)", "19 (io.weight 91)", "strict io ceiling");
        assert_change(&run.report, "linux.resources.blockIO.weightDevice[0].weight", FLOOR_CLAMPED,
                      "500", "19", "strict io ceiling");
        /* Only the write IOPS had no entry for 8:0. */
        assert_change(&run.report, "linux.resources.blockIO[8:0]", FLOOR_ADDED, "(none)",
                      "wiops=1000", "strict io ceiling on the disk of root.path, mounts[0].source");
        io = run.config->linux_->resources->block_io;
        assert_int_equal(io->throttle_read_iops.n, 1);
        assert_int_equal(io->throttle_read_iops.devices[0].rate, 10);
        assert_int_equal(io->throttle_write_bps.devices[0].rate, 32 * MiB);
        floor_run_release(&run);

        /* standard: as asked. */
        assert_int_equal(run_io(&run, doc, NULL, &sda, &sda, FLOOR_CREATE), 0);
        io = run.config->linux_->resources->block_io;
        assert_int_equal(io->throttle_read_bps.devices[0].rate, 1073741824);
        assert_int_equal(io->weight, 1000);
        floor_run_release(&run);
        free(doc);
}

/* A weight ceiling below the kernel's default is written even when the
 * spec asks for none. */
static void test_low_weight_added(void **state)
{
        struct floor_run run;
        (void)state;

        floor_run_ok(&run, SPEC("", "", ""), "{'floor':{'ceilings':{'io':{'weight':50}}}}");
        assert_change(&run.report, "linux.resources.blockIO.weight", FLOOR_ADDED, "(none)",
                      "14 (io.weight 41)", "standard io ceiling");
        floor_run_release(&run);
}

static void expect_no_disk_refused(const char *options, const char *field, const char *value)
{
        struct floor_run run;
        char *doc = bind_doc(options, "");
        char *message = NULL;

        assert_int_equal(run_io(&run, doc, STRICT_ANY_VOLUME "}}", field[0] == 'r' ? &nine_p : &sda,
                                field[0] == 'r' ? &sda : &nine_p, FLOOR_EXPLAIN),
                         0);
        assert_change(&run.report, field, FLOOR_REFUSED, value, "refused", STRICT_RULE);
        floor_run_release(&run);
        assert_int_equal(run_io(&run, doc, STRICT_ANY_VOLUME "}}", field[0] == 'r' ? &nine_p : &sda,
                                field[0] == 'r' ? &sda : &nine_p, FLOOR_CREATE),
                         -1);
        assert_int_not_equal(
                asprintf(&message, "%s: %s refused (rule: " STRICT_RULE ")", field, value), -1);
        assert_string_equal(run.error, message);
        floor_run_release(&run);
        free(message);
        free(doc);
}

static void test_no_disk_refused_under_strict(void **state)
{
        (void)state;
        expect_no_disk_refused("'rbind'", "root.path",
                               "rootfs is on 9p on share, a file system with no block device "
                               "to hold to the io ceiling");
        expect_no_disk_refused("'rbind'", "mounts[0].source",
                               "/srv is on 9p on share, a file system with no block device "
                               "to hold to the io ceiling");
}

/* A read-only bind with no disk passes (its reads cost no disk of the
 * host's); the policy's waiver lets a writable one through, recorded;
 * standard with an operator ceiling records it; require_enforced true
 * under standard refuses. */
static void test_no_disk_allowed(void **state)
{
        struct floor_run run;
        char *ro = bind_doc("'rbind','ro'", "");
        char *rw = bind_doc("'rbind'", "");
        const char *value =
                "/srv is on 9p on share, a file system with no block device to hold to the io ceiling";
        (void)state;

        assert_int_equal(run_io(&run, ro, STRICT_ANY_VOLUME "}}", &sda, &nine_p, FLOOR_CREATE), 0);
        assert_no_change(&run.report, "mounts[0].source");
        floor_run_release(&run);

        assert_int_equal(run_io(&run, rw,
                                STRICT_ANY_VOLUME ",'ceilings':{'io':{'require_enforced':false}}}}",
                                &sda, &nine_p, FLOOR_CREATE),
                         0);
        assert_change(&run.report, "mounts[0].source", FLOOR_DROPPED, "the io ceiling", value,
                      "floor.ceilings.io.require_enforced false in " OPERATOR_POLICY_PATH);
        floor_run_release(&run);

        assert_int_equal(run_io(&run, rw, "{'floor':{'ceilings':{'io':{'write_bps':'8M'}}}}", &sda,
                                &nine_p, FLOOR_CREATE),
                         0);
        assert_change(&run.report, "mounts[0].source", FLOOR_DROPPED, "the io ceiling", value,
                      "standard io ceiling: not required where no disk backs it");
        floor_run_release(&run);

        assert_int_equal(run_io(&run, rw,
                                "{'floor':{'ceilings':{'io':{'write_bps':'8M',"
                                "'require_enforced':true}}}}",
                                &sda, &nine_p, FLOOR_EXPLAIN),
                         0);
        assert_change(&run.report, "mounts[0].source", FLOOR_REFUSED, value, "refused",
                      "floor.ceilings.io.require_enforced true in " OPERATOR_POLICY_PATH);
        floor_run_release(&run);

        /* No ceiling: nothing to hold, nothing said. */
        assert_int_equal(run_io(&run, rw, NULL, &nine_p, &nine_p, FLOOR_CREATE), 0);
        assert_no_change(&run.report, "mounts[0].source");
        assert_no_change(&run.report, "root.path");
        floor_run_release(&run);
        free(ro);
        free(rw);
}

/* linux.resources.unified io.* would write past the ceiling. */
static void test_unified_io_refused(void **state)
{
        struct floor_run run;
        const char *doc = SPEC("", "", ",'resources':{'unified':{'io.max':'8:0 rbps=max'}}");
        (void)state;

        floor_run_ok(&run, doc, STRICT_POLICY);
        assert_change(&run.report, "linux.resources.unified", FLOOR_REFUSED, "\"io.max\"",
                      "refused",
                      "strict io ceiling: io.* files are sbrun's to write (use blockIO)");
        floor_run_release(&run);
        floor_run_ok(&run, doc, NULL);
        assert_no_change(&run.report, "linux.resources.unified");
        floor_run_release(&run);
}

/* update: what it sets is clamped, no disk is added. */
static void test_update_clamped(void **state)
{
        struct floor_run run;
        struct oci_resources res;
        struct oci_block_io io;
        struct oci_throttle_device wbps = { .major = 8, .minor = 0, .rate = 1 << 30 };
        struct sb_error err = { 0 };
        (void)state;

        floor_run_ok(&run, SPEC("", STRICT_ANNOTATION, ""), NULL);
        memset(&res, 0, sizeof(res));
        memset(&io, 0, sizeof(io));
        io.throttle_write_bps.devices = &wbps;
        io.throttle_write_bps.n = 1;
        io.has_weight = true;
        io.weight = 1000;
        res.block_io = &io;
        assert_int_equal(
                effective_resources_apply(run.config, &res, &run.policy, &run.facts.host, &err), 0);
        assert_int_equal(wbps.rate, 32 * MiB);
        assert_int_equal(io.weight, 19);
        assert_int_equal(io.throttle_read_bps.n, 0);
        assert_int_equal(io.throttle_write_bps.n, 1);
        /* An update without blockIO gets none. */
        memset(&res, 0, sizeof(res));
        assert_int_equal(
                effective_resources_apply(run.config, &res, &run.policy, &run.facts.host, &err), 0);
        assert_null(res.block_io);
        floor_run_release(&run);
}

/* No io controller where the cgroup is made: refused under strict, waived
 * with a record, nothing without a ceiling. */
static void test_io_controller(void **state)
{
        struct floor_run run;
        struct floor_report report = { .explain = true };
        struct sb_error err = { 0 };
        bool drop = true;
        const char *missing = "the io controller is not available in /sys/fs/cgroup/x "
                              "(cgroup.controllers: cpu memory pids)";
        (void)state;

        floor_run_ok(&run, SPEC("", "", ""), NULL);
        assert_int_equal(
                floor_io_controller(&run.policy, run.config, missing, &drop, &report, &err), 0);
        assert_false(drop);
        assert_int_equal(report.n, 0);
        floor_run_release(&run);

        floor_run_ok(&run, SPEC("", STRICT_ANNOTATION, ""), NULL);
        assert_int_equal(
                floor_io_controller(&run.policy, run.config, missing, &drop, &report, &err), 0);
        assert_change(&report, "linux.resources.blockIO", FLOOR_REFUSED,
                      "the io ceiling cannot be enforced: the io controller is not available in "
                      "/sys/fs/cgroup/x (cgroup.controllers: cpu memory pids)",
                      "refused", STRICT_RULE);
        floor_report_release(&report);
        /* create: fails naming it. */
        report = (struct floor_report){ 0 };
        assert_int_equal(
                floor_io_controller(&run.policy, run.config, missing, &drop, &report, &err), -1);
        assert_non_null(strstr(err.msg, "the io ceiling cannot be enforced"));
        sb_error_clear(&err);
        /* There: nothing to decide. */
        assert_int_equal(floor_io_controller(&run.policy, run.config, NULL, &drop, &report, &err),
                         0);
        assert_false(drop);
        floor_run_release(&run);

        floor_run_ok(&run, SPEC("", "", ""),
                     "{'floor':{'profile':'strict','ceilings':{'io':{'require_enforced':false}}}}");
        report = (struct floor_report){ .explain = true };
        assert_int_equal(
                floor_io_controller(&run.policy, run.config, missing, &drop, &report, &err), 0);
        assert_true(drop);
        assert_non_null(floor_change_find(&report, "linux.resources.blockIO", 0));
        assert_int_equal(floor_change_find(&report, "linux.resources.blockIO", 0)->action,
                         FLOOR_DROPPED);
        floor_report_release(&report);
        floor_run_release(&run);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_policy_keys),
                cmocka_unit_test(test_ceiling_selection),
                cmocka_unit_test(test_disks_added),
                cmocka_unit_test(test_blockio_clamped),
                cmocka_unit_test(test_low_weight_added),
                cmocka_unit_test(test_no_disk_refused_under_strict),
                cmocka_unit_test(test_no_disk_allowed),
                cmocka_unit_test(test_unified_io_refused),
                cmocka_unit_test(test_update_clamped),
                cmocka_unit_test(test_io_controller),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
