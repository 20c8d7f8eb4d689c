#include "runtime/container/exec_process.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"
#include "oci/config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PROCESS_FILE (4 * 1024 * 1024)

struct oci_process *exec_process_from_file(const char *path, struct sb_error *err)
{
        _cleanup_free_ char *json = NULL;
        size_t len = 0;

        if (sb_read_file(path, MAX_PROCESS_FILE, &json, &len, err) < 0)
                return sb_error_prefix(err, "--process"), NULL;
        return oci_process_parse(json, len, "process.json", err);
}

static int parse_id(const char *text, const char *what, uint32_t *out, struct sb_error *err)
{
        char *end = NULL;
        unsigned long v;

        errno = 0;
        v = strtoul(text, &end, 10);
        if (errno != 0 || end == text || *end != '\0' || v > UINT32_MAX || text[0] == '-')
                return sb_fail(err, 0, "%s: invalid id \"%s\"", what, text);
        *out = (uint32_t)v;
        return 0;
}

static int replace_args(struct oci_process *p, char **args, size_t n, struct sb_error *err)
{
        struct strv v = { 0 };

        for (size_t i = 0; i < n; i++)
                strv_add(&v, args[i]);
        if (v.failed)
                return strv_release(&v), sb_fail(err, ENOMEM, "exec arguments");
        for (size_t i = 0; i < p->n_args; i++)
                free(p->args[i]);
        free(p->args);
        p->n_args = v.n;
        p->args = strv_steal(&v);
        return 0;
}

static int set_env(struct oci_process *p, const char *entry, struct sb_error *err)
{
        const char *eq = strchr(entry, '=');
        size_t key_len = eq ? (size_t)(eq - entry) : strlen(entry);
        char *copy = strdup(entry);

        if (copy == NULL)
                return sb_fail(err, ENOMEM, "--env");
        for (size_t i = 0; i < p->n_env; i++) {
                if (strncmp(p->env[i], entry, key_len) == 0 && p->env[i][key_len] == '=') {
                        free(p->env[i]);
                        p->env[i] = copy;
                        return 0;
                }
        }
        char **grown = realloc(p->env, (p->n_env + 2) * sizeof(char *));
        if (grown == NULL) {
                free(copy);
                return sb_fail(err, ENOMEM, "--env");
        }
        p->env = grown;
        p->env[p->n_env++] = copy;
        p->env[p->n_env] = NULL;
        return 0;
}

static int set_user(struct oci_process *p, const char *spec, struct sb_error *err)
{
        _cleanup_free_ char *copy = strdup(spec);
        char *colon;

        if (copy == NULL)
                return sb_fail(err, ENOMEM, "--user");
        colon = strchr(copy, ':');
        if (colon != NULL)
                *colon = '\0';
        if (parse_id(copy, "--user", &p->user.uid, err) < 0)
                return -1;
        if (colon != NULL && parse_id(colon + 1, "--user", &p->user.gid, err) < 0)
                return -1;
        return 0;
}

static int add_gids(struct oci_process *p, const struct strv *gids, struct sb_error *err)
{
        if (gids->n == 0)
                return 0;
        uint32_t *grown = realloc(p->user.additional_gids,
                                  (p->user.n_additional_gids + gids->n) * sizeof(uint32_t));
        if (grown == NULL)
                return sb_fail(err, ENOMEM, "--additional-gids");
        p->user.additional_gids = grown;
        for (size_t i = 0; i < gids->n; i++) {
                if (parse_id(gids->items[i], "--additional-gids", &grown[p->user.n_additional_gids],
                             err) < 0)
                        return -1;
                p->user.n_additional_gids++;
        }
        return 0;
}

static int add_caps(struct oci_process *p, const struct strv *caps, struct sb_error *err)
{
        for (size_t i = 0; i < caps->n; i++) {
                int cap = oci_capability_from_name(caps->items[i]);
                if (cap < 0)
                        return sb_fail(err, 0, "--cap: unknown capability \"%s\"", caps->items[i]);
                uint64_t bit = 1ULL << cap;
                p->has_capabilities = true;
                p->capabilities.bounding |= bit;
                p->capabilities.effective |= bit;
                p->capabilities.permitted |= bit;
        }
        return 0;
}

static int replace_string(char **field, const char *value)
{
        char *copy = strdup(value);
        if (copy == NULL)
                return -1;
        free(*field);
        *field = copy;
        return 0;
}

struct oci_process *exec_process_from_config(struct oci_config *config,
                                             const struct exec_overrides *o, struct sb_error *err)
{
        struct oci_process *p = config->process;

        if (p == NULL)
                return sb_fail(err, 0, "config.json has no process to base the exec on"), NULL;
        config->process = NULL;
        if (o->n_args == 0) {
                sb_fail(err, 0, "exec: a command or --process is required");
                goto fail;
        }
        if (replace_args(p, o->args, o->n_args, err) < 0)
                goto fail;
        for (size_t i = 0; i < o->env.n; i++) {
                if (set_env(p, o->env.items[i], err) < 0)
                        goto fail;
        }
        if (o->cwd != NULL) {
                if (o->cwd[0] != '/') {
                        sb_fail(err, 0, "--cwd: \"%s\" is not an absolute path", o->cwd);
                        goto fail;
                }
                free(p->cwd);
                p->cwd = strdup(o->cwd);
        }
        if (o->user != NULL && set_user(p, o->user, err) < 0)
                goto fail;
        if (add_gids(p, &o->additional_gids, err) < 0 || add_caps(p, &o->caps, err) < 0)
                goto fail;
        p->terminal = o->tty;
        if ((o->apparmor != NULL && replace_string(&p->apparmor_profile, o->apparmor) < 0) ||
            (o->process_label != NULL && replace_string(&p->selinux_label, o->process_label) < 0)) {
                sb_fail(err, ENOMEM, "exec options");
                goto fail;
        }
        if (o->no_new_privs)
                p->no_new_privileges = true;
        return p;
fail:
        oci_process_free(p);
        return NULL;
}

void exec_overrides_release(struct exec_overrides *o)
{
        strv_release(&o->env);
        strv_release(&o->additional_gids);
        strv_release(&o->caps);
}
