/* linux.uidMappings and linux.gidMappings from the host's side: which host
 * id a container id is, and writing a new user namespace's maps. */
#ifndef SB_ID_MAP_H
#define SB_ID_MAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sb_error;
struct oci_idmap;
struct oci_linux;

/* The host id that container id `id` maps to, or -1. */
long long id_map_to_host(const struct oci_idmap *maps, size_t n, uint32_t id);

/* Write the uid and gid maps of PID's new user namespace, every range in
 * one write each. Root of the caller's user namespace writes them itself
 * (any id that namespace maps). A rootless caller writes a map of its own
 * id alone itself too (gid_map after "deny" to setgroups, as the kernel
 * requires); any other map goes through the setuid newuidmap/newgidmap,
 * which allow what /etc/subuid and /etc/subgid grant the caller. Errors
 * name the config field and say what was refused. */
int id_map_user_namespace(pid_t pid, const struct oci_linux *l, struct sb_error *err);

#endif
