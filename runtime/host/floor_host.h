/* The host facts the floor decides on (struct floor_host, spec/floor.h):
 * the host's RAM, which linux.namespaces paths name the host's own
 * namespaces and the project quota of each volume's source. Read here, so
 * that spec/ never reads the host itself and a unit test can give it any
 * host. */
#ifndef SB_FLOOR_HOST_H
#define SB_FLOOR_HOST_H

#include "spec/floor.h"

struct bind_sources;
struct oci_config;
struct sb_error;

struct floor_host_facts {
        struct floor_host host;
        bool *ns_is_host;             /* owned; host.ns_is_host points here */
        struct volume_quota *volumes; /* owned; host.volumes points here */
};

/* What cannot be read is not known: no RAM (no clamp to it), a namespace
 * path that cannot be stat'ed is not the host's (runtime/sandbox/
 * namespaces.c fails on it when it joins), a volume's quota that cannot be
 * read says why (and bounds nothing). binds: the sources opened for
 * config's mounts; NULL when no mount is judged (update). Fails only on
 * ENOMEM. */
int floor_host_gather(const struct oci_config *config, const struct bind_sources *binds,
                      struct floor_host_facts *f, struct sb_error *err);
void floor_host_release(struct floor_host_facts *f);

#endif
