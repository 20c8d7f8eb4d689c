#include "runtime/host/lsm_host.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/strv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#define APPARMOR_ENABLED "/sys/module/apparmor/parameters/enabled"
#define APPARMOR_FS "/sys/kernel/security/apparmor"
#define SELINUX_FS "/sys/fs/selinux"
#define SELINUX_MAGIC 0xf97cff8c

/* runc's test (libcontainer/apparmor): the module says Y and its
 * securityfs directory is there, which is where profiles are listed. */
static bool apparmor_enabled(const char **why)
{
        struct stat st;
        char c = 0;
        _cleanup_fclose_ FILE *f = fopen(APPARMOR_ENABLED, "re");

        if (f == NULL || fread(&c, 1, 1, f) != 1 || c != 'Y') {
                *why = "AppArmor is not enabled on this host";
                return false;
        }
        if (stat(APPARMOR_FS, &st) < 0 || !S_ISDIR(st.st_mode)) {
                *why = "AppArmor is enabled but securityfs is not mounted on /sys/kernel/security";
                return false;
        }
        return true;
}

/* Each line is "NAME (MODE)"; a name may hold spaces, the mode never. */
static int list_profiles(struct lsm_host_facts *facts, struct sb_error *err)
{
        _cleanup_fclose_ FILE *f = fopen(APPARMOR_FS "/profiles", "re");
        _cleanup_free_ char *line = NULL;
        struct strv names = { 0 };
        size_t cap = 0;
        ssize_t n;

        if (f == NULL)
                return 0;
        while ((n = getline(&line, &cap, f)) > 0) {
                if (line[n - 1] == '\n')
                        line[--n] = '\0';
                char *mode = strrchr(line, ' ');
                if (mode != NULL && mode[1] == '(')
                        *mode = '\0';
                strv_add(&names, line);
        }
        if (names.failed) {
                strv_release(&names);
                return sb_fail(err, ENOMEM, "list AppArmor profiles");
        }
        facts->n_apparmor_profiles = names.n;
        facts->apparmor_profiles = strv_steal(&names);
        if (facts->apparmor_profiles == NULL)
                return sb_fail(err, ENOMEM, "list AppArmor profiles");
        return 0;
}

/* go-selinux's test, without libselinux: selinuxfs mounted where the
 * kernel puts it, with its enforce file. */
static bool selinux_enabled(const char **why)
{
        struct statfs sfs;
        struct stat st;

        if (statfs(SELINUX_FS, &sfs) < 0 || (unsigned long)sfs.f_type != SELINUX_MAGIC ||
            stat(SELINUX_FS "/enforce", &st) < 0) {
                *why = "SELinux is not enabled on this host";
                return false;
        }
        return true;
}

int lsm_host_probe(struct lsm_host_facts *facts, struct sb_error *err)
{
        memset(facts, 0, sizeof(*facts));
        facts->apparmor_enabled = apparmor_enabled(&facts->apparmor_off);
        if (facts->apparmor_enabled && list_profiles(facts, err) < 0)
                return -1;
        facts->selinux_enabled = selinux_enabled(&facts->selinux_off);
        return 0;
}

void lsm_host_facts_release(struct lsm_host_facts *facts)
{
        for (size_t i = 0; facts->apparmor_profiles && i < facts->n_apparmor_profiles; i++)
                free(facts->apparmor_profiles[i]);
        free(facts->apparmor_profiles);
        memset(facts, 0, sizeof(*facts));
}
