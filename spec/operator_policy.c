#include "spec/operator_policy.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"
#include "common/strv.h"
#include "oci/json_read.h"
#include "spec/operator_policy_floor.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define POLICY_MAX_BYTES (256 * 1024)

void operator_policy_release(struct operator_policy *policy)
{
        free(policy->source);
        policy->source = NULL;
        for (size_t i = 0; i < policy->n_devices; i++)
                free(policy->devices[i]);
        free(policy->devices);
        policy->devices = NULL;
        policy->n_devices = 0;
        strv_free_n(policy->net_devices, policy->n_net_devices);
        policy->net_devices = NULL;
        policy->n_net_devices = 0;
        free(policy->text);
        policy->text = NULL;
        audit_settings_release(&policy->audit);
}

const char *operator_policy_text(const struct operator_policy *policy)
{
        return policy->text ? policy->text : "{}";
}

/* Anyone who can write the file could switch enforcement off: the owner
 * must be the host's root and nobody else may write it. Checked on the
 * open fd, so a swap after the check changes nothing. */
static int check_owner(int fd, const char *path, uid_t host_root, struct sb_error *err)
{
        struct stat st;

        if (fstat(fd, &st) < 0)
                return sb_fail(err, errno, "policy %s", path);
        if (!S_ISREG(st.st_mode))
                return sb_fail(err, 0, "policy %s: not a regular file; refused", path);
        if (st.st_uid != host_root || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
                return sb_fail(err, 0,
                               "policy %s: must be owned by root and not writable by group "
                               "or others (owner uid %u, mode %04o); refused",
                               path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
        return 0;
}

static int check_dir(int fd, const char *path, uid_t host_root, struct sb_error *err)
{
        struct stat st;

        if (fstat(fd, &st) < 0)
                return sb_fail(err, errno, "policy directory %s", path);
        if (st.st_uid != host_root || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
                return sb_fail(err, 0,
                               "policy directory %s: must be the host root's and writable by "
                               "nobody else (owner uid %u, mode %04o); refused",
                               path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
        return 0;
}

/* In a user namespace that does not map the host's root: the file is opened
 * through /etc and /etc/sbrun, each checked (see operator_policy_load).
 * Returns -1 on a refusal; 0 with *fd the file, or -1 and errno set when it
 * cannot be opened. */
static int open_in_policy_dir(const char *file, uid_t host_root, int *fd, struct sb_error *err)
{
        const size_t dir_len = strlen(OPERATOR_POLICY_DIR);
        const char *name = file + dir_len + 1;
        _cleanup_close_ int etc = -1, dir = -1;

        *fd = -1;
        if (strncmp(file, OPERATOR_POLICY_DIR "/", dir_len + 1) != 0 || name[0] == '\0' ||
            strchr(name, '/') != NULL)
                return sb_fail(err, 0,
                               "policy %s: in a user namespace that does not map the host's "
                               "root (rootless), only a policy in %s/ is read: the owner of a "
                               "file elsewhere cannot be told from any other user's; refused",
                               file, OPERATOR_POLICY_DIR);
        etc = open("/etc", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (etc < 0)
                return sb_fail(err, errno, "policy directory /etc");
        if (check_dir(etc, "/etc", host_root, err) < 0)
                return -1;
        dir = openat(etc, OPERATOR_POLICY_DIR_NAME,
                     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dir < 0)
                return 0; /* errno: ENOENT is the built-in default */
        if (check_dir(dir, OPERATOR_POLICY_DIR, host_root, err) < 0)
                return -1;
        *fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
        return 0;
}

static int cgroups_member(const char *key, json_val value, struct jpath *p, void *ctx,
                          struct sb_error *err)
{
        struct operator_policy *policy = ctx;

        if (strcmp(key, "enforce") != 0)
                return jfail(p, err, "unknown setting");
        if (!json_is_true(value) && !json_is_false(value))
                return jfail(p, err, "expected true or false");
        policy->cgroups_enforce = json_is_true(value);
        return 0;
}

static int timeout_member(const char *key, json_val value, struct jpath *p, void *ctx,
                          struct sb_error *err)
{
        struct operator_policy *policy = ctx;
        int64_t n = 0;

        if (strcmp(key, "max_seconds") != 0)
                return jfail(p, err, "unknown setting");
        if (!json_integer_value(value, &n) || n <= 0 || n > INT_MAX)
                return jfail(p, err, "expected a positive number of seconds");
        policy->timeout_max_seconds = (int)n;
        return 0;
}

static int limits_member(const char *key, json_val value, struct jpath *p, void *ctx,
                         struct sb_error *err)
{
        struct operator_policy *policy = ctx;
        const char *s = json_string_value(value);
        int64_t n = 0;

        if (strcmp(key, "output") != 0)
                return jfail(p, err, "unknown setting");
        if ((json_integer_value(value, &n) && n > 0) ||
            (s != NULL && policy_parse_size(s, &n) == 0)) {
                policy->output_limit = n;
                return 0;
        }
        return jfail(p, err, "expected a positive size");
}

static int landlock_member(const char *key, json_val value, struct jpath *p, void *ctx,
                           struct sb_error *err)
{
        struct operator_policy *policy = ctx;
        const char *mode = json_string_value(value);

        if (strcmp(key, "exec_writable") == 0) {
                if (!json_is_true(value) && !json_is_false(value))
                        return jfail(p, err, "expected true or false");
                policy->landlock_exec_writable = json_is_true(value);
                return 0;
        }
        if (strcmp(key, "mode") != 0)
                return jfail(p, err, "unknown setting");
        for (int m = LANDLOCK_OFF; mode != NULL && m <= LANDLOCK_BEST_EFFORT; m++) {
                if (strcmp(mode, landlock_mode_name((enum landlock_mode)m)) == 0) {
                        policy->landlock_mode = (enum landlock_mode)m;
                        return 0;
                }
        }
        return jfail(p, err, "expected \"off\", \"required\" or \"best-effort\"");
}

const char *landlock_mode_name(enum landlock_mode mode)
{
        switch (mode) {
        case LANDLOCK_REQUIRED:
                return "required";
        case LANDLOCK_BEST_EFFORT:
                return "best-effort";
        case LANDLOCK_OFF:
                break;
        }
        return "off";
}

struct policy_parse {
        struct operator_policy *policy;
        const char *path; /* of the file, for messages */
};

static int policy_member(const char *key, json_val value, struct jpath *p, void *ctx,
                         struct sb_error *err)
{
        struct policy_parse *pp = ctx;
        int r;

        if (strcmp(key, "floor") == 0)
                return operator_policy_parse_floor(value, pp->path, pp->policy, err);
        if (strcmp(key, "cgroups") == 0)
                r = json_is_object(value) ?
                            json_each_member(value, p, cgroups_member, pp->policy, err) :
                            jfail(p, err, "expected an object");
        else if (strcmp(key, "timeout") == 0)
                r = json_is_object(value) ?
                            json_each_member(value, p, timeout_member, pp->policy, err) :
                            jfail(p, err, "expected an object");
        else if (strcmp(key, "limits") == 0)
                r = json_is_object(value) ?
                            json_each_member(value, p, limits_member, pp->policy, err) :
                            jfail(p, err, "expected an object");
        else if (strcmp(key, "landlock") == 0)
                r = json_is_object(value) ?
                            json_each_member(value, p, landlock_member, pp->policy, err) :
                            jfail(p, err, "expected an object");
        else if (strcmp(key, "audit") == 0)
                r = json_is_object(value) ? json_each_member(value, p, audit_settings_member,
                                                             &pp->policy->audit, err) :
                                            jfail(p, err, "expected an object");
        else
                r = jfail(p, err, "unknown setting");
        return r < 0 ? sb_error_prefix(err, "policy %s", pp->path) : 0;
}

static void policy_defaults(struct operator_policy *policy)
{
        memset(policy, 0, sizeof(*policy));
        policy->cgroups_enforce = true;
        policy->profile = POLICY_STANDARD;
        policy->landlock_exec_writable = true;
        audit_settings_defaults(&policy->audit);
}

/* Unknown keys are errors: a misspelt setting must not pass silently.
 * Errors name the file and the setting's JSON path ("policy FILE:
 * floor.ceilings.pids: ..."). */
static int parse_policy(const char *text, size_t len, const char *path,
                        struct operator_policy *policy, struct sb_error *err)
{
        _cleanup_json_tree_ json_val tree = json_parse(text, len, err);
        struct policy_parse pp = { .policy = policy, .path = path };
        struct jpath p;

        if (tree == NULL)
                return sb_error_prefix(err, "policy %s", path);
        if (!json_is_object(tree))
                return sb_fail(err, 0, "policy %s: expected a JSON object", path);
        jpath_init(&p);
        return json_each_member(tree, &p, policy_member, &pp, err);
}

int operator_policy_parse(const char *text, size_t len, const char *origin,
                          struct operator_policy *policy, struct sb_error *err)
{
        policy_defaults(policy);
        if (memchr(text, '\0', len) != NULL)
                return sb_fail(err, 0, "policy %s: contains a NUL byte", origin);
        if (parse_policy(text, len, origin, policy, err) < 0) {
                operator_policy_release(policy);
                return -1;
        }
        return 0;
}

int operator_policy_load(const char *path, uid_t host_root, struct operator_policy *policy,
                         struct sb_error *err)
{
        const char *file = path ? path : OPERATOR_POLICY_PATH;
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *text = NULL;
        size_t len = 0;

        policy_defaults(policy);
        if (host_root == 0)
                fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        else if (open_in_policy_dir(file, host_root, &fd, err) < 0)
                return -1;
        if (fd < 0) {
                if (errno == ENOENT && path == NULL)
                        return 0; /* no file: the built-in default */
                return sb_fail(err, errno, "policy %s", file);
        }
        if (check_owner(fd, file, host_root, err) < 0)
                return -1;
        if (sb_read_fd(fd, POLICY_MAX_BYTES, &text, &len, err) < 0)
                return sb_error_prefix(err, "policy %s", file);
        if (operator_policy_parse(text, len, file, policy, err) < 0)
                return -1;
        policy->source = strdup(file);
        if (policy->source == NULL) {
                operator_policy_release(policy);
                return sb_fail(err, ENOMEM, "policy %s", file);
        }
        policy->text = SB_STEAL_PTR(text);
        return 0;
}
