/* runc's default maskedPaths and readonlyPaths: what `sbrun spec` writes,
 * and what the standard floor keeps in every container. */
#ifndef SB_SPEC_RUNC_PATHS_H
#define SB_SPEC_RUNC_PATHS_H

extern const char *const runc_masked_paths[];   /* NULL-terminated */
extern const char *const runc_readonly_paths[]; /* NULL-terminated */
/* What the floor masks beyond runc's list, and `sbrun spec` writes too. */
extern const char *const sbrun_masked_extra[]; /* NULL-terminated */

#endif
