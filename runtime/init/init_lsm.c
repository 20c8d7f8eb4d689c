#include "runtime/init/init_lsm.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The kernel takes the whole value in one write, or refuses it. */
static int write_attr(const char *path, const char *value, struct sb_error *err)
{
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return -1;
        if (sb_write_all(fd, value, strlen(value)) < 0) {
                int saved = errno;
                sb_fail(err, saved, "write %s", path);
                errno = saved;
                return -2;
        }
        return 0;
}

static int set_apparmor(const char *profile, struct sb_error *err)
{
        char value[4096];

        if (snprintf(value, sizeof(value), "exec %s", profile) >= (int)sizeof(value))
                return sb_fail(err, ENAMETOOLONG, "process.apparmorProfile: \"%s\"", profile);
        /* attr/apparmor/ is AppArmor's own since Linux 5.8, where attr/exec
         * belongs to whichever LSM came first; older kernels have only it. */
        int r = write_attr("/proc/self/attr/apparmor/exec", value, err);
        if (r == -1 && errno == ENOENT)
                r = write_attr("/proc/self/attr/exec", value, err);
        if (r == -1)
                return sb_fail(err, errno, "process.apparmorProfile: \"%s\": open /proc/self/attr",
                               profile);
        if (r < 0)
                return sb_error_prefix(err, "process.apparmorProfile: \"%s\"", profile);
        return 0;
}

static int set_selinux(const char *label, struct sb_error *err)
{
        int r = write_attr("/proc/self/attr/exec", label, err);
        if (r == -1)
                return sb_fail(err, errno,
                               "process.selinuxLabel: \"%s\": open /proc/self/attr/exec", label);
        if (r < 0)
                return sb_error_prefix(err, "process.selinuxLabel: \"%s\"", label);
        return 0;
}

int init_set_lsm_labels(const struct init_plan *plan, struct sb_error *err)
{
        if (plan->apparmor_profile != NULL && set_apparmor(plan->apparmor_profile, err) < 0)
                return -1;
        if (plan->selinux_label != NULL && set_selinux(plan->selinux_label, err) < 0)
                return -1;
        return 0;
}
