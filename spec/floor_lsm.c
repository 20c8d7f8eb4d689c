#include "spec/floor_lsm.h"

#include "spec/floor.h"

#include "common/error.h"
#include "common/log.h"
#include "oci/config.h"

#include <errno.h>
#include <stdio.h>
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

/* A label this host cannot carry out: warned about (create, exec) or
 * recorded as dropped (explain), and cleared. */
static int drop(char **field, const char *what, const char *reason, struct floor_report *report,
                struct sb_error *err)
{
        int ret = 0;

        if (report != NULL) {
                char value[LSM_VALUE_MAX + 3];
                snprintf(value, sizeof(value), "\"%s\"", *field);
                ret = floor_record(report, err, FLOOR_DROPPED, what, value, NULL, reason);
        } else {
                sb_warn("%s: \"%s\" ignored: %s", what, *field, reason);
        }
        free(*field);
        *field = NULL;
        return ret;
}

/* A label its LSM would refuse, or that would leave the container less
 * confined than asked: the same words for create's error and explain's
 * record (floor_refuse). */
static int refuse(struct floor_report *report, struct sb_error *err, const char *what,
                  const char *label, const char *rule)
{
        struct floor_report create = { 0 };
        char value[LSM_VALUE_MAX + 64];

        snprintf(value, sizeof(value), "\"%.*s\"", LSM_VALUE_MAX, label);
        return floor_refuse(report ? report : &create, err, what, value, rule);
}

static int inherit(char **field, const char *from, struct sb_error *err)
{
        if (set(*field) || !set(from))
                return 0;
        free(*field);
        *field = strdup(from);
        return *field ? 0 : sb_fail(err, ENOMEM, "exec: the container's LSM labels");
}

static int decide_apparmor(const struct lsm_host_facts *host, char **profile,
                           struct floor_report *report, struct sb_error *err)
{
        const char *what = "process.apparmorProfile";

        if (!set(*profile))
                return 0;
        if (!host->apparmor_enabled)
                return drop(profile, what,
                            host->apparmor_off ? host->apparmor_off :
                                                 "AppArmor is not enabled on this host",
                            report, err);
        if (strlen(*profile) > LSM_VALUE_MAX || strchr(*profile, '\n') != NULL)
                return refuse(report, err, what, *profile,
                              "an AppArmor profile name is one line of at most 4000 bytes");
        if (!profile_loaded(host, *profile))
                return refuse(report, err, what, *profile,
                              "the AppArmor profile must be loaded on this host");
        return 0;
}

static int decide_selinux(const struct lsm_host_facts *host, char **label, const char *what,
                          struct floor_report *report, struct sb_error *err)
{
        if (!set(*label))
                return 0;
        if (!host->selinux_enabled)
                return drop(label, what,
                            host->selinux_off ? host->selinux_off :
                                                "SELinux is not enabled on this host",
                            report, err);
        if (!floor_lsm_selinux_label_valid(*label))
                return refuse(report, err, what, *label,
                              "an SELinux context is user:role:type[:level]");
        return 0;
}

int floor_lsm_decide(const struct lsm_host_facts *host, struct oci_process *process,
                     const struct oci_process *container, char **mount_label,
                     struct floor_report *report, struct sb_error *err)
{
        if (container != NULL &&
            (inherit(&process->apparmor_profile, container->apparmor_profile, err) < 0 ||
             inherit(&process->selinux_label, container->selinux_label, err) < 0))
                return -1;
        if (decide_apparmor(host, &process->apparmor_profile, report, err) < 0 ||
            decide_selinux(host, &process->selinux_label, "process.selinuxLabel", report, err) < 0)
                return -1;
        if (mount_label != NULL &&
            decide_selinux(host, mount_label, "linux.mountLabel", report, err) < 0)
                return -1;
        return 0;
}
