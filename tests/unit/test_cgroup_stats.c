/* A cgroup's v2 files → the "data" of a `runc events` stats event, on a
 * made-up cgroup directory: the JSON must be what runc prints for the same
 * files (v1-shaped values, Go's omitempty, sorted maps). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "runtime/cgroup/cgroup_stats.h"

#include "common/error.h"
#include "oci/json_write.h"
#include "runtime/cgroup/cgroup_manager.h"
#include "runtime/cgroup/io_totals.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

static void put(int dirfd, const char *name, const char *text)
{
        int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

        assert_true(fd >= 0);
        assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
        close(fd);
}

static char *stats_json(struct cgroup *cg, struct sb_error *err)
{
        struct json_writer *w = jw_new(NULL, err);
        char *out = NULL;

        assert_non_null(w);
        if (cgroup_stats_write(cg, w, err) == 0)
                out = jw_to_string(w, err);
        jw_free(w);
        return out;
}

struct fake {
        char dir[64];
        struct cgroup cg;
};

static void fake_open(struct fake *f)
{
        strcpy(f->dir, "/tmp/test_cgroup_stats.XXXXXX");
        assert_non_null(mkdtemp(f->dir));
        f->cg = (struct cgroup)CGROUP_INIT;
        f->cg.dir_fd = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        f->cg.path = f->dir;
        assert_true(f->cg.dir_fd >= 0);
}

static void fake_close(struct fake *f)
{
        char cmd[128];

        close(f->cg.dir_fd);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
        assert_int_equal(system(cmd), 0);
}

static void test_stats_as_runc_prints_them(void **state)
{
        struct fake f;
        struct sb_error err = { 0 };

        fake_open(&f);
        put(f.cg.dir_fd, "cpu.stat",
            "usage_usec 1500\nuser_usec 1000\nsystem_usec 500\nnr_periods 4\n"
            "nr_throttled 1\nthrottled_usec 20\n");
        put(f.cg.dir_fd, "memory.current", "4096\n");
        put(f.cg.dir_fd, "memory.max", "max\n");
        put(f.cg.dir_fd, "memory.peak", "8192\n");
        put(f.cg.dir_fd, "memory.stat", "file 100\nanon 200\nactive_file 3\n");
        put(f.cg.dir_fd, "memory.swap.current", "0\n");
        put(f.cg.dir_fd, "memory.swap.max", "1000\n");
        put(f.cg.dir_fd, "pids.current", "3\n");
        put(f.cg.dir_fd, "pids.max", "max\n");
        put(f.cg.dir_fd, "io.stat", "8:0 rbytes=10 wbytes=20 rios=1 wios=2 dbytes=0 dios=0\n");
        put(f.cg.dir_fd, "hugetlb.2MB.current", "0\n");
        put(f.cg.dir_fd, "hugetlb.2MB.rsvd.current", "0\n");
        put(f.cg.dir_fd, "hugetlb.2MB.events", "max 5\n");
        put(f.cg.dir_fd, "hugetlb.1GB.current", "1073741824\n");
        put(f.cg.dir_fd, "hugetlb.1GB.events", "max 0\n");

        char *json = stats_json(&f.cg, &err);
        if (json == NULL)
                fail_msg("%s", err.msg);
        assert_string_equal(
                json,
                "{\"cpu\":{\"usage\":{\"total\":1500000,\"kernel\":500000,\"user\":1000000},"
                "\"throttling\":{\"periods\":4,\"throttledPeriods\":1,\"throttledTime\":20000}},"
                "\"cpuset\":{\"cpu_exclusive\":0,\"mem_hardwall\":0,\"mem_exclusive\":0,"
                "\"memory_migrate\":0,\"memory_spread_page\":0,\"memory_spread_slab\":0,"
                "\"memory_pressure\":0,\"sched_load_balance\":0,\"sched_relax_domain_level\":0},"
                "\"memory\":{\"cache\":100,"
                "\"usage\":{\"limit\":18446744073709551615,\"usage\":4096,\"max\":8192,"
                "\"failcnt\":0},"
                /* memory+swap, the limit wrapping as Go's uint64 does */
                "\"swap\":{\"limit\":999,\"usage\":4096,\"failcnt\":0},"
                "\"raw\":{\"active_file\":3,\"anon\":200,\"file\":100}},"
                "\"pids\":{\"current\":3},"
                "\"blkio\":{\"ioServiceBytesRecursive\":[{\"major\":8,\"op\":\"Read\","
                "\"value\":10},{\"major\":8,\"op\":\"Write\",\"value\":20}],"
                "\"ioServicedRecursive\":[{\"major\":8,\"op\":\"Read\",\"value\":1},"
                "{\"major\":8,\"op\":\"Write\",\"value\":2}]},"
                "\"hugetlb\":{\"1GB\":{\"usage\":1073741824,\"failcnt\":0},"
                "\"2MB\":{\"failcnt\":5}},"
                "\"intel_rdt\":{},\"network_interfaces\":null}");
        free(json);
        fake_close(&f);
}

/* No swap accounting, no io or hugetlb controller: those parts are empty,
 * not an error; a pids limit is printed. */
static void test_optional_files(void **state)
{
        struct fake f;
        struct sb_error err = { 0 };

        fake_open(&f);
        put(f.cg.dir_fd, "cpu.stat", "usage_usec 0\nuser_usec 0\nsystem_usec 0\n");
        put(f.cg.dir_fd, "memory.current", "0\n");
        put(f.cg.dir_fd, "memory.max", "1048576\n");
        put(f.cg.dir_fd, "memory.stat", "");
        put(f.cg.dir_fd, "pids.current", "0\n");
        put(f.cg.dir_fd, "pids.max", "64\n");

        char *json = stats_json(&f.cg, &err);
        if (json == NULL)
                fail_msg("%s", err.msg);
        assert_non_null(strstr(json, "\"cpu\":{},"));
        assert_non_null(strstr(json, "\"memory\":{\"usage\":{\"limit\":1048576,\"failcnt\":0},"
                                     "\"swap\":{\"limit\":1048576,\"failcnt\":0}},"));
        assert_non_null(strstr(json, "\"pids\":{\"limit\":64},\"blkio\":{},\"hugetlb\":{},"));
        free(json);

        /* memory.current is not optional: the memory controller is required. */
        unlinkat(f.cg.dir_fd, "memory.current", 0);
        assert_null(stats_json(&f.cg, &err));
        assert_non_null(strstr(err.msg, "memory.current"));
        sb_error_clear(&err);
        fake_close(&f);
}

/* The verdict's "io" (runtime/cgroup/io_totals.h): io.stat summed over the
 * disks, io.pressure's totals; a file that is not there leaves its part
 * out. */
static void test_io_totals(void **state)
{
        struct fake f;
        struct sb_error err = { 0 };
        struct cgroup_io_totals t;
        (void)state;

        fake_open(&f);
        cgroup_io_totals_read(&f.cg, &t);
        assert_false(t.stat);
        assert_false(t.pressure);
        put(f.cg.dir_fd, "io.stat",
            "8:0 rbytes=1048576 wbytes=4194304 rios=16 wios=64 dbytes=0 dios=0\n"
            "7:0 rbytes=512 wbytes=0 rios=1 wios=0 dbytes=0 dios=0\n");
        cgroup_io_totals_read(&f.cg, &t);
        assert_true(t.stat);
        assert_false(t.pressure);
        assert_int_equal(t.rbytes, 1048576 + 512);
        assert_int_equal(t.wbytes, 4194304);
        assert_int_equal(t.rios, 17);
        assert_int_equal(t.wios, 64);
        put(f.cg.dir_fd, "io.pressure",
            "some avg10=1.50 avg60=0.30 avg300=0.06 total=3000123\n"
            "full avg10=1.20 avg60=0.25 avg300=0.05 total=2500456\n");
        cgroup_io_totals_read(&f.cg, &t);
        assert_true(t.pressure);
        assert_int_equal(t.some_usec, 3000123);
        assert_int_equal(t.full_usec, 2500456);

        struct json_writer *w = jw_new(NULL, &err);
        assert_non_null(w);
        jw_object_begin(w);
        cgroup_io_totals_write(w, &t);
        jw_object_end(w);
        char *json = jw_to_string(w, &err);
        assert_string_equal(json, "{\"io\":{\"rbytes\":1049088,\"wbytes\":4194304,\"rios\":17,"
                                  "\"wios\":64,\"pressure_some_usec\":3000123,"
                                  "\"pressure_full_usec\":2500456}}");
        free(json);
        jw_free(w);
        fake_close(&f);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_stats_as_runc_prints_them),
                cmocka_unit_test(test_optional_files),
                cmocka_unit_test(test_io_totals),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
