/* The runtime-spec fields sbrun parses but does not carry out, refused by
 * name: runtime.md says a runtime MUST generate an error for what it cannot
 * carry out, and sbrun drops nothing without a word. Every field of the
 * spec has its decision in docs/policy.md ("Every runtime-spec field"); the
 * ones this file refuses are the "refused" rows there. Also the config's
 * ociVersion: a major version sbrun does not know is refused; and the
 * process's scheduling fields, carried out (runtime/sandbox/plan_sched.c)
 * within the floor's limits judged here. */
#include "config.h"

#include "common/cpu_list.h"
#include "common/error.h"
#include "common/log.h"
#include "oci/config.h"
#include "spec/floor.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOT_SUPPORTED "not supported by sbrun: "

/* "MAJOR.MINOR…" as two numbers; false for anything else. */
static bool version_numbers(const char *v, unsigned long *major, unsigned long *minor)
{
        char *end = NULL;

        if (v == NULL || *v < '0' || *v > '9')
                return false;
        *major = strtoul(v, &end, 10);
        if (*end != '.' || end[1] < '0' || end[1] > '9')
                return false;
        *minor = strtoul(end + 1, NULL, 10);
        return true;
}

/* runc reads any ociVersion. sbrun refuses another major version: by
 * SemVer it may change what a field means, which sbrun cannot know. A newer
 * minor version of 1 only adds fields, so it is run, with a warning that
 * fields added after SBRUN_OCI_VERSION are not read. */
static int oci_version(const struct oci_config *config, struct floor_report *report,
                       struct sb_error *err)
{
        unsigned long major = 0, minor = 0, our_major = 0, our_minor = 0;
        char value[128], rule[128];

        snprintf(value, sizeof(value), "\"%.100s\"",
                 config->oci_version ? config->oci_version : "");
        if (!version_numbers(SBRUN_OCI_VERSION, &our_major, &our_minor))
                return 0;
        if (!version_numbers(config->oci_version, &major, &minor))
                return floor_refuse(report, err, "ociVersion", value,
                                    "a runtime-spec version is MAJOR.MINOR.PATCH");
        if (major > our_major) {
                snprintf(rule, sizeof(rule), "newer than sbrun supports (%s)", SBRUN_OCI_VERSION);
                return floor_refuse(report, err, "ociVersion", value, rule);
        }
        if (major < our_major)
                return floor_refuse(report, err, "ociVersion", value,
                                    "older than sbrun supports (1.0.0)");
        if (minor > our_minor && report->log)
                sb_warn("ociVersion: %s is newer than sbrun supports (%s): fields added since "
                        "are not read",
                        value, SBRUN_OCI_VERSION);
        return 0;
}

/* The process's scheduling is carried out (runtime/init/init_sched.h)
 * within what keeps the host responsive: nothing real-time, no negative
 * nice. Under both profiles: a container that raises itself over the
 * host's processes can starve them, and the kernel would let a root
 * container do it (CAP_SYS_NICE, CAP_SYS_ADMIN for the RT I/O class). */
#define STARVES "would let the container starve the host: "

static int io_priority(const struct oci_io_priority *io, const char *prefix,
                       struct floor_report *report, struct sb_error *err)
{
        char field[64], value[96];

        if (io->klass == NULL || strcmp(io->klass, "IOPRIO_CLASS_RT") != 0)
                return 0;
        snprintf(field, sizeof(field), "%s.ioPriority", prefix);
        snprintf(value, sizeof(value), "%s %" PRId32, io->klass, io->priority);
        return floor_refuse(report, err, field, value,
                            STARVES "the real-time I/O class goes before every other");
}

static bool policy_is(const struct oci_scheduler *s, const char *policy)
{
        return s->policy != NULL && strcmp(s->policy, policy) == 0;
}

static int scheduler(const struct oci_scheduler *s, const char *prefix, struct floor_report *report,
                     struct sb_error *err)
{
        char field[64], value[96];
        const char *rule = NULL;

        snprintf(field, sizeof(field), "%s.scheduler", prefix);
        snprintf(value, sizeof(value), "%s nice %" PRId32 " priority %" PRId32,
                 s->policy ? s->policy : "?", s->nice, s->priority);
        if (policy_is(s, "SCHED_FIFO") || policy_is(s, "SCHED_RR") ||
            policy_is(s, "SCHED_DEADLINE"))
                rule = STARVES "a real-time policy runs before every normal process";
        else if (policy_is(s, "SCHED_ISO"))
                rule = "not supported by sbrun: SCHED_ISO is not in Linux";
        else if (s->nice < 0)
                rule = STARVES "a negative nice weighs it above the host's processes";
        else if (s->nice > 19)
                rule = "nice is -20 to 19";
        /* runc's rules: the kernel takes a priority only for FIFO and RR,
         * the times only for DEADLINE. */
        else if (s->priority != 0)
                rule = "priority is for SCHED_FIFO and SCHED_RR only";
        else if (s->runtime != 0 || s->deadline != 0 || s->period != 0)
                rule = "runtime, deadline and period are for SCHED_DEADLINE only";
        if (rule == NULL)
                return 0;
        return floor_refuse(report, err, field, value, rule);
}

static int cpu_list(const char *list, const char *field, struct floor_report *report,
                    struct sb_error *err)
{
        unsigned long mask[CPU_LIST_WORDS];
        char value[96];

        /* Empty is the runtime-spec's "not given". */
        if (list == NULL || *list == '\0' || cpu_list_parse(list, mask) == 0)
                return 0;
        snprintf(value, sizeof(value), "\"%.80s\"", list);
        return floor_refuse(report, err, field, value,
                            "a CPU list is N or N-M items separated by commas, CPUs below 1024");
}

static int exec_cpu_affinity(const struct oci_exec_cpu_affinity *a, const char *prefix,
                             struct floor_report *report, struct sb_error *err)
{
        char initial[80], final[80];

        snprintf(initial, sizeof(initial), "%s.execCPUAffinity.initial", prefix);
        snprintf(final, sizeof(final), "%s.execCPUAffinity.final", prefix);
        if (cpu_list(a->initial, initial, report, err) < 0 ||
            cpu_list(a->final, final, report, err) < 0)
                return -1;
        return 0;
}

int floor_process_fields(const struct oci_process *p, const char *prefix,
                         struct floor_report *report, struct sb_error *err)
{
        if (p == NULL)
                return 0;
        if ((p->io_priority && io_priority(p->io_priority, prefix, report, err) < 0) ||
            (p->scheduler && scheduler(p->scheduler, prefix, report, err) < 0) ||
            (p->exec_cpu_affinity &&
             exec_cpu_affinity(p->exec_cpu_affinity, prefix, report, err) < 0))
                return -1;
        return 0;
}

/* Idmapped mounts (mounts[].uidMappings/gidMappings, the idmap and ridmap
 * options), carried out by runtime/sandbox/idmap_mount.h. A mapping range
 * "containerID hostID size" makes the file system's id containerID+k (what
 * the host's disk holds) the id hostID+k (what the container's user
 * namespace maps to its own ids): a file the container creates there as
 * hostID+k is written to the host's disk as containerID+k. Without the
 * mount, the container can only give the host's disk the ids its user
 * namespace maps (linux.*Mappings' hostID ranges). The floor keeps it so:
 * every id the mount writes to the disk (each range's containerID side)
 * must be one of those. A mapping that writes the host's root, or another
 * host user, would let the container leave a setuid file of theirs in a
 * host directory. So the container needs a user namespace of its own whose
 * mappings the config states (joined by path, they are not known here).
 * An operator whose engines are trusted with that (podman's :idmap maps the
 * disk's root to the container's, as crun carries it out) sets
 * floor.volumes.idmap "engine": standard then takes the ids as asked;
 * strict never does (ctx->idmap_engine_ids). */

static bool is_idmap_option(const struct oci_mount *m, bool *recursive)
{
        bool found = false;

        for (size_t k = 0; k < m->n_options; k++) {
                if (strcmp(m->options[k], "ridmap") == 0)
                        *recursive = found = true;
                else if (strcmp(m->options[k], "idmap") == 0)
                        found = true;
        }
        return found;
}

/* Is [first, first + size) inside the union of the ranges' hostID sides?
 * Walked id by id over the ranges (at most five of each kind). */
static bool within_host_ranges(uint64_t first, uint64_t size, const struct oci_idmap *maps,
                               size_t n)
{
        uint64_t id = first, end = first + size;

        while (id < end) {
                bool advanced = false;
                for (size_t r = 0; r < n; r++) {
                        uint64_t lo = maps[r].host_id, hi = lo + maps[r].size;
                        if (id >= lo && id < hi) {
                                id = hi;
                                advanced = true;
                        }
                }
                if (!advanced)
                        return false;
        }
        return true;
}

static const char *const idmap_rule =
        "standard: an idmapped mount writes to the disk only ids the container's own user "
        "namespace maps";

static int idmap_ranges(const struct oci_idmap *maps, size_t n, const struct oci_idmap *own,
                        size_t n_own, bool any_ids, const char *field, const char *whose,
                        struct floor_report *report, struct sb_error *err)
{
        char value[192];

        if (n > 5) {
                snprintf(value, sizeof(value), "%zu ranges", n);
                return floor_refuse(report, err, field, value,
                                    NOT_SUPPORTED "more than 5 ranges (the kernel's limit for "
                                                  "a user namespace sbrun can write at once)");
        }
        for (size_t r = 0; r < n; r++) {
                uint64_t first = maps[r].container_id, size = maps[r].size;
                snprintf(value, sizeof(value),
                         "%scontainerID %" PRIu32 " hostID %" PRIu32 " size %" PRIu32, whose,
                         maps[r].container_id, maps[r].host_id, maps[r].size);
                if (size == 0 || first + size > UINT32_MAX ||
                    (uint64_t)maps[r].host_id + size > UINT32_MAX) {
                        if (floor_refuse(report, err, field, value,
                                         "a range must be non-empty and within 32 bits") < 0)
                                return -1;
                        continue;
                }
                if (!any_ids && !within_host_ranges(first, size, own, n_own) &&
                    floor_refuse(report, err, field, value, idmap_rule) < 0)
                        return -1;
        }
        return 0;
}

static bool own_user_namespace(const struct oci_linux *l)
{
        for (size_t k = 0; l != NULL && k < l->n_namespaces; k++)
                if (l->namespaces[k].type == OCI_NS_USER && l->namespaces[k].path == NULL)
                        return l->n_uid_mappings > 0 && l->n_gid_mappings > 0;
        return false;
}

static int mount_idmaps(const struct oci_config *config, const struct floor_context *ctx,
                        struct floor_report *report, struct sb_error *err)
{
        const struct oci_linux *l = config->linux_;

        for (size_t i = 0; i < config->n_mounts; i++) {
                const struct oci_mount *m = &config->mounts[i];
                bool recursive = false;
                bool option = is_idmap_option(m, &recursive);
                char field[64], value[160];

                if (!option && m->n_uid_mappings == 0 && m->n_gid_mappings == 0)
                        continue;
                snprintf(field, sizeof(field), "mounts[%zu].%s", i,
                         m->n_uid_mappings ? "uidMappings" :
                         m->n_gid_mappings ? "gidMappings" :
                                             "options");
                if (!oci_mount_is_bind(m)) {
                        snprintf(value, sizeof(value), "a %.40s mount",
                                 m->type ? m->type : "(no type)");
                        if (floor_refuse(report, err, field, value,
                                         NOT_SUPPORTED "only a bind mount can be idmapped") < 0)
                                return -1;
                        continue;
                }
                if ((m->n_uid_mappings == 0) != (m->n_gid_mappings == 0)) {
                        const char *missing =
                                m->n_uid_mappings == 0 ? "uidMappings" : "gidMappings";
                        snprintf(field, sizeof(field), "mounts[%zu].%s", i, missing);
                        if (floor_refuse(report, err, field, "(missing)",
                                         "an idmapped mount needs both uidMappings and "
                                         "gidMappings, or neither (the container's own)") < 0)
                                return -1;
                        continue;
                }
                if (!own_user_namespace(l)) {
                        snprintf(value, sizeof(value), "\"%s\" (%.40s)",
                                 recursive ? "ridmap" : "idmap",
                                 m->destination ? m->destination : "?");
                        if (floor_refuse(report, err, field, value,
                                         "standard: an idmapped mount needs a new user namespace "
                                         "with linux.uidMappings and linux.gidMappings, to judge "
                                         "its ids against") < 0)
                                return -1;
                        continue;
                }
                const struct {
                        const char *key;
                        const struct oci_idmap *maps, *own;
                        size_t n, n_own;
                } kinds[] = {
                        { "uidMappings", m->uid_mappings, l->uid_mappings, m->n_uid_mappings,
                          l->n_uid_mappings },
                        { "gidMappings", m->gid_mappings, l->gid_mappings, m->n_gid_mappings,
                          l->n_gid_mappings },
                };
                for (size_t k = 0; k < 2; k++) {
                        const struct oci_idmap *maps = kinds[k].maps;
                        size_t n = kinds[k].n;
                        const char *whose = "";
                        /* As crun and runc 1.2: without its own, the container's. */
                        if (n == 0) {
                                maps = kinds[k].own;
                                n = kinds[k].n_own;
                                whose = "the container's own mapping, ";
                        }
                        snprintf(field, sizeof(field), "mounts[%zu].%s", i, kinds[k].key);
                        if (idmap_ranges(maps, n, kinds[k].own, kinds[k].n_own,
                                         ctx->idmap_engine_ids, field, whose, report, err) < 0)
                                return -1;
                }
        }
        return 0;
}

static int intel_rdt(const struct oci_intel_rdt *rdt, struct floor_report *report,
                     struct sb_error *err)
{
        char value[128];

        if (rdt->clos_id != NULL)
                snprintf(value, sizeof(value), "closID \"%.100s\"", rdt->clos_id);
        else
                snprintf(value, sizeof(value), "(set)");
        return floor_refuse(report, err, "linux.intelRdt", value,
                            NOT_SUPPORTED "no resctrl (Intel RDT) group is made");
}

static int memory_policy(const struct oci_memory_policy *mp, struct floor_report *report,
                         struct sb_error *err)
{
        char value[160];

        snprintf(value, sizeof(value), "%.60s nodes \"%.60s\"", mp->mode ? mp->mode : "?",
                 mp->nodes ? mp->nodes : "");
        return floor_refuse(report, err, "linux.memoryPolicy", value,
                            NOT_SUPPORTED "the NUMA policy (set_mempolicy) is not set");
}

static int time_offsets(const struct oci_linux *l, struct floor_report *report,
                        struct sb_error *err)
{
        char value[128];

        snprintf(value, sizeof(value), "%.20s %.60s", l->time_offsets[0].key,
                 l->time_offsets[0].value);
        return floor_refuse(report, err, "linux.timeOffsets", value,
                            NOT_SUPPORTED "offsets need a time namespace, which bwrap cannot make");
}

/* LINUX is carried out (personality(PER_LINUX)). LINUX32 would ask for
 * 32-bit system calls, which the floor seccomp filter denies every one of
 * (runtime/seccomp/floor_seccomp.c kills other architectures): refused here, by name, rather than a
 * container that fails at its first call. The runtime-spec defines no
 * flag, and a flag such as ADDR_NO_RANDOMIZE would weaken the container. */
static int personality(const struct oci_personality *p, struct floor_report *report,
                       struct sb_error *err)
{
        char value[96];

        snprintf(value, sizeof(value), "%.60s%s", p->domain ? p->domain : "?",
                 p->n_flags ? " with flags" : "");
        if (p->domain != NULL && strcmp(p->domain, "LINUX32") == 0)
                return floor_refuse(report, err, "linux.personality", value,
                                    "32-bit system calls are denied by the floor seccomp filter");
        if (p->n_flags > 0)
                return floor_refuse(report, err, "linux.personality", value,
                                    NOT_SUPPORTED "the runtime-spec defines no personality flag");
        return 0;
}

int floor_spec_fields(struct oci_config *config, const struct floor_context *ctx,
                      struct floor_report *report, struct sb_error *err)
{
        const struct oci_linux *l = config->linux_;

        if (oci_version(config, report, err) < 0 ||
            floor_process_fields(config->process, "process", report, err) < 0 ||
            mount_idmaps(config, ctx, report, err) < 0)
                return -1;
        if (l == NULL)
                return 0;
        if ((l->intel_rdt && intel_rdt(l->intel_rdt, report, err) < 0) ||
            (l->memory_policy && memory_policy(l->memory_policy, report, err) < 0) ||
            (l->n_time_offsets > 0 && time_offsets(l, report, err) < 0) ||
            (l->personality && personality(l->personality, report, err) < 0))
                return -1;
        return 0;
}
