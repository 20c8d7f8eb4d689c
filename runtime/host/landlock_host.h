/* The kernel's Landlock, as create, exec, `policy explain` and `check` find
 * it: the ABI it offers, or why it offers none. spec/floor_landlock.h
 * decides what follows. */
#ifndef SB_LANDLOCK_HOST_H
#define SB_LANDLOCK_HOST_H

#include "spec/floor_landlock.h"

void landlock_host_probe(struct landlock_host *host);

#endif
