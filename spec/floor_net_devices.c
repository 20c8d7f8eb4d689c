/* linux.netDevices (runtime-spec 1.3): a network device of the runtime's
 * network namespace moved into the container's, under the name it asks
 * for. The device is a host resource: whatever reaches it is beyond the
 * host's firewall, and the floor keeps the container off the host's
 * network. So the config alone can take none: only the devices the
 * operator names in floor.net_devices (spec/operator_policy.h) are moved,
 * under standard; strict, which gives a container no network, refuses
 * every one. runtime/host/net_devices.c carries the move out. */
#include "config.h"

#include "common/error.h"
#include "oci/config.h"
#include "spec/floor.h"

#include <ctype.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

bool floor_net_device_name_valid(const char *name, bool template_ok)
{
        const char *pct;

        /* The kernel's dev_valid_name: what it would refuse with EINVAL. */
        if (name == NULL || name[0] == '\0' || strlen(name) >= IFNAMSIZ || strcmp(name, ".") == 0 ||
            strcmp(name, "..") == 0)
                return false;
        for (const char *s = name; *s != '\0'; s++) {
                if (*s == '/' || *s == ':' || isspace((unsigned char)*s))
                        return false;
        }
        /* A template names one number, "%d", as dev_alloc_name takes it. */
        pct = strchr(name, '%');
        if (pct == NULL)
                return true;
        return template_ok && pct[1] == 'd' && strchr(pct + 2, '%') == NULL;
}

static bool allowed(const char *name, const struct floor_context *ctx)
{
        for (char *const *a = ctx->net_devices; a != NULL && *a != NULL; a++) {
                if (strcmp(*a, name) == 0)
                        return true;
        }
        return false;
}

static bool has_own_network(const struct oci_linux *l)
{
        for (size_t i = 0; i < l->n_namespaces; i++) {
                if (l->namespaces[i].type == OCI_NS_NETWORK)
                        return true;
        }
        return false;
}

/* The name the device has inside: "name", or its own when none is given
 * (an empty one too, as runc takes it). */
static const char *inside_name(const struct oci_kv *kv)
{
        return kv->value != NULL && kv->value[0] != '\0' ? kv->value : kv->key;
}

static int one(const struct oci_linux *l, size_t i, const struct floor_context *ctx,
               struct floor_report *report, struct sb_error *err)
{
        const struct oci_kv *kv = &l->net_devices[i];
        const char *inside = inside_name(kv);
        char value[128];

        snprintf(value, sizeof(value), "\"%.40s\"", kv->key);
        if (ctx->profile->no_network)
                return floor_refuse(report, err, "linux.netDevices", value,
                                    "strict: no network, no host network device");
        if (!floor_net_device_name_valid(kv->key, false))
                return floor_refuse(report, err, "linux.netDevices", value,
                                    "not a valid network device name");
        snprintf(value, sizeof(value), "\"%.40s\" name \"%.40s\"", kv->key, inside);
        if (!floor_net_device_name_valid(inside, true))
                return floor_refuse(report, err, "linux.netDevices", value,
                                    "not a valid network device name");
        for (size_t j = 0; j < i; j++) {
                if (strcmp(inside_name(&l->net_devices[j]), inside) == 0 &&
                    strchr(inside, '%') == NULL)
                        return floor_refuse(report, err, "linux.netDevices", value,
                                            "two devices of the same name in the container");
        }
        snprintf(value, sizeof(value), "\"%.40s\"", kv->key);
        /* A key given twice in the JSON object: one device, one move. */
        for (size_t j = 0; j < i; j++) {
                if (strcmp(l->net_devices[j].key, kv->key) == 0)
                        return floor_refuse(report, err, "linux.netDevices", value,
                                            "the same device named twice");
        }
        if (!has_own_network(l))
                return floor_refuse(report, err, "linux.netDevices", value,
                                    "needs a network namespace of the container's own");
        if (!allowed(kv->key, ctx))
                return floor_refuse(report, err, "linux.netDevices", value,
                                    "standard: only the network devices floor.net_devices names");
        return 0;
}

int floor_net_devices(struct oci_config *config, const struct floor_context *ctx,
                      struct floor_report *report, struct sb_error *err)
{
        const struct oci_linux *l = config->linux_;

        if (l == NULL)
                return 0;
        for (size_t i = 0; i < l->n_net_devices; i++) {
                if (one(l, i, ctx, report, err) < 0)
                        return -1;
        }
        return 0;
}
