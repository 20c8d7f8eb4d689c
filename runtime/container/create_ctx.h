/* What one `create` holds while it runs: the phases in create_*.c fill it
 * in run-time order, and create_ctx_release frees it in one place, whatever
 * happened. Shared only by the files of create. */
#ifndef SB_CREATE_CTX_H
#define SB_CREATE_CTX_H

#include <stddef.h>
#include <sys/types.h>

#include "oci/config.h"
#include "runtime/cgroup/container_cgroup.h"
#include "runtime/host/net_devices.h"
#include "runtime/init/init_plan.h"
#include "runtime/sandbox/bind_sources.h"
#include "runtime/sandbox/launcher.h"
#include "runtime/sandbox/mount_translate.h"
#include "runtime/sandbox/namespaces.h"
#include "runtime/seccomp/floor_seccomp.h"
#include "runtime/seccomp/seccomp_setup.h"
#include "common/strv.h"
#include "spec/floor.h"
#include "spec/floor_landlock.h"
#include "spec/floor_runtime.h"
#include "spec/operator_policy.h"

struct global_options;

struct create_ctx {
        const struct global_options *global;
        struct operator_policy policy; /* read once: every decision uses the same one */
        bool policy_loaded;            /* so a failure after it is audited */
        struct floor_report report;    /* the floor's changes, for the audit trail */
        struct oci_config *config;
        char *config_text; /* what was parsed, saved as the state's copy */
        size_t config_len;
        struct bind_sources binds;   /* held from before the floor's check to bwrap */
        enum policy_profile profile; /* the floor's choice; its seccomp programs follow */
        char *bundle;
        char *rootfs;
        int rootfs_fd;
        struct ns_setup ns;
        struct strv bwrap;
        struct init_mount_list init_mounts;
        struct mount_table mounts;
        struct init_plan plan;
        char *cwd;
        int fds[LFD_COUNT];
        int ready_read, error_read, error_write, info_read;
        pid_t launcher;
        int launcher_status; /* its wait status, once reaped while waiting for ready */
        int container_pid;
        int userns_sync, userns_sync_child;
        int attach_read, attach_write; /* rootless systemd: the launcher waits to be moved */
        int console_receiver;          /* our end of the console pair, for console_to_caller */
        int preserve_fds;              /* --preserve-fds plus inherited LISTEN_FDS */
        int listen_fds;
        int pidfd_sock; /* --pidfd-socket, connected; -1 without */
        bool notify;    /* NOTIFY_SOCKET: the proxy's directory is bound (notify_socket.h) */
        struct container_cgroup cgroup;
        struct floor_seccomp floor;
        struct landlock_rules landlock; /* spec/floor_landlock.h */
        struct seccomp_setup seccomp;
        struct net_devices net;              /* linux.netDevices moved in, until committed */
        int timeout;                         /* effective wall-clock limit in seconds, 0: none */
        struct output_limits output;         /* effective output limits (forward_output) */
        int output_read[2], output_write[2]; /* stdout's, stderr's pipe, or -1 */
        char *created;                       /* the record's "created" time */
        bool restored;                       /* by `restore`: started, no exec.fifo */
};

void create_ctx_init(struct create_ctx *c);
/* Kills a container that did not get all the way, then frees everything. */
void create_ctx_release(struct create_ctx *c);

#endif
