/* `sbrun check [--format text|json]`: can this host run confined containers,
 * and if not, why. One line per host fact create depends on (probed in
 * runtime/, judged by spec/host_requirements.h), as a table or as JSON.
 * Exit status: 0 ready (warnings allowed), 1 not ready or a bad command
 * line (with a message, as every command). Nothing is created. */
#include "config.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "oci/json_write.h"
#include "runtime/cli/cli_options.h"
#include "common/landlock.h"
#include "runtime/cli/commands.h"
#include "runtime/sandbox/bwrap_binary.h"
#include "runtime/host/host_probe.h"
#include "runtime/audit/audit_log.h"
#include "runtime/checkpoint/criu_run.h"
#include "runtime/host/landlock_host.h"
#include "runtime/host/rootless.h"
#include "spec/host_requirements.h"
#include "spec/operator_policy.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define USAGE                                                                         \
        "usage: sbrun check [options]\n\n"                                            \
        "Tell whether this host can run confined containers, and why not: one line\n" \
        "per item create depends on. Creates nothing.\n"

#define MAX_ITEMS 32

struct check_item {
        const char *name;
        enum host_status status;
        char *detail;
};

struct check_list {
        struct check_item items[MAX_ITEMS];
        size_t n;
};

static void list_release(struct check_list *l)
{
        for (size_t i = 0; i < l->n; i++)
                free(l->items[i].detail);
        l->n = 0;
}

/* Takes detail (which may be NULL: out of memory is then the detail). */
static void add(struct check_list *l, const char *name, enum host_status status, char *detail)
{
        if (l->n == MAX_ITEMS) {
                free(detail);
                return;
        }
        l->items[l->n++] = (struct check_item){ .name = name, .status = status, .detail = detail };
}

static void add_probe(struct check_list *l, const char *name, const struct host_probe *p)
{
        add(l, name, host_requirement_status(name, p->available), strdup(p->detail));
}

static void add_error(struct check_list *l, const char *name, struct sb_error *e)
{
        add(l, name, host_requirement_status(name, false), sb_error_text(e));
        sb_error_clear(e);
}

static void check_root(struct check_list *l, const struct global_options *global)
{
        uid_t uid = geteuid();
        char *detail = NULL;
        int r;

        if (!global->rootless)
                r = asprintf(&detail, "uid 0");
        else if (global->in_userns)
                r = asprintf(&detail,
                             "rootless: root of a user namespace (rootless podman's), "
                             "uid %u on the host side",
                             (unsigned)getuid());
        else
                r = asprintf(&detail, "rootless: uid %u", (unsigned)uid);
        if (r < 0)
                detail = NULL;
        add(l, "root", host_requirement_status("root", true), detail);
}

/* What a rootless caller needs beyond what root does. */
static void check_rootless(struct check_list *l, const struct global_options *global)
{
        struct host_probe p;

        rootless_probe_state_root(global->root, &p);
        add(l, "state root", host_requirement_status_rootless("state root", p.available),
            strdup(p.detail));
        if (global->in_userns)
                return;
        rootless_probe_idmap(&p);
        add(l, "newuidmap", host_requirement_status_rootless("newuidmap", p.available),
            strdup(p.detail));
}

/* The bwrap versions the test lanes run sbrun with: Debian 12's (the host
 * suites and the Debian 12 guests of tests/vm/) and Debian 13's (the trixie
 * guest, tests/vm/trixie-suite.sh). A version joins only with a lane that
 * runs it; the warning's text names them. */
static const char *const tested_bwrap[] = { "bubblewrap 0.8.0", "bubblewrap 0.12.0" };

static void check_bwrap(struct check_list *l, const struct global_options *global)
{
        struct sb_error e = { 0 };
        _cleanup_free_ char *version = NULL;
        char *detail = NULL;

        if (bwrap_binary_check(sbrun_bwrap_path, global->host_root, &e) < 0 ||
            bwrap_binary_version(sbrun_bwrap_path, &version, &e) < 0) {
                add_error(l, "bwrap", &e);
                return;
        }
        /* Another version may not behave as docs/design.md#bwrap-behaviours
         * measured: worth a warning, not a refusal. Measured are the version
         * sbrun was built against and those the test lanes run sbrun with
         * (tested_bwrap). */
        bool tested = strcmp(version, SBRUN_BWRAP_VERSION) == 0;
        for (size_t i = 0; !tested && i < sizeof(tested_bwrap) / sizeof(tested_bwrap[0]); i++)
                tested = strcmp(version, tested_bwrap[i]) == 0;
        if (asprintf(&detail, "%s: %s%s%s%s", sbrun_bwrap_path, version,
                     tested ? "" : " (sbrun was built against ", tested ? "" : SBRUN_BWRAP_VERSION,
                     tested ? "" : " and is tested with bubblewrap 0.8.0 and 0.12.0)") < 0)
                detail = NULL;
        add(l, "bwrap", tested ? HOST_OK : HOST_WARN, detail);
}

static void check_namespaces(struct check_list *l, bool rootless, bool in_userns)
{
        static const struct {
                const char *item;
                int flag;
        } ns[] = {
                { "namespace user", CLONE_NEWUSER },     { "namespace pid", CLONE_NEWPID },
                { "namespace mount", CLONE_NEWNS },      { "namespace network", CLONE_NEWNET },
                { "namespace ipc", CLONE_NEWIPC },       { "namespace uts", CLONE_NEWUTS },
                { "namespace cgroup", CLONE_NEWCGROUP },
        };
        struct host_probe p;

        for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
                host_probe_namespace(ns[i].flag, rootless && !in_userns, &p);
                if (rootless && !in_userns)
                        add(l, ns[i].item,
                            host_requirement_status_rootless(ns[i].item, p.available),
                            strdup(p.detail));
                else
                        add_probe(l, ns[i].item, &p);
        }
}

/* Exactly create's decision (runtime/cgroup/container_cgroup.c). */
static void check_cgroups(struct check_list *l, const struct operator_policy *policy)
{
        struct sb_error e = { 0 };
        enum host_status status;
        char *detail = NULL;

        if (policy == NULL) {
                add(l, "cgroups", HOST_FAIL, strdup("undecided: the operator policy is unusable"));
                return;
        }
        if (host_probe_cgroups(policy, &status, &detail, &e) < 0) {
                add_error(l, "cgroups", &e);
                return;
        }
        add(l, "cgroups", status, detail);
}

/* The io ceiling: create's decision on the io controller (spec/floor_io.h). */
static void check_io(struct check_list *l, const struct operator_policy *policy)
{
        struct sb_error e = { 0 };
        enum host_status status;
        char *detail = NULL;

        if (policy == NULL) {
                add(l, "io", HOST_FAIL, strdup("undecided: the operator policy is unusable"));
                return;
        }
        if (host_probe_io(policy, &status, &detail, &e) < 0) {
                add_error(l, "io", &e);
                return;
        }
        add(l, "io", status, detail);
}

static void check_landlock(struct check_list *l, const struct operator_policy *policy)
{
        struct landlock_host host;
        char *detail = NULL;
        int r;

        if (policy == NULL) {
                add(l, "landlock", HOST_FAIL, strdup("undecided: the operator policy is unusable"));
                return;
        }
        landlock_host_probe(&host);
        if (host.abi > 0)
                r = asprintf(&detail, "ABI %d (sbrun uses up to %d)", host.abi,
                             SB_LANDLOCK_ABI_KNOWN);
        else
                r = asprintf(&detail, "none: %s; the strict profile needs it", host.absent);
        if (r < 0)
                detail = NULL;
        add(l, "landlock", host_landlock_status(policy, host.abi > 0), detail);
}

static void check_audit(struct check_list *l, const struct global_options *global,
                        const struct operator_policy *policy)
{
        struct audit_target t = AUDIT_TARGET_INIT;
        struct sb_error e = { 0 };
        char *detail = NULL;
        bool ok;

        if (policy == NULL) {
                add(l, "audit", HOST_FAIL, strdup("undecided: the operator policy is unusable"));
                return;
        }
        if (audit_target_resolve(&policy->audit, global, &t, &e) < 0) {
                add(l, "audit", host_audit_status(policy, false), sb_error_text(&e));
                sb_error_clear(&e);
                return;
        }
        ok = audit_target_probe(&t, &detail);
        add(l, "audit", host_audit_status(policy, ok), detail);
        audit_target_release(&t);
}

static void check_policy(struct check_list *l, const struct global_options *global,
                         struct operator_policy *policy, bool *loaded)
{
        struct sb_error e = { 0 };
        char *detail = NULL;

        *loaded = false;
        if (operator_policy_load(global->policy_path, global->host_root, policy, &e) < 0) {
                add(l, "policy", HOST_FAIL, sb_error_text(&e));
                sb_error_clear(&e);
                return;
        }
        *loaded = true;
        if (asprintf(&detail, "%s",
                     policy->source ? policy->source :
                                      "built-in default (" OPERATOR_POLICY_PATH " is absent)") < 0)
                detail = NULL;
        add(l, "policy", HOST_OK, detail);
}

/* Only checkpoint and restore need CRIU: its lack is a warning. */
static void check_criu(struct check_list *l, const struct global_options *global)
{
        const char *program = criu_program(global->criu);
        _cleanup_free_ char *version = criu_version(program);
        struct sb_error e = { 0 };
        char *detail = NULL;

        if (version == NULL) {
                if (asprintf(&detail,
                             "%s cannot be run: checkpoint and restore fail (install "
                             "CRIU, or name it with --criu)",
                             program) < 0)
                        detail = NULL;
                add(l, "criu", HOST_WARN, detail);
                return;
        }
        if (global->rootless) {
                if (asprintf(&detail, "%s %s: checkpoint and restore need root", program, version) <
                    0)
                        detail = NULL;
                add(l, "criu", HOST_WARN, detail);
                return;
        }
        bool works = criu_check(program, &e) == 0;
        _cleanup_free_ char *why = works ? NULL : sb_error_text(&e);
        sb_error_clear(&e);
        if (asprintf(&detail, "%s %s: %s%s", program, version,
                     works ? "criu check passes" : "checkpoint and restore fail here: ",
                     works ? "" : (why ? why : "criu check failed")) < 0)
                detail = NULL;
        add(l, "criu", works ? HOST_OK : HOST_WARN, detail);
}

static void run_checks(const struct global_options *global, struct check_list *l)
{
        struct operator_policy policy;
        struct host_probe p;
        bool loaded;

        check_root(l, global);
        if (global->rootless)
                check_rootless(l, global);
        check_policy(l, global, &policy, &loaded);
        check_bwrap(l, global);
        check_namespaces(l, global->rootless, global->in_userns);
        check_cgroups(l, loaded ? &policy : NULL);
        check_io(l, loaded ? &policy : NULL);
        check_landlock(l, loaded ? &policy : NULL);
        check_audit(l, global, loaded ? &policy : NULL);
        if (loaded)
                operator_policy_release(&policy);
        host_probe_seccomp(&p);
        add_probe(l, "seccomp", &p);
        host_probe_seccomp_flags(&p);
        add_probe(l, "seccomp flags", &p);
        host_probe_seccomp_notify(&p);
        add_probe(l, "seccomp notify", &p);
        host_probe_openat2(&p);
        add_probe(l, "openat2", &p);
        host_probe_lsm(&p);
        add_probe(l, "lsm", &p);
        host_probe_systemd(&p);
        add_probe(l, "systemd", &p);
        check_criu(l, global);
}

static size_t count_failed(const struct check_list *l)
{
        size_t n = 0;

        for (size_t i = 0; i < l->n; i++)
                n += l->items[i].status == HOST_FAIL;
        return n;
}

static void print_text(const struct check_list *l)
{
        size_t failed = count_failed(l);

        printf("%-18s %-6s %s\n", "ITEM", "STATUS", "DETAIL");
        for (size_t i = 0; i < l->n; i++)
                printf("%-18s %-6s %s\n", l->items[i].name, host_status_name(l->items[i].status),
                       l->items[i].detail ? l->items[i].detail : "(out of memory)");
        if (failed == 0) {
                printf("\nready: this host can run confined containers\n");
                return;
        }
        printf("\nnot ready: %zu required item%s failed:", failed, failed == 1 ? "" : "s");
        for (size_t i = 0; i < l->n; i++)
                if (l->items[i].status == HOST_FAIL)
                        printf(" %s", l->items[i].name);
        printf("\n");
}

static int print_json(const struct check_list *l, struct sb_error *err)
{
        _cleanup_jw_ struct json_writer *w = jw_new("  ", err);

        if (w == NULL)
                return -1;
        jw_object_begin(w);
        jw_kv_bool(w, "ready", count_failed(l) == 0);
        jw_kv_array_begin(w, "items");
        for (size_t i = 0; i < l->n; i++) {
                jw_object_begin(w);
                jw_kv_string(w, "item", l->items[i].name);
                jw_kv_string(w, "status", host_status_name(l->items[i].status));
                jw_kv_string(w, "detail", l->items[i].detail);
                jw_object_end(w);
        }
        jw_array_end(w);
        jw_object_end(w);
        return jw_print(w, stdout, err);
}

static int parse_format(const struct cli_option *opt, const char *value, struct sb_error *err)
{
        bool *json = opt->to.data;

        if (strcmp(value, "json") != 0 && strcmp(value, "text") != 0)
                return sb_fail(err, 0, "check: --format: \"%s\" is not text or json", value);
        *json = strcmp(value, "json") == 0;
        return 0;
}

int cmd_check(const struct global_options *global, int argc, char **argv, struct sb_error *err)
{
        bool json = false;
        const struct cli_option options[] = {
                { "format", 'f', CLI_CALL_ARG, .to.data = &json, .call = parse_format,
                  .arg = "text|json",
                  .help = "one line per item (the default), or one JSON object for tools" },
                { NULL },
        };
        const struct cli_command cmd = { .name = "check", .usage = USAGE, .options = options };
        struct check_list l = { .n = 0 };
        int next, r, ret;

        r = cli_parse(&cmd, argc, argv, &next, err);
        if (r != 0)
                return r < 0 ? 1 : 0;
        if (next < argc) {
                sb_fail(err, 0, "check: unexpected argument \"%s\"", argv[next]);
                return 1;
        }
        /* The probes fork: nothing buffered may be written twice. */
        fflush(stdout);
        run_checks(global, &l);
        ret = 0;
        if (json)
                ret = print_json(&l, err);
        else
                print_text(&l);
        r = (ret == 0 && count_failed(&l) == 0) ? 0 : 1;
        list_release(&l);
        return r;
}
