/* `update ID [--resources FILE|-] [--memory 64m] [--pids-limit N] …`:
 * change a live container's limits, with runc's flags. The JSON is a
 * linux.resources object, parsed by oci/; flags override it. Only what is
 * given is written. */
#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"
#include "common/size_parse.h"
#include "oci/config.h"
#include "oci/state.h"
#include "runtime/cgroup/cgroup_manager.h"
#include "runtime/cgroup/cgroup_resources.h"
#include "runtime/cli/cli.h"
#include "runtime/cli/cli_options.h"
#include "runtime/cli/commands.h"
#include "runtime/cgroup/container_cgroup.h"
#include "runtime/container/container_status.h"
#include "runtime/container/state_dir.h"
#include "runtime/host/floor_host.h"
#include "spec/effective.h"
#include "spec/floor.h"
#include "spec/floor_resources.h"
#include "spec/operator_policy.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

enum {
        OPT_MEMORY = 256,
        OPT_MEMORY_RESERVATION,
        OPT_MEMORY_SWAP,
        OPT_KERNEL_MEMORY,
        OPT_KERNEL_MEMORY_TCP,
        OPT_CPU_SHARES,
        OPT_CPU_QUOTA,
        OPT_CPU_PERIOD,
        OPT_CPU_BURST,
        OPT_CPU_IDLE,
        OPT_CPU_RT_PERIOD,
        OPT_CPU_RT_RUNTIME,
        OPT_CPUSET_CPUS,
        OPT_CPUSET_MEMS,
        OPT_PIDS_LIMIT,
        OPT_BLKIO_WEIGHT,
        OPT_L3_CACHE,
        OPT_MEM_BW,
};

/* runc's update flags besides --resources, with the value apply_flag
 * takes, its placeholder and its line of --help. */
static const struct {
        const char *name;
        int id;
        const char *arg, *help;
} update_flags[] = {
        { "memory", OPT_MEMORY, "SIZE",
          "memory limit (memory.max): 512, 64k, 64m, 1g, 1t, or -1 for none; clamped to the "
          "profile's ceiling" },
        { "memory-reservation", OPT_MEMORY_RESERVATION, "SIZE", "memory soft limit (memory.low)" },
        { "memory-swap", OPT_MEMORY_SWAP, "SIZE",
          "memory plus swap limit (memory.swap.max gets SIZE less the memory limit), at least "
          "the memory limit" },
        { "kernel-memory", OPT_KERNEL_MEMORY, "SIZE",
          "accepted, ignored with a warning: kernel memory limits exist only in cgroup v1" },
        { "kernel-memory-tcp", OPT_KERNEL_MEMORY_TCP, "SIZE",
          "accepted, ignored with a warning: kernel TCP limits exist only in cgroup v1" },
        { "cpu-share", OPT_CPU_SHARES, "N", "the same as --cpu-shares (runc's spelling too)" },
        { "cpu-shares", OPT_CPU_SHARES, "N", "CPU shares, written as cpu.weight (1024 is 100)" },
        { "cpu-quota", OPT_CPU_QUOTA, "N",
          "CPU time in microseconds per period (cpu.max), -1 for none; clamped to the "
          "profile's ceiling" },
        { "cpu-period", OPT_CPU_PERIOD, "N", "the CPU period in microseconds (cpu.max)" },
        { "cpu-burst", OPT_CPU_BURST, "N", "CPU burst in microseconds (cpu.max.burst)" },
        { "cpu-idle", OPT_CPU_IDLE, "0|1", "1 makes the cgroup idle (cpu.idle)" },
        { "cpu-rt-period", OPT_CPU_RT_PERIOD, "N",
          "accepted, ignored with a warning: cgroup v2 has no realtime group scheduling" },
        { "cpu-rt-runtime", OPT_CPU_RT_RUNTIME, "N",
          "accepted, ignored with a warning: cgroup v2 has no realtime group scheduling" },
        { "cpuset-cpus", OPT_CPUSET_CPUS, "LIST", "the CPUs allowed (cpuset.cpus): 0-3,6" },
        { "cpuset-mems", OPT_CPUSET_MEMS, "LIST", "the memory nodes allowed (cpuset.mems)" },
        { "pids-limit", OPT_PIDS_LIMIT, "N",
          "the most processes (pids.max), -1 for none; clamped to the profile's ceiling" },
        { "blkio-weight", OPT_BLKIO_WEIGHT, "N", "block I/O weight, 10 to 1000 (io.weight)" },
        { "l3-cache-schema", OPT_L3_CACHE, "SCHEMA", "refused: sbrun does not support Intel RDT" },
        { "mem-bw-schema", OPT_MEM_BW, "SCHEMA", "refused: sbrun does not support Intel RDT" },
};
#define N_UPDATE_FLAGS (sizeof(update_flags) / sizeof(update_flags[0]))

static const char *option_name(int opt)
{
        for (size_t i = 0; i < N_UPDATE_FLAGS; i++) {
                if (update_flags[i].id == opt)
                        return update_flags[i].name;
        }
        return "?";
}

/* The flags in command-line order, applied once --resources is loaded. */
struct pending_flags {
        struct {
                int opt;
                const char *value;
        } * list;
        size_t n;
};

static int defer_flag(const struct cli_option *opt, const char *value, struct sb_error *err)
{
        struct pending_flags *p = opt->to.data;

        /* list has room for argc entries: each flag takes at least one. */
        p->list[p->n].opt = opt->id;
        p->list[p->n].value = value;
        p->n++;
        return 0;
}

/* Docker-style sizes as runc takes them: 512, 64k, 64m, 1g, 1t (binary
 * units, optional "b"), or -1 for unlimited. */
static int parse_size(int opt, const char *s, int64_t *out, struct sb_error *err)
{
        int r = size_parse(s, SIZE_ZERO | SIZE_UNLIMITED | SIZE_TERA | SIZE_BYTE_SUFFIX, out);

        if (r == -ERANGE)
                return sb_fail(err, 0, "--%s: \"%s\" is too large a size", option_name(opt), s);
        if (r < 0)
                return sb_fail(err, 0, "--%s: \"%s\" is not a size (like 512m, or -1)",
                               option_name(opt), s);
        return 0;
}

static int parse_i64(int opt, const char *s, int64_t *out, struct sb_error *err)
{
        char *end = NULL;

        errno = 0;
        *out = strtoll(s, &end, 10);
        if (errno != 0 || end == s || *end != '\0')
                return sb_fail(err, 0, "--%s: \"%s\" is not a number", option_name(opt), s);
        return 0;
}

static int parse_u64(int opt, const char *s, uint64_t *out, struct sb_error *err)
{
        int64_t v;

        if (parse_i64(opt, s, &v, err) < 0)
                return -1;
        if (v < 0)
                return sb_fail(err, 0, "--%s: %s must not be negative", option_name(opt), s);
        *out = (uint64_t)v;
        return 0;
}

static struct oci_resources *load_resources(const char *file, struct sb_error *err)
{
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        const char *origin = strcmp(file, "-") == 0 ? "--resources -" : file;

        if (strcmp(file, "-") == 0) {
                if (sb_read_fd(STDIN_FILENO, 1024 * 1024, &text, &len, err) < 0)
                        return sb_error_prefix(err, "--resources: stdin"), NULL;
        } else if (sb_read_file(file, 1024 * 1024, &text, &len, err) < 0) {
                return sb_error_prefix(err, "--resources"), NULL;
        }
        return oci_resources_parse(text, len, origin, err);
}

static int ensure_parts(struct oci_resources *r, struct sb_error *err)
{
        if (r->memory == NULL)
                r->memory = calloc(1, sizeof(*r->memory));
        if (r->cpu == NULL)
                r->cpu = calloc(1, sizeof(*r->cpu));
        if (r->block_io == NULL)
                r->block_io = calloc(1, sizeof(*r->block_io));
        if (r->memory == NULL || r->cpu == NULL || r->block_io == NULL)
                return sb_fail(err, ENOMEM, "update");
        return 0;
}

static int replace_string(char **slot, const char *value, struct sb_error *err)
{
        free(*slot);
        *slot = strdup(value);
        return *slot ? 0 : sb_fail(err, ENOMEM, "update");
}

/* One flag into the resources; flags win over --resources, as in runc. */
static int apply_flag(struct oci_resources *r, int opt, const char *arg, struct sb_error *err)
{
        struct oci_memory *m = r->memory;
        struct oci_cpu *c = r->cpu;
        uint64_t w = 0;

        switch (opt) {
        case OPT_MEMORY:
                m->has_limit = true;
                return parse_size(opt, arg, &m->limit, err);
        case OPT_MEMORY_RESERVATION:
                m->has_reservation = true;
                return parse_size(opt, arg, &m->reservation, err);
        case OPT_MEMORY_SWAP:
                m->has_swap = true;
                return parse_size(opt, arg, &m->swap, err);
        case OPT_KERNEL_MEMORY:
                m->has_kernel = true;
                return parse_size(opt, arg, &m->kernel, err);
        case OPT_KERNEL_MEMORY_TCP:
                m->has_kernel_tcp = true;
                return parse_size(opt, arg, &m->kernel_tcp, err);
        case OPT_CPU_SHARES:
                c->has_shares = true;
                return parse_u64(opt, arg, &c->shares, err);
        case OPT_CPU_QUOTA:
                c->has_quota = true;
                return parse_i64(opt, arg, &c->quota, err);
        case OPT_CPU_PERIOD:
                c->has_period = true;
                return parse_u64(opt, arg, &c->period, err);
        case OPT_CPU_BURST:
                c->has_burst = true;
                return parse_u64(opt, arg, &c->burst, err);
        case OPT_CPU_IDLE:
                c->has_idle = true;
                return parse_i64(opt, arg, &c->idle, err);
        case OPT_CPU_RT_PERIOD:
                c->has_realtime_period = true;
                return parse_u64(opt, arg, &c->realtime_period, err);
        case OPT_CPU_RT_RUNTIME:
                c->has_realtime_runtime = true;
                return parse_i64(opt, arg, &c->realtime_runtime, err);
        case OPT_CPUSET_CPUS:
                return replace_string(&c->cpus, arg, err);
        case OPT_CPUSET_MEMS:
                return replace_string(&c->mems, arg, err);
        case OPT_PIDS_LIMIT:
                r->has_pids_limit = true;
                if (parse_i64(opt, arg, &r->pids_limit, err) < 0)
                        return -1;
                if (r->pids_limit < -1)
                        return sb_fail(err, 0, "--pids-limit: %s is not a valid limit", arg);
                return 0;
        case OPT_BLKIO_WEIGHT:
                if (parse_u64(opt, arg, &w, err) < 0)
                        return -1;
                if (w > UINT16_MAX)
                        return sb_fail(err, 0, "--blkio-weight: %s is out of range (10-1000)", arg);
                r->block_io->has_weight = true;
                r->block_io->weight = (uint16_t)w;
                return 0;
        case OPT_L3_CACHE:
        case OPT_MEM_BW:
                return sb_fail(err, 0, "--%s: Intel RDT is not supported by sbrun",
                               option_name(opt));
        default:
                return sb_fail(err, 0, "update: unknown option");
        }
}

/* memory+swap is converted against the memory limit: when only the swap
 * is given, the limit in force is the one to use. */
static int fill_current_memory(struct cgroup *cg, struct oci_memory *m, struct sb_error *err)
{
        _cleanup_free_ char *max = NULL;

        if (!m->has_swap || m->has_limit)
                return 0;
        if (cgroup_read(cg, "memory.max", &max, err) < 0)
                return -1;
        m->has_limit = true;
        m->limit = strcmp(max, "max") == 0 ? -1 : strtoll(max, NULL, 10);
        return 0;
}

static int update_container(const struct global_options *global, const char *id,
                            struct oci_resources *res, struct sb_error *err)
{
        _cleanup_state_dir_ struct state_dir sd = STATE_DIR_INIT;
        _cleanup_cgroup_ struct cgroup cg = CGROUP_INIT;
        struct cgroup_settings settings = { 0 };
        struct floor_report refusals = { 0 };
        struct floor_host_facts facts = { 0 };
        struct operator_policy policy = { 0 };
        struct oci_config *config = NULL;
        struct oci_state *state = NULL;
        int ret = -1;

        state = state_dir_open_state(global->root, id, &sd, err);
        if (state == NULL)
                return -1;
        if (strcmp(container_status(state), "stopped") == 0) {
                sb_fail(err, 0, "update: container %s is stopped", id);
                goto out;
        }
        if (container_cgroup_open(state, "update", &cg, err) < 0 ||
            fill_current_memory(&cg, res->memory, err) < 0)
                goto out;
        /* The ceilings of the profile the container was created under. */
        config = state_dir_load_config(&sd, err);
        if (config == NULL || state_dir_load_policy(&sd, global, &policy, err) < 0 ||
            floor_host_gather(config, NULL, -1, NULL, &facts, err) < 0 ||
            effective_resources_apply(config, res, &policy, &facts.host, err) < 0)
                goto out;
        /* What create would refuse, update refuses: after the current
         * memory limit is filled in, which the swap rule compares with. */
        if (floor_resources_check(res, "--resources", &refusals, err) < 0 ||
            cgroup_resources_convert(res, "--resources", &settings, err) < 0)
                goto out;
        if (container_cgroup_update(state, &cg, &settings, err) < 0) {
                sb_error_prefix(err, "update: container %s", id);
                goto out;
        }
        ret = 0;
out:
        cgroup_settings_release(&settings);
        floor_report_release(&refusals);
        floor_host_release(&facts);
        operator_policy_release(&policy);
        oci_config_free(config);
        oci_state_free(state);
        return ret;
}

int cmd_update(const struct global_options *global, int argc, char **argv, struct sb_error *err)
{
        struct oci_resources *res = NULL;
        const char *file = NULL;
        const char *id = NULL;
        struct pending_flags pending = { .list = calloc((size_t)argc, sizeof(*pending.list)) };
        _cleanup_free_ void *pending_list = pending.list;
        struct cli_option options[N_UPDATE_FLAGS + 2] = {
                { "resources", 'r', CLI_STRING, .to.string = &file, .arg = "FILE|-",
                  .help = "a linux.resources JSON object from FILE, or - for stdin; the flags "
                          "below win over it" },
        };
        int next, ret = 1;

        if (pending.list == NULL)
                return sb_fail(err, ENOMEM, "update"), 1;
        for (size_t i = 0; i < N_UPDATE_FLAGS; i++) {
                struct cli_option *o = &options[i + 1];
                o->name = update_flags[i].name;
                o->kind = CLI_CALL_ARG;
                o->to.data = &pending;
                o->call = defer_flag;
                o->id = update_flags[i].id;
                o->arg = update_flags[i].arg;
                o->help = update_flags[i].help;
        }
        const struct cli_command cmd = {
                .name = "update",
                .usage = "usage: sbrun update [options] ID\n\n"
                         "Change a running container's cgroup limits, with runc's flags. The "
                         "pids,\nmemory, cpu and blockIO limits are clamped to the ceilings of "
                         "the profile\nthe container was created under, as at create.\n",
                .options = options,
        };
        int r = cli_parse(&cmd, argc, argv, &next, err);

        if (r != 0)
                return r < 0 ? 1 : 0;
        if (cli_require_id("update", argc, argv, next, &id, err) < 0)
                return 1;
        res = file ? load_resources(file, err) : calloc(1, sizeof(*res));
        if (res == NULL) {
                if (file == NULL)
                        sb_fail(err, ENOMEM, "update");
                return 1;
        }
        if (ensure_parts(res, err) < 0)
                goto out;
        /* Flags win over --resources, whatever their order, as in runc. */
        for (size_t i = 0; i < pending.n; i++) {
                if (apply_flag(res, pending.list[i].opt, pending.list[i].value, err) < 0)
                        goto out;
        }
        if (update_container(global, id, res, err) < 0)
                goto out;
        ret = 0;
out:
        oci_resources_free(res);
        return ret;
}
