/* Which Linux security module labels a container gets on this host:
 * process.apparmorProfile, process.selinuxLabel and linux.mountLabel are
 * carried out where their LSM is enabled, and dropped with a warning where
 * it is not, as runc drops them (silently). The host's facts are gathered
 * by runtime/host/lsm_host.c; the decision is made here. */
#ifndef SB_SPEC_FLOOR_LSM_H
#define SB_SPEC_FLOOR_LSM_H

#include <stdbool.h>
#include <stddef.h>

struct sb_error;
struct floor_report;
struct oci_process;

struct lsm_host_facts {
        bool apparmor_enabled;
        const char *apparmor_off; /* why not, for the warning */
        /* The loaded profiles' names; NULL when they could not be listed
         * (the kernel then refuses an unknown one when sbrun-init sets it). */
        char **apparmor_profiles;
        size_t n_apparmor_profiles;
        bool selinux_enabled;
        const char *selinux_off;
};

/* Decide for one process (and, when mount_label is non-NULL, for
 * linux.mountLabel). An exec's process without a profile or label of its
 * own takes the container's (container, NULL for create), as runc does.
 * A label its LSM cannot carry out here is warned about and cleared from
 * *process / *mount_label. Where the LSM is enabled, an AppArmor profile
 * that is not loaded, or a malformed label, is refused naming the field
 * and value: the container would otherwise run less confined than asked.
 * report: NULL for create and exec (the first refusal fails); `policy
 * explain`'s, which records refusals and drops instead. */
int floor_lsm_decide(const struct lsm_host_facts *host, struct oci_process *process,
                     const struct oci_process *container, char **mount_label,
                     struct floor_report *report, struct sb_error *err);

/* A syntactically valid SELinux context: user:role:type[:level], printable,
 * no spaces. Pure: exposed for the unit tests. */
bool floor_lsm_selinux_label_valid(const char *label);

#endif
