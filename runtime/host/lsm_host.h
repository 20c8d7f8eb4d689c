/* The host's Linux security modules, as create and exec find them before
 * anything exists: whether AppArmor and SELinux are enabled and which
 * AppArmor profiles are loaded. spec/floor_lsm.h decides what follows. */
#ifndef SB_LSM_HOST_H
#define SB_LSM_HOST_H

#include "spec/floor_lsm.h"

struct sb_error;

/* Fills *facts (zeroed first). Only running out of memory is an error: a
 * file that cannot be read means the LSM is not enabled, or, for the
 * profile list, that the kernel is left to refuse an unknown profile. */
int lsm_host_probe(struct lsm_host_facts *facts, struct sb_error *err);
void lsm_host_facts_release(struct lsm_host_facts *facts);

#endif
