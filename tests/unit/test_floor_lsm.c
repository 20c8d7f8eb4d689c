/* AppArmor and SELinux labels: carried out where the host enables their
 * LSM, dropped with a warning where it does not (as runc), refused when the
 * profile is not loaded or the label malformed; an exec's process falls
 * back on the container's; the mount label reaches the init's mounts. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "spec/floor.h"
#include "spec/floor_lsm.h"

#include "common/error.h"
#include "oci/config.h"
#include "runtime/sandbox/mount_translate.h"
#include "runtime/sandbox/plan_build.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include <cmocka.h>

static char *loaded[] = { (char *)"sbrun-test", (char *)"containers-default-0.50.1" };

static const struct lsm_host_facts apparmor_host = {
        .apparmor_enabled = true,
        .apparmor_profiles = loaded,
        .n_apparmor_profiles = 2,
        .selinux_off = "SELinux is not enabled on this host",
};
static const struct lsm_host_facts selinux_host = { .selinux_enabled = true };
static const struct lsm_host_facts bare_host = { 0 };

static struct oci_process process_with(const char *profile, const char *label)
{
        struct oci_process p = { 0 };
        p.apparmor_profile = profile ? strdup(profile) : NULL;
        p.selinux_label = label ? strdup(label) : NULL;
        return p;
}

static void release(struct oci_process *p)
{
        free(p->apparmor_profile);
        free(p->selinux_label);
}

static void test_loaded_profile_kept(void **state)
{
        struct oci_process p = process_with("sbrun-test", NULL);
        struct sb_error err = { 0 };

        assert_int_equal(floor_lsm_decide(&apparmor_host, &p, NULL, NULL, NULL, &err), 0);
        assert_string_equal(p.apparmor_profile, "sbrun-test");
        release(&p);
}

static void test_unloaded_profile_refused(void **state)
{
        struct oci_process p = process_with("cri-containerd.apparmor.d", NULL);
        struct sb_error err = { 0 };

        assert_int_equal(floor_lsm_decide(&apparmor_host, &p, NULL, NULL, NULL, &err), -1);
        assert_string_equal(err.msg, "process.apparmorProfile: \"cri-containerd.apparmor.d\" "
                                     "refused (rule: the AppArmor profile must be loaded on "
                                     "this host)");
        sb_error_clear(&err);

        /* policy explain: the same refusal, recorded, and no error. */
        struct floor_report report = { .explain = true };
        assert_int_equal(floor_lsm_decide(&apparmor_host, &p, NULL, NULL, &report, &err), 0);
        assert_int_equal(report.n, 1);
        assert_int_equal(report.changes[0].action, FLOOR_REFUSED);
        assert_string_equal(report.changes[0].field, "process.apparmorProfile");
        assert_string_equal(report.changes[0].requested, "\"cri-containerd.apparmor.d\"");
        assert_string_equal(report.changes[0].rule,
                            "the AppArmor profile must be loaded on this host");
        floor_report_release(&report);
        release(&p);
}

/* "unconfined" is never listed; a list the host would not give leaves the
 * refusal to the kernel. */
static void test_unconfined_and_unlisted_accepted(void **state)
{
        struct lsm_host_facts unlisted = { .apparmor_enabled = true };
        struct oci_process p = process_with("unconfined", NULL);
        struct oci_process q = process_with("anything", NULL);
        struct sb_error err = { 0 };

        assert_int_equal(floor_lsm_decide(&apparmor_host, &p, NULL, NULL, NULL, &err), 0);
        assert_string_equal(p.apparmor_profile, "unconfined");
        assert_int_equal(floor_lsm_decide(&unlisted, &q, NULL, NULL, NULL, &err), 0);
        assert_string_equal(q.apparmor_profile, "anything");
        release(&p);
        release(&q);
}

/* As runc on a host without the LSM: nothing to carry out, dropped (with a
 * warning on stderr), not an error. */
static void test_disabled_lsm_drops_labels(void **state)
{
        struct oci_process p = process_with("not-even-loaded", "system_u:system_r:container_t:s0");
        char *mount_label = strdup("system_u:object_r:container_file_t:s0");
        struct sb_error err = { 0 };

        assert_int_equal(floor_lsm_decide(&bare_host, &p, NULL, &mount_label, NULL, &err), 0);
        assert_null(p.apparmor_profile);
        assert_null(p.selinux_label);
        assert_null(mount_label);
        release(&p);

        /* policy explain records each drop. */
        struct floor_report report = { .explain = true };
        p = process_with("not-even-loaded", NULL);
        assert_int_equal(floor_lsm_decide(&bare_host, &p, NULL, NULL, &report, &err), 0);
        assert_int_equal(report.n, 1);
        assert_int_equal(report.changes[0].action, FLOOR_DROPPED);
        assert_string_equal(report.changes[0].field, "process.apparmorProfile");
        assert_null(p.apparmor_profile);
        floor_report_release(&report);
        release(&p);
}

static void test_selinux_labels(void **state)
{
        struct oci_process p = process_with(NULL, "system_u:system_r:container_t:s0:c1,c2");
        char *mount_label = strdup("system_u:object_r:container_file_t:s0:c1,c2");
        struct sb_error err = { 0 };

        assert_int_equal(floor_lsm_decide(&selinux_host, &p, NULL, &mount_label, NULL, &err), 0);
        assert_string_equal(p.selinux_label, "system_u:system_r:container_t:s0:c1,c2");
        assert_string_equal(mount_label, "system_u:object_r:container_file_t:s0:c1,c2");
        free(mount_label);

        mount_label = strdup("container_file_t");
        assert_int_equal(floor_lsm_decide(&selinux_host, &p, NULL, &mount_label, NULL, &err), -1);
        assert_string_equal(err.msg, "linux.mountLabel: \"container_file_t\" refused (rule: an "
                                     "SELinux context is user:role:type[:level])");
        sb_error_clear(&err);
        free(mount_label);
        release(&p);
}

static void test_label_syntax(void **state)
{
        assert_true(floor_lsm_selinux_label_valid("system_u:system_r:container_t"));
        assert_true(floor_lsm_selinux_label_valid("system_u:system_r:spc_t:s0-s0:c0.c1023"));
        assert_false(floor_lsm_selinux_label_valid(""));
        assert_false(floor_lsm_selinux_label_valid("system_u:system_r"));
        assert_false(floor_lsm_selinux_label_valid("system_u::container_t:s0"));
        assert_false(floor_lsm_selinux_label_valid("system_u:system_r:container_t:"));
        assert_false(floor_lsm_selinux_label_valid("system_u:system_r:container t:s0"));
        assert_false(floor_lsm_selinux_label_valid("system_u:system_r:container_t:s0\n"));
}

/* runc's exec: the process's own profile, else the container's. */
static void test_exec_inherits_container_labels(void **state)
{
        struct oci_process container = process_with("sbrun-test", NULL);
        struct oci_process bare = process_with(NULL, NULL);
        struct oci_process own = process_with("containers-default-0.50.1", NULL);
        struct sb_error err = { 0 };

        assert_int_equal(floor_lsm_decide(&apparmor_host, &bare, &container, NULL, NULL, &err), 0);
        assert_string_equal(bare.apparmor_profile, "sbrun-test");
        assert_int_equal(floor_lsm_decide(&apparmor_host, &own, &container, NULL, NULL, &err), 0);
        assert_string_equal(own.apparmor_profile, "containers-default-0.50.1");
        release(&container);
        release(&bare);
        release(&own);
}

/* The plan carries the decided labels; the mount label goes as context=
 * on the init's tmpfs, devpts and masking tmpfs, never on sysfs. */
static void test_plan_carries_labels(void **state)
{
        char *args[] = { (char *)"/bin/true" };
        struct oci_process p = process_with("sbrun-test", "system_u:system_r:container_t:s0");
        struct oci_linux linux_ = { .mount_label = (char *)"system_u:object_r:c_t:s0" };
        struct oci_config config = { .process = &p, .linux_ = &linux_ };
        struct init_mount_list mounts = { 0 };
        struct plan_inputs in = { .cwd = "/", .mounts = &mounts, .ready_fd = -1, .fifo_fd = -1 };
        struct init_plan plan;
        struct sb_error err = { 0 };

        p.args = args;
        p.n_args = 1;
        assert_int_equal(init_mount_list_add(&mounts, INIT_MOUNT_FS, "shm", "/dev/shm", "tmpfs", 0,
                                             "size=65536k", false),
                         0);
        assert_int_equal(init_mount_list_add(&mounts, INIT_MOUNT_FS, "devpts", "/dev/pts", "devpts",
                                             0, NULL, false),
                         0);
        assert_int_equal(init_mount_list_add(&mounts, INIT_MOUNT_FS, "sysfs", "/sys", "sysfs",
                                             MS_RDONLY, NULL, false),
                         0);
        assert_int_equal(init_mount_list_add(&mounts, INIT_MOUNT_MASK, NULL, "/proc/acpi", NULL, 0,
                                             NULL, true),
                         0);
        assert_int_equal(plan_build(&config, &in, &plan, &err), 0);
        assert_string_equal(plan.apparmor_profile, "sbrun-test");
        assert_string_equal(plan.selinux_label, "system_u:system_r:container_t:s0");
        assert_int_equal(plan.n_mounts, 4);
        assert_string_equal(plan.mounts[0].data,
                            "size=65536k,context=\"system_u:object_r:c_t:s0\"");
        assert_string_equal(plan.mounts[1].data, "context=\"system_u:object_r:c_t:s0\"");
        assert_null(plan.mounts[2].data);
        assert_string_equal(plan.mounts[3].data, "mode=0555,context=\"system_u:object_r:c_t:s0\"");
        init_plan_release(&plan);

        /* No label: the mounts are untouched, the plan has none. */
        p.apparmor_profile[0] = '\0';
        linux_.mount_label = NULL;
        mounts = (struct init_mount_list){ 0 };
        assert_int_equal(init_mount_list_add(&mounts, INIT_MOUNT_MASK, NULL, "/proc/acpi", NULL, 0,
                                             NULL, true),
                         0);
        assert_int_equal(plan_build(&config, &in, &plan, &err), 0);
        assert_null(plan.apparmor_profile);
        assert_null(plan.mounts[0].data);
        init_plan_release(&plan);
        release(&p);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_loaded_profile_kept),
                cmocka_unit_test(test_unloaded_profile_refused),
                cmocka_unit_test(test_unconfined_and_unlisted_accepted),
                cmocka_unit_test(test_disabled_lsm_drops_labels),
                cmocka_unit_test(test_selinux_labels),
                cmocka_unit_test(test_label_syntax),
                cmocka_unit_test(test_exec_inherits_container_labels),
                cmocka_unit_test(test_plan_carries_labels),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
