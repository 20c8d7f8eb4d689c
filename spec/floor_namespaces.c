/* Namespaces: no entry for pid or ipc (the host's) refused; mount, uts and
 * cgroup always new; never the host's own namespace by path; a network
 * namespace of the container's own (strict: a new, empty one); only sysctls
 * such a namespace isolates. */
#include "spec/floor.h"

#include "common/error.h"
#include "oci/config.h"
#include "spec/sysctl_namespaces.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const enum oci_namespace_type always_new[] = { OCI_NS_MOUNT, OCI_NS_UTS, OCI_NS_CGROUP };

/* No pid or ipc entry is an engine's request to share the host's (podman
 * --pid=host / --ipc=host, Kubernetes hostPID / hostIPC): the workload would
 * believe it sees the host's processes or shared memory. A new namespace in
 * its place would be a silent divergence, so the request is refused, as the
 * host network is. */
static const enum oci_namespace_type never_host[] = { OCI_NS_PID, OCI_NS_IPC };

static int add_namespace(struct oci_linux *linux_, enum oci_namespace_type type,
                         struct sb_error *err)
{
        struct oci_namespace *grown =
                realloc(linux_->namespaces, (linux_->n_namespaces + 1) * sizeof(*grown));
        if (grown == NULL)
                return sb_fail(err, ENOMEM, "linux.namespaces");
        linux_->namespaces = grown;
        grown[linux_->n_namespaces].type = type;
        grown[linux_->n_namespaces].path = NULL;
        linux_->n_namespaces++;
        return 0;
}

static struct oci_namespace *find(struct oci_linux *linux_, enum oci_namespace_type type,
                                  size_t *index)
{
        for (size_t i = 0; i < linux_->n_namespaces; i++) {
                if (linux_->namespaces[i].type == type) {
                        *index = i;
                        return &linux_->namespaces[i];
                }
        }
        return NULL;
}

static int network(struct oci_linux *linux_, const struct floor_context *ctx,
                   struct floor_report *report, struct sb_error *err)
{
        size_t i = 0;
        struct oci_namespace *ns = find(linux_, OCI_NS_NETWORK, &i);
        char field[64];

        if (ns == NULL && ctx->profile->no_network) {
                if (add_namespace(linux_, OCI_NS_NETWORK, err) < 0)
                        return -1;
                return floor_note(report, err, FLOOR_ADDED, "linux.namespaces.network",
                                  "host network", "new empty network namespace",
                                  "strict: no network");
        }
        /* No entry is podman's --network host: the host's interfaces, its
         * abstract unix sockets and its netlink would all be reachable. */
        if (ns == NULL)
                return floor_refuse(report, err, "linux.namespaces", "the host network namespace",
                                    "standard: no host network namespace");
        snprintf(field, sizeof(field), "linux.namespaces[%zu].path", i);
        if (ns->path != NULL && ctx->profile->no_network)
                return floor_refuse(report, err, field, ns->path,
                                    "strict: no network, joining a network namespace");
        return 0;
}

static int sysctls(const struct oci_linux *linux_, struct floor_report *report,
                   struct sb_error *err)
{
        for (size_t i = 0; i < linux_->n_sysctl; i++) {
                enum oci_namespace_type type;
                char field[300], value[300];
                snprintf(field, sizeof(field), "linux.sysctl[\"%s\"]", linux_->sysctl[i].key);
                snprintf(value, sizeof(value), "\"%s\"", linux_->sysctl[i].value);
                if (!sysctl_namespace(linux_->sysctl[i].key, &type) &&
                    floor_refuse(report, err, field, value, "standard: only namespaced sysctls") <
                            0)
                        return -1;
        }
        return 0;
}

int floor_namespaces(struct oci_config *config, const struct floor_context *ctx,
                     struct floor_report *report, struct sb_error *err)
{
        struct oci_linux *linux_ = config->linux_;

        for (size_t i = 0; i < linux_->n_namespaces; i++) {
                const struct oci_namespace *ns = &linux_->namespaces[i];
                char field[64];
                snprintf(field, sizeof(field), "linux.namespaces[%zu].path", i);
                /* Joining the host's own namespace would be no namespace at
                 * all. */
                if (ns->path != NULL && ctx->host->ns_is_host != NULL && i < ctx->host->n_ns &&
                    ctx->host->ns_is_host[i] &&
                    floor_refuse(report, err, field, ns->path,
                                 "standard: never the host's own namespace") < 0)
                        return -1;
        }
        for (size_t k = 0; k < sizeof(never_host) / sizeof(never_host[0]); k++) {
                size_t i = 0;
                char value[64], rule[64];
                const char *name = oci_namespace_type_name(never_host[k]);
                if (find(linux_, never_host[k], &i) != NULL)
                        continue;
                snprintf(value, sizeof(value), "the host %s namespace", name);
                snprintf(rule, sizeof(rule), "standard: no host %s namespace", name);
                if (floor_refuse(report, err, "linux.namespaces", value, rule) < 0)
                        return -1;
        }
        for (size_t k = 0; k < sizeof(always_new) / sizeof(always_new[0]); k++) {
                size_t i = 0;
                char field[64];
                if (find(linux_, always_new[k], &i) != NULL)
                        continue;
                if (add_namespace(linux_, always_new[k], err) < 0)
                        return -1;
                snprintf(field, sizeof(field), "linux.namespaces.%s",
                         oci_namespace_type_name(always_new[k]));
                if (floor_note(report, err, FLOOR_ADDED, field, "host", "new",
                               "standard: mount, uts and cgroup namespaces always new") < 0)
                        return -1;
        }
        if (sysctls(linux_, report, err) < 0)
                return -1;
        return network(linux_, ctx, report, err);
}
