#include "spec/operator_policy.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"
#include "spec/operator_policy_floor.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

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
        free(policy->text);
        policy->text = NULL;
}

const char *operator_policy_text(const struct operator_policy *policy)
{
        return policy->text ? policy->text : "{}";
}

static void tree_freep(yajl_val *v)
{
        if (*v != NULL)
                yajl_tree_free(*v);
}

/* Anyone who can write the file could switch enforcement off: the owner
 * must be root and nobody else may write it. Checked on the open fd, so
 * a swap after the check changes nothing. */
static int check_owner(int fd, const char *path, struct sb_error *err)
{
        struct stat st;

        if (fstat(fd, &st) < 0)
                return sb_fail(err, errno, "policy %s", path);
        if (!S_ISREG(st.st_mode))
                return sb_fail(err, 0, "policy %s: not a regular file; refused", path);
        if (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
                return sb_fail(err, 0,
                               "policy %s: must be owned by root and not writable by group "
                               "or others (owner uid %u, mode %04o); refused",
                               path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
        return 0;
}

static int parse_cgroups(yajl_val v, const char *path, struct operator_policy *policy,
                         struct sb_error *err)
{
        if (!YAJL_IS_OBJECT(v))
                return sb_fail(err, 0, "policy %s: cgroups: expected an object", path);
        for (size_t i = 0; i < v->u.object.len; i++) {
                const char *key = v->u.object.keys[i];
                yajl_val value = v->u.object.values[i];
                if (strcmp(key, "enforce") != 0)
                        return sb_fail(err, 0, "policy %s: cgroups.%s: unknown setting", path, key);
                if (!YAJL_IS_TRUE(value) && !YAJL_IS_FALSE(value))
                        return sb_fail(err, 0, "policy %s: cgroups.enforce: expected true or false",
                                       path);
                policy->cgroups_enforce = YAJL_IS_TRUE(value);
        }
        return 0;
}

static int parse_timeout(yajl_val v, const char *path, struct operator_policy *policy,
                         struct sb_error *err)
{
        if (!YAJL_IS_OBJECT(v))
                return sb_fail(err, 0, "policy %s: timeout: expected an object", path);
        for (size_t i = 0; i < v->u.object.len; i++) {
                const char *key = v->u.object.keys[i];
                yajl_val value = v->u.object.values[i];
                if (strcmp(key, "max_seconds") != 0)
                        return sb_fail(err, 0, "policy %s: timeout.%s: unknown setting", path, key);
                if (!YAJL_IS_INTEGER(value) || YAJL_GET_INTEGER(value) <= 0 ||
                    YAJL_GET_INTEGER(value) > INT_MAX)
                        return sb_fail(err, 0,
                                       "policy %s: timeout.max_seconds: expected a "
                                       "positive number of seconds",
                                       path);
                policy->timeout_max_seconds = (int)YAJL_GET_INTEGER(value);
        }
        return 0;
}

/* Unknown keys are errors: a misspelt setting must not pass silently. */
static int parse_policy(const char *text, const char *path, struct operator_policy *policy,
                        struct sb_error *err)
{
        char errbuf[256] = "";
        __attribute__((cleanup(tree_freep))) yajl_val tree =
                yajl_tree_parse(text, errbuf, sizeof(errbuf));

        if (tree == NULL) {
                errbuf[strcspn(errbuf, "\n")] = '\0';
                return sb_fail(err, 0, "policy %s: invalid JSON: %s", path, errbuf);
        }
        if (!YAJL_IS_OBJECT(tree))
                return sb_fail(err, 0, "policy %s: expected a JSON object", path);
        for (size_t i = 0; i < tree->u.object.len; i++) {
                const char *key = tree->u.object.keys[i];
                if (strcmp(key, "cgroups") == 0) {
                        if (parse_cgroups(tree->u.object.values[i], path, policy, err) < 0)
                                return -1;
                        continue;
                }
                if (strcmp(key, "floor") == 0) {
                        if (operator_policy_parse_floor(tree->u.object.values[i], path, policy,
                                                        err) < 0)
                                return -1;
                        continue;
                }
                if (strcmp(key, "timeout") == 0) {
                        if (parse_timeout(tree->u.object.values[i], path, policy, err) < 0)
                                return -1;
                        continue;
                }
                return sb_fail(err, 0, "policy %s: %s: unknown setting", path, key);
        }
        return 0;
}

int operator_policy_load(const char *path, struct operator_policy *policy, struct sb_error *err)
{
        const char *file = path ? path : OPERATOR_POLICY_PATH;
        _cleanup_close_ int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        _cleanup_free_ char *text = NULL;
        size_t len = 0;

        memset(policy, 0, sizeof(*policy));
        policy->cgroups_enforce = true;
        policy->profile = POLICY_STANDARD;
        if (fd < 0) {
                if (errno == ENOENT && path == NULL)
                        return 0; /* no file: the built-in default */
                return sb_fail(err, errno, "policy %s", file);
        }
        if (check_owner(fd, file, err) < 0)
                return -1;
        if (sb_read_fd(fd, POLICY_MAX_BYTES, &text, &len, err) < 0)
                return sb_error_prefix(err, "policy %s", file);
        if (strlen(text) != len)
                return sb_fail(err, 0, "policy %s: contains a NUL byte", file);
        if (parse_policy(text, file, policy, err) < 0) {
                operator_policy_release(policy);
                return -1;
        }
        policy->source = strdup(file);
        if (policy->source == NULL)
                return sb_fail(err, ENOMEM, "policy %s", file);
        policy->text = SB_STEAL_PTR(text);
        return 0;
}
