#include "runtime/host/floor_host.h"

#include "common/error.h"
#include "oci/config.h"
#include "runtime/container/global_options.h"
#include "runtime/host/io_backing.h"
#include "runtime/host/path_identity.h"
#include "runtime/host/quota_host.h"
#include "runtime/sandbox/bind_sources.h"
#include "runtime/sandbox/bwrap_binary.h"
#include "spec/operator_policy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int64_t host_memory(void)
{
        FILE *f = fopen("/proc/meminfo", "re");
        long long kib = 0;

        if (f == NULL)
                return 0;
        if (fscanf(f, "MemTotal: %lld kB", &kib) != 1 || kib < 0)
                kib = 0;
        fclose(f);
        return kib * 1024;
}

static bool same_file(const struct stat *a, const char *path)
{
        struct stat b;
        return stat(path, &b) == 0 && a->st_ino == b.st_ino && a->st_dev == b.st_dev;
}

/* Pid 1's namespace, or the runtime's own: where pid 1's is out of reach
 * (a nested sandbox) the runtime's is the host's as far as it can tell. */
static bool is_host_namespace(const struct oci_namespace *ns)
{
        char host[64], self[64];
        struct stat a;

        if (stat(ns->path, &a) < 0)
                return false;
        snprintf(host, sizeof(host), "/proc/1/ns/%s", oci_namespace_proc_name(ns->type));
        snprintf(self, sizeof(self), "/proc/self/ns/%s", oci_namespace_proc_name(ns->type));
        return same_file(&a, host) || same_file(&a, self);
}

/* Only the mounts the floor judges as volumes are probed. */
static int gather_volumes(const struct oci_config *config, const struct bind_sources *binds,
                          struct floor_host_facts *f, struct sb_error *err)
{
        size_t n = binds->n < config->n_mounts ? binds->n : config->n_mounts;

        if (n == 0)
                return 0;
        f->volumes = calloc(n, sizeof(*f->volumes));
        if (f->volumes == NULL)
                return sb_fail(err, ENOMEM, "mounts");
        for (size_t i = 0; i < n; i++) {
                if (binds->fds[i] >= 0 &&
                    floor_mount_is_volume(&config->mounts[i], &binds->stats[i]))
                        quota_host_probe(binds->fds[i], &binds->stats[i], &f->volumes[i]);
        }
        f->host.volumes = f->volumes;
        f->host.n_volumes = n;
        return 0;
}

/* What the root and every bind source are, and the trees they are judged
 * against. */
static int gather_identities(const struct oci_config *config, const struct bind_sources *binds,
                             int root_fd, const struct floor_tree_paths *paths,
                             struct floor_host_facts *f, struct sb_error *err)
{
        if (paths != NULL) {
                if (floor_trees_plan(paths, &f->trees, &f->n_trees, err) < 0 ||
                    path_identity_trees(f->trees, f->n_trees, err) < 0)
                        return -1;
                f->host.trees = f->trees;
                f->host.n_trees = f->n_trees;
        }
        if (root_fd >= 0) {
                if (path_identity_of_fd(root_fd, &f->root, err) < 0)
                        return sb_error_prefix(err, "root.path: \"%s\"", config->root.path);
                f->host.root = &f->root;
                if (path_identity_submounts(&f->root, &f->root_subs, err) < 0)
                        return -1;
                f->host.root_submounts = &f->root_subs;
        }
        if (binds == NULL || binds->n == 0)
                return 0;
        f->ids = calloc(binds->n, sizeof(*f->ids));
        f->bind_ids = calloc(binds->n, sizeof(*f->bind_ids));
        f->subs = calloc(binds->n, sizeof(*f->subs));
        f->sub_ptrs = calloc(binds->n, sizeof(*f->sub_ptrs));
        if (f->ids == NULL || f->bind_ids == NULL || f->subs == NULL || f->sub_ptrs == NULL)
                return sb_fail(err, ENOMEM, "mounts");
        f->host.bind_submounts = (const struct floor_identity_list *const *)f->sub_ptrs;
        f->host.binds = (const struct floor_identity *const *)f->bind_ids;
        f->host.n_binds = binds->n;
        for (size_t i = 0; i < binds->n && i < config->n_mounts; i++) {
                if (binds->fds[i] < 0 || binds->paths[i] == NULL)
                        continue;
                if (path_identity_of_fd(binds->fds[i], &f->ids[i], err) < 0)
                        return sb_error_prefix(err, "mounts[%zu].source: \"%s\"", i,
                                               config->mounts[i].source);
                f->bind_ids[i] = &f->ids[i];
                if (!S_ISDIR(binds->stats[i].st_mode))
                        continue;
                if (path_identity_submounts(&f->ids[i], &f->subs[i], err) < 0)
                        return -1;
                f->sub_ptrs[i] = &f->subs[i];
        }
        return 0;
}

/* Every bind is probed, read-only ones too: their disks are read. */
static int gather_io(const struct oci_config *config, const struct bind_sources *binds, int root_fd,
                     struct floor_host_facts *f, struct sb_error *err)
{
        size_t n = binds != NULL ? (binds->n < config->n_mounts ? binds->n : config->n_mounts) : 0;

        if (root_fd >= 0) {
                io_backing_probe(root_fd, &f->io_root);
                f->host.io_root = &f->io_root;
        }
        if (n == 0)
                return 0;
        f->io_binds = calloc(n, sizeof(*f->io_binds));
        if (f->io_binds == NULL)
                return sb_fail(err, ENOMEM, "mounts");
        for (size_t i = 0; i < n; i++) {
                if (binds->fds[i] >= 0 && binds->paths[i] != NULL)
                        io_backing_probe(binds->fds[i], &f->io_binds[i]);
        }
        f->host.io_binds = f->io_binds;
        f->host.n_io_binds = n;
        return 0;
}

int floor_host_gather(const struct oci_config *config, const struct bind_sources *binds,
                      int root_fd, const struct floor_tree_paths *trees, struct floor_host_facts *f,
                      struct sb_error *err)
{
        const struct oci_linux *l = config->linux_;

        memset(f, 0, sizeof(*f));
        f->host.memory = host_memory();
        if (binds != NULL && gather_volumes(config, binds, f, err) < 0)
                return -1;
        if (gather_identities(config, binds, root_fd, trees, f, err) < 0 ||
            gather_io(config, binds, root_fd, f, err) < 0)
                return -1;
        if (l == NULL || l->n_namespaces == 0)
                return 0;
        f->ns_is_host = calloc(l->n_namespaces, sizeof(*f->ns_is_host));
        if (f->ns_is_host == NULL)
                return sb_fail(err, ENOMEM, "linux.namespaces");
        for (size_t i = 0; i < l->n_namespaces; i++)
                f->ns_is_host[i] =
                        l->namespaces[i].path != NULL && is_host_namespace(&l->namespaces[i]);
        f->host.ns_is_host = f->ns_is_host;
        f->host.n_ns = l->n_namespaces;
        return 0;
}

void floor_host_release(struct floor_host_facts *f)
{
        free(f->ns_is_host);
        free(f->volumes);
        free(f->io_binds);
        floor_identity_release(&f->root);
        for (size_t i = 0; f->ids != NULL && i < f->host.n_binds; i++)
                floor_identity_release(&f->ids[i]);
        for (size_t i = 0; f->subs != NULL && i < f->host.n_binds; i++)
                floor_identity_list_release(&f->subs[i]);
        free(f->subs);
        free(f->sub_ptrs);
        floor_identity_list_release(&f->root_subs);
        free(f->ids);
        free(f->bind_ids);
        floor_trees_release(f->trees, f->n_trees);
        memset(f, 0, sizeof(*f));
}

void floor_host_tree_paths(const struct global_options *global, const char *audit_dir,
                           struct floor_tree_paths *paths)
{
        paths->state_root = global->root;
        paths->audit_dir = audit_dir;
        paths->policy_file = global->policy_path ? global->policy_path : OPERATOR_POLICY_PATH;
        paths->bwrap = sbrun_bwrap_path;
        paths->self = "/proc/self/exe";
}
