#include "runtime/cgroup/cgroup_root.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"
#include "runtime/host/rootless.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

const char *const cgroup_required_controllers[] = { "cpu", "memory", "pids", NULL };

const char *cgroup_layout_name(enum cgroup_layout layout)
{
        switch (layout) {
        case CGROUP_LAYOUT_UNIFIED:
                return "unified cgroup v2 host";
        case CGROUP_LAYOUT_HYBRID:
                return "hybrid v1/v2 host";
        default:
                return "cgroup v1-only host";
        }
}

int cgroup_list_has(const char *list, const char *name)
{
        size_t len = strlen(name);

        for (const char *p = list; p && *p;) {
                p += strspn(p, " \n");
                size_t n = strcspn(p, " \n");
                if (n == len && strncmp(p, name, len) == 0)
                        return 1;
                p += n;
        }
        return 0;
}

void cgroup_root_release(struct cgroup_root *root)
{
        free(root->mount);
        free(root->own);
        free(root->rel);
        free(root->path);
        root->mount = root->own = root->rel = root->path = NULL;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape_octal(char *s)
{
        char *out = s;

        for (char *in = s; *in; out++) {
                if (in[0] == '\\' && in[1] >= '0' && in[1] <= '7' && in[2] >= '0' && in[2] <= '7' &&
                    in[3] >= '0' && in[3] <= '7') {
                        *out = (char)((in[1] - '0') * 64 + (in[2] - '0') * 8 + (in[3] - '0'));
                        in += 4;
                } else {
                        *out = *in++;
                }
        }
        *out = '\0';
}

/* Which cgroup filesystems are mounted, and where the cgroup2 one is. With
 * several cgroup2 mounts the conventional places win over stray ones. */
static int scan_mounts(struct cgroup_root *root, struct sb_error *err)
{
        _cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
        _cleanup_free_ char *line = NULL;
        size_t cap = 0;
        bool v1 = false;
        int best = 0;

        if (f == NULL)
                return sb_fail(err, errno, "cgroup v2: read /proc/self/mountinfo");
        while (getline(&line, &cap, f) > 0) {
                char mnt_root[4096], point[4096], fstype[64];
                const char *dash = strstr(line, " - ");
                if (dash == NULL || sscanf(dash + 3, "%63s", fstype) != 1 ||
                    sscanf(line, "%*s %*s %*s %4095s %4095s", mnt_root, point) != 2)
                        continue;
                if (strcmp(fstype, "cgroup") == 0)
                        v1 = true;
                if (strcmp(fstype, "cgroup2") != 0)
                        continue;
                unescape_octal(point);
                /* A mount of a subtree (inside a cgroup namespace, or a
                 * bind) cannot map /proc/self/cgroup paths to directories. */
                if (strcmp(mnt_root, "/") != 0)
                        continue;
                int rank = strcmp(point, "/sys/fs/cgroup") == 0         ? 3 :
                           strcmp(point, "/sys/fs/cgroup/unified") == 0 ? 2 :
                                                                          1;
                if (rank <= best)
                        continue;
                best = rank;
                free(root->mount);
                root->mount = strdup(point);
                if (root->mount == NULL)
                        return sb_fail(err, ENOMEM, "cgroup v2");
        }
        root->layout = root->mount == NULL ? CGROUP_LAYOUT_LEGACY :
                       v1                  ? CGROUP_LAYOUT_HYBRID :
                                             CGROUP_LAYOUT_UNIFIED;
        return 0;
}

/* The "0::/path" line of /proc/self/cgroup, without the leading '/'. */
static int read_own_cgroup(struct cgroup_root *root, struct sb_error *err)
{
        _cleanup_free_ char *text = NULL;

        if (sb_read_file("/proc/self/cgroup", 64 * 1024, &text, NULL, err) < 0)
                return sb_error_prefix(err, "cgroup v2");
        for (char *line = text; line && *line;) {
                char *next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                if (strncmp(line, "0::/", 4) == 0) {
                        root->own = strdup(line + 4);
                        return root->own ? 0 : sb_fail(err, ENOMEM, "cgroup v2");
                }
                line = next;
        }
        return sb_fail(err, 0, "cgroup v2: /proc/self/cgroup has no cgroup v2 entry");
}

static char *join_path(const char *mount, const char *rel)
{
        char *out = NULL;

        if (asprintf(&out, "%s%s%s", mount, *rel ? "/" : "", rel) < 0)
                return NULL;
        return out;
}

static char *read_small(const char *dir, const char *file)
{
        _cleanup_free_ char *path = NULL;
        char *text = NULL;
        struct sb_error ignored = { 0 };

        if (asprintf(&path, "%s/%s", dir, file) < 0)
                return NULL;
        if (sb_read_file(path, 1024 * 1024, &text, NULL, &ignored) < 0) {
                sb_error_clear(&ignored);
                return NULL;
        }
        return text;
}

/* systemd marks a cgroup it hands over (Delegate=yes) with this xattr. */
static bool is_delegated(const char *dir)
{
        char value[8] = { 0 };

        if (getxattr(dir, "trusted.delegate", value, sizeof(value) - 1) > 0 && value[0] == '1')
                return true;
        memset(value, 0, sizeof(value));
        return getxattr(dir, "user.delegate", value, sizeof(value) - 1) > 0 && value[0] == '1';
}

static bool has_required(const char *controllers)
{
        for (size_t i = 0; cgroup_required_controllers[i]; i++) {
                if (!cgroup_list_has(controllers, cgroup_required_controllers[i]))
                        return false;
        }
        return true;
}

/* The root cgroup may hold processes and still have children with
 * controllers; any other cgroup must be delegated or empty (the kernel's
 * "no internal processes" rule). */
static bool qualifies(const char *dir, bool is_mount_root)
{
        _cleanup_free_ char *controllers = read_small(dir, "cgroup.controllers");
        _cleanup_free_ char *procs = NULL;

        if (controllers == NULL || !has_required(controllers))
                return false;
        if (is_mount_root || is_delegated(dir))
                return true;
        procs = read_small(dir, "cgroup.procs");
        return procs != NULL && procs[strspn(procs, " \n")] == '\0';
}

static int fail_missing(const struct cgroup_root *root, struct sb_error *err)
{
        _cleanup_free_ char *available = read_small(root->mount, "cgroup.controllers");
        char missing[64] = "";

        for (size_t i = 0; cgroup_required_controllers[i]; i++) {
                if (available && cgroup_list_has(available, cgroup_required_controllers[i]))
                        continue;
                if (*missing)
                        strcat(missing, ", ");
                strcat(missing, cgroup_required_controllers[i]);
        }
        if (*missing)
                return sb_fail(err, 0, "cgroup v2: controllers %s %s not available in %s (%s)",
                               missing, strchr(missing, ',') ? "are" : "is", root->mount,
                               cgroup_layout_name(root->layout));
        return sb_fail(err, 0,
                       "cgroup v2: no cgroup from %s/%s up to %s has the cpu, memory and pids "
                       "controllers and is delegated or free of processes (%s); sbrun does not "
                       "move other processes to make one",
                       root->mount, root->own, root->mount, cgroup_layout_name(root->layout));
}

int cgroup_root_find(struct cgroup_root *root, struct sb_error *err)
{
        _cleanup_free_ char *rel = NULL;

        if (scan_mounts(root, err) < 0)
                return -1;
        if (root->mount == NULL)
                return sb_fail(err, 0, "cgroup v2: no cgroup2 filesystem is mounted (%s)",
                               cgroup_layout_name(root->layout));
        if (read_own_cgroup(root, err) < 0)
                return -1;
        rel = strdup(root->own);
        if (rel == NULL)
                return sb_fail(err, ENOMEM, "cgroup v2");
        for (;;) {
                _cleanup_free_ char *dir = join_path(root->mount, rel);
                if (dir == NULL)
                        return sb_fail(err, ENOMEM, "cgroup v2");
                if (qualifies(dir, *rel == '\0')) {
                        root->path = SB_STEAL_PTR(dir);
                        root->rel = SB_STEAL_PTR(rel);
                        return 0;
                }
                if (*rel == '\0')
                        return fail_missing(root, err);
                char *slash = strrchr(rel, '/');
                if (slash)
                        *slash = '\0';
                else
                        *rel = '\0';
        }
}

int cgroup_root_probe(struct cgroup_root *root, char **unusable, struct sb_error *err)
{
        struct sb_error why = { 0 };

        *unusable = NULL;
        if (cgroup_root_find(root, &why) == 0)
                return 0;
        *unusable = sb_error_text(&why);
        sb_error_clear(&why);
        cgroup_root_release(root);
        return *unusable ? 0 : sb_fail(err, ENOMEM, "cgroup v2");
}

int cgroup_root_rootless_writable(struct cgroup_root *root, char **unusable, struct sb_error *err)
{
        *unusable = NULL;
        if (!rootless_detect() || access(root->path, W_OK) == 0)
                return 0;
        if (asprintf(unusable,
                     "cgroup v2: %s is not writable by uid %u (rootless): no cgroup is "
                     "delegated to this user; run sbrun with --systemd-cgroup under the user's "
                     "systemd (user@%u.service delegates cpu, memory and pids to it)",
                     root->path, (unsigned)getuid(), (unsigned)getuid()) < 0) {
                *unusable = NULL;
                return sb_fail(err, ENOMEM, "cgroup v2");
        }
        cgroup_root_release(root);
        return 0;
}

/* dir, or its nearest ancestor that exists (a cgroup not made yet is
 * offered what its parent has). */
static char *nearest_controllers(const char *dir, char **where)
{
        char *path = strdup(dir);

        *where = NULL;
        while (path != NULL) {
                char *text = read_small(path, "cgroup.controllers");
                char *slash = strrchr(path, '/');
                if (text != NULL || slash == NULL || slash == path) {
                        *where = path;
                        return text;
                }
                *slash = '\0';
        }
        return NULL;
}

int cgroup_root_missing(const struct cgroup_root *root, const char *rel, const char *controller,
                        char **why, struct sb_error *err)
{
        _cleanup_free_ char *dir = NULL, *where = NULL, *available = NULL;

        *why = NULL;
        if (rel != NULL && root->mount != NULL)
                dir = join_path(root->mount, rel);
        else if (root->path != NULL)
                dir = strdup(root->path);
        if (dir != NULL)
                available = nearest_controllers(dir, &where);
        if (available != NULL && cgroup_list_has(available, controller))
                return 0;
        if (asprintf(why, "the %s controller is not available in %s (cgroup.controllers: %s)",
                     controller, where ? where : "the cgroup v2 mount",
                     available && *available ? available : "none") < 0) {
                *why = NULL;
                return sb_fail(err, ENOMEM, "cgroup v2");
        }
        return 0;
}
