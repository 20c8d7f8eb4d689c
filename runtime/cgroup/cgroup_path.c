#include "runtime/cgroup/cgroup_path.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/log.h"
#include "runtime/cgroup/cgroup_root.h"
#include "runtime/host/rootless.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIELD "linux.cgroupsPath"

/* Rebuild path without empty components, refusing any that could step
 * out of the place it is meant for. */
static int normalize(const char *path, const char *shown, char **out, struct sb_error *err)
{
        size_t len = strlen(path);
        _cleanup_free_ char *copy = strdup(path);
        _cleanup_free_ char *clean = malloc(len + 1);
        size_t n = 0;
        char *save = NULL;

        if (copy == NULL || clean == NULL)
                return sb_fail(err, ENOMEM, FIELD);
        if (strchr(path, '\n') != NULL)
                return sb_fail(err, 0, FIELD ": \"%s\": a newline is not allowed", shown);
        for (char *part = strtok_r(copy, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
                if (strcmp(part, ".") == 0 || strcmp(part, "..") == 0)
                        return sb_fail(err, 0, FIELD ": \"%s\": \"%s\" is not allowed", shown,
                                       part);
                if (n > 0)
                        clean[n++] = '/';
                memcpy(clean + n, part, strlen(part));
                n += strlen(part);
        }
        clean[n] = '\0';
        *out = SB_STEAL_PTR(clean);
        return 0;
}

/* "a-b-c.slice" → "a.slice/a-b.slice/a-b-c.slice", as systemd nests slices;
 * "-.slice" is the root slice. */
static int expand_slice(const char *slice, const char *shown, char **out, struct sb_error *err)
{
        size_t len = strlen(slice);
        _cleanup_free_ char *buf = NULL;
        size_t n = 0;

        if (len < 6 || strcmp(slice + len - 6, ".slice") != 0 || strchr(slice, '/'))
                return sb_fail(err, 0, FIELD ": \"%s\": \"%s\" is not a systemd slice name", shown,
                               slice);
        if (strcmp(slice, "-.slice") == 0) {
                *out = strdup("");
                return *out ? 0 : sb_fail(err, ENOMEM, FIELD);
        }
        size_t base = len - 6;
        /* base 0 (".slice") names no slice at all, and slice[base - 1]
         * would be the byte before the string. */
        if (base == 0 || slice[0] == '-' || slice[base - 1] == '-' || strstr(slice, "--"))
                return sb_fail(err, 0, FIELD ": \"%s\": \"%s\" is not a valid slice name", shown,
                               slice);
        buf = malloc(len * (len / 2 + 2) + 1);
        if (buf == NULL)
                return sb_fail(err, ENOMEM, FIELD);
        for (size_t i = 0; i <= base; i++) {
                if (i != base && slice[i] != '-')
                        continue;
                if (n > 0)
                        buf[n++] = '/';
                memcpy(buf + n, slice, i);
                n += i;
                memcpy(buf + n, ".slice", 6);
                n += 6;
        }
        buf[n] = '\0';
        *out = SB_STEAL_PTR(buf);
        return 0;
}

/* out: the cgroup under the mount; slice and unit (either may be NULL):
 * the unit names systemd knows them by. */
static int systemd_path(const char *cgroups_path, const char *id, char **out, char **slice_out,
                        char **unit_out, struct sb_error *err)
{
        _cleanup_free_ char *spec = NULL, *slice_dir = NULL;
        const char *shown = cgroups_path;
        /* A rootless caller's manager is its systemd --user, whose units go
         * to user.slice by default (as runc's rootless default parent). */
        const char *slice = rootless_detect() ? "user.slice" : "system.slice";

        if (cgroups_path == NULL || *cgroups_path == '\0') {
                if (asprintf(&spec, "%s:sbrun:%s", slice, id) < 0)
                        return sb_fail(err, ENOMEM, FIELD);
        } else {
                spec = strdup(cgroups_path);
                if (spec == NULL)
                        return sb_fail(err, ENOMEM, FIELD);
        }
        char *prefix = strchr(spec, ':');
        char *name = prefix ? strchr(prefix + 1, ':') : NULL;
        if (name == NULL || strchr(name + 1, ':'))
                return sb_fail(err, 0,
                               FIELD ": \"%s\": with --systemd-cgroup expected "
                                     "\"slice:prefix:name\"",
                               shown ? shown : "");
        *prefix++ = '\0';
        *name++ = '\0';
        if (*name == '\0' || strchr(name, '/') || strchr(prefix, '/'))
                return sb_fail(err, 0, FIELD ": \"%s\": invalid unit name", shown ? shown : "");
        if (expand_slice(*spec ? spec : slice, shown ? shown : "", &slice_dir, err) < 0)
                return -1;
        /* A name that is itself a slice is used as such, as runc does. */
        size_t nlen = strlen(name);
        _cleanup_free_ char *unit = NULL;
        int r;
        if (nlen > 6 && strcmp(name + nlen - 6, ".slice") == 0)
                r = asprintf(&unit, "%s", name);
        else
                r = asprintf(&unit, "%s%s%s.scope", prefix, *prefix ? "-" : "", name);
        if (r < 0 || asprintf(out, "%s/%s", slice_dir, unit) < 0)
                return sb_fail(err, ENOMEM, FIELD);
        if (slice_out && (*slice_out = strdup(*spec ? spec : slice)) == NULL)
                return sb_fail(err, ENOMEM, FIELD);
        if (unit_out)
                *unit_out = SB_STEAL_PTR(unit);
        return 0;
}

int cgroup_path_systemd_unit(const char *cgroups_path, const char *id, char **slice, char **unit,
                             struct sb_error *err)
{
        _cleanup_free_ char *rel = NULL;

        *slice = *unit = NULL;
        if (systemd_path(cgroups_path, id, &rel, slice, unit, err) < 0) {
                free(*slice);
                *slice = NULL;
                return -1;
        }
        return 0;
}

int cgroup_path_resolve(const struct cgroup_root *root, const char *cgroups_path, const char *id,
                        bool systemd, char **rel, struct sb_error *err)
{
        _cleanup_free_ char *joined = NULL;
        const char *shown = cgroups_path ? cgroups_path : "";

        if (systemd) {
                if (systemd_path(cgroups_path, id, &joined, NULL, NULL, err) < 0)
                        return -1;
                shown = joined;
        } else if (cgroups_path == NULL || *cgroups_path == '\0') {
                if (asprintf(&joined, "%s/sbrun/%s", root->rel, id) < 0)
                        return sb_fail(err, ENOMEM, FIELD);
                shown = joined;
        } else if (cgroups_path[0] == '/') {
                joined = strdup(cgroups_path);
        } else if (asprintf(&joined, "%s/%s", root->rel, cgroups_path) < 0) {
                joined = NULL;
        }
        if (joined == NULL)
                return sb_fail(err, ENOMEM, FIELD);
        if (normalize(joined, shown, rel, err) < 0)
                return -1;
        if (**rel == '\0') {
                free(*rel);
                *rel = NULL;
                return sb_fail(err, 0, FIELD ": \"%s\": a container cannot use the root cgroup",
                               shown);
        }
        return 0;
}
