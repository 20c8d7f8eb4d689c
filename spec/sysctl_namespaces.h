/* Which sysctls a namespace of the container's own isolates, and which
 * one: only those may be set by linux.sysctl (the rest would change the
 * host). The floor refuses the others; runtime/sandbox/namespaces.c checks that
 * the container really has the namespace the key needs. */
#ifndef SB_SPEC_SYSCTL_NAMESPACES_H
#define SB_SPEC_SYSCTL_NAMESPACES_H

#include "oci/config.h"

#include <stdbool.h>

/* The namespace KEY (dotted, "net.ipv4.ip_forward") belongs to. False if
 * it belongs to none, or is not a well-formed key (a '/' or ".."). */
bool sysctl_namespace(const char *key, enum oci_namespace_type *type);

#endif
