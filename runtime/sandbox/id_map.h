/* linux.uidMappings and linux.gidMappings from the host's side: which host
 * id a container id is, and writing a new user namespace's maps. */
#ifndef SB_ID_MAP_H
#define SB_ID_MAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sb_error;
struct oci_idmap;

/* The host id that container id `id` maps to, or -1. */
long long id_map_to_host(const struct oci_idmap *maps, size_t n, uint32_t id);

/* Write every range of maps to /proc/PID/FILE (uid_map or gid_map) in one
 * write; errors name the config field. */
int id_map_write(pid_t pid, const char *file, const char *field, const struct oci_idmap *maps,
                 size_t n, struct sb_error *err);

#endif
