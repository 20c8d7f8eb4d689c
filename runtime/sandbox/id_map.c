#include "runtime/sandbox/id_map.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"
#include "oci/config.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

long long id_map_to_host(const struct oci_idmap *maps, size_t n, uint32_t id)
{
        for (size_t i = 0; i < n; i++) {
                if (id >= maps[i].container_id && id - maps[i].container_id < maps[i].size)
                        return (long long)maps[i].host_id + (id - maps[i].container_id);
        }
        return -1;
}

/* One id map, the way each writer takes it. */
struct id_map_kind {
        const char *file;   /* uid_map, gid_map */
        const char *field;  /* linux.uidMappings */
        const char *helper; /* newuidmap */
        const char *grants; /* /etc/subuid */
        unsigned own_id;    /* the caller's euid or egid */
};

static int write_proc_file(pid_t pid, const char *file, const char *text, size_t len,
                           const char *field, struct sb_error *err)
{
        char path[64];
        _cleanup_close_ int fd = -1;

        snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
        fd = open(path, O_WRONLY | O_CLOEXEC);
        /* The kernel takes the whole map in one write, or none of it. */
        if (fd < 0 || write(fd, text, len) != (ssize_t)len)
                return sb_fail(err, errno, "%s: write %s", field, path);
        return 0;
}

static int write_map(pid_t pid, const struct id_map_kind *k, const struct oci_idmap *maps, size_t n,
                     struct sb_error *err)
{
        _cleanup_free_ char *text = calloc(n, 3 * 11 + 3);
        size_t len = 0;

        if (text == NULL)
                return sb_fail(err, ENOMEM, "%s", k->field);
        for (size_t i = 0; i < n; i++)
                len += (size_t)sprintf(text + len, "%u %u %u\n", maps[i].container_id,
                                       maps[i].host_id, maps[i].size);
        return write_proc_file(pid, k->file, text, len, k->field, err);
}

/* newuidmap and newgidmap are setuid root and trusted with the caller's
 * subordinate ids: only the system's copies, never one found on $PATH. */
static const char *find_helper(const char *name, char *buf, size_t size)
{
        static const char *const dirs[] = { "/usr/bin", "/bin", "/usr/sbin", "/sbin", NULL };

        for (const char *const *d = dirs; *d != NULL; d++) {
                snprintf(buf, size, "%s/%s", *d, name);
                if (access(buf, X_OK) == 0)
                        return buf;
        }
        return NULL;
}

/* HELPER PID c h s [c h s...], with an empty environment; what it prints on
 * stderr (shadow's helpers say which range /etc/subuid does not grant)
 * becomes the error. */
static int run_helper(pid_t pid, const struct id_map_kind *k, const struct oci_idmap *maps,
                      size_t n, struct sb_error *err)
{
        char path[64], pidbuf[16];
        const char *helper = find_helper(k->helper, path, sizeof(path));
        _cleanup_strv_ char **argv = calloc(3 * n + 3, sizeof(char *));
        _cleanup_free_ char *out = NULL;
        char *envp[] = { NULL };
        posix_spawn_file_actions_t fa;
        int pipefd[2], status, rc;
        size_t out_len = 0;
        pid_t child;
        struct sb_error ignored = { 0 };

        if (helper == NULL)
                return sb_fail(err, 0,
                               "%s: a map of more than your own id (%u) needs %s (Debian's uidmap "
                               "package), found in none of /usr/bin, /bin, /usr/sbin, /sbin",
                               k->field, k->own_id, k->helper);
        if (argv == NULL)
                return sb_fail(err, ENOMEM, "%s", k->field);
        snprintf(pidbuf, sizeof(pidbuf), "%d", pid);
        argv[0] = strdup(helper);
        argv[1] = strdup(pidbuf);
        for (size_t i = 0; i < n; i++) {
                if (asprintf(&argv[2 + 3 * i], "%u", maps[i].container_id) < 0 ||
                    asprintf(&argv[3 + 3 * i], "%u", maps[i].host_id) < 0 ||
                    asprintf(&argv[4 + 3 * i], "%u", maps[i].size) < 0)
                        return sb_fail(err, ENOMEM, "%s", k->field);
        }
        if (argv[0] == NULL || argv[1] == NULL)
                return sb_fail(err, ENOMEM, "%s", k->field);
        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return sb_fail(err, errno, "%s: pipe", k->field);
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
        posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
        rc = posix_spawn(&child, helper, &fa, NULL, argv, envp);
        posix_spawn_file_actions_destroy(&fa);
        close(pipefd[1]);
        if (rc != 0) {
                close(pipefd[0]);
                return sb_fail(err, rc, "%s: run %s", k->field, helper);
        }
        if (sb_read_fd(pipefd[0], 4096, &out, &out_len, &ignored) < 0)
                sb_error_clear(&ignored);
        close(pipefd[0]);
        while (waitpid(child, &status, 0) < 0) {
                if (errno != EINTR)
                        return sb_fail(err, errno, "%s: wait for %s", k->field, helper);
        }
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
                return 0;
        while (out_len > 0 && (out[out_len - 1] == '\n' || out[out_len - 1] == ' '))
                out[--out_len] = '\0';
        return sb_fail(err, 0, "%s: %s refused the map (%s says which ids uid %u may map): %s",
                       k->field, k->helper, k->grants, (unsigned)getuid(),
                       out != NULL && out[0] != '\0' ? out : "no reason given");
}

/* The one map the kernel lets an unprivileged owner write: its own id,
 * once. */
static bool own_id_only(const struct id_map_kind *k, const struct oci_idmap *maps, size_t n)
{
        return n == 1 && maps[0].size == 1 && maps[0].host_id == k->own_id;
}

static int map_one(pid_t pid, const struct id_map_kind *k, const struct oci_idmap *maps, size_t n,
                   struct sb_error *err)
{
        if (geteuid() == 0)
                return write_map(pid, k, maps, n, err);
        if (!own_id_only(k, maps, n))
                return run_helper(pid, k, maps, n, err);
        /* An unprivileged gid_map needs setgroups off for good: dropping a
         * group by setgroups must stay impossible in the namespace. */
        if (strcmp(k->file, "gid_map") == 0 &&
            write_proc_file(pid, "setgroups", "deny", 4, k->field, err) < 0)
                return -1;
        return write_map(pid, k, maps, n, err);
}

int id_map_user_namespace(pid_t pid, const struct oci_linux *l, struct sb_error *err)
{
        const struct id_map_kind uid = { "uid_map", "linux.uidMappings", "newuidmap", "/etc/subuid",
                                         (unsigned)geteuid() };
        const struct id_map_kind gid = { "gid_map", "linux.gidMappings", "newgidmap", "/etc/subgid",
                                         (unsigned)getegid() };

        if (map_one(pid, &uid, l->uid_mappings, l->n_uid_mappings, err) < 0)
                return -1;
        return map_one(pid, &gid, l->gid_mappings, l->n_gid_mappings, err);
}
