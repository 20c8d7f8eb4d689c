/* What the floor always confines, whatever config.json asks
 * (spec/floor_caps.c, floor_process.c, floor_syscalls.c, floor_namespaces.c,
 * floor_paths.c, sysctl_namespaces.c): capabilities within the profile's
 * ceiling, noNewPrivileges, the floor seccomp filter, namespaces of the
 * container's own, only namespaced sysctls, runc's masked paths. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "tests/unit/floor_fixture.h"

#include "spec/sysctl_namespaces.h"

#include <linux/capability.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define BIT(cap) (UINT64_C(1) << (cap))
#define STRICT_POLICY "{'floor':{'profile':'strict'}}"
#define CAPS(sets) SPEC(",'capabilities':{" sets "}", "", "")

static void test_caps_ceiling(void **state)
{
        struct floor_run run;
        (void)state;

        floor_run_ok(&run,
                     CAPS("'bounding':['CAP_SYS_ADMIN','CAP_CHOWN','CAP_NET_RAW','CAP_KILL'],"
                          "'effective':['CAP_CHOWN','CAP_SYS_PTRACE'],"
                          "'permitted':['CAP_CHOWN','CAP_SYS_MODULE'],"
                          "'ambient':['CAP_MKNOD']"),
                     NULL);
        const struct oci_capabilities *c = &run.config->process->capabilities;
        assert_int_equal(c->bounding, BIT(CAP_CHOWN) | BIT(CAP_KILL));
        assert_int_equal(c->effective, BIT(CAP_CHOWN));
        assert_int_equal(c->permitted, BIT(CAP_CHOWN));
        assert_int_equal(c->ambient, 0);
        assert_false(c->has_inheritable);
        assert_change(&run.report, "process.capabilities.bounding", FLOOR_DROPPED, "CAP_SYS_ADMIN",
                      "(none)", "standard caps ceiling");
        assert_change(&run.report, "process.capabilities.bounding", FLOOR_DROPPED, "CAP_NET_RAW",
                      "(none)", "standard caps ceiling");
        assert_change(&run.report, "process.capabilities.effective", FLOOR_DROPPED,
                      "CAP_SYS_PTRACE", "(none)", "standard caps ceiling");
        assert_change(&run.report, "process.capabilities.permitted", FLOOR_DROPPED,
                      "CAP_SYS_MODULE", "(none)", "standard caps ceiling");
        assert_change(&run.report, "process.capabilities.ambient", FLOOR_DROPPED, "CAP_MKNOD",
                      "(none)", "standard caps ceiling");
        /* Exactly the ones above the ceiling are reported. */
        assert_null(floor_change_find(&run.report, "process.capabilities.bounding", 2));
        floor_run_release(&run);

        /* What podman --privileged asks for: everything. */
        floor_run_ok(&run,
                     CAPS("'bounding':['CAP_SYS_ADMIN','CAP_NET_ADMIN','CAP_DAC_READ_SEARCH',"
                          "'CAP_SETFCAP','CAP_AUDIT_WRITE','CAP_BPF','CAP_SYS_RAWIO',"
                          "'CAP_CHOWN','CAP_SETUID','CAP_SETGID']"),
                     NULL);
        assert_int_equal(run.config->process->capabilities.bounding,
                         BIT(CAP_CHOWN) | BIT(CAP_SETUID) | BIT(CAP_SETGID));
        floor_run_release(&run);
}

static void test_caps_strict_none(void **state)
{
        struct floor_run run;
        (void)state;

        floor_run_ok(&run, CAPS("'bounding':['CAP_CHOWN','CAP_KILL'],'effective':['CAP_CHOWN']"),
                     STRICT_POLICY);
        assert_int_equal(run.config->process->capabilities.bounding, 0);
        assert_int_equal(run.config->process->capabilities.effective, 0);
        assert_change(&run.report, "process.capabilities.bounding", FLOOR_DROPPED, "CAP_CHOWN",
                      "(none)", "strict caps ceiling");
        assert_change(&run.report, "process.capabilities.bounding", FLOOR_DROPPED, "CAP_KILL",
                      "(none)", "strict caps ceiling");
        floor_run_release(&run);
}

static void test_caps_none_asked(void **state)
{
        struct floor_run run;
        (void)state;

        /* No capabilities object: the container gets none, nothing to drop. */
        floor_run_ok(&run, SPEC("", "", ""), NULL);
        assert_false(run.config->process->has_capabilities);
        assert_int_equal(run.config->process->capabilities.bounding, 0);
        floor_run_release(&run);
}

static void test_no_new_privileges(void **state)
{
        struct floor_run run;
        (void)state;

        floor_run_ok(&run, SPEC(",'noNewPrivileges':false", "", ""), NULL);
        assert_true(run.config->process->no_new_privileges);
        assert_change(&run.report, "process.noNewPrivileges", FLOOR_FORCED, "false", "true",
                      "standard: noNewPrivileges on");
        floor_run_release(&run);

        floor_run_ok(&run, SPEC("", "", ""), NULL);
        assert_true(run.config->process->no_new_privileges);
        assert_change(&run.report, "process.noNewPrivileges", FLOOR_FORCED, "(none)", "true",
                      "standard: noNewPrivileges on");
        floor_run_release(&run);

        floor_run_ok(&run, SPEC(",'noNewPrivileges':true", "", ""), NULL);
        assert_true(run.config->process->no_new_privileges);
        assert_no_change(&run.report, "process.noNewPrivileges");
        floor_run_release(&run);
}

static void test_seccomp_always(void **state)
{
        struct floor_run run;
        (void)state;

        /* No filter in the spec: the profile's floor filter (its programs are
         * built from run.profile by runtime/seccomp/floor_seccomp.c). */
        floor_run_ok(&run, SPEC("", "", ""), NULL);
        assert_null(run.config->linux_->seccomp);
        assert_int_equal(run.profile, POLICY_STANDARD);
        assert_change(&run.report, "linux.seccomp", FLOOR_ADDED, "(none)", "standard floor filter",
                      "standard: floor seccomp filter always installed");
        floor_run_release(&run);

        /* A filter that allows everything does not replace it. */
        floor_run_ok(&run, SPEC("", "", ",'seccomp':{'defaultAction':'SCMP_ACT_ALLOW'}"),
                     STRICT_POLICY);
        assert_non_null(run.config->linux_->seccomp);
        assert_int_equal(run.profile, POLICY_STRICT);
        assert_change(&run.report, "linux.seccomp", FLOOR_ADDED, "spec filter",
                      "strict floor filter stacked under the spec's",
                      "strict: floor seccomp filter always installed");
        floor_run_release(&run);
}

static bool has_namespace(const struct oci_linux *l, enum oci_namespace_type type)
{
        for (size_t i = 0; i < l->n_namespaces; i++) {
                if (l->namespaces[i].type == type && l->namespaces[i].path == NULL)
                        return true;
        }
        return false;
}

#define BARE(LINUX)                                       \
        "{'ociVersion':'1.2.0','root':{'path':'rootfs'}," \
        "'process':{'args':['sh'],'cwd':'/'},'linux':{'namespaces':[" LINUX "]}}"

static void test_namespaces_always_new(void **state)
{
        struct floor_run run;
        const enum oci_namespace_type always[] = { OCI_NS_MOUNT, OCI_NS_UTS, OCI_NS_CGROUP };
        (void)state;

        floor_run_ok(&run, BARE("{'type':'network'},{'type':'pid'},{'type':'ipc'}"), NULL);
        for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++) {
                char field[64];
                assert_true(has_namespace(run.config->linux_, always[i]));
                snprintf(field, sizeof(field), "linux.namespaces.%s",
                         oci_namespace_type_name(always[i]));
                assert_change(&run.report, field, FLOOR_ADDED, "host", "new",
                              "standard: mount, uts and cgroup namespaces always new");
        }
        assert_true(has_namespace(run.config->linux_, OCI_NS_PID));
        assert_true(has_namespace(run.config->linux_, OCI_NS_IPC));
        /* A user namespace is the spec's choice: neither added nor removed. */
        assert_false(has_namespace(run.config->linux_, OCI_NS_USER));
        assert_int_equal(run.config->linux_->n_namespaces, 6);
        floor_run_release(&run);

        floor_run_ok(&run, SPEC("", "", ""), NULL);
        assert_no_change(&run.report, "linux.namespaces.pid");
        assert_int_equal(run.config->linux_->n_namespaces, 6);
        floor_run_release(&run);
}

static void test_host_pid_ipc_refused(void **state)
{
        struct floor_run run;
        const char *strict[] = { NULL, STRICT_POLICY };
        (void)state;

        /* No pid or ipc entry is podman's --pid=host / --ipc=host (hostPID,
         * hostIPC): refused under both profiles, never replaced in silence. */
        for (size_t k = 0; k < 2; k++) {
                assert_int_equal(floor_run(&run, BARE("{'type':'network'},{'type':'ipc'}"),
                                           strict[k], NULL, NULL, FLOOR_CREATE),
                                 -1);
                assert_string_equal(run.error, "linux.namespaces: the host pid namespace refused "
                                               "(rule: standard: no host pid namespace)");
                floor_run_release(&run);
                assert_int_equal(floor_run(&run, BARE("{'type':'network'},{'type':'pid'}"),
                                           strict[k], NULL, NULL, FLOOR_CREATE),
                                 -1);
                assert_string_equal(run.error, "linux.namespaces: the host ipc namespace refused "
                                               "(rule: standard: no host ipc namespace)");
                floor_run_release(&run);
        }
        /* explain names both. */
        floor_run(&run, BARE("{'type':'network'}"), NULL, NULL, NULL, FLOOR_EXPLAIN);
        assert_change(&run.report, "linux.namespaces", FLOOR_REFUSED, "the host pid namespace",
                      "refused", "standard: no host pid namespace");
        assert_change(&run.report, "linux.namespaces", FLOOR_REFUSED, "the host ipc namespace",
                      "refused", "standard: no host ipc namespace");
        floor_run_release(&run);
}

static void test_host_network_refused(void **state)
{
        struct floor_run run;
        (void)state;

        /* No network entry is podman's --network host: refused under
         * standard, replaced by a new empty namespace under strict. */
        assert_int_equal(floor_run(&run, BARE("{'type':'pid'},{'type':'ipc'}"), NULL, NULL, NULL,
                                   FLOOR_CREATE),
                         -1);
        assert_string_equal(run.error, "linux.namespaces: the host network namespace refused "
                                       "(rule: standard: no host network namespace)");
        floor_run_release(&run);

        floor_run_ok(&run, BARE("{'type':'pid'},{'type':'ipc'}"), STRICT_POLICY);
        assert_true(has_namespace(run.config->linux_, OCI_NS_NETWORK));
        assert_change(&run.report, "linux.namespaces.network", FLOOR_ADDED, "host network",
                      "new empty network namespace", "strict: no network");
        floor_run_release(&run);
}

static void test_host_namespace_paths_refused(void **state)
{
        struct floor_run run;
        (void)state;

        /* The runtime's own namespaces are the host's (pid 1's may be out of
         * reach, as in a nested sandbox): joining them would be none. */
        floor_run(&run, BARE("{'type':'network','path':'/proc/self/ns/net'},{'type':'pid'}"), NULL,
                  NULL, NULL, FLOOR_EXPLAIN);
        assert_change(&run.report, "linux.namespaces[0].path", FLOOR_REFUSED, "/proc/self/ns/net",
                      "refused", "standard: never the host's own namespace");
        floor_run_release(&run);

        assert_int_equal(
                floor_run(&run,
                          BARE("{'type':'network'},{'type':'pid','path':'/proc/self/ns/pid'}"),
                          NULL, NULL, NULL, FLOOR_CREATE),
                -1);
        assert_string_equal(run.error, "linux.namespaces[1].path: /proc/self/ns/pid refused (rule: "
                                       "standard: never the host's own namespace)");
        floor_run_release(&run);

        /* Another namespace's path is the runtime's to open (it does not
         * exist here); strict refuses joining any network namespace. */
        floor_run_ok(
                &run,
                BARE("{'type':'network','path':'/nonexistent/netns'},{'type':'pid'},{'type':'ipc'}"),
                NULL);
        assert_no_change(&run.report, "linux.namespaces[0].path");
        floor_run_release(&run);
        assert_int_equal(
                floor_run(
                        &run,
                        BARE("{'type':'network','path':'/nonexistent/netns'},{'type':'pid'},{'type':'ipc'}"),
                        STRICT_POLICY, NULL, NULL, FLOOR_CREATE),
                -1);
        assert_string_equal(run.error, "linux.namespaces[0].path: /nonexistent/netns refused "
                                       "(rule: strict: no network, joining a network namespace)");
        floor_run_release(&run);
}

static void test_sysctls(void **state)
{
        struct floor_run run;
        (void)state;

        floor_run(&run,
                  SPEC("", "",
                       ",'sysctl':{'net.ipv4.ip_forward':'1','kernel.shmmax':'65536',"
                       "'fs.mqueue.msg_max':'20','kernel.domainname':'x',"
                       "'kernel.panic':'0','vm.overcommit_memory':'1'}"),
                  NULL, NULL, NULL, FLOOR_EXPLAIN);
        assert_no_change(&run.report, "linux.sysctl[\"net.ipv4.ip_forward\"]");
        assert_no_change(&run.report, "linux.sysctl[\"kernel.shmmax\"]");
        assert_no_change(&run.report, "linux.sysctl[\"fs.mqueue.msg_max\"]");
        assert_no_change(&run.report, "linux.sysctl[\"kernel.domainname\"]");
        assert_change(&run.report, "linux.sysctl[\"kernel.panic\"]", FLOOR_REFUSED, "\"0\"",
                      "refused", "standard: only namespaced sysctls");
        assert_change(&run.report, "linux.sysctl[\"vm.overcommit_memory\"]", FLOOR_REFUSED, "\"1\"",
                      "refused", "standard: only namespaced sysctls");
        floor_run_release(&run);

        assert_int_equal(floor_run(&run, SPEC("", "", ",'sysctl':{'kernel.core_pattern':'|/x'}"),
                                   NULL, NULL, NULL, FLOOR_CREATE),
                         -1);
        assert_string_equal(run.error, "linux.sysctl[\"kernel.core_pattern\"]: \"|/x\" refused "
                                       "(rule: standard: only namespaced sysctls)");
        floor_run_release(&run);
}

static void test_sysctl_namespace(void **state)
{
        enum oci_namespace_type type = OCI_NS_COUNT;
        (void)state;

        assert_true(sysctl_namespace("net.core.somaxconn", &type));
        assert_int_equal(type, OCI_NS_NETWORK);
        assert_true(sysctl_namespace("kernel.msgmax", &type));
        assert_int_equal(type, OCI_NS_IPC);
        assert_true(sysctl_namespace("kernel.shm_rmid_forced", &type));
        assert_int_equal(type, OCI_NS_IPC);
        assert_true(sysctl_namespace("fs.mqueue.queues_max", &type));
        assert_int_equal(type, OCI_NS_IPC);
        assert_true(sysctl_namespace("kernel.hostname", &type));
        assert_int_equal(type, OCI_NS_UTS);
        assert_false(sysctl_namespace("kernel.modprobe", &type));
        assert_false(sysctl_namespace("kernel.shmmax2", &type));
        assert_false(sysctl_namespace("fs.mqueue", &type));
        assert_false(sysctl_namespace("", &type));
        /* A key is a path under /proc/sys: none may climb out of net/. */
        assert_false(sysctl_namespace("net/../kernel/core_pattern", &type));
        assert_false(sysctl_namespace("net.ipv4..x", &type));
        assert_false(sysctl_namespace("net.ipv4/conf", &type));
}

static bool listed(char *const *list, size_t n, const char *path)
{
        for (size_t i = 0; i < n; i++) {
                if (strcmp(list[i], path) == 0)
                        return true;
        }
        return false;
}

static void test_masked_paths(void **state)
{
        struct floor_run run;
        (void)state;

        /* An empty list is no unmasking: the floor's are added to it. */
        floor_run_ok(&run, SPEC("", "", ",'maskedPaths':[],'readonlyPaths':['/data']"), NULL);
        const struct oci_linux *l = run.config->linux_;
        assert_true(listed(l->masked_paths, l->n_masked_paths, "/proc/kcore"));
        assert_true(listed(l->masked_paths, l->n_masked_paths, "/sys/firmware"));
        assert_true(listed(l->masked_paths, l->n_masked_paths, "/sys/devices/virtual/powercap"));
        assert_null(l->masked_paths[l->n_masked_paths]);
        assert_true(listed(l->readonly_paths, l->n_readonly_paths, "/data"));
        assert_true(listed(l->readonly_paths, l->n_readonly_paths, "/proc/sys"));
        assert_change(&run.report, "linux.maskedPaths", FLOOR_ADDED, "(none)", "/proc/kcore",
                      "standard: runc's masked paths");
        assert_change(&run.report, "linux.readonlyPaths", FLOOR_ADDED, "(none)", "/proc/sys",
                      "standard: runc's read-only paths and /proc/sys");
        size_t n = l->n_masked_paths;
        floor_run_release(&run);

        /* Paths already there are not added twice. */
        floor_run_ok(&run, SPEC("", "", ",'maskedPaths':['/proc/kcore','/secret']"), NULL);
        l = run.config->linux_;
        assert_int_equal(l->n_masked_paths, n + 1);
        assert_true(listed(l->masked_paths, l->n_masked_paths, "/secret"));
        for (size_t nth = 0;; nth++) {
                const struct floor_change *c =
                        floor_change_find(&run.report, "linux.maskedPaths", nth);
                if (c == NULL)
                        break;
                assert_string_not_equal(c->effective, "/proc/kcore");
        }
        floor_run_release(&run);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_caps_ceiling),
                cmocka_unit_test(test_caps_strict_none),
                cmocka_unit_test(test_caps_none_asked),
                cmocka_unit_test(test_no_new_privileges),
                cmocka_unit_test(test_seccomp_always),
                cmocka_unit_test(test_namespaces_always_new),
                cmocka_unit_test(test_host_pid_ipc_refused),
                cmocka_unit_test(test_host_network_refused),
                cmocka_unit_test(test_host_namespace_paths_refused),
                cmocka_unit_test(test_sysctls),
                cmocka_unit_test(test_sysctl_namespace),
                cmocka_unit_test(test_masked_paths),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
