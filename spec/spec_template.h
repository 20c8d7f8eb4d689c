/* The default config.json that `sbrun spec` writes, modelled on `runc spec`. */
#ifndef SB_SPEC_TEMPLATE_H
#define SB_SPEC_TEMPLATE_H

#include <stdbool.h>
#include <sys/types.h>

struct sb_error;

/* The template as pretty-printed JSON (no trailing newline); caller frees.
 * rootless: runc's --rootless variant, mapping container root to uid/gid
 * (the caller's effective ids). uid and gid are ignored otherwise. */
char *spec_template_json(bool rootless, uid_t uid, gid_t gid, struct sb_error *err);

#endif
