/* Shared by the floor unit tests (tests/unit/test_floor_*.c): a config.json
 * text and an operator policy text in, the floor merge run on them as
 * `sbrun create` runs it (bind sources opened by runtime/sandbox/bind_sources.c,
 * then spec/effective.c), the effective config and the floor report out. */
#ifndef SB_TESTS_FLOOR_FIXTURE_H
#define SB_TESTS_FLOOR_FIXTURE_H

#include "common/error.h"
#include "oci/config.h"
#include "runtime/host/floor_host.h"
#include "runtime/sandbox/bind_sources.h"
#include "spec/effective.h"
#include "spec/floor.h"
#include "spec/operator_policy.h"

#include <stdbool.h>

/* Documents in the tests use ' for " so that they stay readable. */
#define NAMESPACES                                                                       \
        "'namespaces':[{'type':'pid'},{'type':'network'},{'type':'ipc'},{'type':'uts'}," \
        "{'type':'mount'},{'type':'cgroup'}]"

/* A config.json with every namespace the floor wants, so that only what a
 * test adds draws a change. PROC, TOP and LINUX are fragments, each empty
 * or starting with a comma. */
#define SPEC(PROC, TOP, LINUX)                            \
        "{'ociVersion':'1.2.0','root':{'path':'rootfs'}," \
        "'process':{'args':['sh'],'cwd':'/'" PROC "}" TOP ",'linux':{" NAMESPACES LINUX "}}"

#define STRICT_ANNOTATION ",'annotations':{'run.sbrun.policy':'strict'}"

enum floor_mode {
        FLOOR_EXPLAIN, /* `policy explain`: refusals are recorded, the merge goes on */
        FLOOR_CREATE,  /* `create`: the first refusal fails the merge (not logged here) */
};

/* The host as the fixture tells the floor: this machine's namespaces
 * (runtime/host/floor_host.c), and a fixed RAM size so that a clamp to it
 * is exact (a test may set floor_fixture_host_memory, 0: unknown). */
#define FIXTURE_HOST_MEMORY (INT64_C(8) << 30)
extern int64_t floor_fixture_host_memory;
/* Set: what runtime/host/quota_host.c found of every volume it probed is
 * replaced by this (the host's real file systems vary); NULL: as found. */
extern const struct volume_quota *floor_fixture_volume;
/* Set: what the root is stored on (the fixture holds no root, so without
 * it the root is not judged), and what runtime/host/io_backing.c found of
 * every bind source replaced by this. NULL: as found. */
extern const struct floor_io_backing *floor_fixture_io_root;
extern const struct floor_io_backing *floor_fixture_io_bind;

struct floor_run {
        struct oci_config *config;
        struct operator_policy policy;
        struct bind_sources binds;
        struct floor_host_facts facts;
        struct floor_report report;
        enum policy_profile profile;
        struct sb_error err;
        char *error; /* sb_error_text of err when the merge failed */
};

/* Parse both documents (failing the test if either does not parse), open
 * the bind sources under bundle (NULL: "/"), run the merge. Returns its
 * result: 0, or -1 with run->error set. policy_doc NULL: the built-in
 * default. */
int floor_run(struct floor_run *run, const char *config_doc, const char *policy_doc,
              const char *bundle, const char *state_root, enum floor_mode mode);
void floor_run_release(struct floor_run *run);

/* floor_run in explain mode, failing the test if the merge fails. */
void floor_run_ok(struct floor_run *run, const char *config_doc, const char *policy_doc);
/* The operator policy as operator_policy_load would read it from a file. */
void policy_parse(const char *doc, struct operator_policy *policy);
/* Fails the test unless parsing doc fails with an error containing message. */
void policy_parse_fails(const char *doc, const char *message);

/* The Nth change (0: first) recorded for field, or NULL. */
const struct floor_change *floor_change_find(const struct floor_report *report, const char *field,
                                             size_t nth);
/* Fails the test unless field has a change exactly like this one. */
void assert_change(const struct floor_report *report, const char *field, enum floor_action action,
                   const char *requested, const char *effective, const char *rule);
void assert_no_change(const struct floor_report *report, const char *field);

/* A quoted JSON document with ' for ". Caller frees. */
char *dq(const char *s);

#endif
