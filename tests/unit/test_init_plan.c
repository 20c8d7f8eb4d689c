/* The init plan travels from sbrun to sbrun-init as bytes: what goes in must
 * come out, and a plan cut short (a crashed writer) must be refused rather
 * than half-applied. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "runtime/init/init_plan.h"

#include "common/error.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <cmocka.h>

static char *args[] = { "/bin/sh", "-c", "echo hi", NULL };
static char *env[] = { "PATH=/bin", "TERM=xterm", NULL };
static struct init_mount mounts[] = {
        { INIT_MOUNT_FS, "sysfs", "/sys", "sysfs", MS_RDONLY | MS_NOSUID, NULL, false },
        { INIT_MOUNT_MASK, NULL, "/proc/kcore", NULL, 0, NULL, true },
        { INIT_MOUNT_FS, "cgroup", "/sys/fs/cgroup", "cgroup2", MS_NOEXEC, "nsdelegate", false },
};
static struct init_device devices[] = {
        { "/dev/fuse", S_IFCHR | 0666, 10, 229, 0, 5 },
};
static uint32_t gids[] = { 10, 20, 4294967294u };
static uint8_t prog_a[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
static uint8_t prog_b[] = { 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24 };
static uint8_t *progs[] = { prog_a, prog_b };
static size_t prog_sizes[] = { sizeof(prog_a), sizeof(prog_b) };
static uint32_t prog_flags[] = { 0, 0x9 }; /* TSYNC | NEW_LISTENER on the second */
static char *writable[] = { "/tmp", "/dev/null", NULL };

static struct init_plan sample(void)
{
        return (struct init_plan){
                .args = args,
                .env = env,
                .exec_path = "/usr/bin/sh",
                .cwd = "/work",
                .mounts = mounts,
                .n_mounts = 3,
                .devices = devices,
                .n_devices = 1,
                .readonly_root = true,
                .domainname = NULL,
                .uid = 1000,
                .gid = 1001,
                .additional_gids = gids,
                .n_additional_gids = 3,
                .has_umask = true,
                .umask = 022,
                .has_capabilities = true,
                .cap_bounding = 0x8000000000000421ull,
                .cap_effective = 1,
                .cap_inheritable = 2,
                .cap_permitted = 3,
                .cap_ambient = 1ull << 40,
                .no_new_privileges = true,
                .seccomp_programs = progs,
                .seccomp_program_sizes = prog_sizes,
                .n_seccomp_programs = 2,
                .ready_fd = 5,
                .fifo_fd = -1,
                .stderr_fd = 7,
                .console_fd = -1,
                .preserve_fds = 2,
                .terminal = true,
                .console_height = 24,
                .console_width = 80,
                .seccomp_program_flags = prog_flags,
                .seccomp_notify_fd = 12,
                .apparmor_profile = "sbrun-test",
                .selinux_label = "system_u:system_r:container_t:s0:c1,c2",
                .landlock_mode = 2,
                .landlock_abi = 3,
                .landlock_exec_writable = false,
                .landlock_no_tcp = true,
                .landlock_writable = writable,
                .has_ioprio = true,
                .ioprio = (2 << 13) | 4,
                .has_scheduler = true,
                .sched_policy = 3,
                .sched_nice = -3,
                .sched_priority = 0,
                .sched_flags = 0x41,
                .sched_runtime = 5,
                .sched_deadline = 6,
                .sched_period = 7,
                .cpu_affinity_initial = "0-3,7",
                .cpu_affinity_final = NULL,
                .has_personality = true,
                .personality = 0,
        };
}

static void encode(const struct init_plan *plan, uint8_t **buf, size_t *len)
{
        struct sb_error err = { 0 };
        assert_int_equal(init_plan_encode(plan, buf, len, &err), 0);
        assert_null(err.msg);
}

static void assert_strv_equal(char **a, char **b)
{
        size_t i = 0;
        for (; a[i] != NULL; i++) {
                assert_non_null(b[i]);
                assert_string_equal(a[i], b[i]);
        }
        assert_null(b[i]);
}

static void assert_str_or_null_equal(const char *a, const char *b)
{
        if (a == NULL)
                assert_null(b);
        else
                assert_string_equal(a, b);
}

static void test_round_trip(void **state)
{
        struct init_plan in = sample(), out;
        struct sb_error err = { 0 };
        uint8_t *buf;
        size_t len;

        encode(&in, &buf, &len);
        assert_int_equal(init_plan_decode(buf, len, &out, &err), 0);

        assert_strv_equal(in.args, out.args);
        assert_strv_equal(in.env, out.env);
        assert_string_equal(out.exec_path, "/usr/bin/sh");
        assert_string_equal(out.cwd, "/work");
        assert_int_equal(out.n_mounts, 3);
        for (size_t i = 0; i < 3; i++) {
                assert_int_equal(out.mounts[i].kind, in.mounts[i].kind);
                assert_str_or_null_equal(in.mounts[i].source, out.mounts[i].source);
                assert_string_equal(out.mounts[i].destination, in.mounts[i].destination);
                assert_str_or_null_equal(in.mounts[i].fstype, out.mounts[i].fstype);
                assert_int_equal(out.mounts[i].flags, in.mounts[i].flags);
                assert_str_or_null_equal(in.mounts[i].data, out.mounts[i].data);
                assert_int_equal(out.mounts[i].skip_missing, in.mounts[i].skip_missing);
        }
        assert_int_equal(out.n_devices, 1);
        assert_string_equal(out.devices[0].path, "/dev/fuse");
        assert_int_equal(out.devices[0].mode, S_IFCHR | 0666);
        assert_int_equal(out.devices[0].major, 10);
        assert_int_equal(out.devices[0].minor, 229);
        assert_int_equal(out.devices[0].gid, 5);
        assert_true(out.readonly_root);
        assert_null(out.domainname);
        assert_int_equal(out.uid, 1000);
        assert_int_equal(out.gid, 1001);
        assert_int_equal(out.n_additional_gids, 3);
        assert_memory_equal(out.additional_gids, gids, sizeof(gids));
        assert_true(out.has_umask);
        assert_int_equal(out.umask, 022);
        assert_true(out.has_capabilities);
        assert_true(out.cap_bounding == in.cap_bounding);
        assert_true(out.cap_effective == 1 && out.cap_inheritable == 2 && out.cap_permitted == 3);
        assert_true(out.cap_ambient == 1ull << 40);
        assert_true(out.no_new_privileges);
        assert_int_equal(out.n_seccomp_programs, 2);
        for (size_t i = 0; i < 2; i++) {
                assert_int_equal(out.seccomp_program_sizes[i], prog_sizes[i]);
                assert_memory_equal(out.seccomp_programs[i], progs[i], prog_sizes[i]);
        }
        assert_int_equal(out.ready_fd, 5);
        assert_int_equal(out.fifo_fd, -1);
        assert_int_equal(out.stderr_fd, 7);
        assert_int_equal(out.console_fd, -1);
        assert_int_equal(out.preserve_fds, 2);
        assert_true(out.terminal);
        assert_int_equal(out.console_height, 24);
        assert_int_equal(out.console_width, 80);
        assert_int_equal(out.seccomp_program_flags[0], 0);
        assert_int_equal(out.seccomp_program_flags[1], 0x9);
        assert_int_equal(out.seccomp_notify_fd, 12);
        assert_string_equal(out.apparmor_profile, "sbrun-test");
        assert_string_equal(out.selinux_label, "system_u:system_r:container_t:s0:c1,c2");
        assert_int_equal(out.landlock_mode, 2);
        assert_int_equal(out.landlock_abi, 3);
        assert_false(out.landlock_exec_writable);
        assert_true(out.landlock_no_tcp);
        assert_strv_equal(in.landlock_writable, out.landlock_writable);
        assert_int_equal(out.landlock_ruleset_fd, -1);
        assert_true(out.has_ioprio);
        assert_int_equal(out.ioprio, (2 << 13) | 4);
        assert_true(out.has_scheduler);
        assert_int_equal(out.sched_policy, 3);
        assert_int_equal(out.sched_nice, -3);
        assert_int_equal(out.sched_flags, 0x41);
        assert_int_equal(out.sched_runtime, 5);
        assert_int_equal(out.sched_deadline, 6);
        assert_int_equal(out.sched_period, 7);
        assert_string_equal(out.cpu_affinity_initial, "0-3,7");
        assert_null(out.cpu_affinity_final);
        assert_true(out.has_personality);
        assert_int_equal(out.personality, 0);

        init_plan_release(&out);
        free(buf);
}

static void test_empty_plan_round_trips(void **state)
{
        char *no_args[] = { NULL };
        struct init_plan in = {
                .args = no_args, .ready_fd = -1, .fifo_fd = -1, .stderr_fd = -1, .console_fd = -1
        };
        struct init_plan out;
        struct sb_error err = { 0 };
        uint8_t *buf;
        size_t len;

        encode(&in, &buf, &len);
        assert_int_equal(init_plan_decode(buf, len, &out, &err), 0);
        assert_null(out.args[0]);
        assert_null(out.env);
        assert_null(out.exec_path);
        assert_int_equal(out.n_mounts, 0);
        assert_int_equal(out.n_seccomp_programs, 0);
        assert_int_equal(out.fifo_fd, -1);
        /* No label asked for, or none the host can carry out: none applied. */
        assert_null(out.apparmor_profile);
        assert_null(out.selinux_label);
        init_plan_release(&out);
        free(buf);
}

/* Every proper prefix of a valid plan is rejected, and nothing leaks or
 * crashes on the way (run under ASan in the sanitizer build). */
static void test_truncated_plan_rejected(void **state)
{
        struct init_plan in = sample(), out;
        uint8_t *buf;
        size_t len;

        encode(&in, &buf, &len);
        for (size_t cut = 0; cut < len; cut++) {
                struct sb_error err = { 0 };
                uint8_t *copy =
                        malloc(cut ? cut : 1); /* exact size: reads past it show up in ASan */
                memcpy(copy, buf, cut);
                assert_int_equal(init_plan_decode(copy, cut, &out, &err), -1);
                assert_int_equal(err.errnum, EINVAL);
                assert_non_null(strstr(err.msg, "truncated"));
                sb_error_clear(&err);
                free(copy);
        }
        free(buf);
}

/* A plan built without load flags (an older builder, `exec`) loads every
 * program with flags 0 and has no notify socket. */
static void test_missing_seccomp_flags_are_zero(void **state)
{
        struct init_plan in = sample(), out;
        struct sb_error err = { 0 };
        uint8_t *buf;
        size_t len;

        in.seccomp_program_flags = NULL;
        in.seccomp_notify_fd = -1;
        encode(&in, &buf, &len);
        assert_int_equal(init_plan_decode(buf, len, &out, &err), 0);
        assert_int_equal(out.n_seccomp_programs, 2);
        assert_int_equal(out.seccomp_program_flags[0], 0);
        assert_int_equal(out.seccomp_program_flags[1], 0);
        assert_int_equal(out.seccomp_notify_fd, -1);
        init_plan_release(&out);
        free(buf);
}

static void test_huge_count_rejected(void **state)
{
        struct init_plan in = sample(), out;
        struct sb_error err = { 0 };
        uint8_t *buf;
        size_t len;

        encode(&in, &buf, &len);
        uint64_t huge = UINT64_MAX - 1;
        memcpy(buf, &huge, sizeof(huge)); /* the args count comes first */
        assert_int_equal(init_plan_decode(buf, len, &out, &err), -1);
        sb_error_clear(&err);
        free(buf);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_round_trip),
                cmocka_unit_test(test_empty_plan_round_trips),
                cmocka_unit_test(test_truncated_plan_rejected),
                cmocka_unit_test(test_missing_seccomp_flags_are_zero),
                cmocka_unit_test(test_huge_count_rejected),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
