#include "config.h"
#include "runtime/host/rootless.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "runtime/host/host_probe.h"
#include "runtime/host/user_name.h"

#include <errno.h>
#include <sys/stat.h>

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

uid_t rootless_outer_uid(uid_t uid)
{
        char buf[4096] = { 0 };
        unsigned long inside, outside, count;
        _cleanup_close_ int fd = open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC);
        const char *line = buf;

        if (fd < 0 || read(fd, buf, sizeof(buf) - 1) <= 0)
                return uid;
        while (sscanf(line, "%lu %lu %lu", &inside, &outside, &count) == 3) {
                if (uid >= inside && uid - inside < count)
                        return (uid_t)(outside + (uid - inside));
                line = strchr(line, '\n');
                if (line == NULL)
                        break;
                line++;
        }
        return uid;
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
                return strdup(SBRUN_STATEDIR);
        if (asprintf(&root, "%s/sbrun", getenv("XDG_RUNTIME_DIR")) < 0)
                return NULL;
        return root;
}

int rootless_runtime_dir_check(const char *dir, struct sb_error *err)
{
        /* O_NOFOLLOW: the directory itself, never what a link names. */
        _cleanup_close_ int fd = open(dir, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;

        if (fd < 0 || fstat(fd, &st) < 0)
                return sb_fail(err, errno, "XDG_RUNTIME_DIR=%s", dir);
        if (S_ISLNK(st.st_mode))
                return sb_fail(err, 0,
                               "XDG_RUNTIME_DIR=%s: a symbolic link; it must be the caller's own "
                               "directory (uid %u), writable by nobody else",
                               dir, (unsigned)geteuid());
        if (!S_ISDIR(st.st_mode))
                return sb_fail(err, 0, "XDG_RUNTIME_DIR=%s: not a directory", dir);
        if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
                return sb_fail(err, 0,
                               "XDG_RUNTIME_DIR=%s: owned by uid %u with mode %04o; it must be "
                               "owned by the caller (uid %u) and writable by nobody else, or "
                               "another user's socket there could answer for the caller's systemd",
                               dir, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777),
                               (unsigned)geteuid());
        return 0;
}

/* The caller's line in an /etc/subuid-like file, by name or uid: "START+COUNT". */
static bool sub_range(const char *file, const char *name, uid_t uid, char *out, size_t len)
{
        _cleanup_fclose_ FILE *f = fopen(file, "re");
        char line[256], id[16];

        snprintf(id, sizeof(id), "%u", (unsigned)uid);
        while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
                char *start = strchr(line, ':');
                char *count = start ? strchr(start + 1, ':') : NULL;
                if (count == NULL)
                        continue;
                *start++ = '\0';
                *count++ = '\0';
                if (strcmp(line, id) != 0 && (name == NULL || strcmp(line, name) != 0))
                        continue;
                count[strcspn(count, "\n")] = '\0';
                snprintf(out, len, "%s+%s", start, count);
                return true;
        }
        snprintf(out, len, "none");
        return false;
}

static bool setuid_helper(const char *name, char *path, size_t len)
{
        static const char *const dirs[] = { "/usr/bin", "/bin", "/usr/sbin", "/sbin", NULL };
        struct stat st;

        for (const char *const *d = dirs; *d != NULL; d++) {
                snprintf(path, len, "%s/%s", *d, name);
                if (stat(path, &st) == 0 && (st.st_mode & S_ISUID))
                        return true;
        }
        snprintf(path, len, "%s not found", name);
        return false;
}

void rootless_probe_idmap(struct host_probe *p)
{
        char name[64], uidmap[64], gidmap[64], subuid[64], subgid[64];
        /* The subordinate id files name users either way. */
        bool named = host_user_name(getuid(), name, sizeof(name));
        /* Each is asked even when another failed: all fill the detail. */
        bool uid_helper = setuid_helper("newuidmap", uidmap, sizeof(uidmap));
        bool gid_helper = setuid_helper("newgidmap", gidmap, sizeof(gidmap));
        bool uid_range =
                sub_range("/etc/subuid", named ? name : NULL, getuid(), subuid, sizeof(subuid));
        bool gid_range =
                sub_range("/etc/subgid", named ? name : NULL, getuid(), subgid, sizeof(subgid));

        p->available = uid_helper && gid_helper && uid_range && gid_range;
        snprintf(p->detail, sizeof(p->detail),
                 "%s, %s (setuid: Debian's uidmap); uid %u: /etc/subuid %s, /etc/subgid %s%s",
                 uidmap, gidmap, (unsigned)getuid(), subuid, subgid,
                 p->available ? "" : "; only maps of your own id alone work");
}

void rootless_probe_state_root(const char *root, struct host_probe *p)
{
        _cleanup_free_ char *parent = strdup(root);
        struct stat st;
        char *slash;

        p->available = false;
        if (stat(root, &st) == 0) {
                p->available = st.st_uid == geteuid() && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
                snprintf(p->detail, sizeof(p->detail), "%s: uid %u, mode %04o%s", root,
                         (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777),
                         p->available ? "" : ": must be yours and writable by nobody else");
                return;
        }
        /* Not there yet: create makes it (0700) where its parent lets us. */
        if (parent != NULL && (slash = strrchr(parent, '/')) != NULL) {
                *(slash == parent ? slash + 1 : slash) = '\0';
                p->available = access(parent, W_OK | X_OK) == 0;
        }
        snprintf(p->detail, sizeof(p->detail), "%s: %s", root,
                 p->available ? "made by the first create" :
                 getenv("XDG_RUNTIME_DIR") == NULL ?
                                "cannot be made here: set XDG_RUNTIME_DIR or give --root" :
                                "cannot be made here");
}
