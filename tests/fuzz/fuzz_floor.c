/* libFuzzer harness: the floor merge (effective_spec_apply) on a parsed
 * config.json, under each profile, enforcing and explaining, and the exec
 * floor (effective_process_apply) on its process. Every bind mount is given
 * its own source as the path the runtime would hold open, as a directory,
 * so that the mount rules are reached. */
#include "common/error.h"
#include "oci/config.h"
#include "spec/effective.h"
#include "spec/floor.h"
#include "spec/operator_policy.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static void apply(const uint8_t *data, size_t size, enum policy_profile profile, bool explain)
{
        struct sb_error err = { 0 };
        struct oci_config *c = oci_config_parse((const char *)data, size, "config.json", &err);
        struct operator_policy policy = { .cgroups_enforce = true, .profile = profile };
        struct floor_report report = { 0 };
        enum policy_profile applied;
        char **paths;
        struct stat *stats;

        if (c == NULL) {
                sb_error_clear(&err);
                return;
        }
        paths = calloc(c->n_mounts + 1, sizeof(*paths));
        stats = calloc(c->n_mounts + 1, sizeof(*stats));
        if (paths == NULL || stats == NULL)
                abort();
        for (size_t i = 0; i < c->n_mounts; i++) {
                const struct oci_mount *m = &c->mounts[i];

                stats[i].st_mode = S_IFDIR | 0755;
                stats[i].st_ino = i + 1;
                if (oci_mount_is_bind(m) && m->source != NULL && m->source[0] == '/')
                        paths[i] = m->source;
        }
        struct effective_options opts = {
                .policy = &policy,
                .state_root = "/run/sbrun-fuzz",
                .bind_paths = paths,
                .bind_stats = stats,
                .n_bind_paths = c->n_mounts,
                .explain = explain,
        };
        effective_spec_apply(c, &opts, &report, &applied, &err);
        floor_report_release(&report);
        sb_error_clear(&err);
        if (c->process != NULL) {
                effective_process_apply(c, c->process, &policy, &applied, &err);
                sb_error_clear(&err);
        }
        free(paths);
        free(stats);
        oci_config_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        apply(data, size, POLICY_STANDARD, false);
        apply(data, size, POLICY_STANDARD, true);
        apply(data, size, POLICY_STRICT, false);
        apply(data, size, POLICY_STRICT, true);
        return 0;
}
