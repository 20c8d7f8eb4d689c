#ifndef SB_CONTAINER_ID_H
#define SB_CONTAINER_ID_H

struct sb_error;

/* runc's rule: [A-Za-z0-9][A-Za-z0-9_+.-]*, at most 1024 bytes, and never
 * "." or "..": the ID names a directory under the state root. */
int container_id_validate(const char *id, struct sb_error *err);

#endif
