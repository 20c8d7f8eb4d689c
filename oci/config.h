/* The OCI runtime-spec (1.2/1.3) Linux config.json as typed C structures.
 * oci/ only describes and validates; it never decides policy. Every optional
 * scalar has a has_* flag so that "absent" and "zero" stay distinct. */
#ifndef SB_OCI_CONFIG_H
#define SB_OCI_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sb_error;

struct oci_kv {
        char *key;
        char *value;
};

struct oci_mount {
        char *destination;
        char *type;     /* NULL when absent: a bind if options say so */
        char *source;   /* NULL when absent */
        char **options; /* NULL-terminated, may be NULL */
        size_t n_options;
        struct oci_idmap *uid_mappings;
        size_t n_uid_mappings;
        struct oci_idmap *gid_mappings;
        size_t n_gid_mappings;
};

struct oci_idmap {
        uint32_t container_id;
        uint32_t host_id;
        uint32_t size;
};

struct oci_rlimit {
        char *type;   /* "RLIMIT_NOFILE" */
        int resource; /* RLIMIT_NOFILE, resolved by the parser */
        uint64_t soft;
        uint64_t hard;
};

/* Capability sets as bit masks of CAP_* numbers; has_* says the set was given. */
struct oci_capabilities {
        uint64_t bounding, effective, inheritable, permitted, ambient;
        bool has_bounding, has_effective, has_inheritable, has_permitted, has_ambient;
};

struct oci_user {
        uint32_t uid;
        uint32_t gid;
        uint32_t *additional_gids;
        size_t n_additional_gids;
        bool has_umask;
        uint32_t umask;
        char *username; /* Windows-only field, kept for completeness */
};

struct oci_console_size {
        uint32_t height;
        uint32_t width;
};

struct oci_io_priority {
        char *klass; /* "IOPRIO_CLASS_RT" … */
        int32_t priority;
};

struct oci_scheduler {
        char *policy;
        int32_t nice;
        int32_t priority;
        char **flags;
        size_t n_flags;
        uint64_t runtime, deadline, period;
};

struct oci_exec_cpu_affinity {
        char *initial;
        char *final;
};

struct oci_process {
        bool terminal;
        bool has_console_size;
        struct oci_console_size console_size;
        struct oci_user user;
        char **args; /* NULL-terminated, n_args >= 1 */
        size_t n_args;
        char *command_line; /* Windows-only */
        char **env;         /* NULL-terminated, may be NULL */
        size_t n_env;
        char *cwd;
        bool has_capabilities;
        struct oci_capabilities capabilities;
        struct oci_rlimit *rlimits;
        size_t n_rlimits;
        bool no_new_privileges;
        bool has_no_new_privileges;
        char *apparmor_profile;
        bool has_oom_score_adj;
        int oom_score_adj;
        char *selinux_label;
        struct oci_io_priority *io_priority; /* NULL when absent */
        struct oci_scheduler *scheduler;     /* NULL when absent */
        struct oci_exec_cpu_affinity *exec_cpu_affinity;
};

struct oci_root {
        char *path;
        bool readonly;
};

struct oci_hook {
        char *path;
        char **args;
        size_t n_args;
        char **env;
        size_t n_env;
        bool has_timeout;
        int timeout; /* seconds, > 0 */
};

struct oci_hook_list {
        struct oci_hook *hooks;
        size_t n;
};

struct oci_hooks {
        struct oci_hook_list prestart, create_runtime, create_container, start_container, poststart,
                poststop;
};

enum oci_namespace_type {
        OCI_NS_PID,
        OCI_NS_NETWORK,
        OCI_NS_MOUNT,
        OCI_NS_IPC,
        OCI_NS_UTS,
        OCI_NS_USER,
        OCI_NS_CGROUP,
        OCI_NS_TIME,
        OCI_NS_COUNT
};

struct oci_namespace {
        enum oci_namespace_type type;
        char *path; /* NULL: a new namespace */
};

struct oci_device {
        char *path;
        char type;            /* 'c', 'b', 'u' or 'p' */
        int64_t major, minor; /* -1 when absent (only 'p' may omit them) */
        bool has_file_mode;
        uint32_t file_mode;
        bool has_uid, has_gid;
        uint32_t uid, gid;
};

struct oci_device_cgroup {
        bool allow;
        char *type; /* "a", "c", "b" or NULL */
        bool has_major, has_minor;
        int64_t major, minor;
        char *access;
};

struct oci_memory {
        bool has_limit, has_reservation, has_swap, has_kernel, has_kernel_tcp, has_swappiness,
                has_disable_oom_killer, has_use_hierarchy, has_check_before_update;
        int64_t limit, reservation, swap, kernel, kernel_tcp;
        uint64_t swappiness;
        bool disable_oom_killer, use_hierarchy, check_before_update;
};

struct oci_cpu {
        bool has_shares, has_quota, has_burst, has_period, has_realtime_runtime,
                has_realtime_period, has_idle;
        uint64_t shares;
        int64_t quota;
        uint64_t burst;
        uint64_t period;
        int64_t realtime_runtime;
        uint64_t realtime_period;
        char *cpus;
        char *mems;
        int64_t idle;
};

struct oci_weight_device {
        int64_t major, minor;
        bool has_weight, has_leaf_weight;
        uint16_t weight, leaf_weight;
};

struct oci_throttle_device {
        int64_t major, minor;
        uint64_t rate;
};

struct oci_throttle_list {
        struct oci_throttle_device *devices;
        size_t n;
};

struct oci_block_io {
        bool has_weight, has_leaf_weight;
        uint16_t weight, leaf_weight;
        struct oci_weight_device *weight_devices;
        size_t n_weight_devices;
        struct oci_throttle_list throttle_read_bps, throttle_write_bps, throttle_read_iops,
                throttle_write_iops;
};

struct oci_hugepage_limit {
        char *page_size;
        uint64_t limit;
};

struct oci_rdma_limit {
        char *device;
        bool has_hca_handles, has_hca_objects;
        uint32_t hca_handles, hca_objects;
};

struct oci_net_priority {
        char *name;
        uint32_t priority;
};

struct oci_resources {
        struct oci_device_cgroup *devices;
        size_t n_devices;
        struct oci_memory *memory; /* NULL when absent; likewise below */
        struct oci_cpu *cpu;
        bool has_pids_limit;
        int64_t pids_limit;
        struct oci_block_io *block_io;
        struct oci_hugepage_limit *hugepage_limits;
        size_t n_hugepage_limits;
        bool has_network;
        bool has_class_id;
        uint32_t class_id;
        struct oci_net_priority *net_priorities;
        size_t n_net_priorities;
        struct oci_rdma_limit *rdma;
        size_t n_rdma;
        struct oci_kv *unified;
        size_t n_unified;
};

struct oci_seccomp_arg {
        uint32_t index;
        uint64_t value;
        uint64_t value_two;
        char *op; /* "SCMP_CMP_EQ" … validated by the parser */
};

struct oci_seccomp_syscall {
        char **names;
        size_t n_names;
        char *action;
        bool has_errno_ret;
        uint32_t errno_ret;
        struct oci_seccomp_arg *args;
        size_t n_args;
};

struct oci_seccomp {
        char *default_action;
        bool has_default_errno_ret;
        uint32_t default_errno_ret;
        char **architectures;
        size_t n_architectures;
        char **flags;
        size_t n_flags;
        char *listener_path;
        char *listener_metadata;
        struct oci_seccomp_syscall *syscalls;
        size_t n_syscalls;
};

struct oci_personality {
        char *domain;
        char **flags;
        size_t n_flags;
};

struct oci_intel_rdt {
        char *clos_id;
        char **schemata; /* 1.3 */
        size_t n_schemata;
        char *l3_cache_schema;
        char *mem_bw_schema;
        bool has_enable_cmt, has_enable_mbm, has_enable_monitoring;
        bool enable_cmt, enable_mbm; /* 1.2; 1.3 has enableMonitoring */
        bool enable_monitoring;
};

/* 1.3 linux.memoryPolicy (set_mempolicy(2) for the container). */
struct oci_memory_policy {
        char *mode; /* "MPOL_BIND" … */
        char *nodes;
        char **flags;
        size_t n_flags;
};

struct oci_linux {
        struct oci_namespace *namespaces;
        size_t n_namespaces;
        struct oci_idmap *uid_mappings;
        size_t n_uid_mappings;
        struct oci_idmap *gid_mappings;
        size_t n_gid_mappings;
        struct oci_device *devices;
        size_t n_devices;
        char *cgroups_path;
        struct oci_resources *resources; /* NULL when absent */
        char *rootfs_propagation;
        struct oci_seccomp *seccomp; /* NULL when absent */
        struct oci_kv *sysctl;
        size_t n_sysctl;
        char **masked_paths;
        size_t n_masked_paths;
        bool has_masked_paths;
        char **readonly_paths;
        size_t n_readonly_paths;
        bool has_readonly_paths;
        char *mount_label;
        struct oci_intel_rdt *intel_rdt;
        struct oci_personality *personality;
        struct oci_kv *time_offsets; /* "monotonic"/"boottime" → "secs nanosecs" */
        size_t n_time_offsets;
        struct oci_memory_policy *memory_policy; /* NULL when absent */
        /* 1.3 linux.netDevices: host interface name → its name in the
         * container (value NULL: the same name). */
        struct oci_kv *net_devices;
        size_t n_net_devices;
};

struct oci_config {
        char *oci_version;
        struct oci_root root;
        bool has_root;
        struct oci_mount *mounts;
        size_t n_mounts;
        struct oci_process *process; /* NULL when absent (allowed for create-only tools) */
        char *hostname;
        char *domainname;
        struct oci_hooks hooks;
        struct oci_kv *annotations;
        size_t n_annotations;
        struct oci_linux *linux_; /* NULL when absent */
        /* Not from config.json: the size in bytes and the inode count of
         * the /dev tmpfs sbrun gives a config without a /dev mount (as runc
         * gives every container the default nodes), which the floor holds
         * to its ceilings (spec/floor_mounts.c); 0: FLOOR_DEV_SIZE and
         * FLOOR_DEV_INODES (spec/floor.h). */
        uint64_t implicit_dev_size, implicit_dev_inodes;
};

/* Parse and validate a config.json document. `origin` names the document in
 * messages ("config.json"). On error *err says
 * "config.json: process.rlimits[1].type: duplicate RLIMIT_NOFILE". */
struct oci_config *oci_config_parse(const char *json, size_t len, const char *origin,
                                    struct sb_error *err);

/* Read <bundle>/config.json and parse it; additionally checks that the rootfs
 * (root.path, relative to the bundle when not absolute) is a directory. */
struct oci_config *oci_config_load_bundle(const char *bundle, struct sb_error *err);
/* The same, and the text it parsed (to be freed by the caller). */
struct oci_config *oci_config_load_bundle_text(const char *bundle, char **text_out, size_t *len_out,
                                               struct sb_error *err);

/* A `process` object alone, as `exec --process FILE` receives it. */
struct oci_process *oci_process_parse(const char *json, size_t len, const char *origin,
                                      struct sb_error *err);

/* A `linux.resources` object alone, as `update --resources FILE` receives it. */
struct oci_resources *oci_resources_parse(const char *json, size_t len, const char *origin,
                                          struct sb_error *err);
void oci_resources_free(struct oci_resources *resources);

void oci_config_free(struct oci_config *config);
void oci_process_free(struct oci_process *process);
/* n key/value pairs and their array (annotations, sysctls, unified). */
void oci_kv_free(struct oci_kv *kv, size_t n);

/* Lookups used by several layers. */
const char *oci_annotation(const struct oci_config *config, const char *key);
const struct oci_namespace *oci_config_namespace(const struct oci_config *config,
                                                 enum oci_namespace_type type);
const char *oci_namespace_type_name(enum oci_namespace_type type); /* "network" */
/* A bind mount: type "bind"/"rbind", a "bind"/"rbind" option, or no type at
 * all (runc and crun bind then too). Every layer must agree on this. */
bool oci_mount_is_bind(const struct oci_mount *m);
/* Mounted read-only: the last of "ro" and "rw" wins, as mount(8) and
 * runtime/sandbox/mount_translate.c read them. */
bool oci_mount_is_read_only(const struct oci_mount *m);
/* The config mounts something at /dev itself ("/dev", "//dev": not "/dev/"
 * nor below it); without one sbrun gives it the default nodes, as runc. */
bool oci_config_mounts_dev(const struct oci_config *config);
const char *oci_namespace_proc_name(enum oci_namespace_type type); /* "net" */

/* Capability name ("CAP_SYS_ADMIN") to number, -1 if unknown; and back. */
int oci_capability_from_name(const char *name);
const char *oci_capability_name(int cap);
/* "RLIMIT_NOFILE" to resource number, -1 if unknown. */
int oci_rlimit_from_name(const char *name);

#endif
