/* Idmapped bind mounts (mounts[].uidMappings/gidMappings, the idmap and
 * ridmap options). bwrap cannot make them, and the kernel lets only a
 * caller with CAP_SYS_ADMIN in the user namespace of the file system's
 * superblock (the host's, for a host directory) set MOUNT_ATTR_IDMAP, on a
 * mount not yet attached anywhere. So sbrun, on the host, clones the held
 * source into a detached tree and idmaps it; the tree's fd travels to
 * sbrun-init like a bind source's, and sbrun-init attaches it at the
 * destination with move_mount (INIT_MOUNT_MOVE): a detached tree cannot be
 * bind-mounted through /proc/self/fd. docs/design.md, "Idmapped mounts". */
#ifndef SB_IDMAP_MOUNT_H
#define SB_IDMAP_MOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sb_error;
struct oci_idmap;

struct idmap_mount_request {
        int source_fd; /* O_PATH fd of the bind source the floor judged */
        /* NULL: no mapping, a detached bind of the source as it is */
        const struct oci_idmap *uids, *gids;
        size_t n_uids, n_gids;
        bool recursive;    /* ridmap: every mount below the source too */
        uint64_t attr_set; /* MOUNT_ATTR_* on the tree and every mount below it */
        uint64_t attr_clr;
        const char *what; /* "mounts[3]", for messages */
};

/* A detached copy of the tree at source_fd (with every mount below it),
 * its attributes set and the mapping applied; returns its fd (O_CLOEXEC),
 * or -1. A file system the kernel cannot idmap fails naming its type. */
int idmap_mount_make(const struct idmap_mount_request *req, struct sb_error *err);

/* Whether this kernel has mount_setattr(2) (Linux 5.12) and sbrun runs as
 * root: of the host's user namespace, where it can idmap a host file
 * system, or of an engine's (rootless podman's), where it can idmap what
 * that namespace mounted. `sbrun features` lists idmap and ridmap only
 * then. */
bool idmap_mount_supported(void);

#endif
