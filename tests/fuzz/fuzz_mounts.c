/* libFuzzer harness: a config.json's mounts through mounts_translate, the
 * runtime's reading of them into bwrap arguments and sbrun-init steps
 * (options, size=, destinations resolved in the rootfs, mountpoints
 * created there). Nothing is mounted.
 *
 * Translation creates mountpoints, so it runs against a tree of the
 * harness's own, made afresh for every input and removed after it:
 *
 *   ITER/outside/          must stay empty: where an escape would land
 *   ITER/bundle/rootfs/    the rootfs (rootfs_fd), with symlinks whose
 *                          targets, followed on the host instead of in the
 *                          rootfs, lead into ITER/outside
 *   ITER/bundle/src/, srcfile   every bind's source (a config's own sources
 *                          are replaced: a bind's mountpoints are made in
 *                          its source, which must never be the host's)
 *
 * After each input the harness aborts if anything but those appeared in
 * ITER or ITER/bundle, or anything in ITER/outside. The container's user
 * namespace is off: with it, sysfs and cgroup mounts become binds of the
 * host's /sys, and a later mount under them would be made there. */
#include "common/error.h"
#include "common/strv.h"
#include "oci/config.h"
#include "runtime/sandbox/bind_sources.h"
#include "runtime/sandbox/mount_translate.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static char base[PATH_MAX];   /* mkdtemp'd once, removed at exit */
static char iter[PATH_MAX];   /* base/iter, one input's tree */
static char bundle[PATH_MAX]; /* iter/bundle */

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
        (void)st;
        (void)type;
        (void)ftw;
        return remove(path) < 0 ? -1 : 0;
}

/* FTW_PHYS: a symlink is removed, never followed. */
static void remove_tree(const char *path)
{
        struct stat st;

        if (lstat(path, &st) == 0 && nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) < 0)
                abort();
}

static void remove_base(void)
{
        if (base[0] != '\0')
                remove_tree(base);
}

static void must(int ok, const char *what)
{
        if (!ok) {
                perror(what);
                abort();
        }
}

static void mkdir_p(char *path)
{
        for (char *p = path + 1; *p != '\0'; p++) {
                if (*p != '/')
                        continue;
                *p = '\0';
                must(mkdir(path, 0755) == 0 || errno == EEXIST, path);
                *p = '/';
        }
        must(mkdir(path, 0755) == 0 || errno == EEXIST, path);
}

static void make_tree(void)
{
        char path[PATH_MAX * 2], target[PATH_MAX * 2];
        static const char *const dirs[] = { "outside",           "bundle",     "bundle/rootfs",
                                            "bundle/rootfs/dir", "bundle/src", NULL };

        must(mkdir(iter, 0755) == 0, iter);
        for (size_t i = 0; dirs[i] != NULL; i++) {
                snprintf(path, sizeof(path), "%s/%s", iter, dirs[i]);
                must(mkdir(path, 0755) == 0, path);
        }
        snprintf(path, sizeof(path), "%s/srcfile", bundle);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        must(fd >= 0, path);
        close(fd);
        snprintf(path, sizeof(path), "%s/rootfs/file", bundle);
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        must(fd >= 0, path);
        close(fd);
        /* Absolute: in the rootfs, ROOTFS/ITER/outside, which exists; on
         * the host, the canary. */
        snprintf(path, sizeof(path), "%s/rootfs%s/outside", bundle, iter);
        mkdir_p(path);
        snprintf(target, sizeof(target), "%s/outside", iter);
        snprintf(path, sizeof(path), "%s/rootfs/abs", bundle);
        must(symlink(target, path) == 0, path);
        snprintf(target, sizeof(target), "%s/outside/missing", iter);
        snprintf(path, sizeof(path), "%s/rootfs/dangling", bundle);
        must(symlink(target, path) == 0, path);
        /* Climbing: ".." stops at the rootfs; on the host, ITER/outside. */
        snprintf(path, sizeof(path), "%s/rootfs/up", bundle);
        must(symlink("../../outside", path) == 0, path);
        snprintf(path, sizeof(path), "%s/rootfs/dir/up2", bundle);
        must(symlink("../../../outside/deeper", path) == 0, path);
        snprintf(path, sizeof(path), "%s/rootfs/rel", bundle);
        must(symlink("dir", path) == 0, path);
}

/* dir holds exactly the names in allowed (NULL-terminated). */
static void expect_only(const char *dir, const char *const *allowed)
{
        DIR *d = opendir(dir);
        struct dirent *e;

        must(d != NULL, dir);
        while ((e = readdir(d)) != NULL) {
                bool ok = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
                for (size_t i = 0; !ok && allowed[i] != NULL; i++)
                        ok = strcmp(e->d_name, allowed[i]) == 0;
                if (!ok) {
                        /* stdout: run.sh's -close_fd_mask=2 closes stderr. */
                        printf("fuzz_mounts: %s/%s was created outside the rootfs\n", dir,
                               e->d_name);
                        fflush(stdout);
                        abort();
                }
        }
        closedir(d);
}

static void check_tree(void)
{
        char path[PATH_MAX * 2];
        static const char *const top[] = { "outside", "bundle", NULL };
        static const char *const in_bundle[] = { "rootfs", "src", "srcfile", NULL };
        static const char *const none[] = { NULL };

        expect_only(iter, top);
        expect_only(bundle, in_bundle);
        snprintf(path, sizeof(path), "%s/outside", iter);
        expect_only(path, none);
        expect_only(base, (const char *const[]){ "iter", NULL });
}

/* A bind's source from the config chooses one of the harness's: relative
 * or absolute, a directory or a file, so that both of translate_bind's
 * ways and the two kinds of mountpoint are reached. */
static void replace_sources(struct oci_config *c)
{
        for (size_t i = 0; i < c->n_mounts; i++) {
                struct oci_mount *m = &c->mounts[i];
                char *source = NULL;

                if (!oci_mount_is_bind(m) || m->source == NULL)
                        continue;
                size_t pick = strlen(m->source) % 4;
                if (asprintf(&source, "%s%s", pick & 1 ? bundle : "", pick & 1 ? "/" : "") < 0)
                        abort();
                char *full = NULL;
                if (asprintf(&full, "%s%s", source, pick & 2 ? "srcfile" : "src") < 0)
                        abort();
                free(source);
                free(m->source);
                m->source = full;
        }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        (void)argc;
        (void)argv;
        snprintf(base, sizeof(base), "%s/sbrun-fuzz-mounts.XXXXXX",
                 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        must(mkdtemp(base) != NULL, base);
        atexit(remove_base);
        snprintf(iter, sizeof(iter), "%s/iter", base);
        snprintf(bundle, sizeof(bundle), "%s/bundle", iter);
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct sb_error err = { 0 };
        struct oci_config *c = oci_config_parse((const char *)data, size, "config.json", &err);
        struct bind_sources bs = BIND_SOURCES_INIT;
        struct strv bwrap = { 0 };
        struct init_mount_list init = { 0 };
        struct mount_table table = { 0 };
        char path[PATH_MAX * 2];

        sb_error_clear(&err);
        if (c == NULL)
                return 0;
        replace_sources(c);
        make_tree();
        snprintf(path, sizeof(path), "%s/rootfs", bundle);
        int rootfs_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        must(rootfs_fd >= 0, path);
        if (bind_sources_open(c, bundle, &bs, &err) == 0 &&
            mounts_translate(c, bundle, rootfs_fd, &bs, 3, &bwrap, &init, &table, &err) == 0) {
                /* What a translated destination is: absolute and clean. */
                for (size_t i = 0; i < table.n; i++) {
                        const char *d = table.items[i].destination;
                        if (d == NULL || d[0] != '/' || strstr(d, "/../") != NULL)
                                abort();
                }
        }
        /* SBRUN_FUZZ_DEBUG=1: what an input reached, for a seed's author. */
        if (getenv("SBRUN_FUZZ_DEBUG") != NULL) {
                printf("fuzz_mounts: %s; %zu bwrap arguments, %zu init steps\n",
                       err.msg ? err.msg : "translated", bwrap.n, init.n);
                for (size_t i = 0; i < bwrap.n; i++)
                        printf("  %s\n", bwrap.items[i]);
        }
        sb_error_clear(&err);
        close(rootfs_fd);
        check_tree();
        bind_sources_release(&bs);
        strv_release(&bwrap);
        init_mount_list_release(&init);
        mount_table_release(&table);
        oci_config_free(c);
        remove_tree(iter);
        return 0;
}
