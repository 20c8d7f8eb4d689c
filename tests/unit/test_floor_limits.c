/* The floor's ceilings (spec/floor_limits.c, spec/floor_process.c,
 * spec/floor_mounts.c): a request above a ceiling is lowered to it, one
 * below is kept, and no limit at all (the most of all) gets the ceiling. */
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
#include <string.h>
#include <sys/resource.h>

#include <cmocka.h>

#define MiB (1024LL * 1024)
#define STRICT_POLICY "{'floor':{'profile':'strict'}}"
#define RES(fragment) SPEC("", "", ",'resources':{" fragment "}")

static const struct oci_rlimit *rlimit(const struct oci_process *p, int resource)
{
        for (size_t i = 0; i < p->n_rlimits; i++) {
                if (p->rlimits[i].resource == resource)
                        return &p->rlimits[i];
        }
        return NULL;
}

static void test_pids_ceiling(void **state)
{
        struct floor_run run;
        (void)state;

        floor_run_ok(&run, RES("'pids':{'limit':10000}"), NULL);
        assert_int_equal(run.config->linux_->resources->pids_limit, 4096);
        assert_change(&run.report, "linux.resources.pids.limit", FLOOR_CLAMPED, "10000", "4096",
                      "standard pids ceiling");
        floor_run_release(&run);

        floor_run_ok(&run, RES("'pids':{'limit':100}"), NULL);
        assert_int_equal(run.config->linux_->resources->pids_limit, 100);
        assert_no_change(&run.report, "linux.resources.pids.limit");
        floor_run_release(&run);

        floor_run_ok(&run, RES("'pids':{'limit':4096}"), NULL);
        assert_int_equal(run.config->linux_->resources->pids_limit, 4096);
        assert_no_change(&run.report, "linux.resources.pids.limit");
        floor_run_release(&run);

        /* -1 and 0 both mean "no limit" to runc: the ceiling applies. */
        floor_run_ok(&run, RES("'pids':{'limit':-1}"), NULL);
        assert_int_equal(run.config->linux_->resources->pids_limit, 4096);
        assert_change(&run.report, "linux.resources.pids.limit", FLOOR_CLAMPED, "unlimited", "4096",
                      "standard pids ceiling");
        floor_run_release(&run);

        floor_run_ok(&run, RES("'pids':{'limit':0}"), NULL);
        assert_int_equal(run.config->linux_->resources->pids_limit, 4096);
        floor_run_release(&run);

        floor_run_ok(&run, SPEC("", "", ""), STRICT_POLICY);
        assert_true(run.config->linux_->resources->has_pids_limit);
        assert_int_equal(run.config->linux_->resources->pids_limit, 256);
        assert_change(&run.report, "linux.resources.pids.limit", FLOOR_ADDED, "(none)", "256",
                      "strict pids ceiling");
        floor_run_release(&run);
}

static void test_memory_ceiling(void **state)
{
        struct floor_run run;
        (void)state;

        floor_run_ok(&run, RES("'memory':{'limit':1073741824,'swap':1073741824}"), STRICT_POLICY);
        assert_int_equal(run.config->linux_->resources->memory->limit, 512 * MiB);
        assert_change(&run.report, "linux.resources.memory.limit", FLOOR_CLAMPED, "1073741824",
                      "536870912", "strict memory ceiling");
        /* Strict: memory+swap follows the clamped limit, so still no swap. */
        assert_int_equal(run.config->linux_->resources->memory->swap, 512 * MiB);
        assert_change(&run.report, "linux.resources.memory.swap", FLOOR_FORCED, "1073741824",
                      "536870912", "strict: no swap");
        floor_run_release(&run);

        floor_run_ok(&run, RES("'memory':{'limit':268435456}"), STRICT_POLICY);
        assert_int_equal(run.config->linux_->resources->memory->limit, 256 * MiB);
        assert_no_change(&run.report, "linux.resources.memory.limit");
        assert_int_equal(run.config->linux_->resources->memory->swap, 256 * MiB);
        assert_change(&run.report, "linux.resources.memory.swap", FLOOR_FORCED, "(none)",
                      "268435456", "strict: no swap");
        floor_run_release(&run);

        floor_run_ok(&run, RES("'memory':{'limit':-1}"), STRICT_POLICY);
        assert_int_equal(run.config->linux_->resources->memory->limit, 512 * MiB);
        assert_change(&run.report, "linux.resources.memory.limit", FLOOR_CLAMPED, "unlimited",
                      "536870912", "strict memory ceiling");
        floor_run_release(&run);

        /* A memory object with no limit in it is no limit. */
        floor_run_ok(&run, RES("'memory':{'reservation':1048576}"), STRICT_POLICY);
        assert_true(run.config->linux_->resources->memory->has_limit);
        assert_int_equal(run.config->linux_->resources->memory->limit, 512 * MiB);
        assert_change(&run.report, "linux.resources.memory.limit", FLOOR_ADDED, "(none)",
                      "536870912", "strict memory ceiling");
        floor_run_release(&run);
}

static void test_memory_operator_ceiling(void **state)
{
        struct floor_run run;
        (void)state;

        floor_run_ok(&run, SPEC("", "", ""), "{'floor':{'ceilings':{'memory':'256M'}}}");
        assert_non_null(run.config->linux_->resources->memory);
        assert_int_equal(run.config->linux_->resources->memory->limit, 256 * MiB);
        assert_change(&run.report, "linux.resources.memory.limit", FLOOR_ADDED, "(none)",
                      "268435456", "standard memory ceiling");
        /* standard keeps swap as asked. */
        assert_false(run.config->linux_->resources->memory->has_swap);
        floor_run_release(&run);

        floor_run_ok(&run, RES("'memory':{'limit':536870912}"),
                     "{'floor':{'ceilings':{'memory':268435456}}}");
        assert_int_equal(run.config->linux_->resources->memory->limit, 256 * MiB);
        assert_change(&run.report, "linux.resources.memory.limit", FLOOR_CLAMPED, "536870912",
                      "268435456", "standard memory ceiling");
        floor_run_release(&run);
}

/* standard has no memory ceiling: no limit stays no limit, but a limit
 * above what the host has is lowered to the host's RAM. */
static void test_memory_host_ceiling(void **state)
{
        struct floor_run run;
        (void)state;

        floor_run_ok(&run, SPEC("", "", ""), NULL);
        assert_null(run.config->linux_->resources->memory);
        floor_run_release(&run);

        floor_run_ok(&run, RES("'memory':{'limit':4611686018427387904}"), NULL);
        assert_int_equal(run.config->linux_->resources->memory->limit, FIXTURE_HOST_MEMORY);
        assert_change(&run.report, "linux.resources.memory.limit", FLOOR_CLAMPED,
                      "4611686018427387904", "8589934592",
                      "standard: no more memory than the host has");
        floor_run_release(&run);

        /* A host whose RAM is not known: nothing to clamp to. */
        floor_fixture_host_memory = 0;
        floor_run_ok(&run, RES("'memory':{'limit':4611686018427387904}"), NULL);
        floor_fixture_host_memory = FIXTURE_HOST_MEMORY;
        assert_int_equal(run.config->linux_->resources->memory->limit,
                         INT64_C(4611686018427387904));
        assert_no_change(&run.report, "linux.resources.memory.limit");
        floor_run_release(&run);

        floor_run_ok(&run, RES("'memory':{'limit':67108864}"), NULL);
        assert_int_equal(run.config->linux_->resources->memory->limit, 64 * MiB);
        assert_no_change(&run.report, "linux.resources.memory.limit");
        floor_run_release(&run);
}

static void test_cpu_ceiling(void **state)
{
        struct floor_run run;
        (void)state;

        floor_run_ok(&run, RES("'cpu':{'quota':200000,'period':100000}"), STRICT_POLICY);
        assert_int_equal(run.config->linux_->resources->cpu->quota, 100000);
        assert_int_equal(run.config->linux_->resources->cpu->period, 100000);
        assert_change(&run.report, "linux.resources.cpu", FLOOR_CLAMPED, "200000/100000",
                      "100000/100000", "strict cpu ceiling");
        floor_run_release(&run);

        floor_run_ok(&run, RES("'cpu':{'quota':50000,'period':100000}"), STRICT_POLICY);
        assert_int_equal(run.config->linux_->resources->cpu->quota, 50000);
        assert_no_change(&run.report, "linux.resources.cpu");
        floor_run_release(&run);

        /* The ratio counts, not the quota: 100000/50000 is two CPUs,
         * 150000/200000 is three quarters of one. */
        floor_run_ok(&run, RES("'cpu':{'quota':100000,'period':50000}"), STRICT_POLICY);
        assert_change(&run.report, "linux.resources.cpu", FLOOR_CLAMPED, "100000/50000",
                      "100000/100000", "strict cpu ceiling");
        floor_run_release(&run);
        floor_run_ok(&run, RES("'cpu':{'quota':150000,'period':200000}"), STRICT_POLICY);
        assert_int_equal(run.config->linux_->resources->cpu->quota, 150000);
        assert_int_equal(run.config->linux_->resources->cpu->period, 200000);
        assert_no_change(&run.report, "linux.resources.cpu");
        floor_run_release(&run);

        floor_run_ok(&run, RES("'cpu':{'quota':-1}"), STRICT_POLICY);
        assert_int_equal(run.config->linux_->resources->cpu->quota, 100000);
        assert_change(&run.report, "linux.resources.cpu", FLOOR_CLAMPED, "unlimited",
                      "100000/100000", "strict cpu ceiling");
        floor_run_release(&run);

        floor_run_ok(&run, RES("'cpu':{'shares':1024}"), STRICT_POLICY);
        assert_true(run.config->linux_->resources->cpu->has_quota);
        assert_int_equal(run.config->linux_->resources->cpu->quota, 100000);
        assert_int_equal(run.config->linux_->resources->cpu->shares, 1024);
        assert_change(&run.report, "linux.resources.cpu", FLOOR_ADDED, "(none)", "100000/100000",
                      "strict cpu ceiling");
        floor_run_release(&run);

        floor_run_ok(&run, SPEC("", "", ""), "{'floor':{'ceilings':{'cpu':'0.5'}}}");
        assert_int_equal(run.config->linux_->resources->cpu->quota, 50000);
        assert_change(&run.report, "linux.resources.cpu", FLOOR_ADDED, "(none)", "50000/100000",
                      "standard cpu ceiling");
        floor_run_release(&run);

        floor_run_ok(&run, SPEC("", "", ""), NULL);
        assert_null(run.config->linux_->resources->cpu);
        floor_run_release(&run);
}

#define RLIMITS(list) SPEC(",'rlimits':[" list "]", "", "")

static void test_rlimit_ceilings(void **state)
{
        struct floor_run run;
        const struct oci_rlimit *r;
        (void)state;

        floor_run_ok(&run,
                     RLIMITS("{'type':'RLIMIT_NOFILE','hard':4096,'soft':2048},"
                             "{'type':'RLIMIT_FSIZE','hard':1073741824,'soft':1073741824}"),
                     STRICT_POLICY);
        r = rlimit(run.config->process, RLIMIT_NOFILE);
        assert_int_equal(r->hard, 1024);
        assert_int_equal(r->soft, 1024);
        r = rlimit(run.config->process, RLIMIT_FSIZE);
        assert_int_equal(r->hard, 64 * MiB);
        assert_int_equal(r->soft, 64 * MiB);
        assert_change(&run.report, "process.rlimits.RLIMIT_NOFILE", FLOOR_CLAMPED, "4096", "1024",
                      "strict nofile ceiling");
        assert_change(&run.report, "process.rlimits.RLIMIT_FSIZE", FLOOR_CLAMPED, "1073741824",
                      "67108864", "strict fsize ceiling");
        floor_run_release(&run);

        floor_run_ok(&run,
                     RLIMITS("{'type':'RLIMIT_NOFILE','hard':512,'soft':256},"
                             "{'type':'RLIMIT_FSIZE','hard':1048576,'soft':1024}"),
                     STRICT_POLICY);
        r = rlimit(run.config->process, RLIMIT_NOFILE);
        assert_int_equal(r->hard, 512);
        assert_int_equal(r->soft, 256);
        r = rlimit(run.config->process, RLIMIT_FSIZE);
        assert_int_equal(r->hard, 1048576);
        assert_int_equal(r->soft, 1024);
        assert_no_change(&run.report, "process.rlimits.RLIMIT_NOFILE");
        assert_no_change(&run.report, "process.rlimits.RLIMIT_FSIZE");
        floor_run_release(&run);

        /* A soft limit under a clamped hard one stays. */
        floor_run_ok(&run, RLIMITS("{'type':'RLIMIT_NOFILE','hard':1048576,'soft':100}"),
                     STRICT_POLICY);
        r = rlimit(run.config->process, RLIMIT_NOFILE);
        assert_int_equal(r->hard, 1024);
        assert_int_equal(r->soft, 100);
        floor_run_release(&run);

        floor_run_ok(&run,
                     RLIMITS("{'type':'RLIMIT_FSIZE','hard':18446744073709551615,"
                             "'soft':18446744073709551615}"),
                     STRICT_POLICY);
        assert_change(&run.report, "process.rlimits.RLIMIT_FSIZE", FLOOR_CLAMPED, "unlimited",
                      "67108864", "strict fsize ceiling");
        floor_run_release(&run);

        /* standard: no fsize/nofile ceiling of its own; the operator's applies. */
        floor_run_ok(&run, RLIMITS("{'type':'RLIMIT_NOFILE','hard':1048576,'soft':1048576}"), NULL);
        assert_int_equal(rlimit(run.config->process, RLIMIT_NOFILE)->hard, 1048576);
        assert_null(rlimit(run.config->process, RLIMIT_FSIZE));
        floor_run_release(&run);
        floor_run_ok(&run, RLIMITS("{'type':'RLIMIT_NOFILE','hard':1048576,'soft':1048576}"),
                     "{'floor':{'ceilings':{'nofile':100,'fsize':'1M'}}}");
        assert_int_equal(rlimit(run.config->process, RLIMIT_NOFILE)->hard, 100);
        assert_int_equal(rlimit(run.config->process, RLIMIT_FSIZE)->hard, 1048576);
        assert_change(&run.report, "process.rlimits.RLIMIT_NOFILE", FLOOR_CLAMPED, "1048576", "100",
                      "standard nofile ceiling");
        assert_change(&run.report, "process.rlimits.RLIMIT_FSIZE", FLOOR_ADDED, "(none)", "1048576",
                      "standard fsize ceiling");
        floor_run_release(&run);
}

static void test_no_core_dumps(void **state)
{
        struct floor_run run;
        (void)state;

        floor_run_ok(&run, RLIMITS("{'type':'RLIMIT_CORE','hard':1000000,'soft':1000}"), NULL);
        assert_int_equal(rlimit(run.config->process, RLIMIT_CORE)->hard, 0);
        assert_int_equal(rlimit(run.config->process, RLIMIT_CORE)->soft, 0);
        assert_change(&run.report, "process.rlimits.RLIMIT_CORE", FLOOR_CLAMPED, "1000000", "0",
                      "standard: no core dumps");
        floor_run_release(&run);

        floor_run_ok(&run, SPEC("", "", ""), NULL);
        assert_int_equal(rlimit(run.config->process, RLIMIT_CORE)->hard, 0);
        assert_change(&run.report, "process.rlimits.RLIMIT_CORE", FLOOR_ADDED, "(none)", "0",
                      "standard: no core dumps");
        floor_run_release(&run);
}

#define TMPFS(dest, options)                                                         \
        SPEC("",                                                                     \
             ",'mounts':[{'destination':'" dest "','type':'tmpfs','source':'tmpfs'," \
             "'options':[" options "]}]",                                            \
             "")

static void assert_options(const struct oci_mount *m, const char *const *want)
{
        size_t n = 0;

        for (; want[n] != NULL; n++) {
                assert_true(n < m->n_options);
                assert_string_equal(m->options[n], want[n]);
        }
        assert_int_equal(m->n_options, n);
        assert_null(m->options[n]);
}

static void test_tmpfs_ceiling(void **state)
{
        struct floor_run run;
        (void)state;

        floor_run_ok(&run, TMPFS("/run", "'nosuid','size=2G','mode=755'"), NULL);
        assert_options(&run.config->mounts[0],
                       (const char *const[]){ "nosuid", "mode=755", "size=1073741824",
                                              "nr_inodes=1048576", NULL });
        assert_change(&run.report, "mounts[0].options", FLOOR_CLAMPED, "size=2G", "size=1073741824",
                      "standard tmpfs size ceiling");
        floor_run_release(&run);

        floor_run_ok(&run, TMPFS("/run", "'size=64m','nr_inodes=1k'"), NULL);
        assert_options(&run.config->mounts[0],
                       (const char *const[]){ "size=64m", "nr_inodes=1k", NULL });
        assert_no_change(&run.report, "mounts[0].options");
        floor_run_release(&run);

        /* No size: half the host's RAM; the ceiling is added. */
        floor_run_ok(&run, TMPFS("/run", "'nodev'"), NULL);
        assert_options(&run.config->mounts[0], (const char *const[]){ "nodev", "size=1073741824",
                                                                      "nr_inodes=1048576", NULL });
        assert_change(&run.report, "mounts[0].options", FLOOR_ADDED, "(none)", "size=1073741824",
                      "standard tmpfs size ceiling");
        floor_run_release(&run);

        /* Sizes the floor cannot read are clamped as if above, and every
         * other block limit goes (the kernel takes the last one). */
        floor_run_ok(&run, TMPFS("/run", "'size=1M','nr_blocks=100000'"), NULL);
        assert_options(&run.config->mounts[0],
                       (const char *const[]){ "size=1073741824", "nr_inodes=1048576", NULL });
        assert_change(&run.report, "mounts[0].options", FLOOR_CLAMPED, "nr_blocks=100000",
                      "size=1073741824", "standard tmpfs size ceiling");
        floor_run_release(&run);
        floor_run_ok(&run, TMPFS("/run", "'size=50%'"), NULL);
        assert_options(&run.config->mounts[0],
                       (const char *const[]){ "size=1073741824", "nr_inodes=1048576", NULL });
        floor_run_release(&run);
        /* size=0 is tmpfs's "no limit": above any ceiling. */
        floor_run_ok(&run, TMPFS("/run", "'size=0'"), NULL);
        assert_options(&run.config->mounts[0],
                       (const char *const[]){ "size=1073741824", "nr_inodes=1048576", NULL });
        assert_change(&run.report, "mounts[0].options", FLOOR_CLAMPED, "size=0", "size=1073741824",
                      "standard tmpfs size ceiling");
        floor_run_release(&run);
        floor_run_ok(&run, TMPFS("/run", "'size=1t'"), NULL);
        assert_change(&run.report, "mounts[0].options", FLOOR_CLAMPED, "size=1t", "size=1073741824",
                      "standard tmpfs size ceiling");
        floor_run_release(&run);

        floor_run_ok(&run, TMPFS("/run", "'size=2G'"), "{'floor':{'ceilings':{'tmp':'32M'}}}");
        assert_options(&run.config->mounts[0],
                       (const char *const[]){ "size=33554432", "nr_inodes=1048576", NULL });
        assert_change(&run.report, "mounts[0].options", FLOOR_CLAMPED, "size=2G", "size=33554432",
                      "standard tmpfs size ceiling");
        floor_run_release(&run);
}

/* A config without /dev gets sbrun's (runc's 64 MiB, 16384 inodes), held
 * to lower ceilings; a config with one leaves it to its own mount. */
static void test_implicit_dev(void **state)
{
        struct floor_run run;
        (void)state;

        floor_run_ok(&run, TMPFS("/run", "'size=1m'"), NULL);
        assert_int_equal(run.config->implicit_dev_size, FLOOR_DEV_SIZE);
        assert_int_equal(run.config->implicit_dev_inodes, FLOOR_DEV_INODES);
        assert_no_change(&run.report, "mounts./dev");
        floor_run_release(&run);

        floor_run_ok(&run, TMPFS("/run", "'size=1m'"),
                     "{'floor':{'ceilings':{'tmp':'8M','inodes':1000}}}");
        assert_int_equal(run.config->implicit_dev_size, 8 << 20);
        assert_int_equal(run.config->implicit_dev_inodes, 1000);
        assert_change(&run.report, "mounts./dev", FLOOR_CLAMPED,
                      "tmpfs size=67108864,nr_inodes=16384", "tmpfs size=8388608,nr_inodes=1000",
                      "standard tmpfs ceilings");
        floor_run_release(&run);

        floor_run_ok(&run, TMPFS("/dev", "'size=1m'"),
                     "{'floor':{'ceilings':{'tmp':'8M','inodes':1000}}}");
        assert_int_equal(run.config->implicit_dev_size, 0);
        assert_no_change(&run.report, "mounts./dev");
        floor_run_release(&run);
}

/* The inode ceiling, beside the size: none asked and nr_inodes=0 (tmpfs's
 * "no limit") get it, a lower one stays, a count that is none is refused. */
static void test_tmpfs_inode_ceiling(void **state)
{
        struct floor_run run;
        (void)state;

        floor_run_ok(&run, TMPFS("/run", "'size=1m'"), NULL);
        assert_change(&run.report, "mounts[0].options", FLOOR_ADDED, "(none)", "nr_inodes=1048576",
                      "standard tmpfs inode ceiling");
        floor_run_release(&run);
        floor_run_ok(&run, TMPFS("/run", "'size=1m','nr_inodes=0'"), STRICT_POLICY);
        assert_options(&run.config->mounts[0],
                       (const char *const[]){ "size=1m", "nr_inodes=16384", NULL });
        assert_change(&run.report, "mounts[0].options", FLOOR_CLAMPED, "nr_inodes=0",
                      "nr_inodes=16384", "strict tmpfs inode ceiling");
        floor_run_release(&run);
        floor_run_ok(&run, TMPFS("/run", "'size=1m','nr_inodes=2m'"),
                     "{'floor':{'ceilings':{'inodes':'4k'}}}");
        assert_change(&run.report, "mounts[0].options", FLOOR_CLAMPED, "nr_inodes=2m",
                      "nr_inodes=4096", "standard tmpfs inode ceiling");
        floor_run_release(&run);

        assert_int_equal(floor_run(&run, TMPFS("/run", "'size=1m','nr_inodes=-5'"), NULL, NULL,
                                   NULL, FLOOR_CREATE),
                         -1);
        assert_string_equal(run.error, "mounts[0].options: nr_inodes=-5 refused (rule: a tmpfs "
                                       "nr_inodes is a count with an optional k, m, g or t, at "
                                       "most 2^63-1)");
        floor_run_release(&run);
}

/* A size= that is no size is refused, not clamped: the runtime reads
 * size= as the floor does (SIZE_TMPFS) and would not mount it either. */
static void expect_size_refused(const char *options, const char *message)
{
        struct floor_run run;
        char config[1024];

        snprintf(config, sizeof(config), TMPFS("/run", "%s"), options);
        assert_int_equal(floor_run(&run, config, NULL, NULL, NULL, FLOOR_CREATE), -1);
        assert_string_equal(run.error, message);
        floor_run_release(&run);
}

#define SIZE_RULE                                                                       \
        " refused (rule: a tmpfs size is bytes with an optional k, m, g or t, at most " \
        "2^63-1, or a percentage of RAM)"

static void test_tmpfs_size_refused(void **state)
{
        (void)state;
        expect_size_refused("'size=-1'", "mounts[0].options: size=-1" SIZE_RULE);
        expect_size_refused("'nosuid','size=99999999999999999999k'",
                            "mounts[0].options: size=99999999999999999999k" SIZE_RULE);
        expect_size_refused("'size=17179869184G'",
                            "mounts[0].options: size=17179869184G" SIZE_RULE);
        expect_size_refused("'size=12x'", "mounts[0].options: size=12x" SIZE_RULE);
        expect_size_refused("'size=+5'", "mounts[0].options: size=+5" SIZE_RULE);
        expect_size_refused("'size=-50%'", "mounts[0].options: size=-50%" SIZE_RULE);
        /* Any size= of the mount, not only the last (the kernel reads them all). */
        expect_size_refused("'size=-1','size=1m'", "mounts[0].options: size=-1" SIZE_RULE);
}

static void test_strict_tmp(void **state)
{
        struct floor_run run;
        (void)state;

        /* strict: a /tmp of the container's own, size-capped. */
        floor_run_ok(&run, SPEC("", "", ""), STRICT_POLICY);
        assert_int_equal(run.config->n_mounts, 1);
        assert_options(&run.config->mounts[0],
                       (const char *const[]){ "nosuid", "nodev", "mode=1777", "size=67108864",
                                              "nr_inodes=16384", NULL });
        floor_run_release(&run);

        /* A /tmp tmpfs of the spec's is kept and sized. */
        floor_run_ok(&run, TMPFS("/tmp", "'size=1G'"), STRICT_POLICY);
        assert_int_equal(run.config->n_mounts, 1);
        assert_options(&run.config->mounts[0],
                       (const char *const[]){ "size=67108864", "nr_inodes=16384", NULL });
        assert_change(&run.report, "mounts[0].options", FLOOR_CLAMPED, "size=1G", "size=67108864",
                      "strict tmpfs size ceiling");
        assert_no_change(&run.report, "mounts./tmp");
        floor_run_release(&run);

        /* A /tmp that is no tmpfs would escape the cap: refused. */
        assert_int_equal(floor_run(&run,
                                   SPEC("",
                                        ",'mounts':[{'destination':'/tmp','type':'bind',"
                                        "'source':'/srv','options':['rbind']}]",
                                        ""),
                                   STRICT_POLICY, NULL, NULL, FLOOR_CREATE),
                         -1);
        assert_string_equal(run.error, "mounts[0]: a /tmp that is not a tmpfs refused (rule: "
                                       "strict: size-capped /tmp)");
        floor_run_release(&run);
}

/* run.sbrun.workspace: a capped tmpfs at a good path, a config's tmpfs
 * there kept and capped, anything else there or a bad path refused. */
static void test_workspace(void **state)
{
        struct floor_run run;
        (void)state;

        floor_run_ok(&run, SPEC("", ",'annotations':{'run.sbrun.workspace':'/work'}", ""),
                     STRICT_POLICY);
        assert_int_equal(run.config->n_mounts, 2);
        assert_string_equal(run.config->mounts[1].destination, "/work");
        assert_string_equal(run.config->mounts[1].type, "tmpfs");
        assert_options(&run.config->mounts[1],
                       (const char *const[]){ "nosuid", "nodev", "mode=1777", "size=67108864",
                                              "nr_inodes=16384", NULL });
        assert_change(&run.report, "mounts./work", FLOOR_ADDED, "(none)", "tmpfs",
                      "run.sbrun.workspace: a capped tmpfs");
        floor_run_release(&run);

        /* Under standard too: a workspace is capped whatever the profile. */
        floor_run_ok(&run,
                     SPEC("",
                          ",'annotations':{'run.sbrun.workspace':'/work'},'mounts':[{'destination':"
                          "'/work','type':'tmpfs','source':'tmpfs','options':['size=8m']}]",
                          ""),
                     NULL);
        assert_int_equal(run.config->n_mounts, 1);
        assert_options(&run.config->mounts[0],
                       (const char *const[]){ "size=8m", "nr_inodes=1048576", NULL });
        floor_run_release(&run);

        static const char *const bad[] = { "work", "/",     "/work/", "/a/../b", "/proc/x",
                                           "/dev", "/a//b", "/a/.",   NULL };
        for (const char *const *b = bad; *b != NULL; b++) {
                char config[512], want[256];
                snprintf(config, sizeof(config),
                         SPEC("", ",'annotations':{'run.sbrun.workspace':'%s'}", ""), *b);
                assert_int_equal(floor_run(&run, config, NULL, NULL, NULL, FLOOR_CREATE), -1);
                snprintf(want, sizeof(want),
                         "annotations[\"run.sbrun.workspace\"]: %s refused (rule: a workspace is "
                         "a clean absolute path below /, not in /proc, /sys or /dev)",
                         *b);
                assert_string_equal(run.error, want);
                floor_run_release(&run);
        }
        assert_int_equal(floor_run(&run,
                                   SPEC("",
                                        ",'annotations':{'run.sbrun.workspace':'/work'},'mounts':"
                                        "[{'destination':'/work','type':'bind','source':'/srv',"
                                        "'options':['rbind']}]",
                                        ""),
                                   NULL, NULL, NULL, FLOOR_CREATE),
                         -1);
        assert_string_equal(run.error, "mounts[0]: a workspace that is not a tmpfs refused (rule: "
                                       "run.sbrun.workspace: a capped tmpfs)");
        floor_run_release(&run);
}

/* update (effective_resources_apply): under the profile the container was
 * created with, what the update sets is clamped, what it leaves out is not
 * touched (no ceiling "added" over a lower limit create gave). */
static void test_update_ceilings(void **state)
{
        struct floor_run run;
        struct oci_resources res;
        struct oci_memory mem;
        struct oci_cpu cpu;
        struct sb_error err = { 0 };
        (void)state;

        floor_run_ok(&run, SPEC("", "", ""), NULL);
        memset(&res, 0, sizeof(res));
        res.has_pids_limit = true;
        res.pids_limit = 0; /* runc's "no limit" */
        assert_int_equal(
                effective_resources_apply(run.config, &res, &run.policy, &run.facts.host, &err), 0);
        assert_int_equal(res.pids_limit, 4096);
        res.pids_limit = 100;
        assert_int_equal(
                effective_resources_apply(run.config, &res, &run.policy, &run.facts.host, &err), 0);
        assert_int_equal(res.pids_limit, 100);
        /* Only the cpu: no pids, no memory appear. */
        memset(&res, 0, sizeof(res));
        memset(&cpu, 0, sizeof(cpu));
        cpu.has_shares = true;
        cpu.shares = 512;
        res.cpu = &cpu;
        assert_int_equal(
                effective_resources_apply(run.config, &res, &run.policy, &run.facts.host, &err), 0);
        assert_false(res.has_pids_limit);
        assert_null(res.memory);
        assert_false(cpu.has_quota);
        /* No memory limit is the host's RAM. */
        memset(&mem, 0, sizeof(mem));
        mem.has_limit = true;
        mem.limit = -1;
        res.memory = &mem;
        assert_int_equal(
                effective_resources_apply(run.config, &res, &run.policy, &run.facts.host, &err), 0);
        assert_int_equal(mem.limit, FIXTURE_HOST_MEMORY);
        floor_run_release(&run);

        /* strict: the cpu ceiling for a quota the update lifts, and no swap. */
        floor_run_ok(&run, SPEC("", STRICT_ANNOTATION, ""), NULL);
        memset(&res, 0, sizeof(res));
        memset(&cpu, 0, sizeof(cpu));
        memset(&mem, 0, sizeof(mem));
        cpu.has_quota = true;
        cpu.quota = -1;
        mem.has_limit = mem.has_swap = true;
        mem.limit = 256 * MiB;
        mem.swap = 1024 * MiB;
        res.cpu = &cpu;
        res.memory = &mem;
        assert_int_equal(
                effective_resources_apply(run.config, &res, &run.policy, &run.facts.host, &err), 0);
        assert_int_equal(cpu.quota, 100000);
        assert_int_equal(cpu.period, 100000);
        assert_int_equal(mem.limit, 256 * MiB);
        assert_int_equal(mem.swap, 256 * MiB);
        mem.limit = 1024 * MiB;
        mem.swap = 1024 * MiB;
        assert_int_equal(
                effective_resources_apply(run.config, &res, &run.policy, &run.facts.host, &err), 0);
        assert_int_equal(mem.limit, 512 * MiB);
        floor_run_release(&run);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_pids_ceiling),
                cmocka_unit_test(test_memory_ceiling),
                cmocka_unit_test(test_memory_operator_ceiling),
                cmocka_unit_test(test_memory_host_ceiling),
                cmocka_unit_test(test_cpu_ceiling),
                cmocka_unit_test(test_rlimit_ceilings),
                cmocka_unit_test(test_no_core_dumps),
                cmocka_unit_test(test_tmpfs_ceiling),
                cmocka_unit_test(test_tmpfs_inode_ceiling),
                cmocka_unit_test(test_implicit_dev),
                cmocka_unit_test(test_workspace),
                cmocka_unit_test(test_tmpfs_size_refused),
                cmocka_unit_test(test_strict_tmp),
                cmocka_unit_test(test_update_ceilings),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
