/* Mounts: a root or host bind that would hand the container the host (a
 * protected tree of spec/floor_trees.c: the host's system directories,
 * sbrun's state root and its contents, the audit trail, the policy, the
 * binaries, the engines' socket directories), judged by what the runtime
 * holds open, or a container engine's socket, is refused. Strict: a
 * read-only root and a size-capped /tmp tmpfs. */
#include "spec/floor.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/size_parse.h"
#include "oci/config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

/* Engine sockets give root on the host to whoever can talk to them,
 * wherever they lie; their directories are among the trees
 * (spec/floor_trees.c). */
static const char *const engine_sockets[] = {
        "docker.sock",    "containerd.sock",      "podman.sock",
        "crio.sock",      "dockershim.sock",      "cri-dockerd.sock",
        "buildkitd.sock", "containerd-shim.sock", NULL,
};

/* A root or bind source that reaches a protected tree: refused naming the
 * tree and how it is reached ("\"/srv/x\" is inside sbrun's state root
 * /run/sbrun"). */
static int judge_tree(const struct floor_identity *id, bool writable, bool is_root,
                      const char *field, const char *value, const struct floor_context *ctx,
                      struct floor_report *report, struct sb_error *err)
{
        const char *relation = NULL;
        const struct floor_tree *t = floor_tree_conflict(id, false, is_root, ctx->host->trees,
                                                         ctx->host->n_trees, &relation);
        bool for_writing = false;
        _cleanup_free_ char *shown = NULL;

        if (t == NULL && writable) {
                t = floor_tree_conflict(id, true, is_root, ctx->host->trees, ctx->host->n_trees,
                                        &relation);
                for_writing = true;
        }
        if (t == NULL)
                return 0;
        if (asprintf(&shown, "\"%s\" (%s %s %s %s%s)", value, id->path, relation, t->what,
                     t->id.path ? t->id.path : t->path, for_writing ? ", writable" : "") < 0) {
                shown = NULL;
                return sb_fail(err, ENOMEM, "%s", field);
        }
        return floor_refuse(report, err, field, shown, t->rule);
}

/* What a recursive bind brings along is judged as the source is: a mount
 * of a protected tree below it (a host's /mnt/etc, a bind of /etc) is that
 * tree. */
static int judge_submounts(const struct floor_identity_list *subs, bool writable, bool is_root,
                           const char *field, const char *value, const struct floor_context *ctx,
                           struct floor_report *report, struct sb_error *err)
{
        for (size_t i = 0; subs != NULL && i < subs->n; i++) {
                if (judge_tree(&subs->items[i], writable, is_root, field, value, ctx, report, err) <
                    0)
                        return -1;
        }
        return 0;
}

static const char *refusal(const char *source)
{
        const char *base = strrchr(source, '/');

        for (const char *const *s = engine_sockets; base != NULL && *s != NULL; s++) {
                if (strcmp(base + 1, *s) == 0)
                        return "standard: no container engine socket";
        }
        return NULL;
}

/* A bind of a device node gives what creating it would: the same rule as
 * linux.devices (a host disk bound in is the host's file systems). */
static const char *device_refusal(const char *source, const struct stat *st,
                                  const char *destination, const struct floor_context *ctx)
{
        char type;

        if (S_ISCHR(st->st_mode))
                type = 'c';
        else if (S_ISBLK(st->st_mode))
                type = 'b';
        else
                return NULL;
        if (floor_device_allowed(type, major(st->st_rdev), minor(st->st_rdev), destination, ctx) ||
            floor_device_allowed(type, major(st->st_rdev), minor(st->st_rdev), source, ctx))
                return NULL;
        return "standard: only standard or operator-allowed devices";
}

static int check_binds(struct oci_config *config, const struct floor_context *ctx,
                       struct floor_report *report, struct sb_error *err)
{
        for (size_t i = 0; i < config->n_mounts; i++) {
                const struct oci_mount *m = &config->mounts[i];
                char field[64];
                const char *source, *rule;

                if (m->source == NULL || !oci_mount_is_bind(m))
                        continue;
                snprintf(field, sizeof(field), "mounts[%zu].source", i);
                /* Judged by what the runtime holds open and will bind, never
                 * by a path that could name something else later. */
                if (i >= ctx->n_bind_paths || ctx->bind_paths[i] == NULL)
                        return sb_fail(err, 0, "%s: \"%s\" was not opened before the check", field,
                                       m->source);
                source = ctx->bind_paths[i];
                if (i >= ctx->host->n_binds || ctx->host->binds[i] == NULL)
                        return sb_fail(err, 0, "%s: \"%s\" was not judged before the check", field,
                                       m->source);
                if (judge_tree(ctx->host->binds[i], !oci_mount_is_read_only(m), false, field,
                               m->source, ctx, report, err) < 0 ||
                    judge_submounts(ctx->host->bind_submounts ? ctx->host->bind_submounts[i] : NULL,
                                    !oci_mount_is_read_only(m), false, field, m->source, ctx,
                                    report, err) < 0)
                        return -1;
                rule = refusal(source);
                if (rule == NULL)
                        rule = device_refusal(source, &ctx->bind_stats[i], m->destination, ctx);
                if (rule != NULL && floor_refuse(report, err, field, m->source, rule) < 0)
                        return -1;
        }
        return 0;
}

/* NAME=VALUE in place of every NAME= (and OTHER=, when not NULL) option:
 * size= and nr_blocks= both set the block limit and the last one wins in
 * the kernel, so none may stay beside the floor's. */
static int set_option(struct oci_mount *m, const char *name, const char *other, uint64_t value,
                      struct sb_error *err)
{
        char opt[64];
        size_t kept = 0;

        snprintf(opt, sizeof(opt), "%s%" PRIu64, name, value);
        for (size_t i = 0; i < m->n_options; i++) {
                if (strncmp(m->options[i], name, strlen(name)) == 0 ||
                    (other != NULL && strncmp(m->options[i], other, strlen(other)) == 0))
                        free(m->options[i]);
                else
                        m->options[kept++] = m->options[i];
        }
        m->n_options = kept;
        char **grown = realloc(m->options, (m->n_options + 2) * sizeof(char *));
        if (grown == NULL)
                return sb_fail(err, ENOMEM, "mounts");
        m->options = grown;
        grown[m->n_options] = strdup(opt);
        if (grown[m->n_options] == NULL)
                return sb_fail(err, ENOMEM, "mounts");
        grown[++m->n_options] = NULL;
        return 0;
}

static int set_size_option(struct oci_mount *m, uint64_t size, struct sb_error *err)
{
        return set_option(m, "size=", "nr_blocks=", size, err);
}

/* size=N% of the host's RAM, as the kernel takes it: a size, but not one
 * the floor can compare. */
static bool is_percentage(const char *text)
{
        size_t n = strlen(text);
        _cleanup_free_ char *number = n > 1 && text[n - 1] == '%' ? strndup(text, n - 1) : NULL;
        int64_t ignored;

        return number != NULL && size_parse(number, SIZE_TMPFS, &ignored) == 0;
}

/* The tmpfs's block limit as asked, into *size: 0 when none, UINT64_MAX
 * for one the floor cannot compare (size=0, tmpfs's "no limit"; a
 * percentage of RAM; nr_blocks=): those are clamped as if above. A size=
 * that is no size at all (a sign, a stray character, past 2^63-1 bytes) is
 * refused: mount_options_parse reads size= with the same SIZE_TMPFS and
 * would refuse it too, so nothing the floor let through is read otherwise
 * later. */
static int requested_size(const struct oci_mount *m, size_t index, struct floor_report *report,
                          uint64_t *size, char *shown, size_t shown_size, struct sb_error *err)
{
        *size = 0;
        snprintf(shown, shown_size, "(none)");
        for (size_t i = 0; i < m->n_options; i++) {
                const char *opt = m->options[i];
                int64_t n = 0;
                char field[64];

                if (strncmp(opt, "nr_blocks=", 10) == 0) {
                        snprintf(shown, shown_size, "%s", opt);
                        *size = UINT64_MAX;
                } else if (strncmp(opt, "size=", 5) == 0) {
                        snprintf(shown, shown_size, "%s", opt);
                        if (size_parse(opt + 5, SIZE_TMPFS, &n) == 0) {
                                *size = n == 0 ? UINT64_MAX : (uint64_t)n;
                                continue;
                        }
                        *size = UINT64_MAX;
                        if (is_percentage(opt + 5))
                                continue;
                        snprintf(field, sizeof(field), "mounts[%zu].options", index);
                        if (floor_refuse(report, err, field, opt,
                                         "a tmpfs size is bytes with an optional k, m, g or t, "
                                         "at most 2^63-1, or a percentage of RAM") < 0)
                                return -1;
                }
        }
        return 0;
}

static bool is_tmpfs(const struct oci_mount *m)
{
        return m->type != NULL && strcmp(m->type, "tmpfs") == 0;
}

/* The tmpfs's inode limit as asked, into *count: 0 when none, UINT64_MAX
 * for nr_inodes=0 (tmpfs's "no limit"). One that is no count at all is
 * refused, as a size= is. */
static int requested_inodes(const struct oci_mount *m, size_t index, struct floor_report *report,
                            uint64_t *count, char *shown, size_t shown_size, struct sb_error *err)
{
        *count = 0;
        snprintf(shown, shown_size, "(none)");
        for (size_t i = 0; i < m->n_options; i++) {
                const char *opt = m->options[i];
                int64_t n = 0;
                char field[64];

                if (strncmp(opt, "nr_inodes=", 10) != 0)
                        continue;
                snprintf(shown, shown_size, "%s", opt);
                if (size_parse(opt + 10, SIZE_TMPFS, &n) == 0) {
                        *count = n == 0 ? UINT64_MAX : (uint64_t)n;
                        continue;
                }
                *count = UINT64_MAX;
                snprintf(field, sizeof(field), "mounts[%zu].options", index);
                if (floor_refuse(report, err, field, opt,
                                 "a tmpfs nr_inodes is a count with an optional k, m, g or t, "
                                 "at most 2^63-1") < 0)
                        return -1;
        }
        return 0;
}

/* NAME=ceiling in place of what was asked (0: nothing, UINT64_MAX: no
 * limit), unless that is within the ceiling; reported with the rule
 * "PROFILE tmpfs WHAT ceiling". */
static int clamp_option(struct oci_mount *m, size_t i, const char *name, const char *other,
                        const char *what, uint64_t asked, const char *req, uint64_t ceiling,
                        const struct floor_context *ctx, struct floor_report *report,
                        struct sb_error *err)
{
        char field[64], rule[64], eff[64];

        if (asked != 0 && asked <= ceiling)
                return 0;
        snprintf(rule, sizeof(rule), "%s tmpfs %s ceiling", ctx->profile->name, what);
        snprintf(eff, sizeof(eff), "%s%" PRIu64, name, ceiling);
        snprintf(field, sizeof(field), "mounts[%zu].options", i);
        if (set_option(m, name, other, ceiling, err) < 0)
                return -1;
        return floor_note(report, err, asked == 0 ? FLOOR_ADDED : FLOOR_CLAMPED, field, req, eff,
                          rule);
}

/* A tmpfs without a size may take half the host's RAM: held to the
 * profile's tmp ceiling (its pages count against memory.max too, but that
 * may be unset under standard). */
static int cap_size(struct oci_mount *m, size_t i, const struct floor_context *ctx,
                    struct floor_report *report, struct sb_error *err)
{
        uint64_t ceiling = ctx->ceilings.tmp_size, size;
        char req[96];

        if (ceiling == 0)
                return 0;
        if (requested_size(m, i, report, &size, req, sizeof(req), err) < 0)
                return -1;
        return clamp_option(m, i, "size=", "nr_blocks=", "size", size, req, ceiling, ctx, report,
                            err);
}

/* Nor may it take as many inodes as it has pages: a million empty files
 * fill no size limit, and each costs the host kernel memory. */
static int cap_inodes(struct oci_mount *m, size_t i, const struct floor_context *ctx,
                      struct floor_report *report, struct sb_error *err)
{
        uint64_t ceiling = ctx->ceilings.inodes, count;
        char req[96];

        if (ceiling == 0)
                return 0;
        if (requested_inodes(m, i, report, &count, req, sizeof(req), err) < 0)
                return -1;
        return clamp_option(m, i, "nr_inodes=", NULL, "inode", count, req, ceiling, ctx, report,
                            err);
}

static int cap_tmpfs_mounts(struct oci_config *config, const struct floor_context *ctx,
                            struct floor_report *report, struct sb_error *err)
{
        for (size_t i = 0; i < config->n_mounts; i++) {
                struct oci_mount *m = &config->mounts[i];
                if (is_tmpfs(m) && (cap_size(m, i, ctx, report, err) < 0 ||
                                    cap_inodes(m, i, ctx, report, err) < 0))
                        return -1;
        }
        return 0;
}

static int add_tmpfs(struct oci_config *config, const char *destination, struct sb_error *err)
{
        static const char *const opts[] = { "nosuid", "nodev", "mode=1777", NULL };
        struct oci_mount *grown = realloc(config->mounts, (config->n_mounts + 1) * sizeof(*grown));

        if (grown == NULL)
                return sb_fail(err, ENOMEM, "mounts");
        config->mounts = grown;
        struct oci_mount *m = &grown[config->n_mounts++];
        memset(m, 0, sizeof(*m));
        m->destination = strdup(destination);
        m->type = strdup("tmpfs");
        m->source = strdup("tmpfs");
        m->options = calloc(5, sizeof(char *));
        if (!m->destination || !m->type || !m->source || !m->options)
                return sb_fail(err, ENOMEM, "mounts");
        for (; opts[m->n_options] != NULL; m->n_options++) {
                m->options[m->n_options] = strdup(opts[m->n_options]);
                if (m->options[m->n_options] == NULL)
                        return sb_fail(err, ENOMEM, "mounts");
        }
        return 0;
}

static int strict_root(struct oci_config *config, const struct floor_context *ctx,
                       struct floor_report *report, struct sb_error *err)
{
        uint64_t size = ctx->ceilings.tmp_size;
        char eff[64];

        if (!config->root.readonly) {
                config->root.readonly = true;
                if (floor_note(report, err, FLOOR_FORCED, "root.readonly", "false", "true",
                               "strict: read-only root") < 0)
                        return -1;
        }
        if (size == 0)
                return 0;
        for (size_t i = 0; i < config->n_mounts; i++) {
                const struct oci_mount *m = &config->mounts[i];
                char field[64];
                if (strcmp(m->destination, "/tmp") != 0 && strcmp(m->destination, "/tmp/") != 0)
                        continue;
                if (is_tmpfs(m))
                        return 0; /* sized by cap_tmpfs_mounts */
                snprintf(field, sizeof(field), "mounts[%zu]", i);
                return floor_refuse(report, err, field, "a /tmp that is not a tmpfs",
                                    "strict: size-capped /tmp");
        }
        snprintf(eff, sizeof(eff), "tmpfs size=%" PRIu64, size);
        if (add_tmpfs(config, "/tmp", err) < 0 ||
            set_size_option(&config->mounts[config->n_mounts - 1], size, err) < 0)
                return -1;
        return floor_note(report, err, FLOOR_ADDED, "mounts./tmp", NULL, eff,
                          "strict: size-capped /tmp");
}

/* What a workspace may be: an absolute, clean path below the root, not
 * in the kernel's views or /dev. */
static bool workspace_path_ok(const char *dir)
{
        static const char *const kernel[] = { "/proc", "/sys", "/dev", NULL };

        if (dir[0] != '/' || dir[1] == '\0' || strlen(dir) >= PATH_MAX || strstr(dir, "//") ||
            dir[strlen(dir) - 1] == '/' || strstr(dir, "/./") || strstr(dir, "/../") ||
            (strlen(dir) >= 2 && strcmp(dir + strlen(dir) - 2, "/.") == 0) ||
            (strlen(dir) >= 3 && strcmp(dir + strlen(dir) - 3, "/..") == 0))
                return false;
        for (const char *const *k = kernel; *k != NULL; k++) {
                size_t n = strlen(*k);
                if (strncmp(dir, *k, n) == 0 && (dir[n] == '\0' || dir[n] == '/'))
                        return false;
        }
        return true;
}

/* run.sbrun.workspace=DIR: the container's writable scratch beside /tmp,
 * on a tmpfs that cap_tmpfs_mounts sizes and caps in inodes like every
 * other; a config's own tmpfs there is kept (and capped), anything else
 * there would escape the caps and is refused. */
static int workspace(struct oci_config *config, struct floor_report *report, struct sb_error *err)
{
        const char *dir = oci_annotation(config, WORKSPACE_ANNOTATION);
        char field[PATH_MAX + 16]; /* "mounts.DIR" */

        if (dir == NULL)
                return 0;
        snprintf(field, sizeof(field), "annotations[\"%s\"]", WORKSPACE_ANNOTATION);
        if (!workspace_path_ok(dir))
                return floor_refuse(report, err, field, dir,
                                    "a workspace is a clean absolute path below /, not in /proc, "
                                    "/sys or /dev");
        for (size_t i = 0; i < config->n_mounts; i++) {
                const struct oci_mount *m = &config->mounts[i];
                if (m->destination == NULL || strcmp(m->destination, dir) != 0)
                        continue;
                if (is_tmpfs(m))
                        return 0;
                snprintf(field, sizeof(field), "mounts[%zu]", i);
                return floor_refuse(report, err, field, "a workspace that is not a tmpfs",
                                    "run.sbrun.workspace: a capped tmpfs");
        }
        if (add_tmpfs(config, dir, err) < 0)
                return -1;
        snprintf(field, sizeof(field), "mounts.%s", dir);
        return floor_note(report, err, FLOOR_ADDED, field, NULL, "tmpfs",
                          "run.sbrun.workspace: a capped tmpfs");
}

/* A config without a /dev mount still gets one (runtime/sandbox/
 * mount_translate.c: bwrap's --dev, runc's default nodes), sized here: the
 * operator's ceilings hold for it as for a /dev the config names. */
static int cap_implicit_dev(struct oci_config *config, const struct floor_context *ctx,
                            struct floor_report *report, struct sb_error *err)
{
        uint64_t size = FLOOR_DEV_SIZE, inodes = FLOOR_DEV_INODES;
        char req[64], eff[64], rule[64];

        if (oci_config_mounts_dev(config))
                return 0;
        if (ctx->ceilings.tmp_size != 0 && ctx->ceilings.tmp_size < size)
                size = ctx->ceilings.tmp_size;
        if (ctx->ceilings.inodes != 0 && ctx->ceilings.inodes < inodes)
                inodes = ctx->ceilings.inodes;
        config->implicit_dev_size = size;
        config->implicit_dev_inodes = inodes;
        if (size == FLOOR_DEV_SIZE && inodes == FLOOR_DEV_INODES)
                return 0;
        snprintf(req, sizeof(req), "tmpfs size=%" PRIu64 ",nr_inodes=%" PRIu64, FLOOR_DEV_SIZE,
                 FLOOR_DEV_INODES);
        snprintf(eff, sizeof(eff), "tmpfs size=%" PRIu64 ",nr_inodes=%" PRIu64, size, inodes);
        snprintf(rule, sizeof(rule), "%s tmpfs ceilings", ctx->profile->name);
        return floor_note(report, err, FLOOR_CLAMPED, "mounts./dev", req, eff, rule);
}

/* dest as the kernel walks it, for the comparison only: repeated slashes
 * and "." components dropped (".." is refused by the translation). */
static bool dest_is(const char *dest, const char *want)
{
        size_t w = 0, n = strlen(want);

        for (const char *c = dest; *c != '\0';) {
                if (c[0] == '/' && (c[1] == '/' || c[1] == '\0' ||
                                    (c[1] == '.' && (c[2] == '/' || c[2] == '\0')))) {
                        c += c[1] == '.' ? 2 : 1;
                        continue;
                }
                if (w >= n || *c != want[w])
                        return false;
                w++;
                c++;
        }
        return w == n;
}

/* The kernel's views: the floor's read-only and masked paths
 * (floor_paths.c: /proc/sys, /proc/sysrq-trigger, /sys/firmware...) lie
 * at /proc and /sys only, so a second proc at /p2 would be a writable
 * /p2/sys/kernel/core_pattern, root on the host; and a sysfs mounted
 * read-write is the host's devices and kernel knobs, whose files check
 * no capability (a PCI device's remove). Mounted elsewhere: refused;
 * sysfs: read-only, as runc's spec and Docker have it. */
static int kernel_views(struct oci_config *config, struct floor_report *report,
                        struct sb_error *err)
{
        for (size_t i = 0; i < config->n_mounts; i++) {
                struct oci_mount *m = &config->mounts[i];
                bool proc = m->type != NULL && strcmp(m->type, "proc") == 0;
                bool sysfs = m->type != NULL && strcmp(m->type, "sysfs") == 0;
                char field[64];

                if ((!proc && !sysfs) || oci_mount_is_bind(m) || m->destination == NULL)
                        continue;
                if (!dest_is(m->destination, proc ? "/proc" : "/sys")) {
                        snprintf(field, sizeof(field), "mounts[%zu].destination", i);
                        if (floor_refuse(report, err, field, m->destination,
                                         proc ? "standard: proc only at /proc, where its "
                                                "read-only and masked paths are" :
                                                "standard: sysfs only at /sys, where its "
                                                "masked paths are") < 0)
                                return -1;
                        continue;
                }
                if (!sysfs || oci_mount_is_read_only(m))
                        continue;
                char **grown = realloc(m->options, (m->n_options + 2) * sizeof(char *));
                if (grown == NULL)
                        return sb_fail(err, ENOMEM, "mounts");
                m->options = grown;
                grown[m->n_options] = strdup("ro");
                if (grown[m->n_options] == NULL)
                        return sb_fail(err, ENOMEM, "mounts");
                grown[++m->n_options] = NULL;
                snprintf(field, sizeof(field), "mounts[%zu].options", i);
                if (floor_note(report, err, FLOOR_FORCED, field, "rw", "ro",
                               "standard: sysfs read-only") < 0)
                        return -1;
        }
        return 0;
}

int floor_mounts(struct oci_config *config, const struct floor_context *ctx,
                 struct floor_report *report, struct sb_error *err)
{
        if (check_binds(config, ctx, report, err) < 0 || kernel_views(config, report, err) < 0)
                return -1;
        if (ctx->profile->readonly_root && strict_root(config, ctx, report, err) < 0)
                return -1;
        /* The root is bound like any source: the same trees, under every
         * profile, judged once strict has made it read-only. */
        if (ctx->host->root != NULL &&
            (judge_tree(ctx->host->root, !config->root.readonly, true, "root.path",
                        config->root.path, ctx, report, err) < 0 ||
             judge_submounts(ctx->host->root_submounts, !config->root.readonly, true, "root.path",
                             config->root.path, ctx, report, err) < 0))
                return -1;
        if (workspace(config, report, err) < 0)
                return -1;
        if (cap_implicit_dev(config, ctx, report, err) < 0)
                return -1;
        return cap_tmpfs_mounts(config, ctx, report, err);
}
