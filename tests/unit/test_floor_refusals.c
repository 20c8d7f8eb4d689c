/* Every refusal create makes on a config, `policy explain` makes too, in
 * the same words: for each case the floor is run as create runs it (the
 * first refusal fails, its message is the error) and as explain runs it
 * (refusals recorded, the merge goes on), and explain's record of the
 * refusal must read exactly as create's error. The resource refusals
 * (spec/floor_resources.c) are all here, the runtime-spec fields sbrun
 * does not carry out and the limits on those it carries out
 * (spec/floor_spec_fields.c); update's check is the same function under
 * its own prefix. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "spec/floor_resources.h"
#include "tests/unit/floor_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define RES(fragment) SPEC("", "", ",'resources':{" fragment "}")

struct refusal {
        const char *config;
        const char *error; /* create's error, explain's record */
};

static const struct refusal refusals[] = {
        { RES("'memory':{'limit':268435456,'swap':1048576}"),
          "linux.resources.memory.swap: 1048576 (memory.limit 268435456) refused (rule: "
          "memory+swap must not be less than the memory limit)" },
        { RES("'memory':{'swap':1048576}"),
          "linux.resources.memory.swap: 1048576 (memory.limit 0) refused (rule: a swap limit "
          "needs a memory limit)" },
        /* No limit is clamped to the host's RAM first (floor_limits): the
         * swap rule judges the limit the container gets. */
        { RES("'memory':{'limit':-1,'swap':1048576}"),
          "linux.resources.memory.swap: 1048576 (memory.limit 8589934592) refused (rule: "
          "memory+swap must not be less than the memory limit)" },
        { RES("'cpu':{'idle':2}"),
          "linux.resources.cpu.idle: 2 refused (rule: cpu.idle is 0 or 1)" },
        { RES("'cpu':{'shares':1024,'idle':1}"),
          "linux.resources.cpu: shares 1024 and idle 1 refused (rule: an idle cgroup has no "
          "weight: shares and idle 1 exclude each other)" },
        { RES("'blockIO':{'weight':5}"),
          "linux.resources.blockIO.weight: 5 refused (rule: a blkio weight is 10 to 1000)" },
        { RES("'blockIO':{'weight':1001}"),
          "linux.resources.blockIO.weight: 1001 refused (rule: a blkio weight is 10 to 1000)" },
        { RES("'blockIO':{'weightDevice':[{'major':8,'minor':0,'weight':5}]}"),
          "linux.resources.blockIO.weightDevice[0].weight: 5 refused (rule: a blkio weight is "
          "10 to 1000)" },
        { RES("'blockIO':{'weightDevice':[{'major':-1,'minor':0,'weight':500}]}"),
          "linux.resources.blockIO.weightDevice[0]: -1:0 refused (rule: a device number is two "
          "32-bit unsigned numbers)" },
        { RES("'blockIO':{'throttleReadBpsDevice':[{'major':8,'minor':4294967296,'rate':1}]}"),
          "linux.resources.blockIO.throttleReadBpsDevice[0]: 8:4294967296 refused (rule: a "
          "device number is two 32-bit unsigned numbers)" },
        { RES("'blockIO':{'throttleWriteIOPSDevice':[{'major':-8,'minor':0,'rate':1}]}"),
          "linux.resources.blockIO.throttleWriteIOPSDevice[0]: -8:0 refused (rule: a device "
          "number is two 32-bit unsigned numbers)" },
        { RES("'hugepageLimits':[{'pageSize':'2M','limit':1}]"),
          "linux.resources.hugepageLimits[0].pageSize: \"2M\" refused (rule: a page size is "
          "written like \"2MB\")" },
        { RES("'rdma':{'mlx/0':{'hcaHandles':1}}"),
          "linux.resources.rdma: \"mlx/0\" refused (rule: an RDMA device name is one word "
          "without '/' or '=')" },
        { RES("'unified':{'../memory.max':'1'}"),
          "linux.resources.unified: \"../memory.max\" refused (rule: a key is a cgroup v2 "
          "interface file name, controller.file)" },
        { RES("'unified':{'memory':'1'}"),
          "linux.resources.unified: \"memory\" refused (rule: a key is a cgroup v2 interface "
          "file name, controller.file)" },
        { RES("'unified':{'cgroup.procs':'1'}"),
          "linux.resources.unified: \"cgroup.procs\" refused (rule: cgroup.* files are sbrun's "
          "to manage (only cgroup.max.depth and cgroup.max.descendants may be set))" },
        { RES("'unified':{'cgroup.subtree_control':'+cpu'}"),
          "linux.resources.unified: \"cgroup.subtree_control\" refused (rule: cgroup.* files are "
          "sbrun's to manage (only cgroup.max.depth and cgroup.max.descendants may be set))" },
        { RES("'memory':{'checkBeforeUpdate':true}"),
          "linux.resources.memory.checkBeforeUpdate: true refused (rule: not supported by sbrun: "
          "a new limit is not checked against the usage)" },
        /* The runtime-spec fields sbrun does not carry out, and the limits
         * on the process's scheduling (spec/floor_spec_fields.c). */
        { SPEC(",'ioPriority':{'class':'IOPRIO_CLASS_RT','priority':0}", "", ""),
          "process.ioPriority: IOPRIO_CLASS_RT 0 refused (rule: would let the container starve "
          "the host: the real-time I/O class goes before every other)" },
        { SPEC(",'scheduler':{'policy':'SCHED_FIFO','priority':1}", "", ""),
          "process.scheduler: SCHED_FIFO nice 0 priority 1 refused (rule: would let the "
          "container starve the host: a real-time policy runs before every normal process)" },
        { SPEC(",'scheduler':{'policy':'SCHED_DEADLINE','runtime':1000000,'deadline':2000000,"
               "'period':2000000}",
               "", ""),
          "process.scheduler: SCHED_DEADLINE nice 0 priority 0 refused (rule: would let the "
          "container starve the host: a real-time policy runs before every normal process)" },
        { SPEC(",'scheduler':{'policy':'SCHED_BATCH','nice':-1}", "", ""),
          "process.scheduler: SCHED_BATCH nice -1 priority 0 refused (rule: would let the "
          "container starve the host: a negative nice weighs it above the host's processes)" },
        { SPEC(",'scheduler':{'policy':'SCHED_OTHER','nice':20}", "", ""),
          "process.scheduler: SCHED_OTHER nice 20 priority 0 refused (rule: nice is -20 to 19)" },
        { SPEC(",'scheduler':{'policy':'SCHED_IDLE','priority':1}", "", ""),
          "process.scheduler: SCHED_IDLE nice 0 priority 1 refused (rule: priority is for "
          "SCHED_FIFO and SCHED_RR only)" },
        { SPEC(",'scheduler':{'policy':'SCHED_OTHER','period':1000}", "", ""),
          "process.scheduler: SCHED_OTHER nice 0 priority 0 refused (rule: runtime, deadline and "
          "period are for SCHED_DEADLINE only)" },
        { SPEC(",'scheduler':{'policy':'SCHED_ISO'}", "", ""),
          "process.scheduler: SCHED_ISO nice 0 priority 0 refused (rule: not supported by sbrun: "
          "SCHED_ISO is not in Linux)" },
        { SPEC(",'execCPUAffinity':{'initial':'0-1,'}", "", ""),
          "process.execCPUAffinity.initial: \"0-1,\" refused (rule: a CPU list is N or N-M items "
          "separated by commas, CPUs below 1024)" },
        { SPEC(",'execCPUAffinity':{'initial':'3','final':'1024'}", "", ""),
          "process.execCPUAffinity.final: \"1024\" refused (rule: a CPU list is N or N-M items "
          "separated by commas, CPUs below 1024)" },
        { SPEC(",'execCPUAffinity':{'final':'3-1'}", "", ""),
          "process.execCPUAffinity.final: \"3-1\" refused (rule: a CPU list is N or N-M items "
          "separated by commas, CPUs below 1024)" },
        { SPEC("",
               ",'mounts':[{'destination':'/m','type':'tmpfs','gidMappings':"
               "[{'containerID':0,'hostID':1000,'size':10}]}]",
               ""),
          "mounts[0].gidMappings: a tmpfs mount refused (rule: not supported by sbrun: only a "
          "bind mount can be idmapped)" },
        { SPEC("", "", ",'intelRdt':{'l3CacheSchema':'L3:0=f'}"),
          "linux.intelRdt: (set) refused (rule: not supported by sbrun: no resctrl (Intel RDT) "
          "group is made)" },
        { SPEC("", "", ",'memoryPolicy':{'mode':'MPOL_INTERLEAVE','nodes':'0-3'}"),
          "linux.memoryPolicy: MPOL_INTERLEAVE nodes \"0-3\" refused (rule: not supported by "
          "sbrun: the NUMA policy (set_mempolicy) is not set)" },
        /* linux.netDevices (spec/floor_net_devices.c): no policy allows ens3. */
        { SPEC("", "", ",'netDevices':{'ens3':{}}"),
          "linux.netDevices: \"ens3\" refused (rule: standard: only the network devices "
          "floor.net_devices names)" },
        { SPEC("", "", ",'netDevices':{'ens3':{'name':'a b'}}"),
          "linux.netDevices: \"ens3\" name \"a b\" refused (rule: not a valid network device "
          "name)" },
        { SPEC("", "", ",'netDevices':{'ens3':{'name':'eth%s'}}"),
          "linux.netDevices: \"ens3\" name \"eth%s\" refused (rule: not a valid network device "
          "name)" },
        { SPEC("", "", ",'netDevices':{'ens%d':{}}"),
          "linux.netDevices: \"ens%d\" refused (rule: not a valid network device name)" },
        { SPEC("", "", ",'netDevices':{'..':{}}"),
          "linux.netDevices: \"..\" refused (rule: not a valid network device name)" },
        { SPEC("", STRICT_ANNOTATION, ",'netDevices':{'ens3':{}}"),
          "linux.netDevices: \"ens3\" refused (rule: strict: no network, no host network "
          "device)" },
        { SPEC("", "", ",'timeOffsets':{'boottime':{'secs':-5,'nanosecs':7}}"),
          "linux.timeOffsets: boottime -5 7 refused (rule: not supported by sbrun: offsets need a "
          "time namespace, which bwrap cannot make)" },
        { SPEC("", "", ",'personality':{'domain':'LINUX32'}"),
          "linux.personality: LINUX32 refused (rule: 32-bit system calls are denied by the floor "
          "seccomp filter)" },
        { SPEC("", "", ",'personality':{'domain':'LINUX','flags':['ADDR_NO_RANDOMIZE']}"),
          "linux.personality: LINUX with flags refused (rule: not supported by sbrun: the "
          "runtime-spec defines no personality flag)" },
        { "{'ociVersion':'2.0.0','root':{'path':'rootfs'}}",
          "ociVersion: \"2.0.0\" refused (rule: newer than sbrun supports (1.3.0))" },
        { "{'ociVersion':'0.5.0','root':{'path':'rootfs'}}",
          "ociVersion: \"0.5.0\" refused (rule: older than sbrun supports (1.0.0))" },
        { "{'ociVersion':'latest','root':{'path':'rootfs'}}",
          "ociVersion: \"latest\" refused (rule: a runtime-spec version is MAJOR.MINOR.PATCH)" },
        /* Refusals of other concerns, the same agreement. */
        { SPEC("",
               ",'mounts':[{'destination':'/run','type':'tmpfs','source':'tmpfs',"
               "'options':['size=-1']}]",
               ""),
          NULL },
        { "{'ociVersion':'1.2.0','root':{'path':'rootfs'},'process':{'args':['sh'],'cwd':'/'},"
          "'linux':{'namespaces':[{'type':'network'},{'type':'ipc'},{'type':'uts'},"
          "{'type':'mount'},{'type':'cgroup'}]}}",
          "linux.namespaces: the host pid namespace refused (rule: standard: no host pid "
          "namespace)" },
};

static char *render(const struct floor_change *c)
{
        char *text = NULL;
        if (asprintf(&text, "%s: %s refused (rule: %s)", c->field, c->requested, c->rule) < 0)
                fail_msg("asprintf");
        return text;
}

/* Create's error, and explain's record of the same text among its refusals. */
static void expect_agreement(const struct refusal *r)
{
        struct floor_run run;
        char *create_error;
        bool found = false;

        assert_int_equal(floor_run(&run, r->config, NULL, NULL, NULL, FLOOR_CREATE), -1);
        create_error = strdup(run.error);
        if (r->error != NULL && strcmp(create_error, r->error) != 0)
                fail_msg("create: %s\n  expected: %s", create_error, r->error);
        floor_run_release(&run);

        assert_int_equal(floor_run(&run, r->config, NULL, NULL, NULL, FLOOR_EXPLAIN), 0);
        for (size_t i = 0; i < run.report.n && !found; i++) {
                const struct floor_change *c = &run.report.changes[i];
                if (c->action != FLOOR_REFUSED)
                        continue;
                char *text = render(c);
                found = strcmp(text, create_error) == 0;
                free(text);
        }
        if (!found)
                fail_msg("explain does not refuse what create refuses: %s", create_error);
        floor_run_release(&run);
        free(create_error);
}

static void test_explain_agrees_with_create(void **state)
{
        (void)state;
        for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++)
                expect_agreement(&refusals[i]);
}

/* The edges of each rule, allowed: nothing refused by either. */
static void test_allowed_resources(void **state)
{
        static const char *const allowed[] = {
                RES("'memory':{'limit':268435456,'swap':268435456}"),
                RES("'memory':{'limit':268435456,'swap':-1}"),
                RES("'memory':{'swap':0}"),
                RES("'cpu':{'idle':1},'blockIO':{'weight':10}"),
                RES("'cpu':{'shares':1024,'idle':0},'blockIO':{'weight':1000}"),
                RES("'blockIO':{'weight':0,'weightDevice':[{'major':4294967295,'minor':0}]}"),
                RES("'hugepageLimits':[{'pageSize':'2MB','limit':1},{'pageSize':'1GB','limit':1}]"),
                RES("'rdma':{'mlx5_1':{'hcaHandles':1}}"),
                RES("'unified':{'cgroup.max.depth':'3','cgroup.max.descendants':'9',"
                    "'memory.high':'1'}"),
                /* The process's scheduling within the floor's limits. */
                SPEC(",'ioPriority':{'class':'IOPRIO_CLASS_BE','priority':0}", "", ""),
                SPEC(",'ioPriority':{'class':'IOPRIO_CLASS_IDLE','priority':7}", "", ""),
                SPEC(",'scheduler':{'policy':'SCHED_OTHER','nice':0}", "", ""),
                SPEC(",'scheduler':{'policy':'SCHED_BATCH','nice':19,"
                     "'flags':['SCHED_FLAG_RESET_ON_FORK']}",
                     "", ""),
                SPEC(",'scheduler':{'policy':'SCHED_IDLE'}", "", ""),
                SPEC(",'execCPUAffinity':{'initial':'0-3,7','final':'1023'}", "", ""),
                SPEC(",'execCPUAffinity':{'initial':'','final':''}", "", ""),
                SPEC("", "", ",'personality':{'domain':'LINUX','flags':[]}"),
        };
        (void)state;

        for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++) {
                struct floor_run run;
                if (floor_run(&run, allowed[i], NULL, NULL, NULL, FLOOR_CREATE) < 0)
                        fail_msg("%s: %s", allowed[i], run.error);
                floor_run_release(&run);
                floor_run_ok(&run, allowed[i], NULL);
                for (size_t k = 0; k < run.report.n; k++)
                        assert_int_not_equal(run.report.changes[k].action, FLOOR_REFUSED);
                floor_run_release(&run);
        }
}

/* linux.netDevices: only what floor.net_devices names, under standard;
 * a "%d" template, no name and an empty one are all taken. */
static void test_net_devices_policy(void **state)
{
        static const char policy[] = "{'floor':{'net_devices':['ens3','ens4','ens5']}}";
        struct floor_run run;
        (void)state;

        if (floor_run(&run,
                      SPEC("", "",
                           ",'netDevices':{'ens3':{'name':'eth%d'},'ens4':{},'ens5':{'name':''}}"),
                      policy, NULL, NULL, FLOOR_CREATE) < 0)
                fail_msg("allowed devices: %s", run.error);
        floor_run_release(&run);
        assert_int_equal(floor_run(&run, SPEC("", "", ",'netDevices':{'ens6':{}}"), policy, NULL,
                                   NULL, FLOOR_CREATE),
                         -1);
        assert_string_equal(run.error, "linux.netDevices: \"ens6\" refused (rule: standard: only "
                                       "the network devices floor.net_devices names)");
        floor_run_release(&run);
        assert_int_equal(floor_run(&run,
                                   SPEC("", "", ",'netDevices':{'ens3':{},'ens4':{'name':'ens3'}}"),
                                   policy, NULL, NULL, FLOOR_CREATE),
                         -1);
        assert_string_equal(run.error,
                            "linux.netDevices: \"ens4\" name \"ens3\" refused (rule: two "
                            "devices of the same name in the container)");
        floor_run_release(&run);
        assert_int_equal(
                floor_run(&run,
                          SPEC("", "", ",'netDevices':{'ens3':{'name':'a'},'ens3':{'name':'b'}}"),
                          policy, NULL, NULL, FLOOR_CREATE),
                -1);
        assert_string_equal(run.error, "linux.netDevices: \"ens3\" refused (rule: the same device "
                                       "named twice)");
        floor_run_release(&run);
        assert_int_equal(floor_run(&run, SPEC("", STRICT_ANNOTATION, ",'netDevices':{'ens3':{}}"),
                                   policy, NULL, NULL, FLOOR_CREATE),
                         -1);
        assert_string_equal(run.error, "linux.netDevices: \"ens3\" refused (rule: strict: no "
                                       "network, no host network device)");
        floor_run_release(&run);
}

/* update's check: the same rules, its own prefix, the first refusal. */
static void test_update_prefix(void **state)
{
        struct oci_resources res = { 0 };
        struct oci_cpu cpu = { .has_idle = true, .idle = 3 };
        struct floor_report report = { 0 };
        struct sb_error err = { 0 };
        (void)state;

        res.cpu = &cpu;
        assert_int_equal(floor_resources_check(&res, "--resources", &report, &err), -1);
        assert_string_equal(err.msg, "--resources.cpu.idle: 3 refused (rule: cpu.idle is 0 or 1)");
        sb_error_clear(&err);
        floor_report_release(&report);
        cpu.idle = 1;
        assert_int_equal(floor_resources_check(&res, "--resources", &report, &err), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_explain_agrees_with_create),
                cmocka_unit_test(test_allowed_resources),
                cmocka_unit_test(test_update_prefix),
                cmocka_unit_test(test_net_devices_policy),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
