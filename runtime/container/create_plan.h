/* The init plan of create: what sbrun-init does inside the new container,
 * encoded into the memfd the launcher hands on as LFD_PLAN. */
#ifndef SB_CREATE_PLAN_H
#define SB_CREATE_PLAN_H

struct sb_error;
struct create_ctx;

/* session_keyring: the name of the container's keyring, NULL for none. */
int create_plan_prepare(struct create_ctx *c, const char *session_keyring, struct sb_error *err);

#endif
