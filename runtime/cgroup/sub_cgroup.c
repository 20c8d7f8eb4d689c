#include "runtime/cgroup/sub_cgroup.h"

#include "common/error.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Some component of sub is "..". */
static bool escapes(const char *sub)
{
        const char *p = sub;

        while (*p) {
                size_t n = strcspn(p, "/");
                if (n == 2 && p[0] == '.' && p[1] == '.')
                        return true;
                p += n;
                p += strspn(p, "/");
        }
        return false;
}

int sub_cgroup_open(int base, const char *base_path, const char *sub, struct sb_error *err)
{
        const char *rel = sub + strspn(sub, "/");
        struct open_how how = {
                .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
                .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
                           RESOLVE_NO_XDEV,
        };
        int fd;

        if (strchr(sub, ':') != NULL)
                return sb_fail(err, 0,
                               "--cgroup: \"%s\": CONTROLLER:PATH is for cgroup v1; sbrun's "
                               "cgroup v2 takes one PATH below the container's cgroup",
                               sub);
        if (escapes(rel))
                return sb_fail(err, 0,
                               "--cgroup: \"%s\": \"..\" would leave the container's cgroup", sub);
        fd = (int)syscall(SYS_openat2, base, *rel ? rel : ".", &how, sizeof(how));
        if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
                return sb_fail(err, 0,
                               "--cgroup: \"%s\": no such cgroup below the container's (%s); "
                               "make it first",
                               sub, base_path);
        if (fd < 0)
                return sb_fail(err, errno, "--cgroup: \"%s\" below %s", sub, base_path);
        return fd;
}
