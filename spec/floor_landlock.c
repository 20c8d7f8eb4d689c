#include "spec/floor_landlock.h"

#include "common/error.h"
#include "common/landlock.h"
#include "common/log.h"
#include "oci/config.h"
#include "spec/floor.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What every container writes to whatever its mounts say: the nodes bwrap's
 * /dev holds, the terminal, POSIX shared memory. */
static const char *const standard_writable[] = {
        "/dev/null", "/dev/zero",    "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty",
        "/dev/ptmx", "/dev/console", "/dev/pts",  "/dev/shm",    NULL,
};

/* Kernel views: writes there are the kernel's own knobs, which the floor
 * keeps read-only or masked; never a workspace. */
static bool kernel_view(const struct oci_mount *m)
{
        static const char *const types[] = { "proc", "sysfs", "cgroup", "cgroup2", NULL };

        for (const char *const *t = types; m->type != NULL && *t != NULL; t++)
                if (strcmp(m->type, *t) == 0)
                        return true;
        return false;
}

static int add(char ***v, size_t *n, const char *path)
{
        for (size_t i = 0; i < *n; i++)
                if (strcmp((*v)[i], path) == 0)
                        return 0;
        char **grown = realloc(*v, (*n + 2) * sizeof(**v));
        if (grown == NULL)
                return -1;
        *v = grown;
        grown[*n] = strdup(path);
        if (grown[*n] == NULL)
                return -1;
        grown[++*n] = NULL;
        return 0;
}

static void free_strv(char **v)
{
        for (size_t i = 0; v != NULL && v[i] != NULL; i++)
                free(v[i]);
        free(v);
}

/* The root as the floor leaves it: a profile with readonly_root makes it
 * read-only and gives /tmp a tmpfs (floor_mounts.c). exec judges the
 * config saved at create, which is the requested one, so it is judged so
 * here rather than read off the effective config. */
static bool root_writable(const struct oci_config *config, const struct floor_profile *profile)
{
        return !config->root.readonly && !profile->readonly_root;
}

char **floor_landlock_writable(const struct oci_config *config, const struct floor_profile *profile,
                               size_t *n)
{
        char **v = calloc(1, sizeof(*v));
        bool ok = v != NULL;

        *n = 0;
        if (ok && root_writable(config, profile))
                ok = add(&v, n, "/") == 0;
        if (ok && profile->readonly_root)
                ok = add(&v, n, "/tmp") == 0;
        /* The floor's tmpfs for it, refused at create unless the path is good. */
        if (ok && oci_annotation(config, WORKSPACE_ANNOTATION) != NULL)
                ok = add(&v, n, oci_annotation(config, WORKSPACE_ANNOTATION)) == 0;
        for (size_t i = 0; ok && i < config->n_mounts; i++) {
                const struct oci_mount *m = &config->mounts[i];
                if (!kernel_view(m) && !oci_mount_is_read_only(m))
                        ok = add(&v, n, m->destination) == 0;
        }
        for (const char *const *s = standard_writable; ok && *s != NULL; s++)
                ok = add(&v, n, *s) == 0;
        for (size_t i = 0; ok && config->linux_ != NULL && i < config->linux_->n_devices; i++)
                ok = add(&v, n, config->linux_->devices[i].path) == 0;
        if (!ok) {
                free_strv(v);
                return NULL;
        }
        return v;
}

void landlock_rules_release(struct landlock_rules *rules)
{
        free_strv(rules->writable);
        memset(rules, 0, sizeof(*rules));
}

static int refuse(struct floor_report *report, struct sb_error *err, const char *field,
                  const char *value, const char *rule)
{
        struct floor_report create = { 0 };

        return floor_refuse(report ? report : &create, err, field, value, rule);
}

static int describe(const struct landlock_rules *r, char *buf, size_t size)
{
        return snprintf(buf, size, "ABI %d: writes beneath %zu paths; exec there %s; TCP %s",
                        r->abi, r->n_writable, r->exec_writable ? "allowed" : "denied",
                        r->no_tcp ? (r->abi >= 4 ? "denied" : "not restricted (ABI < 4)") :
                                    "allowed");
}

/* How two host paths (canonical, as the runtime holds them) overlap. */
enum overlap { APART, SAME, INSIDE, CONTAINS };

/* a strictly beneath b. */
static bool beneath(const char *a, const char *b)
{
        size_t n = strcmp(b, "/") == 0 ? 0 : strlen(b);

        return strncmp(a, b, n) == 0 && a[n] == '/' && a[n + 1] != '\0';
}

/* a is b (one inode, whatever the paths), inside it, or contains it. Paths
 * are compared whatever their file systems: binds are recursive (bwrap's),
 * so a tree bound shows the mounts below it too. */
static enum overlap overlap(const char *a, const struct stat *sa, const struct floor_identity *ia,
                            const char *b, const struct stat *sb, const struct floor_identity *ib)
{
        if ((sa->st_dev == sb->st_dev && sa->st_ino == sb->st_ino) || strcmp(a, b) == 0)
                return SAME;
        if (beneath(a, b))
                return INSIDE;
        if (beneath(b, a))
                return CONTAINS;
        /* One file system, two mounts of it on the host (/mnt/a a bind of
         * /srv/d): the paths inside the file system tell. */
        if (ia == NULL || ib == NULL || !ia->known || !ib->known || ia->dev != ib->dev ||
            ia->fs_path == NULL || ib->fs_path == NULL)
                return APART;
        if (strcmp(ia->fs_path, ib->fs_path) == 0)
                return SAME;
        if (beneath(ia->fs_path, ib->fs_path))
                return INSIDE;
        if (beneath(ib->fs_path, ia->fs_path))
                return CONTAINS;
        return APART;
}

static const struct floor_identity *id_of(const struct landlock_sources *src, size_t i)
{
        return src->ids != NULL ? src->ids[i] : NULL;
}

static const char *const overlap_words[] = {
        [SAME] = "is",
        [INSIDE] = "is inside",
        [CONTAINS] = "contains",
};

/* W^X by file: Landlock finds a file's rights by walking up the path it
 * was reached by, over inodes that carry the rules, so a host tree bound
 * twice is writable through one mount and executable through the other
 * (the execute rule on the read-only mount's root, or on the root's
 * directories, is found from a file written through the writable mount
 * when one tree holds the other). Every writable bind is held apart from
 * each read-only bind and from the root; two writable binds of one tree
 * are both without execute. */
static int refuse_aliases(const struct oci_config *config, const struct landlock_sources *src,
                          const char *why, struct floor_report *report, struct sb_error *err)
{
        char field[64], value[3 * PATH_MAX + 256];

        for (size_t w = 0; w < src->n && w < config->n_mounts; w++) {
                const struct oci_mount *wm = &config->mounts[w];
                if (src->paths[w] == NULL || oci_mount_is_read_only(wm))
                        continue;
                enum overlap o = src->root_path == NULL ?
                                         APART :
                                         overlap(src->paths[w], &src->stats[w], id_of(src, w),
                                                 src->root_path, src->root_stat, src->root_id);
                if (o != APART) {
                        /* Where the root shows it: its path below the root's. */
                        const char *at = "/";
                        if (o == INSIDE)
                                at = strcmp(src->root_path, "/") == 0 ?
                                             src->paths[w] :
                                             src->paths[w] + strlen(src->root_path);
                        snprintf(field, sizeof(field), "mounts[%zu].source", w);
                        snprintf(value, sizeof(value),
                                 "%s (writable at %s) %s root.path %s: the same files would be "
                                 "executable at %s",
                                 src->paths[w], wm->destination, overlap_words[o], src->root_path,
                                 at);
                        if (refuse(report, err, field, value, why) < 0)
                                return -1;
                }
                for (size_t r = 0; r < src->n && r < config->n_mounts; r++) {
                        const struct oci_mount *rm = &config->mounts[r];
                        if (r == w || src->paths[r] == NULL || !oci_mount_is_read_only(rm))
                                continue;
                        o = overlap(src->paths[r], &src->stats[r], id_of(src, r), src->paths[w],
                                    &src->stats[w], id_of(src, w));
                        if (o == APART)
                                continue;
                        snprintf(field, sizeof(field), "mounts[%zu].source", r);
                        snprintf(value, sizeof(value),
                                 "%s %s mounts[%zu].source %s (writable at %s): the same files "
                                 "would be executable at %s",
                                 src->paths[r], overlap_words[o], w, src->paths[w], wm->destination,
                                 rm->destination);
                        if (refuse(report, err, field, value, why) < 0)
                                return -1;
                }
        }
        return 0;
}

enum landlock_mode floor_landlock_mode(const struct operator_policy *policy,
                                       const struct floor_profile *profile)
{
        if (profile->id == POLICY_STRICT && policy->landlock_mode == LANDLOCK_OFF)
                return LANDLOCK_REQUIRED;
        return policy->landlock_mode;
}

int floor_landlock_decide(const struct operator_policy *policy, const struct floor_profile *profile,
                          const struct oci_config *config, const struct landlock_sources *sources,
                          const struct landlock_host *host, struct landlock_rules *out,
                          struct floor_report *report, struct sb_error *err)
{
        const char *path = policy->source ? policy->source : OPERATOR_POLICY_PATH;
        char rule[PATH_MAX + 96], effective[160];
        enum landlock_mode mode = floor_landlock_mode(policy, profile);

        memset(out, 0, sizeof(*out));
        if (mode == LANDLOCK_OFF)
                return 0;
        if (profile->id == POLICY_STRICT && policy->landlock_mode == LANDLOCK_OFF)
                snprintf(rule, sizeof(rule), "strict: Landlock");
        else
                snprintf(rule, sizeof(rule), "landlock.mode %s in %s", landlock_mode_name(mode),
                         path);

        if (!policy->landlock_exec_writable && root_writable(config, profile)) {
                char why[PATH_MAX + 96];
                snprintf(why, sizeof(why),
                         "landlock.exec_writable false in %s: the root would be writable and "
                         "nothing executable",
                         path);
                return refuse(report, err, "root.readonly", "false", why);
        }
        if (!policy->landlock_exec_writable && sources != NULL) {
                char why[PATH_MAX + 96];
                snprintf(why, sizeof(why),
                         "landlock.exec_writable false in %s: no host tree both writable and "
                         "executable",
                         path);
                if (refuse_aliases(config, sources, why, report, err) < 0)
                        return -1;
        }
        if (host->abi <= 0 && mode == LANDLOCK_REQUIRED) {
                char why[PATH_MAX + 256];
                snprintf(why, sizeof(why),
                         "%s; this kernel has none (%s); \"landlock\": {\"mode\": "
                         "\"best-effort\"} in %s runs without it",
                         rule, host->absent ? host->absent : "unknown", path);
                return refuse(report, err, "landlock", "a container without Landlock", why);
        }
        if (host->abi <= 0) {
                if (report == NULL)
                        sb_warn("landlock: this kernel has none (%s): the container runs "
                                "without it (rule: %s)",
                                host->absent ? host->absent : "unknown", rule);
                else if (floor_record(report, err, FLOOR_DROPPED, "landlock", "Landlock",
                                      "not available", rule) < 0)
                        return -1;
                return 0;
        }
        out->mode = mode;
        out->abi = host->abi < SB_LANDLOCK_ABI_KNOWN ? host->abi : SB_LANDLOCK_ABI_KNOWN;
        out->exec_writable = policy->landlock_exec_writable;
        out->no_tcp = profile->no_network;
        out->writable = floor_landlock_writable(config, profile, &out->n_writable);
        if (out->writable == NULL)
                return sb_fail(err, ENOMEM, "landlock");
        describe(out, effective, sizeof(effective));
        if (report != NULL &&
            floor_record(report, err, FLOOR_ADDED, "landlock", NULL, effective, rule) < 0) {
                landlock_rules_release(out);
                return -1;
        }
        return 0;
}
