#include "runtime/host/rootless.h"

#include "common/cleanup.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool rootless_in_user_namespace(void)
{
        char buf[128] = { 0 };
        unsigned long inside, outside, count;
        _cleanup_close_ int fd = open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC);

        /* No /proc (or no user namespaces in the kernel): the initial one. */
        if (fd < 0 || read(fd, buf, sizeof(buf) - 1) <= 0)
                return false;
        if (sscanf(buf, "%lu %lu %lu", &inside, &outside, &count) != 3)
                return false;
        return !(inside == 0 && outside == 0 && count == 4294967295UL);
}

uid_t rootless_host_root_uid(void)
{
        char buf[4096] = { 0 };
        unsigned long inside, outside, count, overflow = 65534;
        _cleanup_close_ int fd = open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC);
        _cleanup_close_ int ofd = -1;
        const char *line = buf;

        if (fd < 0 || read(fd, buf, sizeof(buf) - 1) <= 0)
                return 0;
        while (sscanf(line, "%lu %lu %lu", &inside, &outside, &count) == 3) {
                if (outside == 0 && count > 0)
                        return (uid_t)inside;
                line = strchr(line, '\n');
                if (line == NULL)
                        break;
                line++;
        }
        ofd = open("/proc/sys/kernel/overflowuid", O_RDONLY | O_CLOEXEC);
        memset(buf, 0, sizeof(buf));
        if (ofd >= 0 && read(ofd, buf, sizeof(buf) - 1) > 0)
                sscanf(buf, "%lu", &overflow);
        return (uid_t)overflow;
}

bool rootless_detect(void)
{
        return geteuid() != 0 || rootless_in_user_namespace();
}

static bool honor_xdg_runtime_dir(void)
{
        const char *user;

        if (getenv("XDG_RUNTIME_DIR") == NULL || getenv("XDG_RUNTIME_DIR")[0] != '/')
                return false;
        if (geteuid() != 0)
                return true;
        if (!rootless_in_user_namespace())
                return false;
        /* Root of a user namespace: rootless podman keeps the user's
         * XDG_RUNTIME_DIR; `sudo` into a namespace with $USER root does not. */
        user = getenv("USER");
        return user == NULL || strcmp(user, "root") != 0;
}

char *rootless_state_root(void)
{
        char *root = NULL;

        if (!honor_xdg_runtime_dir())
                return strdup("/run/sbrun");
        if (asprintf(&root, "%s/sbrun", getenv("XDG_RUNTIME_DIR")) < 0)
                return NULL;
        return root;
}
