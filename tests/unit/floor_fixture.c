#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "tests/unit/floor_fixture.h"

#include "common/error.h"
#include "spec/operator_policy.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

char *dq(const char *s)
{
        char *out = strdup(s);

        assert_non_null(out);
        for (char *p = out; *p; p++)
                if (*p == '\'')
                        *p = '"';
        return out;
}

/* What operator_policy_load does with a file's text, without the file: the
 * owner and mode checks it makes are tested on a real file in
 * test_floor_profiles. */
void policy_parse(const char *doc, struct operator_policy *policy)
{
        struct sb_error err = { 0 };
        char *json = dq(doc);

        if (operator_policy_parse(json, strlen(json), "policy.json", policy, &err) < 0)
                fail_msg("policy %s: %s", json, err.msg);
        free(json);
}

void policy_parse_fails(const char *doc, const char *message)
{
        struct operator_policy policy;
        struct sb_error err = { 0 };
        char *json = dq(doc);

        assert_int_equal(operator_policy_parse(json, strlen(json), "p.json", &policy, &err), -1);
        if (err.msg == NULL || strstr(err.msg, message) == NULL)
                fail_msg("%s: got \"%s\", expected \"%s\"", json, err.msg, message);
        sb_error_clear(&err);
        free(json);
}

int64_t floor_fixture_host_memory = FIXTURE_HOST_MEMORY;
const struct volume_quota *floor_fixture_volume;
const struct floor_io_backing *floor_fixture_io_root;
const struct floor_io_backing *floor_fixture_io_bind;

int floor_run(struct floor_run *run, const char *config_doc, const char *policy_doc,
              const char *bundle, const char *state_root, enum floor_mode mode)
{
        char *json = dq(config_doc);
        struct floor_context ctx;
        int ret;

        memset(run, 0, sizeof(*run));
        run->config = oci_config_parse(json, strlen(json), "config.json", &run->err);
        if (run->config == NULL)
                fail_msg("config %s: %s", json, run->err.msg);
        free(json);
        policy_parse(policy_doc ? policy_doc : "{}", &run->policy);
        /* The trees as create names them, with this test's state root. */
        const struct floor_tree_paths trees = { .state_root = state_root,
                                                .policy_file = OPERATOR_POLICY_PATH,
                                                .bwrap = "/usr/bin/bwrap",
                                                .self = "/proc/self/exe" };
        if (bind_sources_open(run->config, bundle ? bundle : "/", &run->binds, &run->err) < 0)
                fail_msg("bind sources: %s", run->err.msg);
        if (floor_host_gather(run->config, &run->binds, -1, &trees, &run->facts, &run->err) < 0)
                fail_msg("host facts: %s", run->err.msg);
        run->facts.host.memory = floor_fixture_host_memory;
        for (size_t i = 0; floor_fixture_volume != NULL && i < run->facts.host.n_volumes; i++) {
                if (run->facts.volumes[i].probed)
                        run->facts.volumes[i] = *floor_fixture_volume;
        }
        if (floor_fixture_io_root != NULL)
                run->facts.host.io_root = floor_fixture_io_root;
        for (size_t i = 0; floor_fixture_io_bind != NULL && i < run->facts.host.n_io_binds; i++) {
                if (run->facts.io_binds[i].kind != FLOOR_IO_UNKNOWN)
                        run->facts.io_binds[i] = *floor_fixture_io_bind;
        }
        if (mode == FLOOR_EXPLAIN) {
                struct effective_options opts = { .policy = &run->policy,
                                                  .state_root = state_root,
                                                  .host = &run->facts.host,
                                                  .bind_paths = run->binds.paths,
                                                  .bind_stats = run->binds.stats,
                                                  .n_bind_paths = run->binds.n,
                                                  .explain = true };
                ret = effective_spec_apply(run->config, &opts, &run->report, &run->profile,
                                           &run->err);
        } else {
                /* effective_spec_apply as create calls it, minus the log
                 * lines each change would print on stderr. */
                run->report.log = false;
                ret = floor_select(&run->policy, run->config, state_root, &ctx, &run->report,
                                   &run->err);
                if (ret == 0) {
                        ctx.host = &run->facts.host;
                        ctx.bind_paths = run->binds.paths;
                        ctx.bind_stats = run->binds.stats;
                        ctx.n_bind_paths = run->binds.n;
                        run->profile = ctx.profile->id;
                        ret = floor_apply(run->config, &ctx, &run->report, &run->err);
                }
        }
        if (ret < 0)
                run->error = sb_error_text(&run->err);
        return ret;
}

void floor_run_ok(struct floor_run *run, const char *config_doc, const char *policy_doc)
{
        if (floor_run(run, config_doc, policy_doc, NULL, NULL, FLOOR_EXPLAIN) < 0)
                fail_msg("floor merge failed: %s", run->error);
}

void floor_run_release(struct floor_run *run)
{
        oci_config_free(run->config);
        operator_policy_release(&run->policy);
        bind_sources_release(&run->binds);
        floor_host_release(&run->facts);
        floor_report_release(&run->report);
        sb_error_clear(&run->err);
        free(run->error);
        memset(run, 0, sizeof(*run));
}

const struct floor_change *floor_change_find(const struct floor_report *report, const char *field,
                                             size_t nth)
{
        for (size_t i = 0; i < report->n; i++) {
                if (strcmp(report->changes[i].field, field) == 0 && nth-- == 0)
                        return &report->changes[i];
        }
        return NULL;
}

static void print_report(const struct floor_report *report)
{
        for (size_t i = 0; i < report->n; i++) {
                const struct floor_change *c = &report->changes[i];
                print_message("  %s %s: %s -> %s (%s)\n", floor_action_name(c->action), c->field,
                              c->requested, c->effective, c->rule);
        }
}

void assert_change(const struct floor_report *report, const char *field, enum floor_action action,
                   const char *requested, const char *effective, const char *rule)
{
        for (size_t nth = 0;; nth++) {
                const struct floor_change *c = floor_change_find(report, field, nth);
                if (c == NULL)
                        break;
                if (c->action == action && strcmp(c->requested, requested) == 0 &&
                    strcmp(c->effective, effective) == 0 && strcmp(c->rule, rule) == 0)
                        return;
        }
        print_report(report);
        fail_msg("no change %s %s: %s -> %s (%s) in the report above", floor_action_name(action),
                 field, requested, effective, rule);
}

void assert_no_change(const struct floor_report *report, const char *field)
{
        const struct floor_change *c = floor_change_find(report, field, 0);

        if (c != NULL) {
                print_report(report);
                fail_msg("unexpected change of %s: %s -> %s (%s)", field, c->requested,
                         c->effective, c->rule);
        }
}
