/* config.json entry points and the top-level members: root, mounts,
 * hostname, domainname, hooks, annotations. process and linux are parsed by
 * their own files. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* asprintf */
#endif
#include "oci/config.h"
#include "oci/config_parse_internal.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/strv.h"
#include "common/fs_util.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Engines write config.json files of tens of KiB (podman's seccomp profile
 * is the bulk); anything near this size is not a config. */
#define CONFIG_MAX_SIZE (16u << 20)

bool oci_is_absolute_path(const char *s)
{
        return s != NULL && s[0] == '/';
}

int oci_check_absolute(const char *s, struct jpath *p, const char *key, struct sb_error *err)
{
        _cleanup_free_ char *shown = NULL;
        size_t saved;

        if (oci_is_absolute_path(s))
                return 0;
        saved = jpath_key(p, key);
        shown = json_describe_string(s);
        jfail(p, err, "%s is not an absolute path", shown ? shown : "?");
        jpath_pop(p, saved);
        return -1;
}

int oci_each_element(yajl_val obj, const char *key, struct jpath *p, void *items, size_t item_size,
                     size_t *n,
                     int (*fn)(yajl_val v, struct jpath *p, void *item, struct sb_error *err),
                     struct sb_error *err)
{
        yajl_val arr = NULL;
        size_t len, saved;
        char *base;
        int r = json_get_array(obj, key, p, &arr, err);

        if (r <= 0)
                return r;
        len = arr->u.array.len;
        base = calloc(len ? len : 1, item_size);
        if (base == NULL)
                return sb_fail(err, ENOMEM, "%s", key);
        *(void **)items = base;
        *n = len;
        saved = jpath_key(p, key);
        for (size_t i = 0; i < len; i++) {
                yajl_val v = arr->u.array.values[i];
                size_t at = jpath_index(p, i);

                if (json_check_object(v, p, err) < 0 || fn(v, p, base + i * item_size, err) < 0) {
                        jpath_pop(p, saved);
                        return -1;
                }
                jpath_pop(p, at);
        }
        jpath_pop(p, saved);
        return 1;
}

int oci_check_known(const char *value, const char *const *known, struct jpath *p, const char *what,
                    struct sb_error *err)
{
        _cleanup_free_ char *shown = NULL;

        for (const char *const *k = known; *k != NULL; k++)
                if (strcmp(*k, value) == 0)
                        return 0;
        shown = json_describe_string(value);
        return jfail(p, err, "unknown %s %s", what, shown ? shown : "?");
}

int oci_check_known_member(const char *value, const char *const *known, struct jpath *p,
                           const char *key, const char *what, struct sb_error *err)
{
        size_t saved;
        int r;

        if (value == NULL)
                return 0;
        saved = jpath_key(p, key);
        r = oci_check_known(value, known, p, what, err);
        jpath_pop(p, saved);
        return r;
}

static int parse_root(yajl_val obj, struct jpath *p, struct oci_root *root, struct sb_error *err)
{
        yajl_val v = NULL;
        size_t saved;
        int r = json_get_object(obj, "root", p, &v, err);

        if (r <= 0)
                return r;
        saved = jpath_key(p, "root");
        if (json_require_string(v, "path", p, &root->path, err) < 0 ||
            json_get_bool(v, "readonly", p, &root->readonly, err) < 0) {
                jpath_pop(p, saved);
                return -1;
        }
        jpath_pop(p, saved);
        return 1;
}

/* The kernel reads a mount's data as one comma-separated list, so an
 * element "uid=0,size=4g" is two options, the last size= winning: every
 * element is split here, outside double quotes (an SELinux context=
 * holds commas), so that each option is judged as the kernel will see
 * it. An empty one is refused: it would be one nobody asked for. */
static int split_options(struct oci_mount *m, struct jpath *p, struct sb_error *err)
{
        struct strv out = { 0 };

        if (m->n_options == 0)
                return 0;
        for (size_t i = 0; i < m->n_options; i++) {
                const char *opt = m->options[i], *start = opt;
                bool quoted = false;
                for (const char *c = opt;; c++) {
                        if (*c == '"')
                                quoted = !quoted;
                        if ((*c != ',' || quoted) && *c != '\0')
                                continue;
                        if (c == start) {
                                size_t saved = jpath_key(p, "options");
                                jfail(p, err, "\"%s\" has an empty option", opt);
                                jpath_pop(p, saved);
                                strv_release(&out);
                                return -1;
                        }
                        strv_addf(&out, "%.*s", (int)(c - start), start);
                        if (*c == '\0')
                                break;
                        start = c + 1;
                }
        }
        if (out.failed) {
                strv_release(&out);
                return sb_fail(err, ENOMEM, "mounts");
        }
        for (size_t i = 0; i < m->n_options; i++)
                free(m->options[i]);
        free(m->options);
        m->n_options = out.n;
        m->options = strv_steal(&out);
        return 0;
}

static int parse_mount(yajl_val v, struct jpath *p, void *item, struct sb_error *err)
{
        struct oci_mount *m = item;

        if (json_require_string(v, "destination", p, &m->destination, err) < 0 ||
            oci_check_absolute(m->destination, p, "destination", err) < 0 ||
            json_get_string(v, "type", p, &m->type, err) < 0 ||
            json_get_string(v, "source", p, &m->source, err) < 0 ||
            json_get_strv(v, "options", p, &m->options, &m->n_options, err) < 0 ||
            split_options(m, p, err) < 0 ||
            oci_parse_idmaps(v, "uidMappings", p, &m->uid_mappings, &m->n_uid_mappings, err) < 0 ||
            oci_parse_idmaps(v, "gidMappings", p, &m->gid_mappings, &m->n_gid_mappings, err) < 0)
                return -1;
        return 0;
}

static int parse_hook(yajl_val v, struct jpath *p, void *item, struct sb_error *err)
{
        struct oci_hook *h = item;
        int64_t timeout = 0;
        int r;

        if (json_require_string(v, "path", p, &h->path, err) < 0 ||
            oci_check_absolute(h->path, p, "path", err) < 0 ||
            json_get_strv(v, "args", p, &h->args, &h->n_args, err) < 0 ||
            json_get_strv(v, "env", p, &h->env, &h->n_env, err) < 0)
                return -1;
        r = json_get_int(v, "timeout", p, INT64_MIN, INT64_MAX, &timeout, err);
        if (r < 0)
                return -1;
        if (r > 0) {
                if (timeout <= 0 || timeout > INT_MAX) {
                        size_t saved = jpath_key(p, "timeout");
                        jfail(p, err, "%" PRId64 " is not a positive number of seconds", timeout);
                        jpath_pop(p, saved);
                        return -1;
                }
                h->has_timeout = true;
                h->timeout = (int)timeout;
        }
        return 0;
}

static int parse_hooks(yajl_val obj, struct jpath *p, struct oci_hooks *hooks, struct sb_error *err)
{
        const struct {
                const char *key;
                struct oci_hook_list *list;
        } lists[] = {
                { "prestart", &hooks->prestart },
                { "createRuntime", &hooks->create_runtime },
                { "createContainer", &hooks->create_container },
                { "startContainer", &hooks->start_container },
                { "poststart", &hooks->poststart },
                { "poststop", &hooks->poststop },
        };
        yajl_val v = NULL;
        size_t saved;
        int r = json_get_object(obj, "hooks", p, &v, err);

        if (r <= 0)
                return r;
        saved = jpath_key(p, "hooks");
        for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
                if (oci_each_element(v, lists[i].key, p, &lists[i].list->hooks,
                                     sizeof(struct oci_hook), &lists[i].list->n, parse_hook,
                                     err) < 0) {
                        jpath_pop(p, saved);
                        return -1;
                }
        }
        jpath_pop(p, saved);
        return 0;
}

static int parse_config_tree(yajl_val tree, struct oci_config *c, struct sb_error *err)
{
        struct jpath p;
        yajl_val v = NULL;
        int r;

        jpath_init(&p);
        if (json_check_object(tree, &p, err) < 0)
                return -1;
        if (json_require_string(tree, "ociVersion", &p, &c->oci_version, err) < 0)
                return -1;
        r = parse_root(tree, &p, &c->root, err);
        if (r < 0)
                return -1;
        c->has_root = r > 0;
        if (oci_each_element(tree, "mounts", &p, &c->mounts, sizeof(struct oci_mount), &c->n_mounts,
                             parse_mount, err) < 0)
                return -1;

        r = json_get_object(tree, "process", &p, &v, err);
        if (r < 0)
                return -1;
        if (r > 0) {
                size_t saved = jpath_key(&p, "process");
                c->process = calloc(1, sizeof(*c->process));
                if (c->process == NULL)
                        return sb_fail(err, ENOMEM, "process");
                r = oci_parse_process_obj(v, &p, c->process, err);
                jpath_pop(&p, saved);
                if (r < 0)
                        return -1;
        }

        if (json_get_string(tree, "hostname", &p, &c->hostname, err) < 0 ||
            json_get_string(tree, "domainname", &p, &c->domainname, err) < 0 ||
            parse_hooks(tree, &p, &c->hooks, err) < 0 ||
            json_get_string_map(tree, "annotations", &p, &c->annotations, &c->n_annotations, err) <
                    0)
                return -1;

        r = json_get_object(tree, "linux", &p, &v, err);
        if (r < 0)
                return -1;
        if (r > 0) {
                size_t saved = jpath_key(&p, "linux");
                c->linux_ = calloc(1, sizeof(*c->linux_));
                if (c->linux_ == NULL)
                        return sb_fail(err, ENOMEM, "linux");
                r = oci_parse_linux_obj(v, &p, c->linux_, err);
                jpath_pop(&p, saved);
                if (r < 0)
                        return -1;
        }
        return 0;
}

struct oci_config *oci_config_parse(const char *json, size_t len, const char *origin,
                                    struct sb_error *err)
{
        _cleanup_json_tree_ yajl_val tree = json_parse(json, len, err);
        struct oci_config *c;

        if (tree == NULL) {
                sb_error_prefix(err, "%s", origin);
                return NULL;
        }
        c = calloc(1, sizeof(*c));
        if (c == NULL) {
                sb_fail(err, ENOMEM, "%s", origin);
                return NULL;
        }
        if (parse_config_tree(tree, c, err) < 0) {
                oci_config_free(c);
                sb_error_prefix(err, "%s", origin);
                return NULL;
        }
        return c;
}

struct oci_process *oci_process_parse(const char *json, size_t len, const char *origin,
                                      struct sb_error *err)
{
        _cleanup_json_tree_ yajl_val tree = json_parse(json, len, err);
        struct oci_process *proc;
        struct jpath p;

        if (tree == NULL) {
                sb_error_prefix(err, "%s", origin);
                return NULL;
        }
        jpath_init(&p);
        proc = calloc(1, sizeof(*proc));
        if (proc == NULL) {
                sb_fail(err, ENOMEM, "%s", origin);
                return NULL;
        }
        if (json_check_object(tree, &p, err) < 0 ||
            oci_parse_process_obj(tree, &p, proc, err) < 0) {
                oci_process_free(proc);
                sb_error_prefix(err, "%s", origin);
                return NULL;
        }
        return proc;
}

/* stat() follows symlinks on purpose: a rootfs that is a symlink to a
 * directory is valid (runc accepts it), and the runtime resolves it again. */
static int check_rootfs(const char *bundle, const char *path, struct sb_error *err)
{
        _cleanup_free_ char *full = NULL;
        struct stat st;
        _cleanup_free_ char *shown = json_describe_string(path);

        if (path[0] == '/')
                full = strdup(path);
        else if (asprintf(&full, "%s/%s", bundle, path) < 0)
                full = NULL;
        if (full == NULL || shown == NULL)
                return sb_fail(err, ENOMEM, "root.path");
        if (stat(full, &st) < 0) {
                if (errno == ENOENT || errno == ENOTDIR)
                        return sb_fail(err, 0, "root.path: %s does not exist", shown);
                return sb_fail(err, errno, "root.path: %s", shown);
        }
        if (!S_ISDIR(st.st_mode))
                return sb_fail(err, 0, "root.path: %s is not a directory", shown);
        return 0;
}

struct oci_config *oci_config_load_bundle(const char *bundle, struct sb_error *err)
{
        return oci_config_load_bundle_text(bundle, NULL, NULL, err);
}

struct oci_config *oci_config_load_bundle_text(const char *bundle, char **text_out, size_t *len_out,
                                               struct sb_error *err)
{
        _cleanup_free_ char *path = NULL;
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        struct oci_config *c;

        if (asprintf(&path, "%s/config.json", bundle) < 0) {
                path = NULL;
                sb_fail(err, ENOMEM, "config.json");
                return NULL;
        }
        if (sb_read_file(path, CONFIG_MAX_SIZE, &text, &len, err) < 0)
                return NULL;
        c = oci_config_parse(text, len, "config.json", err);
        if (c == NULL)
                return NULL;
        if (!c->has_root) {
                sb_fail(err, 0, "config.json: root.path: required");
                oci_config_free(c);
                return NULL;
        }
        if (check_rootfs(bundle, c->root.path, err) < 0) {
                sb_error_prefix(err, "config.json");
                oci_config_free(c);
                return NULL;
        }
        if (text_out != NULL) {
                *text_out = SB_STEAL_PTR(text);
                *len_out = len;
        }
        return c;
}
