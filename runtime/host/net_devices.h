/* linux.netDevices carried out (the floor's decision: spec/floor_net_devices.c):
 * each device of sbrun's network namespace moved into the container's,
 * renamed as the config asks, its permanent global addresses carried over
 * and brought up, as runtime-spec 1.3 asks. A create that fails after the
 * move moves the devices back (net_devices_undo); a committed create
 * leaves them to the container's namespace: when it goes, the kernel
 * moves a physical device back to the host's initial namespace and
 * destroys a virtual one (runtime-spec: a runtime MUST NOT move them out
 * before delete). */
#ifndef SB_NET_DEVICES_H
#define SB_NET_DEVICES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct oci_linux;
struct sb_error;
struct net_address;

struct net_device_move {
        const char *name;   /* in sbrun's namespace (the config's key) */
        const char *inside; /* asked for in the container's (may hold "%d") */
        int host_index;     /* its ifindex before the move */
        int index;          /* its ifindex in the container's namespace; 0: not moved */
        bool was_up;
        struct net_address *addrs;
        size_t n_addrs;
};

struct net_devices {
        int own_ns;       /* sbrun's network namespace */
        int container_ns; /* the container's; held, it outlives the process */
        struct net_device_move *devs;
        size_t n;
};

#define NET_DEVICES_INIT                         \
        {                                        \
                .own_ns = -1, .container_ns = -1 \
        }

/* Before anything exists: every device the config names is in sbrun's
 * network namespace, and sbrun can move it (not rootless). */
int net_devices_check(const struct oci_linux *l, bool rootless, struct sb_error *err);

/* Move them into the network namespace of the process pid (the container's
 * pid 1, held by pidfd while its namespace is opened). On failure the
 * devices moved so far stay recorded in *nd for net_devices_undo. */
int net_devices_move_in(const struct oci_linux *l, pid_t pid, struct net_devices *nd,
                        struct sb_error *err);

/* A create that failed: every moved device back into sbrun's namespace
 * under its own name, with its addresses and its state (best effort, each
 * failure warned about). Then as net_devices_keep. */
void net_devices_undo(struct net_devices *nd);

/* A committed create: forget them, close the namespaces. */
void net_devices_keep(struct net_devices *nd);

#endif
