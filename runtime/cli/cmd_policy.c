/* `sbrun policy show`: the active floor (profile, ceilings, the operator
 * file it came from, what a writable volume must be). `sbrun policy
 * explain [--bundle DIR] [--format text|json]`: the bundle's config.json
 * merged with the floor, each change with its requested and effective
 * value and its rule, refusals included. Nothing is created: the config,
 * the rootfs and the host are only read. */
#include "common/cleanup.h"
#include "common/error.h"
#include "oci/config.h"
#include "runtime/audit/audit_log.h"
#include "runtime/host/rootless.h"
#include "runtime/cgroup/cgroup_root.h"
#include "oci/json_write.h"
#include "runtime/sandbox/bind_sources.h"
#include "runtime/sandbox/bwrap_args.h"
#include "runtime/host/floor_host.h"
#include "runtime/host/host_probe.h"
#include "runtime/host/landlock_host.h"
#include "runtime/host/lsm_host.h"
#include "runtime/host/net_devices.h"
#include "runtime/cgroup/container_cgroup.h"
#include "runtime/cgroup/device_filter.h"
#include "runtime/sandbox/mount_translate.h"
#include "runtime/sandbox/namespaces.h"
#include "runtime/sandbox/rootfs_path.h"
#include "runtime/seccomp/seccomp_setup.h"
#include "runtime/cli/cli_options.h"
#include "runtime/cli/commands.h"
#include "spec/effective.h"
#include "spec/floor_decide.h"
#include "spec/floor_runtime.h"
#include "spec/operator_policy.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct policy_opts {
        const char *sub; /* "show" or "explain" */
        const char *bundle;
        bool json;
};

#define USAGE                                                                     \
        "usage: sbrun policy show\n"                                              \
        "       sbrun policy explain [options]\n\n"                               \
        "show prints the active policy floor; explain prints how it changes a\n"  \
        "bundle's config.json. `sbrun help policy show` and `sbrun help policy\n" \
        "explain` describe each.\n"
#define USAGE_SHOW                                                                 \
        "usage: sbrun policy show\n\n"                                             \
        "Print the active policy floor: the profile, its ceilings, the operator\n" \
        "policy file it came from, and what this host makes of it.\n"
#define USAGE_EXPLAIN                                                              \
        "usage: sbrun policy explain [options]\n\n"                                \
        "Print how the floor changes the bundle's config.json: each field's\n"     \
        "requested and effective value and the rule, refusals included. Creates\n" \
        "nothing.\n"

static int parse_format(const struct cli_option *opt, const char *value, struct sb_error *err)
{
        struct policy_opts *o = opt->to.data;

        if (strcmp(value, "json") != 0 && strcmp(value, "text") != 0)
                return sb_fail(err, 0, "policy %s: --format: \"%s\" is not text or json", o->sub,
                               value);
        o->json = strcmp(value, "json") == 0;
        return 0;
}

/* 1 after --help, 0 to go on, -1 on a bad command line. */
static int parse_opts(const char *sub, int argc, char **argv, struct policy_opts *o,
                      struct sb_error *err)
{
        const struct cli_option options[] = {
                { "bundle", 'b', CLI_STRING, .to.string = &o->bundle, .arg = "DIR",
                  .help = "the bundle whose config.json to explain (default: the current "
                          "directory)" },
                { "format", 'f', CLI_CALL_ARG, .to.data = o, .call = parse_format,
                  .arg = "text|json", .help = "a text report (the default), or JSON" },
                { NULL },
        };
        bool explain = strcmp(sub, "explain") == 0;
        char name[64];
        int next;

        snprintf(name, sizeof(name), "policy %s", sub);
        o->bundle = ".";
        o->sub = sub;
        /* show has no options: only explain reads a bundle. */
        const struct cli_command cmd = { .name = name,
                                         .usage = explain ? USAGE_EXPLAIN : USAGE_SHOW,
                                         .options = explain ? options : NULL };
        int r = cli_parse(&cmd, argc, argv, &next, err);
        if (r != 0)
                return r;
        if (next < argc)
                return sb_fail(err, 0, "policy %s: unexpected argument \"%s\"", sub, argv[next]);
        return 0;
}

/* The enforcement setting, and what it means on this host (as `check`
 * says it). */
static void print_cgroups(const struct operator_policy *policy)
{
        struct sb_error e = { 0 };
        _cleanup_free_ char *detail = NULL;
        enum host_status status;

        printf("cgroups.enforce: %s\n", policy->cgroups_enforce ? "true" : "false");
        if (host_probe_cgroups(policy, &status, &detail, &e) < 0) {
                detail = sb_error_text(&e);
                sb_error_clear(&e);
                status = HOST_FAIL;
        }
        printf("  this host: %s%s\n", status == HOST_FAIL ? "containers are refused: " : "",
               detail ? detail : "(out of memory)");
}

/* A check create makes as it carries the config out failed: create's
 * error, recorded as explain's refusal of the field it names. */
/* What the default profile gets, and what the kernel offers. */
static void print_landlock(const struct operator_policy *policy,
                           const struct floor_profile *profile)
{
        struct landlock_host host;
        enum landlock_mode mode = floor_landlock_mode(policy, profile);

        landlock_host_probe(&host);
        printf("landlock: %s (landlock.mode %s), exec from writable paths %s; kernel: ",
               landlock_mode_name(mode), landlock_mode_name(policy->landlock_mode),
               policy->landlock_exec_writable ? "allowed" : "denied");
        if (host.abi > 0)
                printf("ABI %d\n", host.abi);
        else
                printf("none (%s)\n", host.absent);
}

/* Where the trail goes for this caller, and what a failed line means. */
static void print_audit(const struct operator_policy *policy, const struct global_options *global)
{
        const struct audit_settings *a = &policy->audit;
        struct audit_target t = AUDIT_TARGET_INIT;
        struct sb_error e = { 0 };

        if (a->sink == AUDIT_OFF) {
                printf("audit: off (audit.log \"off\")\n");
                return;
        }
        if (audit_target_resolve(a, global, &t, &e) < 0) {
                _cleanup_free_ char *text = sb_error_text(&e);
                printf("audit: no trail: %s\n", text ? text : "out of memory");
                sb_error_clear(&e);
                return;
        }
        if (t.sink == AUDIT_JOURNALD)
                printf("audit: journald (SYSLOG_IDENTIFIER=" AUDIT_JOURNAL_IDENTIFIER ")");
        else
                printf("audit: %s (fsync %s, rotated past %" PRId64 " bytes, %d kept)", t.path,
                       t.fsync ? "on" : "off", t.max_size, t.keep);
        printf("; a line not written fails a strict create or exec, warns otherwise\n");
        audit_target_release(&t);
}

static int explain_audit(const struct operator_policy *policy, const struct global_options *global,
                         enum policy_profile profile, struct floor_report *report,
                         struct sb_error *err)
{
        struct audit_target t = AUDIT_TARGET_INIT;
        int ret = audit_target_resolve(&policy->audit, global, &t, err);

        if (ret == 0)
                ret = audit_explain(report, profile,
                                    t.sink == AUDIT_FILE     ? t.path :
                                    t.sink == AUDIT_JOURNALD ? "journald" :
                                                               "off",
                                    err);
        audit_target_release(&t);
        return ret;
}

static int record_carry_out(struct floor_report *report, struct sb_error *check,
                            struct sb_error *err)
{
        _cleanup_free_ char *text = sb_error_text(check);
        const char *sep = text ? strstr(text, ": ") : NULL;
        _cleanup_free_ char *field = sep ? strndup(text, (size_t)(sep - text)) : NULL;

        sb_error_clear(check);
        if (text == NULL)
                return sb_fail(err, ENOMEM, "policy explain");
        return floor_refuse(report, err, field ? field : "config.json", sep ? sep + 2 : text,
                            "create cannot carry it out");
}

/* The rootfs and bwrap steps of create, made dry: root.path opened, every
 * mount translated and its destination resolved in the rootfs (or in an
 * earlier bind's source), process.cwd resolved, with nothing created
 * (ROOTFS_WOULD_CREATE). Without the namespaces create would have, only
 * what the config alone says of each mount is checked. */
static int explain_bwrap(const struct oci_config *config, const char *bundle,
                         struct bind_sources *binds, const struct ns_setup *ns,
                         struct floor_report *report, struct sb_error *err)
{
        struct sb_error check = { 0 };
        _cleanup_free_ char *rootfs = NULL;
        _cleanup_free_ char *cwd = NULL;
        _cleanup_close_ int rootfs_fd = -1;
        struct strv args = { 0 };
        struct init_mount_list init = { 0 };
        struct mount_table mounts = { 0 };
        int r;

        if (ns == NULL || config->process == NULL ||
            rootfs_open_root(config->root.path, bundle, &rootfs, &rootfs_fd, &check) < 0) {
                if (check.msg != NULL && record_carry_out(report, &check, err) < 0)
                        return -1;
                if (mounts_check(config, &check) < 0 && record_carry_out(report, &check, err) < 0)
                        return -1;
                return 0;
        }
        const struct bwrap_inputs in = { .config = config,
                                         .bundle = bundle,
                                         .rootfs = rootfs,
                                         .rootfs_fd = rootfs_fd,
                                         .ns = ns,
                                         .binds = binds,
                                         .dry_run = true,
                                         .caller_in_userns = rootless_in_user_namespace() };
        r = bwrap_args_build(&in, &args, &init, &mounts, &cwd, &check);
        strv_release(&args);
        init_mount_list_release(&init);
        mount_table_release(&mounts);
        if (r < 0 && record_carry_out(report, &check, err) < 0)
                return -1;
        return 0;
}

/* What create checks of the config once the floor has decided, before it
 * makes anything: the namespace files to join and the identity sysctls
 * need, the rootfs and each mount (explain_bwrap), the spec's seccomp
 * profile (compiled, not cached), the device rules, the cgroup path. Each
 * failure is a refusal; the checks go on. */
static int explain_carry_out(const struct oci_config *config, const char *bundle,
                             struct bind_sources *binds, bool rootless, struct floor_report *report,
                             struct sb_error *err)
{
        struct sb_error check = { 0 };
        struct ns_setup ns;
        struct device_filter devices = { 0 };

        /* The files are opened as create opens them, and closed again. */
        int r = ns_setup_prepare(config, &ns, &check);
        if (r == 0)
                r = ns_check_identity(config, &ns, &check);
        if (r < 0 && record_carry_out(report, &check, err) < 0) {
                ns_setup_release(&ns);
                return -1;
        }
        r = explain_bwrap(config, bundle, binds, r == 0 ? &ns : NULL, report, err);
        ns_setup_release(&ns);
        if (r < 0)
                return -1;
        if (seccomp_setup_check(config, &check) < 0 && record_carry_out(report, &check, err) < 0)
                return -1;
        r = device_filter_build(config->linux_, &devices, &check);
        device_filter_release(&devices);
        if (r < 0 && record_carry_out(report, &check, err) < 0)
                return -1;
        if (container_cgroup_check_path(config, "explained", &check) < 0 &&
            record_carry_out(report, &check, err) < 0)
                return -1;
        /* In the namespace explain runs in, as create's check in its own. */
        if (net_devices_check(config->linux_, rootless, &check) < 0 &&
            record_carry_out(report, &check, err) < 0)
                return -1;
        return 0;
}

/* The decisions create makes beyond the floor merge: the wall-clock limit,
 * on a host that cannot enforce limits whether the container may run
 * without, the LSM labels this host can carry out, and the checks of
 * carrying the config out. */
/* What create decides past the floor that needs this host's cgroups, then
 * what it checks as it carries the config out. */
static int explain_runtime(const struct operator_policy *policy, struct oci_config *config,
                           const char *bundle, struct bind_sources *binds, bool rootless,
                           struct floor_report *report, struct sb_error *err)
{
        struct cgroup_root root = CGROUP_ROOT_INIT;
        _cleanup_free_ char *unusable = NULL;
        bool unenforced;

        _cleanup_free_ char *no_io = NULL;
        bool drop_io;

        if (cgroup_root_probe(&root, &unusable, err) < 0)
                return -1;
        if (unusable == NULL && cgroup_root_missing(&root, NULL, "io", &no_io, err) < 0) {
                cgroup_root_release(&root);
                return -1;
        }
        cgroup_root_release(&root);
        if (floor_cgroups_decide(policy, config, "(explained)", unusable, &unenforced, report,
                                 err) < 0)
                return -1;
        if (!unenforced && floor_io_controller(policy, config, no_io, &drop_io, report, err) < 0)
                return -1;
        return explain_carry_out(config, bundle, binds, rootless, report, err);
}

/* The output limits a foreground `run` of this config would carry out
 * (before its own options lower them): listed as forced, as create's audit
 * line lists them as stdout_limit and stderr_limit. */
static int explain_output(const struct operator_policy *policy,
                          const struct floor_decision *decision, struct floor_report *report,
                          struct sb_error *err)
{
        const char *source = policy->source ? policy->source : "the built-in policy";
        const int64_t limit[2] = { decision->output.out, decision->output.err };
        const char *what[2] = { "run: stdout forwarded", "run: stderr forwarded" };
        char eff[48], rule[PATH_MAX + 128];

        for (int s = 0; s < 2; s++) {
                if (limit[s] == 0)
                        continue;
                snprintf(eff, sizeof(eff), "at most %" PRId64 " bytes", limit[s]);
                snprintf(
                        rule, sizeof(rule),
                        "limits.output in %s (or the profile's default) and " OUTPUT_LIMIT_ANNOTATION
                        "; past it the container is killed (verdict output_limit)",
                        source);
                if (floor_record(report, err, FLOOR_FORCED, what[s], "unlimited", eff, rule) < 0)
                        return -1;
        }
        return 0;
}

static int show(const struct global_options *global, struct sb_error *err)
{
        struct operator_policy policy;
        struct oci_config empty = { 0 };
        struct floor_context ctx;
        struct floor_report report = { 0 };

        if (operator_policy_load(global->policy_path, global->host_root, &policy, err) < 0)
                return -1;
        if (floor_select(&policy, &empty, global->root, &ctx, &report, err) < 0) {
                operator_policy_release(&policy);
                return -1;
        }
        const struct floor_ceilings *c = &ctx.ceilings;
        printf("profile: %s\n", ctx.profile->name);
        printf("policy: %s\n", policy.source ? policy.source : "(built-in default)");
        printf("ceilings:\n");
        printf("  pids: %" PRId64 "\n", c->pids);
        printf("  memory: %" PRId64 "%s\n", c->memory, c->memory ? "" : " (host memory)");
        if (c->cpu_quota)
                printf("  cpu: %" PRId64 "/%" PRIu64 "\n", c->cpu_quota, c->cpu_period);
        else
                printf("  cpu: none\n");
        printf("  fsize: %" PRIu64 "\n  nofile: %" PRIu64 "\n  tmp: %" PRIu64 "\n", c->fsize,
               c->nofile, c->tmp_size);
        printf("  inodes: %" PRIu64 "\n", c->inodes);
        char io[160];
        floor_io_ceiling_text(&c->io, io, sizeof(io));
        printf("  io: %s\n", io);
        printf("devices:");
        for (size_t i = 0; i < policy.n_devices; i++)
                printf(" %s", policy.devices[i]);
        printf("%s\n", policy.n_devices ? "" : " (standard nodes only)");
        printf("net devices:");
        if (ctx.profile->no_network)
                printf(" none (%s: no network)\n", ctx.profile->name);
        else {
                for (size_t i = 0; i < policy.n_net_devices; i++)
                        printf(" %s", policy.net_devices[i]);
                printf("%s\n", policy.n_net_devices ? "" : " none");
        }
        if (policy.timeout_max_seconds > 0)
                printf("wall-clock: %d s (run.sbrun.timeout and run --timeout may only lower it)\n",
                       policy.timeout_max_seconds);
        else
                printf("wall-clock: none\n");
        int64_t output = floor_output_ceiling(&policy, ctx.profile->id);
        if (output > 0)
                printf("output: %" PRId64 " bytes of each of stdout and stderr forwarded by a "
                       "foreground run (limits.output%s; run.sbrun.output_limit and run "
                       "--output-limit may only lower it)\n",
                       output, policy.output_limit > 0 ? "" : ": the profile's default");
        else
                printf("output: none\n");
        print_cgroups(&policy);
        print_landlock(&policy, ctx.profile);
        printf("volumes: project quota on writable directory binds %s%s\n",
               floor_volume_rule_text(ctx.volumes),
               floor_locks_file_attrs(&policy, ctx.profile) ?
                       "; a file's project id and flags cannot be changed (ioctl "
                       "FS_IOC_SETFLAGS, FS_IOC_FSSETXATTR: EPERM)" :
                       "");
        if (floor_io_ceiling_set(&c->io))
                printf("io ceiling: io.max on every disk behind the root and the binds, "
                       "io.weight at most %" PRIu64 "; where it cannot hold (no disk, no io "
                       "controller): %s\n",
                       c->io.weight ? c->io.weight : UINT64_C(10000),
                       floor_io_rule_text(ctx.io_rule));
        printf("idmapped mounts: %s\n",
               ctx.idmap_engine_ids ?
                       "any disk ids the engine asks (floor.volumes.idmap \"engine\")" :
                       "write to the disk only ids the container's user namespace maps");
        print_audit(&policy, global);
        floor_report_release(&report);
        operator_policy_release(&policy);
        return 0;
}

static int explain_json(const char *profile, const char *source, const struct floor_report *r,
                        struct sb_error *err)
{
        _cleanup_jw_ struct json_writer *w = jw_new(NULL, err);
        size_t refused = 0;

        if (w == NULL)
                return -1;
        jw_object_begin(w);
        jw_kv_string(w, "profile", profile);
        jw_kv_string(w, "policy", source);
        jw_kv_array_begin(w, "changes");
        for (size_t i = 0; i < r->n; i++) {
                const struct floor_change *c = &r->changes[i];
                refused += c->action == FLOOR_REFUSED;
                jw_object_begin(w);
                jw_kv_string(w, "field", c->field);
                jw_kv_string(w, "action", floor_action_name(c->action));
                jw_kv_string(w, "requested", c->requested);
                jw_kv_string(w, "effective", c->effective);
                jw_kv_string(w, "rule", c->rule);
                jw_object_end(w);
        }
        jw_array_end(w);
        jw_kv_bool(w, "allowed", refused == 0);
        jw_object_end(w);
        return jw_print(w, stdout, err);
}

static void explain_text(const char *profile, const char *source, const struct floor_report *r)
{
        printf("profile: %s (policy: %s)\n", profile, source ? source : "built-in default");
        for (size_t i = 0; i < r->n; i++) {
                const struct floor_change *c = &r->changes[i];
                printf("%-8s %s: requested %s, effective %s (rule: %s)\n",
                       floor_action_name(c->action), c->field, c->requested, c->effective, c->rule);
        }
        if (r->n == 0)
                printf("no change: the requested config is within the floor\n");
}

static int explain(const struct global_options *global, const struct policy_opts *o,
                   struct sb_error *err)
{
        char bundle[PATH_MAX];
        struct floor_report report = { 0 };
        struct operator_policy policy;
        enum policy_profile profile = POLICY_STANDARD;

        if (realpath(o->bundle, bundle) == NULL)
                return sb_fail(err, errno, "--bundle: \"%s\"", o->bundle);
        struct oci_config *config = oci_config_load_bundle(bundle, err);
        if (config == NULL)
                return -1;
        if (operator_policy_load(global->policy_path, global->host_root, &policy, err) < 0) {
                oci_config_free(config);
                return -1;
        }
        /* The sources as create would open and check them. */
        struct bind_sources binds = BIND_SOURCES_INIT;
        struct floor_host_facts facts = { 0 };
        _cleanup_free_ char *audit_dir = audit_settings_dir(&policy.audit, global);
        _cleanup_free_ char *rootfs = NULL;
        _cleanup_close_ int rootfs_fd = -1;
        struct floor_tree_paths trees;
        struct sb_error root_err = { 0 };
        int ret = bind_sources_open(config, bundle, &binds, err);

        /* The root as create opens it, so that its judgement is create's;
         * one that cannot be opened is reported by explain_bwrap. */
        if (config->root.path != NULL &&
            rootfs_open_root(config->root.path, bundle, &rootfs, &rootfs_fd, &root_err) < 0)
                sb_error_clear(&root_err);
        floor_host_tree_paths(global, audit_dir, &trees);
        if (ret == 0)
                ret = floor_host_gather(config, &binds, rootfs_fd, &trees, &facts, err);
        struct effective_options opts = { .policy = &policy,
                                          .state_root = global->root,
                                          .audit_dir = audit_dir,
                                          .host = &facts.host,
                                          .bind_paths = binds.paths,
                                          .bind_stats = binds.stats,
                                          .n_bind_paths = binds.n,
                                          .explain = true };
        struct lsm_host_facts lsm = { 0 };
        struct landlock_host landlock;
        struct stat root_st;
        bool have_root = rootfs_fd >= 0 && fstat(rootfs_fd, &root_st) == 0;
        /* Landlock on the sources create would hold: the binds, and the
         * root where root.path resolves (explain_carry_out says when not). */
        const struct landlock_sources sources = {
                .paths = binds.paths,
                .stats = binds.stats,
                .n = binds.n,
                .root_path = have_root ? rootfs : NULL,
                .root_stat = have_root ? &root_st : NULL,
                .ids = facts.host.binds,
                .root_id = facts.host.root,
        };
        const struct floor_decide_inputs in = {
                .effective = &opts, .lsm = &lsm, .landlock = &landlock, .sources = &sources
        };
        struct floor_decision decision;

        /* The one decision create makes, on the same facts. */
        landlock_host_probe(&landlock);
        if (ret == 0)
                ret = lsm_host_probe(&lsm, err);
        if (ret == 0) {
                ret = floor_decide(config, &in, &report, &decision, err);
                profile = decision.profile;
        }
        if (ret == 0) {
                landlock_rules_release(&decision.landlock);
                ret = explain_output(&policy, &decision, &report, err);
        }
        if (ret == 0) {
                ret = explain_runtime(&policy, config, bundle, &binds, global->rootless, &report,
                                      err);
        }
        lsm_host_facts_release(&lsm);
        if (ret == 0)
                ret = explain_audit(&policy, global, profile, &report, err);
        if (ret == 0 && o->json)
                ret = explain_json(policy_profile_get(profile)->name, policy.source, &report, err);
        else if (ret == 0)
                explain_text(policy_profile_get(profile)->name, policy.source, &report);
        bind_sources_release(&binds);
        floor_host_release(&facts);
        operator_policy_release(&policy);
        floor_report_release(&report);
        oci_config_free(config);
        return ret;
}

/* Bad usage exits 1, as for every command (runtime/cli/cli_options.h). */
int cmd_policy(const struct global_options *global, int argc, char **argv, struct sb_error *err)
{
        const struct cli_command cmd = { .name = "policy", .usage = USAGE };
        struct policy_opts o = { 0 };
        int next, r;

        /* The options before the subcommand: only --help. */
        r = cli_parse(&cmd, argc, argv, &next, err);
        if (r != 0)
                return r < 0 ? 1 : 0;
        if (next >= argc)
                return sb_fail(err, 0, "policy: expected \"show\" or \"explain\""), 1;
        const char *sub = argv[next];
        if (strcmp(sub, "show") != 0 && strcmp(sub, "explain") != 0)
                return sb_fail(err, 0, "policy: unknown subcommand \"%s\" (show, explain)", sub), 1;
        r = parse_opts(sub, argc - next, argv + next, &o, err);
        if (r != 0)
                return r < 0 ? 1 : 0;
        if (strcmp(sub, "show") == 0)
                return show(global, err) < 0 ? 1 : 0;
        return explain(global, &o, err) < 0 ? 1 : 0;
}
