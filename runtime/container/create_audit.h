/* create's line of the audit trail (runtime/audit/audit_line.h). */
#ifndef SB_CREATE_AUDIT_H
#define SB_CREATE_AUDIT_H

struct sb_error;
struct create_ctx;
struct create_request;

/* A container made: the bundle, the policy and its digest, the profile,
 * the floor's changes and the digests of the effective confinement. Fails
 * (under strict) before the create is committed, so an unrecorded
 * container is undone. */
int create_audit_created(struct create_ctx *c, const struct create_request *req,
                         struct sb_error *err);

/* A create that failed once the policy was read; never fails itself. */
void create_audit_failed(struct create_ctx *c, const struct create_request *req,
                         const struct sb_error *failure);

#endif
