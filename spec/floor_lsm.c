#include "spec/floor_lsm.h"

#include "common/error.h"
#include "common/log.h"
#include "oci/config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The kernel's limit on a security context or profile name written to
 * /proc/self/attr is a page; keep well under it. */
#define LSM_VALUE_MAX 4000

static bool set(const char *s)
{
        return s != NULL && *s != '\0';
}

static bool printable_no_space(const char *s)
{
        for (const unsigned char *p = (const unsigned char *)s; *p; p++)
                if (*p <= ' ' || *p == 0x7f)
                        return false;
        return true;
}

bool floor_lsm_selinux_label_valid(const char *label)
{
        if (!set(label) || strlen(label) > LSM_VALUE_MAX || !printable_no_space(label))
                return false;
        /* user, role and type are non-empty; the level (MLS/MCS) may hold
         * colons of its own (s0-s0:c0.c1023). */
        const char *p = label;
        for (int field = 0; field < 3; field++) {
                const char *colon = strchr(p, ':');
                size_t len = colon ? (size_t)(colon - p) : strlen(p);
                if (len == 0 || (field < 2 && colon == NULL))
                        return false;
                if (colon == NULL)
                        return true;
                p = colon + 1;
        }
        return *p != '\0';
}

/* "unconfined" is AppArmor's name for no profile: never listed, always
 * accepted (docker's --security-opt apparmor=unconfined). */
static bool profile_loaded(const struct lsm_host_facts *host, const char *name)
{
        if (host->apparmor_profiles == NULL || strcmp(name, "unconfined") == 0)
                return true;
        for (size_t i = 0; i < host->n_apparmor_profiles; i++)
                if (strcmp(host->apparmor_profiles[i], name) == 0)
                        return true;
        return false;
}

static void drop(char **field, const char *what, const char *reason)
{
        sb_warn("%s: \"%s\" ignored: %s", what, *field, reason);
        free(*field);
        *field = NULL;
}

static int inherit(char **field, const char *from, struct sb_error *err)
{
        if (set(*field) || !set(from))
                return 0;
        free(*field);
        *field = strdup(from);
        return *field ? 0 : sb_fail(err, ENOMEM, "exec: the container's LSM labels");
}

static int decide_apparmor(const struct lsm_host_facts *host, char **profile, struct sb_error *err)
{
        if (!set(*profile))
                return 0;
        if (!host->apparmor_enabled) {
                drop(profile, "process.apparmorProfile",
                     host->apparmor_off ? host->apparmor_off :
                                          "AppArmor is not enabled on this host");
                return 0;
        }
        if (strlen(*profile) > LSM_VALUE_MAX || strchr(*profile, '\n') != NULL)
                return sb_fail(err, 0, "process.apparmorProfile: \"%s\" is not a profile name",
                               *profile);
        if (!profile_loaded(host, *profile))
                return sb_fail(err, 0, "process.apparmorProfile: \"%s\" is not loaded", *profile);
        return 0;
}

static int decide_selinux(const struct lsm_host_facts *host, char **label, const char *what,
                          struct sb_error *err)
{
        if (!set(*label))
                return 0;
        if (!host->selinux_enabled) {
                drop(label, what,
                     host->selinux_off ? host->selinux_off : "SELinux is not enabled on this host");
                return 0;
        }
        if (!floor_lsm_selinux_label_valid(*label))
                return sb_fail(err, 0,
                               "%s: \"%s\" is not an SELinux context (user:role:type[:level])",
                               what, *label);
        return 0;
}

int floor_lsm_decide(const struct lsm_host_facts *host, struct oci_process *process,
                     const struct oci_process *container, char **mount_label, struct sb_error *err)
{
        if (container != NULL &&
            (inherit(&process->apparmor_profile, container->apparmor_profile, err) < 0 ||
             inherit(&process->selinux_label, container->selinux_label, err) < 0))
                return -1;
        if (decide_apparmor(host, &process->apparmor_profile, err) < 0 ||
            decide_selinux(host, &process->selinux_label, "process.selinuxLabel", err) < 0)
                return -1;
        if (mount_label != NULL && decide_selinux(host, mount_label, "linux.mountLabel", err) < 0)
                return -1;
        return 0;
}
