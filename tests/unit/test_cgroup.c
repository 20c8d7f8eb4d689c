/* The pure parts of runtime/cgroup/: where linux.cgroupsPath puts the
 * container's cgroup (never outside the place meant for it), and the v1→v2
 * conversions podman and containerd rely on, as runc and crun make them;
 * the systemd driver's unit names and the properties it gives systemd. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "runtime/cgroup/cgroup_path.h"
#include "runtime/cgroup/cgroup_resources.h"
#include "runtime/cgroup/cgroup_root.h"
#include "runtime/cgroup/systemd_props.h"

#include "common/error.h"
#include "oci/config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static struct cgroup_root delegated = {
        .layout = CGROUP_LAYOUT_UNIFIED,
        .mount = "/sys/fs/cgroup",
        .own = "user.slice/sbrun",
        .rel = "user.slice/deleg",
        .path = "/sys/fs/cgroup/user.slice/deleg",
};

static struct cgroup_root at_root = {
        .layout = CGROUP_LAYOUT_UNIFIED,
        .mount = "/sys/fs/cgroup",
        .own = "",
        .rel = "",
        .path = "/sys/fs/cgroup",
};

static void expect_path(const struct cgroup_root *root, const char *cgroups_path, bool systemd,
                        const char *want)
{
        struct sb_error err = { 0 };
        char *rel = NULL;

        if (cgroup_path_resolve(root, cgroups_path, "ctr1", systemd, &rel, &err) < 0)
                fail_msg("\"%s\": %s", cgroups_path ? cgroups_path : "(null)", err.msg);
        assert_string_equal(rel, want);
        free(rel);
}

static void expect_path_error(const struct cgroup_root *root, const char *cgroups_path,
                              bool systemd, const char *message)
{
        struct sb_error err = { 0 };
        char *rel = NULL;

        if (cgroup_path_resolve(root, cgroups_path, "ctr1", systemd, &rel, &err) == 0)
                fail_msg("\"%s\" resolved to \"%s\", expected: %s", cgroups_path, rel, message);
        assert_string_equal(err.msg, message);
        sb_error_clear(&err);
}

static void test_cgroup_path(void **state)
{
        (void)state;
        expect_path(&delegated, NULL, false, "user.slice/deleg/sbrun/ctr1");
        expect_path(&delegated, "", false, "user.slice/deleg/sbrun/ctr1");
        expect_path(&delegated, "/kubepods/pod1/ctr", false, "kubepods/pod1/ctr");
        expect_path(&delegated, "machine/ctr", false, "user.slice/deleg/machine/ctr");
        expect_path(&delegated, "//a///b/", false, "a/b");
        expect_path(&at_root, NULL, false, "sbrun/ctr1");
        expect_path(&at_root, "a/b", false, "a/b");
        /* A name may hold dots, only "." and ".." components are refused. */
        expect_path(&delegated, "/a/..b/c..", false, "a/..b/c..");
}

static void test_cgroup_path_escapes(void **state)
{
        (void)state;
        expect_path_error(&delegated, "../../escape", false,
                          "linux.cgroupsPath: \"../../escape\": \"..\" is not allowed");
        expect_path_error(&delegated, "/a/../../b", false,
                          "linux.cgroupsPath: \"/a/../../b\": \"..\" is not allowed");
        expect_path_error(&delegated, "a/./b", false,
                          "linux.cgroupsPath: \"a/./b\": \".\" is not allowed");
        expect_path_error(&delegated, "/a/..", false,
                          "linux.cgroupsPath: \"/a/..\": \"..\" is not allowed");
        expect_path_error(&delegated, "a\nb", false,
                          "linux.cgroupsPath: \"a\nb\": a newline is not allowed");
        expect_path_error(&delegated, "/", false,
                          "linux.cgroupsPath: \"/\": a container cannot use the root cgroup");
        expect_path_error(&delegated, "///", false,
                          "linux.cgroupsPath: \"///\": a container cannot use the root cgroup");
}

static void test_cgroup_path_systemd(void **state)
{
        (void)state;
        expect_path(&delegated, "system.slice:docker:abc", true, "system.slice/docker-abc.scope");
        expect_path(&delegated, ":crio:abc", true, "system.slice/crio-abc.scope");
        expect_path(&delegated, NULL, true, "system.slice/sbrun-ctr1.scope");
        expect_path(&delegated, "machine-user-1.slice:libpod:x", true,
                    "machine.slice/machine-user.slice/machine-user-1.slice/libpod-x.scope");
        expect_path(&delegated, "-.slice:p:x", true, "p-x.scope");
        expect_path(&delegated, "a.slice::x", true, "a.slice/x.scope");
        /* A name that is itself a slice is used as one (runc). */
        expect_path(&delegated, "system.slice:p:my.slice", true, "system.slice/my.slice");
        expect_path_error(&delegated, "/a/b", true,
                          "linux.cgroupsPath: \"/a/b\": with --systemd-cgroup expected "
                          "\"slice:prefix:name\"");
        expect_path_error(&delegated, "a:b:c:d", true,
                          "linux.cgroupsPath: \"a:b:c:d\": with --systemd-cgroup expected "
                          "\"slice:prefix:name\"");
        expect_path_error(&delegated, "system:p:x", true,
                          "linux.cgroupsPath: \"system:p:x\": \"system\" is not a systemd "
                          "slice name");
        expect_path_error(&delegated, "a--b.slice:p:x", true,
                          "linux.cgroupsPath: \"a--b.slice:p:x\": \"a--b.slice\" is not a valid "
                          "slice name");
        /* Nothing before ".slice": the check of its last character once
         * read the byte before the buffer (ASan). */
        expect_path_error(&delegated, ".slice:a:b", true,
                          "linux.cgroupsPath: \".slice:a:b\": \".slice\" is not a valid "
                          "slice name");
        expect_path_error(&delegated, "system.slice:p:../../x", true,
                          "linux.cgroupsPath: \"system.slice:p:../../x\": invalid unit name");
        expect_path_error(&delegated, "system.slice:../p:x", true,
                          "linux.cgroupsPath: \"system.slice:../p:x\": invalid unit name");
        expect_path_error(&delegated, "system.slice:p:", true,
                          "linux.cgroupsPath: \"system.slice:p:\": invalid unit name");
}

static void test_cpu_shares_to_weight(void **state)
{
        (void)state;
        assert_int_equal(cgroup_cpu_shares_to_weight(0), 0); /* unset stays unset */
        assert_int_equal(cgroup_cpu_shares_to_weight(1), 1);
        assert_int_equal(cgroup_cpu_shares_to_weight(2), 1);
        assert_int_equal(cgroup_cpu_shares_to_weight(3), 2);
        assert_int_equal(cgroup_cpu_shares_to_weight(512), 59);
        assert_int_equal(cgroup_cpu_shares_to_weight(1024), 100); /* the defaults meet */
        assert_int_equal(cgroup_cpu_shares_to_weight(2048), 174);
        assert_int_equal(cgroup_cpu_shares_to_weight(100000), 4340);
        assert_int_equal(cgroup_cpu_shares_to_weight(262144), 10000);
        assert_int_equal(cgroup_cpu_shares_to_weight(UINT64_MAX), 10000);
}

static void test_blkio_weight_to_io_weight(void **state)
{
        (void)state;
        assert_int_equal(cgroup_blkio_weight_to_io_weight(0), 0);
        assert_int_equal(cgroup_blkio_weight_to_io_weight(10), 1);
        assert_int_equal(cgroup_blkio_weight_to_io_weight(100), 910);
        assert_int_equal(cgroup_blkio_weight_to_io_weight(500), 4950);
        assert_int_equal(cgroup_blkio_weight_to_io_weight(1000), 10000);
}

static void test_swap_to_v2(void **state)
{
        int64_t out = 12345;
        const char *why = NULL;
        (void)state;

        assert_int_equal(cgroup_swap_to_v2(0, -1, &out, &why), 0);
        assert_int_equal(out, -1); /* unlimited memory, unset swap: unlimited */
        assert_int_equal(cgroup_swap_to_v2(-1, 256, &out, &why), 0);
        assert_int_equal(out, -1);
        assert_int_equal(cgroup_swap_to_v2(0, 256, &out, &why), 0);
        assert_int_equal(out, 0);
        assert_int_equal(cgroup_swap_to_v2(512, 256, &out, &why), 0);
        assert_int_equal(out, 256); /* memory+swap 512 is swap 256 */
        assert_int_equal(cgroup_swap_to_v2(256, 256, &out, &why), 0);
        assert_int_equal(out, 0);
        assert_int_equal(cgroup_swap_to_v2(100, 256, &out, &why), -1);
        assert_string_equal(why, "memory+swap must not be less than the memory limit");
        why = NULL;
        assert_int_equal(cgroup_swap_to_v2(512, 0, &out, &why), -1);
        assert_string_equal(why, "a swap limit needs a memory limit");
        why = NULL;
        assert_int_equal(cgroup_swap_to_v2(512, -1, &out, &why), -1);
        assert_string_equal(why, "a swap limit needs a memory limit");
}

static char *dq(const char *s)
{
        char *out = strdup(s);

        assert_non_null(out);
        for (char *p = out; *p; p++)
                if (*p == '\'')
                        *p = '"';
        return out;
}

static int convert(const char *doc, struct cgroup_settings *out, char **error)
{
        struct sb_error err = { 0 };
        char *json = dq(doc);
        struct oci_resources *res = oci_resources_parse(json, strlen(json), "resources", &err);
        int ret;

        if (res == NULL)
                fail_msg("%s: %s", json, err.msg);
        memset(out, 0, sizeof(*out));
        ret = cgroup_resources_convert(res, "linux.resources", out, &err);
        if (ret < 0)
                *error = sb_error_text(&err);
        sb_error_clear(&err);
        oci_resources_free(res);
        free(json);
        return ret;
}

static const struct cgroup_setting *setting(const struct cgroup_settings *s, const char *file,
                                            size_t nth)
{
        for (size_t i = 0; i < s->n; i++) {
                if (strcmp(s->items[i].file, file) == 0 && nth-- == 0)
                        return &s->items[i];
        }
        fail_msg("no %s setting", file);
        return NULL;
}

static void expect_setting(const struct cgroup_settings *s, const char *file, size_t nth,
                           const char *value, const char *field)
{
        const struct cgroup_setting *c = setting(s, file, nth);

        assert_string_equal(c->value, value);
        assert_string_equal(c->field, field);
}

static void test_resources_convert(void **state)
{
        struct cgroup_settings s;
        char *error = NULL;
        (void)state;

        assert_int_equal(
                convert("{'memory':{'limit':268435456,'swap':536870912,'reservation':134217728},"
                        "'cpu':{'shares':1024,'quota':50000,'period':100000,'cpus':'0-1'},"
                        "'pids':{'limit':100},"
                        "'blockIO':{'weight':500,'throttleReadBpsDevice':"
                        "[{'major':8,'minor':0,'rate':1048576}]},"
                        "'hugepageLimits':[{'pageSize':'2MB','limit':0}],"
                        "'unified':{'memory.high':'200M'}}",
                        &s, &error),
                0);
        expect_setting(&s, "memory.swap.max", 0, "268435456", "linux.resources.memory.swap");
        expect_setting(&s, "memory.max", 0, "268435456", "linux.resources.memory.limit");
        expect_setting(&s, "memory.low", 0, "134217728", "linux.resources.memory.reservation");
        expect_setting(&s, "cpu.weight", 0, "100", "linux.resources.cpu.shares");
        expect_setting(&s, "cpu.max", 0, "50000 100000", "linux.resources.cpu.quota");
        expect_setting(&s, "cpuset.cpus", 0, "0-1", "linux.resources.cpu.cpus");
        expect_setting(&s, "pids.max", 0, "100", "linux.resources.pids.limit");
        expect_setting(&s, "io.weight", 0, "default 4950", "linux.resources.blockIO.weight");
        assert_string_equal(setting(&s, "io.weight", 0)->fallback_file, "io.bfq.weight");
        assert_string_equal(setting(&s, "io.weight", 0)->fallback_value, "500");
        expect_setting(&s, "io.max", 0, "8:0 rbps=1048576",
                       "linux.resources.blockIO.throttleReadBpsDevice[0]");
        expect_setting(&s, "hugetlb.2MB.max", 0, "0", "linux.resources.hugepageLimits[0]");
        assert_false(setting(&s, "hugetlb.2MB.max", 0)->optional);
        assert_true(setting(&s, "hugetlb.2MB.rsvd.max", 0)->optional);
        /* unified last: an explicit v2 value wins over a converted one. */
        expect_setting(&s, "memory.high", 0, "200M", "linux.resources.unified.memory.high");
        assert_string_equal(s.items[s.n - 1].file, "memory.high");
        assert_int_equal(s.n, 12);
        cgroup_settings_release(&s);
}

static void test_resources_convert_edges(void **state)
{
        struct cgroup_settings s;
        char *error = NULL;
        (void)state;

        /* 0 and -1 are "no limit" to runc; a quota alone keeps the period. */
        assert_int_equal(convert("{'pids':{'limit':0},'cpu':{'quota':-1},'memory':{'limit':-1,"
                                 "'swap':-1}}",
                                 &s, &error),
                         0);
        expect_setting(&s, "pids.max", 0, "max", "linux.resources.pids.limit");
        expect_setting(&s, "cpu.max", 0, "max", "linux.resources.cpu.quota");
        expect_setting(&s, "memory.max", 0, "max", "linux.resources.memory.limit");
        expect_setting(&s, "memory.swap.max", 0, "max", "linux.resources.memory.swap");
        assert_true(setting(&s, "memory.swap.max", 0)->optional);
        cgroup_settings_release(&s);

        /* memory+swap equal to memory: no swap at all. */
        assert_int_equal(convert("{'memory':{'limit':1048576,'swap':1048576}}", &s, &error), 0);
        expect_setting(&s, "memory.swap.max", 0, "0", "linux.resources.memory.swap");
        cgroup_settings_release(&s);

        assert_int_equal(convert("{}", &s, &error), 0);
        assert_int_equal(s.n, 0);
        cgroup_settings_release(&s);
}

static void expect_convert_error(const char *doc, const char *message)
{
        struct cgroup_settings s;
        char *error = NULL;

        assert_int_equal(convert(doc, &s, &error), -1);
        assert_string_equal(error, message);
        assert_int_equal(s.n, 0);
        assert_null(s.items);
        free(error);
}

/* The conversion's own guard; the refusal users see is
 * spec/floor_resources.c's (tests/unit/test_floor_refusals.c). */
static void test_resources_convert_errors(void **state)
{
        (void)state;
        expect_convert_error("{'memory':{'limit':268435456,'swap':1048576}}",
                             "linux.resources.memory.swap: 1048576 (memory.limit 268435456): "
                             "memory+swap must not be less than the memory limit");
        expect_convert_error("{'memory':{'swap':1048576}}",
                             "linux.resources.memory.swap: 1048576 (memory.limit 0): a swap "
                             "limit needs a memory limit");
}

static void expect_unit(const char *cgroups_path, const char *slice, const char *unit)
{
        struct sb_error err = { 0 };
        char *got_slice = NULL, *got_unit = NULL;

        if (cgroup_path_systemd_unit(cgroups_path, "ctr1", &got_slice, &got_unit, &err) < 0)
                fail_msg("%s: %s", cgroups_path ? cgroups_path : "(null)", err.msg);
        assert_string_equal(got_slice, slice);
        assert_string_equal(got_unit, unit);
        free(got_slice);
        free(got_unit);
}

static void test_systemd_unit_names(void **state)
{
        (void)state;
        expect_unit("machine.slice:libpod:abc", "machine.slice", "libpod-abc.scope");
        expect_unit("kubepods-besteffort-pod1.slice:cri-containerd:x",
                    "kubepods-besteffort-pod1.slice", "cri-containerd-x.scope");
        expect_unit(":crio:abc", "system.slice", "crio-abc.scope");
        expect_unit(NULL, "system.slice", "sbrun-ctr1.scope");
        expect_unit("a.slice::x", "a.slice", "x.scope");
}

static const struct systemd_prop *prop(const struct systemd_props *p, const char *name)
{
        for (size_t i = 0; i < p->n; i++) {
                if (strcmp(p->items[i].name, name) == 0)
                        return &p->items[i];
        }
        return NULL;
}

static void expect_u64(const struct systemd_props *p, const char *name, uint64_t v)
{
        const struct systemd_prop *got = prop(p, name);

        if (got == NULL)
                fail_msg("no property %s", name);
        assert_int_equal(got->type, SYSTEMD_PROP_U64);
        assert_true(got->u64 == v);
}

static void props_of(const char *doc, bool at_start, struct systemd_props *out)
{
        struct cgroup_settings settings;
        struct sb_error err = { 0 };
        char *error = NULL;

        if (convert(doc, &settings, &error) < 0)
                fail_msg("%s: %s", doc, error);
        if (systemd_props_from_settings(&settings, at_start, out, &err) < 0)
                fail_msg("%s: %s", doc, err.msg);
        cgroup_settings_release(&settings);
}

static void test_systemd_props(void **state)
{
        struct systemd_props p;

        (void)state;
        /* podman run --memory 64m --cpus 0.5 --pids-limit 32 --cpuset-cpus 0,2-3 */
        props_of("{'memory':{'limit':67108864,'reservation':33554432,'swap':134217728},"
                 "'cpu':{'quota':50000,'period':100000,'shares':1024,'cpus':'0,2-3','mems':'0'},"
                 "'pids':{'limit':32},'blockIO':{'weight':500}}",
                 true, &p);
        expect_u64(&p, "MemoryMax", 67108864);
        expect_u64(&p, "MemoryLow", 33554432);
        /* runc's memory+swap 128M with 64M of memory: 64M of swap. */
        expect_u64(&p, "MemorySwapMax", 67108864);
        expect_u64(&p, "CPUQuotaPerSecUSec", 500000);
        expect_u64(&p, "CPUQuotaPeriodUSec", 100000);
        expect_u64(&p, "CPUWeight", 100);
        expect_u64(&p, "TasksMax", 32);
        expect_u64(&p, "IOWeight", cgroup_blkio_weight_to_io_weight(500));
        const struct systemd_prop *cpus = prop(&p, "AllowedCPUs");
        assert_non_null(cpus);
        assert_int_equal(cpus->type, SYSTEMD_PROP_BITS);
        assert_int_equal(cpus->n_bits, 1);
        assert_int_equal(cpus->bits[0], 0x0d);
        const struct systemd_prop *mems = prop(&p, "AllowedMemoryNodes");
        assert_non_null(mems);
        assert_int_equal(mems->bits[0], 0x01);
        systemd_props_release(&p);

        /* Nothing asked: unlimited tasks, as the kernel's default pids.max,
         * not systemd's DefaultTasksMax; "max" is systemd's infinity. */
        props_of("{}", true, &p);
        assert_int_equal(p.n, 1);
        expect_u64(&p, "TasksMax", UINT64_MAX);
        systemd_props_release(&p);
        props_of("{'memory':{'limit':-1},'cpu':{'quota':-1,'period':50000},"
                 "'unified':{'memory.high':'max'}}",
                 true, &p);
        expect_u64(&p, "MemoryMax", UINT64_MAX);
        expect_u64(&p, "MemoryHigh", UINT64_MAX);
        expect_u64(&p, "CPUQuotaPerSecUSec", UINT64_MAX);
        expect_u64(&p, "CPUQuotaPeriodUSec", 50000);
        systemd_props_release(&p);

        /* An update sets only what it changes; a later unified key wins. */
        props_of("{'memory':{'limit':1048576},'unified':{'memory.max':'2097152'}}", false, &p);
        assert_int_equal(p.n, 1);
        expect_u64(&p, "MemoryMax", 2097152);
        systemd_props_release(&p);

        /* What systemd has no property for stays a file only. */
        props_of("{'hugepageLimits':[{'pageSize':'2MB','limit':0}],"
                 "'unified':{'memory.oom.group':'1'}}",
                 false, &p);
        assert_int_equal(p.n, 0);
        systemd_props_release(&p);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_cgroup_path),
                cmocka_unit_test(test_cgroup_path_escapes),
                cmocka_unit_test(test_cgroup_path_systemd),
                cmocka_unit_test(test_cpu_shares_to_weight),
                cmocka_unit_test(test_blkio_weight_to_io_weight),
                cmocka_unit_test(test_swap_to_v2),
                cmocka_unit_test(test_resources_convert),
                cmocka_unit_test(test_resources_convert_edges),
                cmocka_unit_test(test_resources_convert_errors),
                cmocka_unit_test(test_systemd_unit_names),
                cmocka_unit_test(test_systemd_props),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
