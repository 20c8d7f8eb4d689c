#include "runtime/container/state_dir.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"
#include "oci/config.h"
#include "oci/state.h"
#include "runtime/container/container_id.h"
#include "runtime/container/global_options.h"
#include "runtime/host/path_identity.h"
#include "spec/operator_policy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_RECORD_SIZE (16 * 1024 * 1024)

static int mkdir_parents(const char *path, mode_t mode)
{
        _cleanup_free_ char *copy = strdup(path);

        if (copy == NULL)
                return -1;
        for (char *p = copy + 1; *p; p++) {
                if (*p != '/')
                        continue;
                *p = '\0';
                if (mkdir(copy, mode) < 0 && errno != EEXIST)
                        return -1;
                *p = '/';
        }
        if (mkdir(copy, mode) < 0 && errno != EEXIST)
                return -1;
        return 0;
}

/* A user who runs sbrun without XDG_RUNTIME_DIR lands on /run/sbrun. */
static const char *rootless_hint(int e)
{
        if ((e == EACCES || e == EPERM || e == EROFS) && geteuid() != 0)
                return " (running rootless: set XDG_RUNTIME_DIR or give --root)";
        return "";
}

static int open_root(const char *root, bool create, struct sb_error *err)
{
        struct stat st;
        int fd;

        if (root[0] != '/')
                return sb_fail(err, 0, "--root: \"%s\" must be an absolute path", root);
        if (create && mkdir_parents(root, 0700) < 0)
                return sb_fail(err, errno, "create state root %s%s", root, rootless_hint(errno));
        fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return sb_fail(err, errno, "open state root %s%s", root, rootless_hint(errno));
        /* Everything under the root (records, exec.fifo, the seccomp cache)
         * is trusted by the next command; a root another user owns or may
         * write into could feed it another container's pid or a BPF program. */
        if (fstat(fd, &st) < 0)
                return close(fd), sb_fail(err, errno, "stat state root %s", root);
        if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
                close(fd);
                return sb_fail(err, 0,
                               "state root %s: owned by uid %u with mode %04o; it must be owned "
                               "by the caller (uid %u) and writable by nobody else",
                               root, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777),
                               (unsigned)geteuid());
        }
        return fd;
}

static int lock_dir(struct state_dir *sd, struct sb_error *err)
{
        while (flock(sd->dir_fd, LOCK_EX) < 0) {
                if (errno != EINTR)
                        return sb_fail(err, errno, "lock %s", sd->path);
        }
        return 0;
}

static int fill_names(struct state_dir *sd, const char *root, const char *id, struct sb_error *err)
{
        sd->id = strdup(id);
        if (sd->id == NULL || asprintf(&sd->path, "%s/%s", root, id) < 0) {
                sd->path = NULL;
                return sb_fail(err, ENOMEM, "state directory");
        }
        return 0;
}

int state_dir_create(const char *root, const char *id, struct state_dir *sd, struct sb_error *err)
{
        if (container_id_validate(id, err) < 0)
                return -1;
        sd->root_fd = open_root(root, true, err);
        if (sd->root_fd < 0)
                return -1;
        if (fill_names(sd, root, id, err) < 0)
                return -1;
        if (mkdirat(sd->root_fd, id, 0700) < 0) {
                if (errno == EEXIST)
                        return sb_fail(err, 0, "container \"%s\" already exists", id);
                return sb_fail(err, errno, "create state directory %s", sd->path);
        }
        sd->created_here = true;
        sd->dir_fd = openat(sd->root_fd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sd->dir_fd < 0)
                return sb_fail(err, errno, "open state directory %s", sd->path);
        if (lock_dir(sd, err) < 0)
                return -1;
        /* Between mkdir and the lock a `delete --force` may have taken the
         * new directory for a create that died half-way and removed it:
         * creating on would make a container with no record. */
        struct stat st;
        if (fstat(sd->dir_fd, &st) < 0 || st.st_nlink == 0) {
                sd->created_here = false;
                return sb_fail(err, 0, "container \"%s\" was deleted while being created", id);
        }
        return 0;
}

/* What delete --force and the engines take as "gone": the kind, not the text. */
static int not_there(struct sb_error *err, const char *id)
{
        return sb_fail_kind(err, SB_ERR_NOT_FOUND, 0, "container \"%s\" does not exist", id);
}

int state_dir_open(const char *root, const char *id, struct state_dir *sd, struct sb_error *err)
{
        if (container_id_validate(id, err) < 0)
                return -1;
        sd->root_fd = open_root(root, false, err);
        if (sd->root_fd < 0) {
                if (err->errnum == ENOENT) {
                        sb_error_clear(err);
                        return not_there(err, id);
                }
                return -1;
        }
        if (fill_names(sd, root, id, err) < 0)
                return -1;
        sd->dir_fd = openat(sd->root_fd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sd->dir_fd < 0) {
                if (errno == ENOENT)
                        return not_there(err, id);
                return sb_fail(err, errno, "open state directory %s", sd->path);
        }
        if (lock_dir(sd, err) < 0)
                return -1;
        /* A concurrent delete may have removed the directory while we
         * waited. The fd goes too: the caller must see exactly what a
         * container that was never there looks like (delete --force of it
         * is done). */
        struct stat st;
        if (fstat(sd->dir_fd, &st) < 0 || st.st_nlink == 0) {
                close(sd->dir_fd);
                sd->dir_fd = -1;
                return not_there(err, id);
        }
        return 0;
}

int state_dir_save(struct state_dir *sd, const struct oci_state *state, struct sb_error *err)
{
        _cleanup_free_ char *json = oci_state_to_record_json(state, err);

        if (json == NULL)
                return sb_error_prefix(err, "save state of %s", sd->id);
        if (sb_write_file_atomic(sd->dir_fd, STATE_RECORD, json, strlen(json), 0600, err) < 0)
                return sb_error_prefix(err, "save state of %s in %s", sd->id, sd->path);
        return 0;
}

struct oci_state *state_dir_load(struct state_dir *sd, struct sb_error *err)
{
        _cleanup_close_ int fd =
                openat(sd->dir_fd, STATE_RECORD, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        _cleanup_free_ char *json = NULL;
        size_t len = 0;

        if (fd < 0) {
                if (errno == ENOENT)
                        /* We hold the lock, which create holds until it
                         * is done: the create that made this died. */
                        return sb_fail(err, 0,
                                       "container \"%s\" was not fully created (its create did "
                                       "not finish, %s/%s is missing): delete --force removes it",
                                       sd->id, sd->path, STATE_RECORD),
                               NULL;
                return sb_fail(err, errno, "open %s/%s", sd->path, STATE_RECORD), NULL;
        }
        if (sb_read_fd(fd, MAX_RECORD_SIZE, &json, &len, err) < 0)
                return sb_error_prefix(err, "read %s/%s", sd->path, STATE_RECORD), NULL;
        struct oci_state *state = oci_state_from_record_json(json, len, STATE_RECORD, err);
        /* Written atomically by sbrun: a bad one was damaged from outside. */
        if (state == NULL)
                sb_error_prefix(err, "container \"%s\": %s is damaged (delete --force removes it)",
                                sd->id, sd->path);
        return state;
}

/* The record is written in full before anything it describes happens, and
 * only named afterwards: a full file system fails the stage, while nothing
 * has changed yet. */
#define STATE_STAGED "." STATE_RECORD ".staged"

int state_dir_stage(struct state_dir *sd, const struct oci_state *state, struct sb_error *err)
{
        _cleanup_free_ char *json = oci_state_to_record_json(state, err);
        _cleanup_close_ int fd = -1;

        if (json == NULL)
                return sb_error_prefix(err, "save state of %s", sd->id);
        fd = openat(sd->dir_fd, STATE_STAGED, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
                    0600);
        if (fd < 0 || sb_write_all(fd, json, strlen(json)) < 0 || fsync(fd) < 0) {
                sb_fail(err, errno, "save state of %s: write %s/%s", sd->id, sd->path,
                        STATE_STAGED);
                unlinkat(sd->dir_fd, STATE_STAGED, 0);
                return -1;
        }
        return 0;
}

int state_dir_commit_staged(struct state_dir *sd, struct sb_error *err)
{
        if (renameat(sd->dir_fd, STATE_STAGED, sd->dir_fd, STATE_RECORD) < 0)
                return sb_fail(err, errno, "save state of %s: rename %s/%s", sd->id, sd->path,
                               STATE_STAGED);
        return 0;
}

void state_dir_drop_staged(struct state_dir *sd)
{
        unlinkat(sd->dir_fd, STATE_STAGED, 0);
}

struct oci_state *state_dir_open_state(const char *root, const char *id, struct state_dir *sd,
                                       struct sb_error *err)
{
        if (state_dir_open(root, id, sd, err) < 0)
                return NULL;
        return state_dir_load(sd, err);
}

int state_dir_save_config(struct state_dir *sd, const char *text, size_t len, struct sb_error *err)
{
        if (sb_write_file_atomic(sd->dir_fd, CONFIG_COPY, text, len, 0600, err) < 0)
                return sb_error_prefix(err, "state directory %s", sd->path);
        return 0;
}

int state_dir_save_policy(struct state_dir *sd, const struct operator_policy *policy,
                          const struct global_options *global, struct sb_error *err)
{
        const char *text = operator_policy_text(policy);
        const char *source = policy->source ? policy->source : "";

        if (global->rootless)
                text = source;
        if (sb_write_file_atomic(sd->dir_fd, global->rootless ? POLICY_SOURCE : POLICY_COPY, text,
                                 strlen(text), 0600, err) < 0)
                return sb_error_prefix(err, "state directory %s", sd->path);
        return 0;
}

static int load_policy_source(struct state_dir *sd, const struct global_options *global,
                              struct operator_policy *policy, struct sb_error *err)
{
        _cleanup_close_ int fd =
                openat(sd->dir_fd, POLICY_SOURCE, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        _cleanup_free_ char *path = NULL;
        size_t len = 0;

        if (fd < 0)
                return sb_fail(err, errno, "open %s/%s", sd->path, POLICY_SOURCE);
        if (sb_read_fd(fd, 4096, &path, &len, err) < 0)
                return sb_error_prefix(err, "%s/%s", sd->path, POLICY_SOURCE);
        return operator_policy_load(len > 0 ? path : NULL, global->host_root, policy, err);
}

int state_dir_load_policy(struct state_dir *sd, const struct global_options *global,
                          struct operator_policy *policy, struct sb_error *err)
{
        _cleanup_free_ char *path = NULL;

        if (faccessat(sd->dir_fd, POLICY_SOURCE, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
                return load_policy_source(sd, global, policy, err);
        if (global->rootless ||
            (faccessat(sd->dir_fd, POLICY_COPY, F_OK, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT))
                return operator_policy_load(global->policy_path, global->host_root, policy, err);
        if (asprintf(&path, "%s/%s", sd->path, POLICY_COPY) < 0)
                return sb_fail(err, ENOMEM, "policy copy");
        return operator_policy_load(path, global->host_root, policy, err);
}

struct oci_config *state_dir_load_config(struct state_dir *sd, struct sb_error *err)
{
        _cleanup_close_ int fd = openat(sd->dir_fd, CONFIG_COPY, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        _cleanup_free_ char *json = NULL;
        size_t len = 0;

        if (fd < 0)
                return sb_fail(err, errno, "open %s/%s", sd->path, CONFIG_COPY), NULL;
        if (sb_read_fd(fd, MAX_RECORD_SIZE, &json, &len, err) < 0)
                return NULL;
        return oci_config_parse(json, len, "config.json", err);
}

/* Whether fd is on another mount than parent_fd: 1, 0, or -1 when unknown. */
static int mount_point(int parent_fd, int fd)
{
        long parent_mnt, mnt;

        if (path_identity_mount_id(parent_fd, &parent_mnt) < 0 ||
            path_identity_mount_id(fd, &mnt) < 0)
                return -1;
        return mnt != parent_mnt;
}

/* CRIU's cgroup yard left mounted (sbrun killed while CRIU ran) is
 * detached, as often as it was stacked; any other mount in a state
 * directory, or on it, is left alone and never walked: below the yard, a
 * bind of the cgroup2 root, the walk would remove every empty cgroup of
 * the host. Returns the directory's fd once it is no mount, or -1. */
static int open_unmounted(int parent_fd, const char *name, bool yard)
{
        for (int i = 0; i < 8; i++) {
                int fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0)
                        return -1;
                int m = mount_point(parent_fd, fd);
                if (m == 0)
                        return fd;
                char path[64];
                snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
                if (m < 0 || !yard || umount2(path, MNT_DETACH) < 0) {
                        close(fd);
                        errno = EBUSY;
                        return -1;
                }
                close(fd);
        }
        errno = EBUSY;
        return -1;
}

/* depth 0: the state directory itself; yard: this is its STATE_CRIU_YARD;
 * detachable: this is the yard's "unified". */
static int remove_tree_at(int parent_fd, const char *name, int depth, bool yard, bool detachable)
{
        struct stat st;
        DIR *dir;
        struct dirent *de;

        if (fstatat(parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return -1;
        if (!S_ISDIR(st.st_mode))
                return unlinkat(parent_fd, name, 0);
        int fd = open_unmounted(parent_fd, name, detachable);
        if (fd < 0)
                return -1;
        dir = fdopendir(fd);
        if (dir == NULL) {
                close(fd);
                return -1;
        }
        while ((de = readdir(dir)) != NULL) {
                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                remove_tree_at(dirfd(dir), de->d_name, depth + 1,
                               depth == 0 && strcmp(de->d_name, STATE_CRIU_YARD) == 0,
                               yard && strcmp(de->d_name, "unified") == 0);
        }
        closedir(dir);
        return unlinkat(parent_fd, name, AT_REMOVEDIR);
}

int state_dir_remove(struct state_dir *sd, struct sb_error *err)
{
        if (remove_tree_at(sd->root_fd, sd->id, 0, false, false) < 0 && errno != ENOENT)
                return sb_fail(err, errno, "remove state directory %s", sd->path);
        sd->created_here = false;
        return 0;
}

void state_dir_release(struct state_dir *sd)
{
        if (sd->created_here && sd->root_fd >= 0 && sd->id != NULL)
                remove_tree_at(sd->root_fd, sd->id, 0, false, false);
        if (sd->dir_fd >= 0)
                close(sd->dir_fd);
        if (sd->root_fd >= 0)
                close(sd->root_fd);
        free(sd->id);
        free(sd->path);
        sd->dir_fd = sd->root_fd = -1;
        sd->id = sd->path = NULL;
}
