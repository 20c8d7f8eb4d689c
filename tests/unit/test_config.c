/* config.json as engines write it must parse into exactly what they asked
 * for, integers at their full range; and every malformed document must be
 * refused with a message naming the file, the JSON path and the value. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "oci/config.h"

#include "common/error.h"
#include "common/fs_util.h"

#include <errno.h>
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

#include <cmocka.h>

#ifndef TESTDATA_DIR
#error "TESTDATA_DIR must name tests/unit/data"
#endif

#define BIT(cap) (UINT64_C(1) << (cap))

/* Documents in the tests use ' for " so that they stay readable. */
static char *dq(const char *s)
{
        char *out = strdup(s);

        assert_non_null(out);
        for (char *p = out; *p; p++)
                if (*p == '\'')
                        *p = '"';
        return out;
}

static struct oci_config *parse_ok(const char *doc)
{
        struct sb_error err = { 0 };
        char *json = dq(doc);
        struct oci_config *c = oci_config_parse(json, strlen(json), "config.json", &err);

        if (c == NULL)
                fail_msg("unexpected error: %s", err.msg);
        free(json);
        return c;
}

static void expect_error(const char *doc, const char *message)
{
        struct sb_error err = { 0 };
        char *json = dq(doc);
        struct oci_config *c = oci_config_parse(json, strlen(json), "config.json", &err);
        char *text;

        free(json);
        if (c != NULL) {
                oci_config_free(c);
                fail_msg("parsed, expected: %s", message);
        }
        text = sb_error_text(&err);
        assert_string_equal(text, message);
        free(text);
        sb_error_clear(&err);
}

static struct oci_config *load_fixture(const char *name)
{
        struct sb_error err = { 0 };
        char *path = NULL, *text = NULL;
        size_t len = 0;
        struct oci_config *c;

        assert_true(asprintf(&path, "%s/%s", TESTDATA_DIR, name) > 0);
        if (sb_read_file(path, 1 << 20, &text, &len, &err) < 0)
                fail_msg("%s", err.msg);
        c = oci_config_parse(text, len, "config.json", &err);
        if (c == NULL)
                fail_msg("%s: %s", name, err.msg);
        free(path);
        free(text);
        return c;
}

static struct oci_process *load_process_fixture(const char *name)
{
        struct sb_error err = { 0 };
        char *path = NULL, *text = NULL;
        size_t len = 0;
        struct oci_process *p;

        assert_true(asprintf(&path, "%s/%s", TESTDATA_DIR, name) > 0);
        if (sb_read_file(path, 1 << 20, &text, &len, &err) < 0)
                fail_msg("%s", err.msg);
        p = oci_process_parse(text, len, "process.json", &err);
        if (p == NULL)
                fail_msg("%s: %s", name, err.msg);
        free(path);
        free(text);
        return p;
}

/* A minimal valid document around a process fragment / linux fragment. */
#define PROC(fragment) "{'ociVersion':'1.2.0','process':{'args':['sh'],'cwd':'/'" fragment "}}"
#define LINUX(fragment) "{'ociVersion':'1.2.0','linux':{" fragment "}}"

static void test_podman_config(void **state)
{
        struct oci_config *c = load_fixture("podman-4.3.1-config.json");
        const struct oci_process *p = c->process;
        const struct oci_namespace *net;

        assert_string_equal(c->oci_version, "1.0.2-dev");
        assert_true(c->has_root);
        assert_false(c->root.readonly);
        assert_non_null(p);
        assert_true(p->terminal);
        assert_true(p->user.has_umask);
        assert_int_equal(p->user.umask, 18);
        assert_int_equal(p->n_args, 1);
        assert_string_equal(p->args[0], "sh");
        assert_null(p->args[1]);
        assert_int_equal(p->n_env, 5);
        assert_string_equal(p->env[4], "HOSTNAME=9bd45d1ac0aa");
        assert_true(p->has_capabilities);
        assert_true(p->capabilities.has_bounding);
        assert_false(p->capabilities.has_ambient);
        assert_true(p->capabilities.bounding & BIT(0));  /* CAP_CHOWN */
        assert_true(p->capabilities.bounding & BIT(18)); /* CAP_SYS_CHROOT */
        assert_false(p->capabilities.bounding & BIT(21));
        assert_int_equal(p->n_rlimits, 2);
        assert_int_equal(p->rlimits[0].resource, RLIMIT_NOFILE);
        assert_int_equal(p->rlimits[1].resource, RLIMIT_NPROC);
        assert_int_equal(p->rlimits[1].soft, 32768);
        assert_false(p->has_no_new_privileges);
        assert_string_equal(c->hostname, "9bd45d1ac0aa");
        assert_int_equal(c->n_mounts, 11);
        assert_string_equal(c->mounts[10].destination, "/sys/fs/cgroup");
        assert_int_equal(c->mounts[10].n_options, 6);
        assert_string_equal(c->mounts[10].options[5], "ro");
        assert_null(c->mounts[10].options[6]);
        assert_string_equal(oci_annotation(c, "io.container.manager"), "libpod");
        assert_null(oci_annotation(c, "nope"));

        assert_non_null(c->linux_);
        assert_int_equal(c->linux_->n_namespaces, 5);
        net = oci_config_namespace(c, OCI_NS_NETWORK);
        assert_non_null(net);
        assert_string_equal(net->path, "/run/netns/netns-b30f85b6-86d5-a058-5927-4c1a84882d06");
        assert_null(oci_config_namespace(c, OCI_NS_USER));
        assert_null(oci_config_namespace(c, OCI_NS_PID)->path);
        assert_non_null(c->linux_->seccomp);
        assert_string_equal(c->linux_->seccomp->default_action, "SCMP_ACT_ERRNO");
        assert_true(c->linux_->seccomp->has_default_errno_ret);
        assert_int_equal(c->linux_->seccomp->default_errno_ret, 38);
        assert_int_equal(c->linux_->seccomp->n_architectures, 3);
        assert_int_equal(c->linux_->seccomp->n_syscalls, 22);
        assert_int_equal(c->linux_->seccomp->syscalls[3].args[0].value, 8);
        assert_true(c->linux_->resources->has_pids_limit);
        assert_int_equal(c->linux_->resources->pids_limit, 2048);
        assert_int_equal(c->linux_->n_sysctl, 1);
        assert_string_equal(c->linux_->sysctl[0].key, "net.ipv4.ping_group_range");
        oci_config_free(c);
}

static void test_containerd_config(void **state)
{
        struct oci_config *c = load_fixture("containerd-1.6.20-config.json");
        const struct oci_resources *r;

        assert_string_equal(c->root.path, "rootfs");
        assert_int_equal(c->process->n_args, 3);
        assert_true(c->process->has_no_new_privileges);
        assert_true(c->process->no_new_privileges);
        assert_int_equal(c->process->user.n_additional_gids, 1);
        assert_true(c->linux_->has_masked_paths);
        assert_int_equal(c->linux_->n_masked_paths, 10);
        assert_int_equal(c->linux_->n_readonly_paths, 5);
        assert_string_equal(c->linux_->cgroups_path, "/default/demo");
        r = c->linux_->resources;
        assert_int_equal(r->n_devices, 10);
        assert_false(r->devices[0].allow);
        assert_null(r->devices[0].type);
        assert_string_equal(r->devices[8].type, "c");
        assert_true(r->devices[8].has_major);
        assert_false(r->devices[8].has_minor);
        assert_true(r->cpu->has_shares);
        assert_int_equal(r->cpu->shares, 1024);
        assert_false(r->cpu->has_quota);
        assert_null(r->memory);
        assert_null(c->linux_->seccomp);
        oci_config_free(c);
}

static void test_exec_process_documents(void **state)
{
        struct oci_process *p = load_process_fixture("podman-4.3.1-exec-process.json");

        assert_string_equal(p->args[1], "/etc/hostname");
        assert_int_equal(p->n_env, 4);
        assert_int_equal(p->n_rlimits, 2);
        assert_false(p->terminal);
        oci_process_free(p);

        p = load_process_fixture("containerd-1.6.20-exec-process.json");
        assert_string_equal(p->args[0], "cat");
        assert_int_equal(p->user.n_additional_gids, 1);
        assert_int_equal(p->user.additional_gids[0], 0);
        assert_true(p->no_new_privileges);
        oci_process_free(p);
}

static void test_full_document_process(void **state)
{
        struct oci_config *c = load_fixture("full-config.json");
        const struct oci_process *p = c->process;

        assert_true(c->root.readonly);
        assert_true(p->has_console_size);
        assert_int_equal(p->console_size.height, 24);
        assert_int_equal(p->console_size.width, 80);
        assert_int_equal(p->user.uid, 1000);
        assert_int_equal(p->user.gid, 1001);
        assert_int_equal(p->user.additional_gids[1], 4294967295u);
        assert_string_equal(p->user.username, "ignored");
        assert_string_equal(p->command_line, "app --flag");
        assert_string_equal(p->cwd, "/work");
        assert_int_equal(p->capabilities.bounding, BIT(0) | BIT(40));
        assert_int_equal(p->capabilities.permitted, BIT(10));
        assert_true(p->capabilities.has_inheritable);
        assert_int_equal(p->capabilities.inheritable, 0);
        assert_int_equal(p->capabilities.ambient, BIT(21));
        assert_int_equal(p->rlimits[1].resource, RLIMIT_CORE);
        assert_true(p->rlimits[1].soft == UINT64_MAX);
        assert_true(p->rlimits[1].hard == UINT64_MAX);
        assert_int_equal(p->rlimits[2].resource, RLIMIT_RTTIME);
        assert_true(p->has_no_new_privileges);
        assert_false(p->no_new_privileges);
        assert_string_equal(p->apparmor_profile, "sbrun-default");
        assert_true(p->has_oom_score_adj);
        assert_int_equal(p->oom_score_adj, -1000);
        assert_string_equal(p->io_priority->klass, "IOPRIO_CLASS_BE");
        assert_int_equal(p->io_priority->priority, 7);
        assert_string_equal(p->scheduler->policy, "SCHED_DEADLINE");
        assert_int_equal(p->scheduler->nice, -5);
        assert_int_equal(p->scheduler->n_flags, 1);
        assert_int_equal(p->scheduler->period, 3000000);
        assert_string_equal(p->exec_cpu_affinity->final, "0-3");

        assert_string_equal(c->domainname, "example.org");
        assert_int_equal(c->hooks.prestart.n, 1);
        assert_true(c->hooks.prestart.hooks[0].has_timeout);
        assert_int_equal(c->hooks.prestart.hooks[0].timeout, 5);
        assert_string_equal(c->hooks.prestart.hooks[0].args[1], "a");
        assert_int_equal(c->hooks.create_container.n, 2);
        assert_false(c->hooks.create_container.hooks[1].has_timeout);
        assert_int_equal(c->hooks.poststop.n, 1);
        /* A repeated key keeps its last value, as Go's decoder does. */
        assert_int_equal(c->n_annotations, 2);
        assert_string_equal(oci_annotation(c, "org.example.a"), "2");
        assert_int_equal(c->mounts[1].n_uid_mappings, 1);
        assert_int_equal(c->mounts[1].uid_mappings[0].host_id, 100000);
        assert_int_equal(c->mounts[1].gid_mappings[0].size, 1000);
        assert_null(c->mounts[0].options);
        oci_config_free(c);
}

static void test_full_document_linux(void **state)
{
        struct oci_config *c = load_fixture("full-config.json");
        const struct oci_linux *l = c->linux_;
        const struct oci_resources *r = l->resources;
        const struct oci_seccomp *s = l->seccomp;

        assert_int_equal(l->n_namespaces, 8);
        assert_int_equal(l->namespaces[7].type, OCI_NS_TIME);
        assert_int_equal(l->gid_mappings[1].host_id, 4294967295u);
        assert_int_equal(l->n_time_offsets, 2);
        assert_string_equal(l->time_offsets[0].key, "monotonic");
        assert_string_equal(l->time_offsets[0].value, "-86400 5");
        assert_string_equal(l->time_offsets[1].value, "1 0");
        assert_int_equal(l->devices[0].type, 'c');
        assert_true(l->devices[0].has_file_mode);
        assert_int_equal(l->devices[0].file_mode, 438);
        assert_int_equal(l->devices[1].type, 'p');
        assert_int_equal(l->devices[1].major, -1);
        assert_int_equal(l->devices[1].minor, -1);
        assert_false(l->devices[1].has_uid);
        assert_string_equal(l->rootfs_propagation, "rslave");
        assert_true(l->has_readonly_paths);
        assert_int_equal(l->n_readonly_paths, 0);
        assert_string_equal(l->intel_rdt->clos_id, "guaranteed");
        assert_true(l->intel_rdt->has_enable_mbm);
        assert_false(l->intel_rdt->enable_mbm);
        assert_string_equal(l->personality->domain, "LINUX32");
        assert_int_equal(l->intel_rdt->n_schemata, 2);
        assert_string_equal(l->intel_rdt->schemata[1], "MB:0=20");
        assert_true(l->intel_rdt->has_enable_monitoring);
        assert_true(l->intel_rdt->enable_monitoring);
        assert_string_equal(l->memory_policy->mode, "MPOL_BIND");
        assert_string_equal(l->memory_policy->nodes, "0-1");
        assert_int_equal(l->memory_policy->n_flags, 1);
        assert_int_equal(l->n_net_devices, 2);
        assert_string_equal(l->net_devices[0].key, "eth1");
        assert_string_equal(l->net_devices[0].value, "eth1");
        assert_null(l->net_devices[1].value);

        assert_true(r->memory->has_limit);
        assert_int_equal(r->memory->limit, -1);
        assert_int_equal(r->memory->swap, -1);
        assert_true(r->memory->disable_oom_killer);
        assert_true(r->memory->has_use_hierarchy);
        assert_int_equal(r->cpu->quota, -1);
        assert_int_equal(r->cpu->idle, 1);
        assert_string_equal(r->cpu->cpus, "0-3");
        assert_true(r->has_pids_limit);
        assert_int_equal(r->pids_limit, -1);
        assert_int_equal(r->block_io->weight, 500);
        assert_true(r->block_io->weight_devices[0].has_weight);
        assert_false(r->block_io->weight_devices[0].has_leaf_weight);
        assert_true(r->block_io->throttle_read_bps.devices[0].rate == UINT64_MAX);
        assert_int_equal(r->block_io->throttle_write_iops.devices[0].minor, 16);
        assert_int_equal(r->hugepage_limits[0].limit, 209715200);
        assert_true(r->has_network);
        assert_int_equal(r->class_id, 1048577);
        assert_string_equal(r->net_priorities[0].name, "eth0");
        assert_int_equal(r->n_rdma, 2);
        assert_string_equal(r->rdma[1].device, "mlx4_0");
        assert_false(r->rdma[1].has_hca_handles);
        assert_int_equal(r->rdma[1].hca_objects, 7);
        assert_int_equal(r->n_unified, 2);

        assert_int_equal(s->n_architectures, 2);
        assert_string_equal(s->listener_path, "/run/seccomp.sock");
        assert_true(s->syscalls[0].args[0].value == UINT64_MAX);
        assert_true(s->syscalls[0].args[0].value_two == UINT64_MAX);
        assert_string_equal(s->syscalls[0].args[0].op, "SCMP_CMP_MASKED_EQ");
        assert_int_equal(s->syscalls[1].n_names, 2);
        assert_true(s->syscalls[2].has_errno_ret);
        assert_int_equal(s->syscalls[2].args[0].index, 5);
        oci_config_free(c);
}

static void test_minimal_documents(void **state)
{
        struct oci_config *c = parse_ok("{'ociVersion':'1.2.0'}");

        assert_false(c->has_root);
        assert_null(c->process);
        assert_null(c->linux_);
        oci_config_free(c);
        /* null reads as absent, as with Go's decoder. */
        c = parse_ok(
                "{'ociVersion':'1.2.0','process':null,'hostname':null,'linux':{'seccomp':null}}");
        assert_null(c->process);
        assert_null(c->hostname);
        assert_null(c->linux_->seccomp);
        oci_config_free(c);
}

static void test_names(void **state)
{
        assert_int_equal(oci_capability_from_name("CAP_CHOWN"), 0);
        assert_int_equal(oci_capability_from_name("CAP_SYS_ADMIN"), 21);
        assert_int_equal(oci_capability_from_name("CAP_CHECKPOINT_RESTORE"), 40);
        assert_int_equal(oci_capability_from_name("cap_chown"), -1);
        for (int i = 0; i <= 40; i++)
                assert_int_equal(oci_capability_from_name(oci_capability_name(i)), i);
        assert_null(oci_capability_name(41));
        assert_null(oci_capability_name(-1));
        assert_int_equal(oci_rlimit_from_name("RLIMIT_CPU"), RLIMIT_CPU);
        assert_int_equal(oci_rlimit_from_name("RLIMIT_RTTIME"), RLIMIT_RTTIME);
        assert_int_equal(oci_rlimit_from_name("RLIMIT_MSGQUEUE"), RLIMIT_MSGQUEUE);
        assert_int_equal(oci_rlimit_from_name("NOFILE"), -1);
        assert_string_equal(oci_namespace_type_name(OCI_NS_NETWORK), "network");
        assert_string_equal(oci_namespace_proc_name(OCI_NS_NETWORK), "net");
        assert_string_equal(oci_namespace_proc_name(OCI_NS_MOUNT), "mnt");
        assert_string_equal(oci_namespace_proc_name(OCI_NS_TIME), "time");
        assert_null(oci_namespace_type_name(OCI_NS_COUNT));
}

static void test_document_errors(void **state)
{
        expect_error("{'ociVersion':", "config.json: invalid JSON: parse error: premature EOF");
        expect_error("", "config.json: invalid JSON: parse error: premature EOF");
        expect_error("[1]", "config.json: expected an object, got an array");
        expect_error("{}", "config.json: ociVersion: required");
        expect_error("{'ociVersion':1}", "config.json: ociVersion: expected a string, got 1");
        expect_error("{'ociVersion':'1.2.0','hostname':'a\\u0000b'}",
                     "config.json: invalid JSON: strings must not contain \\u0000");
        /* An escaped backslash before u0000 is plain text, not a NUL. */
        oci_config_free(parse_ok("{'ociVersion':'1.2.0','hostname':'a\\\\u0000b'}"));
        expect_error("{'ociVersion':'1.2.0','root':{}}", "config.json: root.path: required");
        expect_error("{'ociVersion':'1.2.0','process':[]}",
                     "config.json: process: expected an object, got an array");
        expect_error("{'ociVersion':'1.2.0','annotations':{'a':'b','foo':1}}",
                     "config.json: annotations.foo: expected a string, got 1");
}

static void test_deep_nesting_refused(void **state)
{
        struct sb_error err = { 0 };
        size_t depth = 100000;
        char *json = malloc(2 * depth + 1);

        memset(json, '[', depth);
        memset(json + depth, ']', depth);
        json[2 * depth] = '\0';
        assert_null(oci_config_parse(json, 2 * depth, "config.json", &err));
        assert_string_equal(err.msg, "config.json: invalid JSON: nested deeper than 128 levels");
        sb_error_clear(&err);
        free(json);
}

static void test_process_errors(void **state)
{
        expect_error("{'ociVersion':'1.2.0','process':{'cwd':'/'}}",
                     "config.json: process.args: required");
        expect_error("{'ociVersion':'1.2.0','process':{'args':[],'cwd':'/'}}",
                     "config.json: process.args: must not be empty");
        expect_error("{'ociVersion':'1.2.0','process':{'args':['sh',3],'cwd':'/'}}",
                     "config.json: process.args[1]: expected a string, got 3");
        expect_error("{'ociVersion':'1.2.0','process':{'args':['sh']}}",
                     "config.json: process.cwd: required");
        expect_error("{'ociVersion':'1.2.0','process':{'args':['sh'],'cwd':'tmp'}}",
                     "config.json: process.cwd: \"tmp\" is not an absolute path");
        expect_error(PROC(",'terminal':3"),
                     "config.json: process.terminal: expected a boolean, got 3");
        expect_error(PROC(",'terminal':'yes'"),
                     "config.json: process.terminal: expected a boolean, got \"yes\"");
        expect_error(
                PROC(",'capabilities':{'bounding':['CAP_FOO']}"),
                "config.json: process.capabilities.bounding[0]: unknown capability \"CAP_FOO\"");
        expect_error(
                PROC(",'capabilities':{'ambient':'CAP_CHOWN'}"),
                "config.json: process.capabilities.ambient: expected an array, got \"CAP_CHOWN\"");
        expect_error(PROC(",'rlimits':[{'type':'RLIMIT_NOFILE','soft':1,'hard':1},"
                          "{'type':'RLIMIT_NOFILE','soft':2,'hard':2}]"),
                     "config.json: process.rlimits[1].type: duplicate RLIMIT_NOFILE");
        expect_error(PROC(",'rlimits':[{'type':'RLIMIT_FOO','soft':1,'hard':1}]"),
                     "config.json: process.rlimits[0].type: unknown rlimit \"RLIMIT_FOO\"");
        expect_error(PROC(",'rlimits':[{'type':'RLIMIT_CPU','hard':1}]"),
                     "config.json: process.rlimits[0].soft: required");
        expect_error(PROC(",'rlimits':[{'type':'RLIMIT_CPU','soft':2,'hard':1}]"),
                     "config.json: process.rlimits[0].soft: 2 exceeds the hard limit 1");
        expect_error(
                PROC(",'rlimits':[{'type':'RLIMIT_CPU','soft':-1,'hard':1}]"),
                "config.json: process.rlimits[0].soft: expected a non-negative integer, got -1");
        expect_error(PROC(",'user':{'uid':-1}"),
                     "config.json: process.user.uid: expected a non-negative integer, got -1");
        expect_error(PROC(",'user':{'uid':4294967296}"),
                     "config.json: process.user.uid: 4294967296 is out of range (0 to 4294967295)");
        expect_error(PROC(",'user':{'gid':1.0}"),
                     "config.json: process.user.gid: expected an integer, got 1.0");
        expect_error(PROC(",'user':{'additionalGids':[1,'2']}"),
                     "config.json: process.user.additionalGids[1]: expected an integer, got \"2\"");
        expect_error(PROC(",'oomScoreAdj':1001"),
                     "config.json: process.oomScoreAdj: 1001 is out of range (-1000 to 1000)");
        expect_error(PROC(",'consoleSize':{'height':1}"),
                     "config.json: process.consoleSize.width: required");
        expect_error(
                PROC(",'ioPriority':{'class':'IOPRIO_CLASS_X','priority':1}"),
                "config.json: process.ioPriority.class: unknown I/O priority class \"IOPRIO_CLASS_X\"");
        expect_error(
                PROC(",'scheduler':{'policy':'SCHED_OTHER','flags':['SCHED_FLAG_X']}"),
                "config.json: process.scheduler.flags[0]: unknown scheduler flag \"SCHED_FLAG_X\"");
        expect_error(PROC(",'scheduler':{}"), "config.json: process.scheduler.policy: required");
}

static void test_mount_and_hook_errors(void **state)
{
        expect_error("{'ociVersion':'1.2.0','mounts':[{'type':'tmpfs'}]}",
                     "config.json: mounts[0].destination: required");
        expect_error("{'ociVersion':'1.2.0','mounts':[{'destination':'/a'},{'destination':'tmp'}]}",
                     "config.json: mounts[1].destination: \"tmp\" is not an absolute path");
        expect_error("{'ociVersion':'1.2.0','mounts':[{'destination':'/a','options':['ro',5]}]}",
                     "config.json: mounts[0].options[1]: expected a string, got 5");
        expect_error("{'ociVersion':'1.2.0','mounts':['/a']}",
                     "config.json: mounts[0]: expected an object, got \"/a\"");
        expect_error("{'ociVersion':'1.2.0','mounts':[{'destination':'/a',"
                     "'uidMappings':[{'containerID':0,'hostID':1}]}]}",
                     "config.json: mounts[0].uidMappings[0].size: required");
        expect_error(
                "{'ociVersion':'1.2.0','hooks':{'prestart':[{'path':'/x','timeout':0}]}}",
                "config.json: hooks.prestart[0].timeout: 0 is not a positive number of seconds");
        expect_error("{'ociVersion':'1.2.0','hooks':{'poststop':[{'args':[]}]}}",
                     "config.json: hooks.poststop[0].path: required");
}

/* Each options element is split on its commas, as the kernel reads the
 * mount's data, outside double quotes; an empty option is refused. */
static void test_mount_options_split(void **state)
{
        static const char *const want[] = {
                "size=1m", "uid=0", "size=4g", "nr_inodes=0", "context=\"a:b:c,d\"", "ro"
        };
        struct oci_config *c = parse_ok(
                "{'ociVersion':'1.2.0','mounts':[{'destination':'/a','type':'tmpfs',"
                "'options':['size=1m','uid=0,size=4g,nr_inodes=0','context=\\'a:b:c,d\\',ro']}]}");
        (void)state;

        assert_int_equal(c->mounts[0].n_options, 6);
        for (size_t i = 0; i < 6; i++)
                assert_string_equal(c->mounts[0].options[i], want[i]);
        assert_null(c->mounts[0].options[6]);
        oci_config_free(c);
        expect_error("{'ociVersion':'1.2.0','mounts':[{'destination':'/a','options':['ro,,rw']}]}",
                     "config.json: mounts[0].options: \"ro,,rw\" has an empty option");
        expect_error("{'ociVersion':'1.2.0','mounts':[{'destination':'/a','options':['ro,']}]}",
                     "config.json: mounts[0].options: \"ro,\" has an empty option");
}

static void test_linux_errors(void **state)
{
        expect_error(LINUX("'namespaces':[{'type':'foo'}]"),
                     "config.json: linux.namespaces[0].type: unknown namespace type \"foo\"");
        expect_error(LINUX("'namespaces':[{'type':'pid'},{'type':'ipc'},{'type':'ipc'}]"),
                     "config.json: linux.namespaces[2].type: duplicate namespace \"ipc\"");
        expect_error(LINUX("'namespaces':[{'path':'/proc/1/ns/net'}]"),
                     "config.json: linux.namespaces[0].type: required");
        expect_error(
                LINUX("'namespaces':[{'type':'network','path':'proc/1/ns/net'}]"),
                "config.json: linux.namespaces[0].path: \"proc/1/ns/net\" is not an absolute path");
        expect_error(LINUX("'devices':[{'path':'/dev/x','type':'x','major':1,'minor':1}]"),
                     "config.json: linux.devices[0].type: unknown device type \"x\"");
        expect_error(LINUX("'devices':[{'path':'/dev/x','type':'c','minor':1}]"),
                     "config.json: linux.devices[0].major: required");
        expect_error(LINUX("'devices':[{'path':'/dev/x','type':'b','major':1}]"),
                     "config.json: linux.devices[0].minor: required");
        expect_error(LINUX("'devices':[{'type':'p'}]"),
                     "config.json: linux.devices[0].path: required");
        expect_error(LINUX("'rootfsPropagation':'sideways'"),
                     "config.json: linux.rootfsPropagation: unknown propagation \"sideways\"");
        expect_error(LINUX("'maskedPaths':['/ok','proc/kcore']"),
                     "config.json: linux.maskedPaths[1]: \"proc/kcore\" is not an absolute path");
        expect_error(LINUX("'sysctl':{'net.ipv4.ip_forward':1}"),
                     "config.json: linux.sysctl.net.ipv4.ip_forward: expected a string, got 1");
        expect_error(LINUX("'timeOffsets':{'realtime':{'secs':1}}"),
                     "config.json: linux.timeOffsets.realtime: unknown clock \"realtime\"");
        expect_error(
                LINUX("'personality':{'domain':'LINUX64'}"),
                "config.json: linux.personality.domain: unknown personality domain \"LINUX64\"");
        expect_error(LINUX("'memoryPolicy':{'nodes':'0'}"),
                     "config.json: linux.memoryPolicy.mode: required");
        expect_error(LINUX("'netDevices':{'eth0':'eth1'}"),
                     "config.json: linux.netDevices.eth0: expected an object, got \"eth1\"");
        expect_error(LINUX("'intelRdt':{'schemata':'L3:0=f'}"),
                     "config.json: linux.intelRdt.schemata: expected an array, got \"L3:0=f\"");
}

static void test_seccomp_errors(void **state)
{
        expect_error(LINUX("'seccomp':{'architectures':['SCMP_ARCH_X86_64']}"),
                     "config.json: linux.seccomp.defaultAction: required");
        expect_error(
                LINUX("'seccomp':{'defaultAction':'SCMP_ACT_DENY'}"),
                "config.json: linux.seccomp.defaultAction: unknown seccomp action \"SCMP_ACT_DENY\"");
        expect_error(
                LINUX("'seccomp':{'defaultAction':'SCMP_ACT_ALLOW',"
                      "'architectures':['SCMP_ARCH_X86_64','x86_64']}"),
                "config.json: linux.seccomp.architectures[1]: unknown architecture \"x86_64\"");
        expect_error(
                LINUX("'seccomp':{'defaultAction':'SCMP_ACT_ALLOW','syscalls':["
                      "{'names':['a'],'action':'SCMP_ACT_FOO'}]}"),
                "config.json: linux.seccomp.syscalls[0].action: unknown seccomp action \"SCMP_ACT_FOO\"");
        expect_error(LINUX("'seccomp':{'defaultAction':'SCMP_ACT_ALLOW','syscalls':["
                           "{'names':['a'],'action':'SCMP_ACT_ERRNO'},{'action':'SCMP_ACT_LOG'}]}"),
                     "config.json: linux.seccomp.syscalls[1].names: required");
        expect_error(
                LINUX("'seccomp':{'defaultAction':'SCMP_ACT_ALLOW','syscalls':["
                      "{'names':['a'],'action':'SCMP_ACT_ERRNO','args':["
                      "{'index':0,'value':1,'op':'SCMP_CMP_EQ'},"
                      "{'index':6,'value':1,'op':'SCMP_CMP_EQ'}]}]}"),
                "config.json: linux.seccomp.syscalls[0].args[1].index: 6 is out of range (0 to 5)");
        expect_error(
                LINUX("'seccomp':{'defaultAction':'SCMP_ACT_ALLOW','syscalls':["
                      "{'names':['a'],'action':'SCMP_ACT_ERRNO','args':["
                      "{'index':0,'value':1,'op':'SCMP_CMP_FOO'}]}]}"),
                "config.json: linux.seccomp.syscalls[0].args[0].op: unknown seccomp operator \"SCMP_CMP_FOO\"");
        expect_error(LINUX("'seccomp':{'defaultAction':'SCMP_ACT_ALLOW','syscalls':["
                           "{'names':['a'],'action':'SCMP_ACT_ERRNO','args':["
                           "{'index':0,'value':18446744073709551616,'op':'SCMP_CMP_EQ'}]}]}"),
                     "config.json: linux.seccomp.syscalls[0].args[0].value: "
                     "18446744073709551616 is out of range (0 to 18446744073709551615)");
        expect_error(LINUX("'seccomp':{'defaultAction':'SCMP_ACT_ALLOW','syscalls':["
                           "{'names':['a'],'action':'SCMP_ACT_ERRNO','args':["
                           "{'index':0,'value':-1,'op':'SCMP_CMP_EQ'}]}]}"),
                     "config.json: linux.seccomp.syscalls[0].args[0].value: "
                     "expected a non-negative integer, got -1");
        expect_error(LINUX("'seccomp':{'defaultAction':'SCMP_ACT_ALLOW','syscalls':["
                           "{'names':['a'],'action':'SCMP_ACT_NOTIFY'}]}"),
                     "config.json: linux.seccomp.listenerPath: required by SCMP_ACT_NOTIFY");
}

static void test_resource_errors(void **state)
{
        expect_error(
                LINUX("'resources':{'memory':{'limit':'lots'}}"),
                "config.json: linux.resources.memory.limit: expected an integer, got \"lots\"");
        expect_error(LINUX("'resources':{'memory':{'limit':-2}}"),
                     "config.json: linux.resources.memory.limit: -2 is not a valid limit");
        expect_error(LINUX("'resources':{'memory':{'limit':9223372036854775808}}"),
                     "config.json: linux.resources.memory.limit: 9223372036854775808 is out of "
                     "range (-9223372036854775808 to 9223372036854775807)");
        expect_error(LINUX("'resources':{'pids':{'limit':1.5}}"),
                     "config.json: linux.resources.pids.limit: expected an integer, got 1.5");
        expect_error(LINUX("'resources':{'pids':{'limit':1e3}}"),
                     "config.json: linux.resources.pids.limit: expected an integer, got 1e3");
        expect_error(
                LINUX("'resources':{'cpu':{'shares':-1}}"),
                "config.json: linux.resources.cpu.shares: expected a non-negative integer, got -1");
        expect_error(
                LINUX("'resources':{'blockIO':{'weight':65536}}"),
                "config.json: linux.resources.blockIO.weight: 65536 is out of range (0 to 65535)");
        expect_error(
                LINUX("'resources':{'blockIO':{'throttleReadBpsDevice':[{'major':8,'minor':0}]}}"),
                "config.json: linux.resources.blockIO.throttleReadBpsDevice[0].rate: required");
        expect_error(LINUX("'resources':{'devices':[{'access':'rwm'}]}"),
                     "config.json: linux.resources.devices[0].allow: required");
        expect_error(LINUX("'resources':{'devices':[{'allow':true,'access':'rwx'}]}"),
                     "config.json: linux.resources.devices[0].access: invalid access \"rwx\" "
                     "(a combination of r, w and m)");
        expect_error(LINUX("'resources':{'hugepageLimits':[{'pageSize':'2MB'}]}"),
                     "config.json: linux.resources.hugepageLimits[0].limit: required");
        expect_error(
                LINUX("'resources':{'rdma':{'mlx':{'hcaHandles':true}}}"),
                "config.json: linux.resources.rdma.mlx.hcaHandles: expected an integer, got true");
        expect_error(LINUX("'resources':{'unified':{'memory.max':5}}"),
                     "config.json: linux.resources.unified.memory.max: expected a string, got 5");
}

static void test_process_parse(void **state)
{
        struct sb_error err = { 0 };
        char *json = dq("{'args':['ls'],'cwd':'/','terminal':true}");
        struct oci_process *p = oci_process_parse(json, strlen(json), "process.json", &err);

        assert_non_null(p);
        assert_true(p->terminal);
        oci_process_free(p);
        free(json);

        json = dq("{'cwd':'/'}");
        assert_null(oci_process_parse(json, strlen(json), "process.json", &err));
        assert_string_equal(err.msg, "process.json: args: required");
        sb_error_clear(&err);
        free(json);

        json = dq("{'args':['ls'],'cwd':'/','rlimits':[{'type':'RLIMIT_AS','soft':1,'hard':1},"
                  "{'type':'RLIMIT_AS','soft':1,'hard':1}]}");
        assert_null(oci_process_parse(json, strlen(json), "process.json", &err));
        assert_string_equal(err.msg, "process.json: rlimits[1].type: duplicate RLIMIT_AS");
        sb_error_clear(&err);
        free(json);

        assert_null(oci_process_parse("[]", 2, "process.json", &err));
        assert_string_equal(err.msg, "process.json: expected an object, got an array");
        sb_error_clear(&err);
}

static void write_text(const char *path, const char *text)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

        assert_true(fd >= 0);
        assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
        close(fd);
}

static void test_load_bundle(void **state)
{
        char dir[] = "/tmp/sbrun-test-bundle-XXXXXX";
        char path[256], rootfs[256];
        struct sb_error err = { 0 };
        struct oci_config *c;
        char *doc;

        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/config.json", dir);
        snprintf(rootfs, sizeof(rootfs), "%s/rootfs", dir);

        assert_null(oci_config_load_bundle(dir, &err));
        assert_int_equal(err.errnum, ENOENT);
        assert_non_null(strstr(err.msg, "config.json"));
        sb_error_clear(&err);

        doc = dq("{'ociVersion':'1.2.0','root':{'path':'rootfs'}}");
        write_text(path, doc);
        free(doc);
        assert_null(oci_config_load_bundle(dir, &err));
        assert_string_equal(err.msg, "config.json: root.path: \"rootfs\" does not exist");
        assert_int_equal(err.errnum, 0);
        sb_error_clear(&err);

        write_text(rootfs, "not a directory");
        assert_null(oci_config_load_bundle(dir, &err));
        assert_string_equal(err.msg, "config.json: root.path: \"rootfs\" is not a directory");
        sb_error_clear(&err);
        assert_int_equal(unlink(rootfs), 0);

        assert_int_equal(mkdir(rootfs, 0755), 0);
        c = oci_config_load_bundle(dir, &err);
        assert_non_null(c);
        assert_string_equal(c->root.path, "rootfs"); /* left for the runtime to resolve */
        oci_config_free(c);

        /* An absolute root.path is taken as it is. */
        assert_true(asprintf(&doc, "{\"ociVersion\":\"1.2.0\",\"root\":{\"path\":\"%s\"}}",
                             rootfs) > 0);
        write_text(path, doc);
        free(doc);
        c = oci_config_load_bundle(dir, &err);
        assert_non_null(c);
        assert_string_equal(c->root.path, rootfs);
        oci_config_free(c);

        doc = dq("{'ociVersion':'1.2.0'}");
        write_text(path, doc);
        free(doc);
        assert_null(oci_config_load_bundle(dir, &err));
        assert_string_equal(err.msg, "config.json: root.path: required");
        sb_error_clear(&err);

        write_text(path,
                   "{\"ociVersion\":\"1.2.0\",\"root\":{\"path\":\"rootfs\"},\"process\":{}}");
        assert_null(oci_config_load_bundle(dir, &err));
        assert_string_equal(err.msg, "config.json: process.args: required");
        sb_error_clear(&err);

        assert_int_equal(rmdir(rootfs), 0);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_podman_config),
                cmocka_unit_test(test_containerd_config),
                cmocka_unit_test(test_exec_process_documents),
                cmocka_unit_test(test_full_document_process),
                cmocka_unit_test(test_full_document_linux),
                cmocka_unit_test(test_minimal_documents),
                cmocka_unit_test(test_names),
                cmocka_unit_test(test_document_errors),
                cmocka_unit_test(test_deep_nesting_refused),
                cmocka_unit_test(test_process_errors),
                cmocka_unit_test(test_mount_and_hook_errors),
                cmocka_unit_test(test_mount_options_split),
                cmocka_unit_test(test_linux_errors),
                cmocka_unit_test(test_seccomp_errors),
                cmocka_unit_test(test_resource_errors),
                cmocka_unit_test(test_process_parse),
                cmocka_unit_test(test_load_bundle),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
