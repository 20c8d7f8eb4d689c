/* maskedPaths and readonlyPaths: the spec's, unioned with runc's defaults
 * plus /proc/sys, /sys/firmware and the like. A spec may add paths, never
 * unmask one of these (an empty list in config.json is not a loosening). */
#include "spec/floor.h"
#include "spec/runc_paths.h"

#include "common/error.h"
#include "oci/config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int union_paths(char ***list, size_t *n, bool *has, const char *const *want,
                       const char *field, const char *rule, struct floor_report *report,
                       struct sb_error *err)
{
        for (const char *const *w = want; *w != NULL; w++) {
                bool present = false;
                for (size_t i = 0; i < *n && !present; i++)
                        present = strcmp((*list)[i], *w) == 0;
                if (present)
                        continue;
                char **grown = realloc(*list, (*n + 2) * sizeof(char *));
                if (grown == NULL)
                        return sb_fail(err, ENOMEM, "%s", field);
                *list = grown;
                grown[*n] = strdup(*w);
                if (grown[*n] == NULL)
                        return sb_fail(err, ENOMEM, "%s", field);
                (*n)++;
                grown[*n] = NULL;
                *has = true;
                if (floor_note(report, err, FLOOR_ADDED, field, NULL, *w, rule) < 0)
                        return -1;
        }
        return 0;
}

int floor_paths(struct oci_config *config, const struct floor_context *ctx,
                struct floor_report *report, struct sb_error *err)
{
        struct oci_linux *l = config->linux_;

        (void)ctx;
        if (union_paths(&l->masked_paths, &l->n_masked_paths, &l->has_masked_paths,
                        runc_masked_paths, "linux.maskedPaths", "standard: runc's masked paths",
                        report, err) < 0 ||
            union_paths(&l->masked_paths, &l->n_masked_paths, &l->has_masked_paths,
                        sbrun_masked_extra, "linux.maskedPaths", "standard: runc's masked paths",
                        report, err) < 0)
                return -1;
        return union_paths(&l->readonly_paths, &l->n_readonly_paths, &l->has_readonly_paths,
                           runc_readonly_paths, "linux.readonlyPaths",
                           "standard: runc's read-only paths and /proc/sys", report, err);
}
