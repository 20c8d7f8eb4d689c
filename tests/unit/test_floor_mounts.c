/* Binds and devices the floor refuses (spec/floor_mounts.c,
 * spec/floor_devices.c): the host's system directories and their
 * ancestors, sbrun's state root, container engine sockets, device nodes
 * outside the standard set and the operator's allow-list. Bind sources are
 * judged as the runtime holds them open (runtime/sandbox/bind_sources.c),
 * so the tests make real files, links and nodes in a temporary directory. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "tests/unit/floor_fixture.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmocka.h>

#define SYSTEM_RULE "standard: no root or bind of a host system directory or its ancestor"
#define SYSTEM_WRITE_RULE SYSTEM_RULE ", nothing in it writable"
#define STATE_RULE "standard: no root or bind of sbrun's state root, anything in it or its ancestor"
#define SOCKET_RULE "standard: no container engine socket"
#define DEVICE_RULE "standard: only standard or operator-allowed devices"

struct dirs {
        char top[64];
        char path[8][128];
};

enum { STATE_ROOT, DATA, DOCKER_SOCK, LINK_ETC, LINK_SOCK, FUSE_NODE, NULL_NODE, DISK_NODE };

static char *at(const struct dirs *d, int which)
{
        return (char *)d->path[which];
}

static int setup(void **state)
{
        static const char *const names[] = { "state/root", "data",     "docker.sock", "link-etc",
                                             "link-sock",  "fusenode", "nullnode",    "disknode" };
        struct dirs *d = calloc(1, sizeof(*d));
        char state_dir[160];

        assert_non_null(d);
        snprintf(d->top, sizeof(d->top), "/tmp/sbrun-unit-binds.XXXXXX");
        assert_non_null(mkdtemp(d->top));
        for (int i = 0; i < 8; i++)
                snprintf(d->path[i], sizeof(d->path[i]), "%s/%s", d->top, names[i]);
        snprintf(state_dir, sizeof(state_dir), "%s/state", d->top);
        assert_int_equal(mkdir(state_dir, 0700), 0);
        assert_int_equal(mkdir(at(d, STATE_ROOT), 0700), 0);
        assert_int_equal(mkdir(at(d, DATA), 0755), 0);
        int fd = open(at(d, DOCKER_SOCK), O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        close(fd);
        assert_int_equal(symlink("/etc", at(d, LINK_ETC)), 0);
        assert_int_equal(symlink("docker.sock", at(d, LINK_SOCK)), 0);
        /* Device nodes need root (CAP_MKNOD); their tests skip without. */
        if (mknod(at(d, FUSE_NODE), S_IFCHR | 0600, makedev(10, 229)) < 0 ||
            mknod(at(d, NULL_NODE), S_IFCHR | 0600, makedev(1, 3)) < 0 ||
            mknod(at(d, DISK_NODE), S_IFBLK | 0600, makedev(7, 0)) < 0) {
                unlink(at(d, FUSE_NODE));
                unlink(at(d, NULL_NODE));
                d->path[FUSE_NODE][0] = '\0';
        }
        *state = d;
        return 0;
}

static int teardown(void **state)
{
        struct dirs *d = *state;
        char state_dir[160];

        for (int i = DOCKER_SOCK; i <= DISK_NODE; i++) {
                if (d->path[i][0] != '\0')
                        unlink(d->path[i]);
        }
        rmdir(at(d, STATE_ROOT));
        snprintf(state_dir, sizeof(state_dir), "%s/state", d->top);
        rmdir(state_dir);
        rmdir(at(d, DATA));
        rmdir(d->top);
        free(d);
        return 0;
}

/* A config.json with one bind of source at destination. */
static char *bind_doc(const char *source, const char *destination)
{
        char *doc = NULL;

        assert_true(asprintf(&doc,
                             SPEC("",
                                  ",'mounts':[{'destination':'%s','type':'bind','source':'%s',"
                                  "'options':['rbind','ro']}]",
                                  ""),
                             destination, source) > 0);
        return doc;
}

/* The rule mounts[0] was refused by in explain mode, or NULL if allowed. */
static char *bind_refusal(const char *source, const char *destination, const char *policy,
                          const char *state_root)
{
        struct floor_run run;
        char *doc = bind_doc(source, destination);
        char *rule = NULL;

        if (floor_run(&run, doc, policy, NULL, state_root, FLOOR_EXPLAIN) < 0)
                fail_msg("%s: %s", source, run.error);
        const struct floor_change *c = floor_change_find(&run.report, "mounts[0].source", 0);
        if (c != NULL) {
                char *quoted = NULL;
                assert_int_equal(c->action, FLOOR_REFUSED);
                /* The source as asked, then what it is: "SRC" (PATH is ...). */
                assert_true(asprintf(&quoted, "\"%s\" (", source) > 0);
                if (strcmp(c->requested, source) != 0)
                        assert_memory_equal(c->requested, quoted, strlen(quoted));
                free(quoted);
                rule = strdup(c->rule);
        }
        floor_run_release(&run);
        free(doc);
        return rule;
}

static void assert_bind(const char *source, const char *destination, const char *policy,
                        const char *state_root, const char *want_rule)
{
        char *rule = bind_refusal(source, destination, policy, state_root);

        if (want_rule == NULL && rule != NULL)
                fail_msg("bind of %s refused (%s), expected it allowed", source, rule);
        if (want_rule != NULL && rule == NULL)
                fail_msg("bind of %s allowed, expected refused (%s)", source, want_rule);
        if (want_rule != NULL)
                assert_string_equal(rule, want_rule);
        free(rule);
}

static void test_bind_system_dirs(void **state)
{
        static const char *const dirs[] = { "/", "/dev", "/run", "/var/run", "/var" };
        static const char *const config_dirs[] = { "/proc", "/sys", "/etc", "/boot" };
        struct stat st;
        (void)state;

        for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
                assert_bind(dirs[i], "/host", NULL, NULL, SYSTEM_RULE);
        for (size_t i = 0; i < sizeof(config_dirs) / sizeof(config_dirs[0]); i++) {
                if (stat(config_dirs[i], &st) == 0) /* /boot may not exist here */
                        assert_bind(config_dirs[i], "/host", NULL, NULL, SYSTEM_WRITE_RULE);
        }
        /* Below a system directory is not the directory: judged on its own,
         * read-only (an engine's /etc/resolv.conf)... */
        assert_bind("/etc/hostname", "/etc/hostname", NULL, NULL, NULL);
        assert_bind("/proc/sys/kernel/core_pattern", "/x", NULL, NULL, NULL);
        /* The host's programs may be bound read-only (a toolchain). */
        assert_bind("/usr", "/usr", NULL, NULL, NULL);
}

/* ...never writable where the tree is the host's configuration, programs
 * or kernel interfaces: /etc/shadow or core_pattern written is root on the
 * host. */
static void test_bind_writable_inside_system_dirs(void **state)
{
        static const char *const files[] = { "/etc/hostname", "/proc/sys/kernel/core_pattern",
                                             "/usr/share", "/usr", "/sys/kernel" };
        (void)state;

        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
                struct floor_run run;
                char *doc = NULL;
                assert_true(asprintf(&doc,
                                     SPEC("",
                                          ",'mounts':[{'destination':'/x','type':'bind',"
                                          "'source':'%s','options':['rbind','rw']}]",
                                          ""),
                                     files[i]) > 0);
                assert_int_equal(floor_run(&run, doc, NULL, NULL, NULL, FLOOR_CREATE), -1);
                if (strstr(run.error, " a host system directory") == NULL)
                        fail_msg("%s: %s", files[i], run.error);
                assert_non_null(strstr(run.error, ", writable) refused (rule: " SYSTEM_WRITE_RULE));
                floor_run_release(&run);
                free(doc);
        }
}

static void test_bind_refused_as_error(void **state)
{
        struct floor_run run;
        char *doc = bind_doc("/etc", "/host-etc");
        (void)state;

        assert_int_equal(floor_run(&run, doc, NULL, NULL, NULL, FLOOR_CREATE), -1);
        assert_string_equal(run.error,
                            "mounts[0].source: \"/etc\" (/etc is a host system directory /etc) "
                            "refused (rule: " SYSTEM_WRITE_RULE ")");
        floor_run_release(&run);
        free(doc);
}

/* What is held open is judged, not the path: a link to /etc is /etc. */
static void test_bind_through_symlink(void **state)
{
        const struct dirs *d = *state;

        assert_bind(at(d, LINK_ETC), "/data", NULL, NULL, SYSTEM_WRITE_RULE);
        assert_bind(at(d, LINK_SOCK), "/var/run/x.sock", NULL, NULL, SOCKET_RULE);
}

static void test_bind_state_root(void **state)
{
        const struct dirs *d = *state;
        const char *root = at(d, STATE_ROOT);

        assert_bind(root, "/state", NULL, root, STATE_RULE);
        assert_bind(d->top, "/state", NULL, root, STATE_RULE); /* an ancestor */
        /* Anything in it: the seccomp cache, other containers' state. */
        char *inside = NULL;
        assert_true(asprintf(&inside, "%s/.seccomp-cache", root) > 0);
        assert_int_equal(mkdir(inside, 0700), 0);
        assert_bind(inside, "/cache", NULL, root, STATE_RULE);
        assert_int_equal(rmdir(inside), 0);
        free(inside);
        assert_bind(at(d, DATA), "/data", NULL, root, NULL); /* a sibling */
        assert_bind(d->top, "/state", NULL, NULL, NULL);
}

static void test_bind_engine_socket(void **state)
{
        const struct dirs *d = *state;

        assert_bind(at(d, DOCKER_SOCK), "/var/run/docker.sock", NULL, NULL, SOCKET_RULE);
        assert_bind(at(d, DATA), "/var/run", NULL, NULL, NULL);
}

static void test_bind_not_opened(void **state)
{
        struct sb_error err = { 0 };
        struct floor_report report = { 0 };
        struct floor_context ctx;
        struct operator_policy policy;
        char *doc = bind_doc("/srv", "/srv");
        char *json = dq(doc);
        struct oci_config *config = oci_config_parse(json, strlen(json), "config.json", &err);
        (void)state;

        /* The floor never judges a path it was given as a string. */
        assert_non_null(config);
        policy_parse("{}", &policy);
        assert_int_equal(floor_select(&policy, config, NULL, &ctx, &report, &err), 0);
        assert_int_equal(floor_apply(config, &ctx, &report, &err), -1);
        assert_string_equal(err.msg, "mounts[0].source: \"/srv\" was not opened before the check");
        sb_error_clear(&err);
        floor_report_release(&report);
        operator_policy_release(&policy);
        oci_config_free(config);
        free(json);
        free(doc);
}

static void test_bind_devices(void **state)
{
        const struct dirs *d = *state;

        assert_bind("/dev/null", "/dev/null", NULL, NULL, NULL);
        if (d->path[FUSE_NODE][0] == '\0')
                skip(); /* no mknod here */
        /* A node is what its type and numbers make it, whatever its name. */
        assert_bind(at(d, NULL_NODE), "/dev/mynull", NULL, NULL, NULL);
        assert_bind(at(d, FUSE_NODE), "/dev/fuse", NULL, NULL, DEVICE_RULE);
        assert_bind(at(d, DISK_NODE), "/dev/loop0", NULL, NULL, DEVICE_RULE);
        /* The operator's allow-list names the path in the container. */
        assert_bind(at(d, FUSE_NODE), "/dev/fuse", "{'floor':{'devices':['/dev/fuse']}}", NULL,
                    NULL);
        assert_bind(at(d, FUSE_NODE), "/dev/other", "{'floor':{'devices':['/dev/fuse']}}", NULL,
                    DEVICE_RULE);
}

#define DEVICES                                                                    \
        SPEC("", "",                                                               \
             ",'devices':[{'path':'/dev/fuse','type':'c','major':10,'minor':229}," \
             "{'path':'/dev/extra-null','type':'c','major':1,'minor':3},"          \
             "{'path':'/dev/fifo','type':'p'},"                                    \
             "{'path':'/dev/sda','type':'b','major':8,'minor':0},"                 \
             "{'path':'/dev/mem','type':'c','major':1,'minor':1},"                 \
             "{'path':'/dev/urandom','type':'u','major':1,'minor':9}]")

static void test_linux_devices(void **state)
{
        struct floor_run run;
        (void)state;

        assert_int_equal(floor_run(&run, DEVICES, NULL, NULL, NULL, FLOOR_EXPLAIN), 0);
        assert_change(&run.report, "linux.devices[0]", FLOOR_REFUSED, "/dev/fuse (c 10:229)",
                      "refused", DEVICE_RULE);
        assert_no_change(&run.report, "linux.devices[1]");
        assert_no_change(&run.report, "linux.devices[2]");
        assert_change(&run.report, "linux.devices[3]", FLOOR_REFUSED, "/dev/sda (b 8:0)", "refused",
                      DEVICE_RULE);
        assert_change(&run.report, "linux.devices[4]", FLOOR_REFUSED, "/dev/mem (c 1:1)", "refused",
                      DEVICE_RULE);
        assert_no_change(&run.report, "linux.devices[5]");
        floor_run_release(&run);

        assert_int_equal(floor_run(&run, DEVICES, "{'floor':{'devices':['/dev/fuse','/dev/sda']}}",
                                   NULL, NULL, FLOOR_EXPLAIN),
                         0);
        assert_no_change(&run.report, "linux.devices[0]");
        assert_no_change(&run.report, "linux.devices[3]");
        assert_change(&run.report, "linux.devices[4]", FLOOR_REFUSED, "/dev/mem (c 1:1)", "refused",
                      DEVICE_RULE);
        floor_run_release(&run);

        assert_int_equal(floor_run(&run, DEVICES, NULL, NULL, NULL, FLOOR_CREATE), -1);
        assert_string_equal(run.error,
                            "linux.devices[0]: /dev/fuse (c 10:229) refused (rule: " DEVICE_RULE
                            ")");
        floor_run_release(&run);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_bind_system_dirs),
                cmocka_unit_test(test_bind_writable_inside_system_dirs),
                cmocka_unit_test(test_bind_refused_as_error),
                cmocka_unit_test(test_bind_through_symlink),
                cmocka_unit_test(test_bind_state_root),
                cmocka_unit_test(test_bind_engine_socket),
                cmocka_unit_test(test_bind_not_opened),
                cmocka_unit_test(test_bind_devices),
                cmocka_unit_test(test_linux_devices),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
