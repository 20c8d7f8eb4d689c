/* The floor's seccomp filter is always stacked under the spec's (built by
 * runtime/seccomp/floor_seccomp.*, stacked so the stricter answer wins).
 * Nothing to change in the config: this concern only records it, so that
 * `policy explain` shows what a config with no or a weak filter really
 * gets. It is no warning at create: the filter is always there, whatever
 * the config asks, so a warning would say nothing about this container. */
#include "spec/floor.h"

#include "oci/config.h"

#include <stdio.h>

int floor_syscalls(struct oci_config *config, const struct floor_context *ctx,
                   struct floor_report *report, struct sb_error *err)
{
        const struct oci_seccomp *s = config->linux_->seccomp;
        char eff[96], rule[64];

        snprintf(eff, sizeof(eff), "%s floor filter%s", ctx->profile->name,
                 s != NULL ? " stacked under the spec's" : "");
        snprintf(rule, sizeof(rule), "%s: floor seccomp filter always installed",
                 ctx->profile->name);
        return floor_record(report, err, FLOOR_ADDED, "linux.seccomp",
                            s != NULL ? "spec filter" : NULL, eff, rule);
}
