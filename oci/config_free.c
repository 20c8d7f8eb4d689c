/* Release of a parsed config. Safe on partially filled structures: the
 * parsers set counts when they allocate arrays, and unset members are NULL. */
#include "oci/config.h"
#include "oci/config_parse_internal.h"

#include "common/strv.h"

#include <stdlib.h>

void oci_kv_free(struct oci_kv *kv, size_t n)
{
        if (kv == NULL)
                return;
        for (size_t i = 0; i < n; i++) {
                free(kv[i].key);
                free(kv[i].value);
        }
        free(kv);
}

static void hook_list_free(struct oci_hook_list *list)
{
        for (size_t i = 0; i < list->n; i++) {
                free(list->hooks[i].path);
                strv_free_n(list->hooks[i].args, list->hooks[i].n_args);
                strv_free_n(list->hooks[i].env, list->hooks[i].n_env);
        }
        free(list->hooks);
}

static void mounts_free(struct oci_mount *mounts, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(mounts[i].destination);
                free(mounts[i].type);
                free(mounts[i].source);
                strv_free_n(mounts[i].options, mounts[i].n_options);
                free(mounts[i].uid_mappings);
                free(mounts[i].gid_mappings);
        }
        free(mounts);
}

void oci_process_free(struct oci_process *proc)
{
        if (proc == NULL)
                return;
        free(proc->user.additional_gids);
        free(proc->user.username);
        strv_free_n(proc->args, proc->n_args);
        free(proc->command_line);
        strv_free_n(proc->env, proc->n_env);
        free(proc->cwd);
        for (size_t i = 0; i < proc->n_rlimits; i++)
                free(proc->rlimits[i].type);
        free(proc->rlimits);
        free(proc->apparmor_profile);
        free(proc->selinux_label);
        if (proc->io_priority != NULL)
                free(proc->io_priority->klass);
        free(proc->io_priority);
        if (proc->scheduler != NULL) {
                free(proc->scheduler->policy);
                strv_free_n(proc->scheduler->flags, proc->scheduler->n_flags);
        }
        free(proc->scheduler);
        if (proc->exec_cpu_affinity != NULL) {
                free(proc->exec_cpu_affinity->initial);
                free(proc->exec_cpu_affinity->final);
        }
        free(proc->exec_cpu_affinity);
        free(proc);
}

static void seccomp_free(struct oci_seccomp *s)
{
        if (s == NULL)
                return;
        free(s->default_action);
        strv_free_n(s->architectures, s->n_architectures);
        strv_free_n(s->flags, s->n_flags);
        free(s->listener_path);
        free(s->listener_metadata);
        for (size_t i = 0; i < s->n_syscalls; i++) {
                struct oci_seccomp_syscall *sc = &s->syscalls[i];
                strv_free_n(sc->names, sc->n_names);
                free(sc->action);
                for (size_t j = 0; j < sc->n_args; j++)
                        free(sc->args[j].op);
                free(sc->args);
        }
        free(s->syscalls);
        free(s);
}

static void block_io_free(struct oci_block_io *b)
{
        if (b == NULL)
                return;
        free(b->weight_devices);
        free(b->throttle_read_bps.devices);
        free(b->throttle_write_bps.devices);
        free(b->throttle_read_iops.devices);
        free(b->throttle_write_iops.devices);
        free(b);
}

void oci_resources_free(struct oci_resources *r)
{
        if (r == NULL)
                return;
        for (size_t i = 0; i < r->n_devices; i++) {
                free(r->devices[i].type);
                free(r->devices[i].access);
        }
        free(r->devices);
        free(r->memory);
        if (r->cpu != NULL) {
                free(r->cpu->cpus);
                free(r->cpu->mems);
        }
        free(r->cpu);
        block_io_free(r->block_io);
        for (size_t i = 0; i < r->n_hugepage_limits; i++)
                free(r->hugepage_limits[i].page_size);
        free(r->hugepage_limits);
        for (size_t i = 0; i < r->n_net_priorities; i++)
                free(r->net_priorities[i].name);
        free(r->net_priorities);
        for (size_t i = 0; i < r->n_rdma; i++)
                free(r->rdma[i].device);
        free(r->rdma);
        oci_kv_free(r->unified, r->n_unified);
        free(r);
}

void oci_linux_free(struct oci_linux *l)
{
        if (l == NULL)
                return;
        for (size_t i = 0; i < l->n_namespaces; i++)
                free(l->namespaces[i].path);
        free(l->namespaces);
        free(l->uid_mappings);
        free(l->gid_mappings);
        for (size_t i = 0; i < l->n_devices; i++)
                free(l->devices[i].path);
        free(l->devices);
        free(l->cgroups_path);
        oci_resources_free(l->resources);
        free(l->rootfs_propagation);
        seccomp_free(l->seccomp);
        oci_kv_free(l->sysctl, l->n_sysctl);
        strv_free_n(l->masked_paths, l->n_masked_paths);
        strv_free_n(l->readonly_paths, l->n_readonly_paths);
        free(l->mount_label);
        if (l->intel_rdt != NULL) {
                free(l->intel_rdt->clos_id);
                strv_free_n(l->intel_rdt->schemata, l->intel_rdt->n_schemata);
                free(l->intel_rdt->l3_cache_schema);
                free(l->intel_rdt->mem_bw_schema);
        }
        free(l->intel_rdt);
        if (l->personality != NULL) {
                free(l->personality->domain);
                strv_free_n(l->personality->flags, l->personality->n_flags);
        }
        free(l->personality);
        oci_kv_free(l->time_offsets, l->n_time_offsets);
        if (l->memory_policy != NULL) {
                free(l->memory_policy->mode);
                free(l->memory_policy->nodes);
                strv_free_n(l->memory_policy->flags, l->memory_policy->n_flags);
        }
        free(l->memory_policy);
        oci_kv_free(l->net_devices, l->n_net_devices);
        free(l);
}

void oci_config_free(struct oci_config *c)
{
        if (c == NULL)
                return;
        free(c->oci_version);
        free(c->root.path);
        mounts_free(c->mounts, c->n_mounts);
        oci_process_free(c->process);
        free(c->hostname);
        free(c->domainname);
        hook_list_free(&c->hooks.prestart);
        hook_list_free(&c->hooks.create_runtime);
        hook_list_free(&c->hooks.create_container);
        hook_list_free(&c->hooks.start_container);
        hook_list_free(&c->hooks.poststart);
        hook_list_free(&c->hooks.poststop);
        oci_kv_free(c->annotations, c->n_annotations);
        oci_linux_free(c->linux_);
        free(c);
}
