/* The pure parts of runtime/sandbox/: a mount's options as the kernel and
 * bwrap will get them (mount_options_parse), the lexical cleaning of
 * container paths that refuses ".." (rootfs_clean_path), and the dry walk
 * `policy explain` makes (rootfs_resolve with ROOTFS_WOULD_CREATE), which
 * must resolve and refuse as create's walk does while creating nothing. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "runtime/sandbox/mount_translate.h"
#include "runtime/sandbox/rootfs_path.h"

#include "common/error.h"
#include "oci/config.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

static int parse(char **options, struct mount_options *o, char **error)
{
        struct oci_mount m = { .destination = "/mnt", .type = "tmpfs", .options = options };
        struct sb_error err = { 0 };
        int ret;

        while (options[m.n_options] != NULL)
                m.n_options++;
        memset(o, 0, sizeof(*o));
        ret = mount_options_parse(&m, 3, o, &err);
        if (ret < 0 && error != NULL)
                *error = strdup(err.msg);
        sb_error_clear(&err);
        return ret;
}

static void assert_data(const struct mount_options *o, const char *const *want)
{
        size_t n = 0;

        for (; want[n] != NULL; n++) {
                assert_true(n < o->data.n);
                assert_string_equal(o->data.items[n], want[n]);
        }
        assert_int_equal(o->data.n, n);
}

static void test_mount_flags(void **state)
{
        struct mount_options o;
        (void)state;

        assert_int_equal(
                parse((char *[]){ "ro", "nosuid", "nodev", "noexec", "relatime", NULL }, &o, NULL),
                0);
        assert_int_equal(o.set, MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RELATIME);
        assert_false(o.recursive);
        assert_int_equal(o.data.n, 0);
        strv_release(&o.data);

        /* Later options undo earlier ones, as mount(8) reads them. */
        assert_int_equal(parse((char *[]){ "ro", "nosuid", "rw", "suid", "noatime", "atime",
                                           "defaults", NULL },
                               &o, NULL),
                         0);
        assert_int_equal(o.set, 0);
        strv_release(&o.data);

        assert_int_equal(
                parse((char *[]){ "sync", "dirsync", "mand", "nodiratime", "strictatime", NULL },
                      &o, NULL),
                0);
        assert_int_equal(o.set, MS_SYNCHRONOUS | MS_DIRSYNC | MS_MANDLOCK | MS_NODIRATIME |
                                        MS_STRICTATIME);
        strv_release(&o.data);
}

/* The recursive options: each sets its MOUNT_ATTR_* for sbrun-init's
 * mount_setattr; an atime mode replaces the other; those that would clear
 * what the host set are refused by name. */
static void test_mount_recursive_options(void **state)
{
        struct mount_options o;
        char *error = NULL;
        (void)state;

        assert_int_equal(parse((char *[]){ "rro", "rnosuid", "rnodev", "rnoexec", "rnosymfollow",
                                           "rnoatime", "rstrictatime", NULL },
                               &o, NULL),
                         0);
        assert_int_equal(o.attr_set, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
                                             MOUNT_ATTR_NOEXEC | MOUNT_ATTR_NOSYMFOLLOW |
                                             MOUNT_ATTR_STRICTATIME);
        assert_int_equal(o.attr_clr, MOUNT_ATTR__ATIME);
        assert_int_equal(o.set, 0);
        assert_int_equal(o.data.n, 0);
        strv_release(&o.data);

        assert_int_equal(parse((char *[]){ "nosymfollow", NULL }, &o, NULL), 0);
        assert_int_equal(o.set, MS_NOSYMFOLLOW);
        strv_release(&o.data);

        assert_int_equal(parse((char *[]){ "rro", "rrw", NULL }, &o, &error), -1);
        assert_non_null(strstr(error, "mounts[3].options: \"rrw\" is not supported by sbrun"));
        free(error);
        strv_release(&o.data);
}

static void test_mount_bind_and_propagation(void **state)
{
        struct mount_options o;
        (void)state;

        assert_int_equal(parse((char *[]){ "rbind", "rprivate", "ro", NULL }, &o, NULL), 0);
        assert_true(o.recursive);
        assert_int_equal(o.set, MS_RDONLY);
        assert_int_equal(o.data.n, 0); /* propagation is no filesystem option */
        assert_int_equal(o.propagation, MS_PRIVATE | MS_REC);
        strv_release(&o.data);

        assert_int_equal(parse((char *[]){ "rbind", "bind", "shared", NULL }, &o, NULL), 0);
        assert_false(o.recursive); /* the last of bind/rbind wins */
        assert_int_equal(o.propagation, MS_SHARED);
        strv_release(&o.data);

        assert_int_equal(parse((char *[]){ "rslave", "runbindable", NULL }, &o, NULL), 0);
        assert_int_equal(o.propagation, MS_UNBINDABLE | MS_REC); /* the last one wins */
        strv_release(&o.data);
        /* idmap and ridmap are no file system data; ridmap is idmap too. */
        assert_int_equal(parse((char *[]){ "rbind", "idmap", NULL }, &o, NULL), 0);
        assert_true(o.idmap);
        assert_false(o.ridmap);
        assert_int_equal(o.data.n, 0);
        strv_release(&o.data);
        assert_int_equal(parse((char *[]){ "ridmap", NULL }, &o, NULL), 0);
        assert_true(o.idmap && o.ridmap);
        strv_release(&o.data);
        assert_int_equal(mount_propagation_flags("rshared"), MS_SHARED | MS_REC);
        assert_int_equal(mount_propagation_flags("nonsense"), 0);
}

static void test_mount_mode_size_data(void **state)
{
        struct mount_options o;
        (void)state;

        assert_int_equal(parse((char *[]){ "nosuid", "mode=1777", "size=64m", "uid=1000",
                                           "newinstance", NULL },
                               &o, NULL),
                         0);
        assert_true(o.has_mode);
        assert_int_equal(o.mode, 01777);
        assert_true(o.has_size);
        assert_int_equal(o.size, 64ULL << 20);
        assert_int_equal(o.set, MS_NOSUID);
        assert_data(&o, (const char *const[]){ "mode=1777", "size=64m", "uid=1000", "newinstance",
                                               NULL });
        strv_release(&o.data);

        assert_int_equal(parse((char *[]){ "size=1G", NULL }, &o, NULL), 0);
        assert_int_equal(o.size, 1ULL << 30);
        strv_release(&o.data);
        assert_int_equal(parse((char *[]){ "size=4096", NULL }, &o, NULL), 0);
        assert_int_equal(o.size, 4096);
        strv_release(&o.data);
        /* The floor's syntax (SIZE_TMPFS): t known, 0 the kernel's "no limit". */
        assert_int_equal(parse((char *[]){ "size=2t", NULL }, &o, NULL), 0);
        assert_int_equal(o.size, 2ULL << 40);
        strv_release(&o.data);
        assert_int_equal(parse((char *[]){ "size=0", NULL }, &o, NULL), 0);
        assert_true(o.has_size);
        assert_int_equal(o.size, 0);
        strv_release(&o.data);
}

static void expect_option_error(char **options, const char *message)
{
        struct mount_options o;
        char *error = NULL;

        assert_int_equal(parse(options, &o, &error), -1);
        assert_string_equal(error, message);
        free(error);
        strv_release(&o.data);
}

static void test_mount_option_errors(void **state)
{
        (void)state;
        expect_option_error((char *[]){ "mode=8", NULL }, "mounts[3].options: invalid \"mode=8\"");
        expect_option_error((char *[]){ "mode=17777", NULL },
                            "mounts[3].options: invalid \"mode=17777\"");
        expect_option_error((char *[]){ "mode=", NULL }, "mounts[3].options: invalid \"mode=\"");
        expect_option_error((char *[]){ "size=12X", NULL },
                            "mounts[3].options: invalid \"size=12X\"");
        expect_option_error((char *[]){ "size=", NULL }, "mounts[3].options: invalid \"size=\"");
        /* strtoull took these: -1 as 2^64-1, and a shift past 64 bits. */
        expect_option_error((char *[]){ "size=-1", NULL },
                            "mounts[3].options: invalid \"size=-1\"");
        expect_option_error((char *[]){ "size=17179869184G", NULL },
                            "mounts[3].options: invalid \"size=17179869184G\"");
        expect_option_error((char *[]){ "size=99999999999999999999k", NULL },
                            "mounts[3].options: invalid \"size=99999999999999999999k\"");
        expect_option_error((char *[]){ "size= 5", NULL },
                            "mounts[3].options: invalid \"size= 5\"");
        expect_option_error((char *[]){ "ro", "recursive", NULL },
                            "mounts[3].options: \"recursive\" is not supported by sbrun");
}

static void expect_clean(const char *path, const char *want)
{
        struct sb_error err = { 0 };
        char *out = NULL;

        if (rootfs_clean_path(path, &out, &err) < 0)
                fail_msg("%s: %s", path, err.msg);
        assert_string_equal(out, want);
        free(out);
}

static void expect_clean_error(const char *path, const char *message)
{
        struct sb_error err = { 0 };
        char *out = NULL;

        assert_int_equal(rootfs_clean_path(path, &out, &err), -1);
        assert_null(out);
        assert_string_equal(err.msg, message);
        sb_error_clear(&err);
}

static void test_rootfs_clean_path(void **state)
{
        (void)state;
        expect_clean("/", "/");
        expect_clean("//", "/");
        expect_clean("/.", "/");
        expect_clean("/a/b", "/a/b");
        expect_clean("//a//b//", "/a/b");
        expect_clean("/a/./b/.", "/a/b");
        expect_clean("/a/..b/c..", "/a/..b/c..");
        expect_clean("/...", "/...");
        expect_clean_error("/a/../b", "\"/a/../b\" contains \"..\"");
        expect_clean_error("/..", "\"/..\" contains \"..\"");
        expect_clean_error("/a/..", "\"/a/..\" contains \"..\"");
        expect_clean_error("a/b", "\"a/b\" is not an absolute path");
        expect_clean_error("", "\"\" is not an absolute path");
}

/* A tree made fresh for each walk: a/, f (a file), l -> a, up -> a/../a,
 * esc -> ../.. (out of the root), dangling -> /nowhere. */
static int make_tree(char *dir)
{
        strcpy(dir, "/tmp/sbrun-test-rootfs.XXXXXX");
        if (mkdtemp(dir) == NULL)
                fail_msg("mkdtemp");
        int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        int f = fd < 0 ? -1 : openat(fd, "f", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (f < 0 || mkdirat(fd, "a", 0755) < 0 || symlinkat("a", fd, "l") < 0 ||
            symlinkat("a/../a", fd, "up") < 0 || symlinkat("../..", fd, "esc") < 0 ||
            symlinkat("/nowhere", fd, "dangling") < 0)
                fail_msg("make the tree in %s", dir);
        close(f);
        return fd;
}

static void remove_tree(const char *dir)
{
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        if (system(cmd) != 0)
                fail_msg("%s", cmd);
}

/* Walk path in a fresh tree with mode: the result ("=/resolved" or
 * "!message") and whether the tree changed ("+" appended). */
static char *walk(const char *path, enum rootfs_create mode)
{
        char dir[64], *resolved = NULL, *out = NULL;
        struct sb_error err = { 0 };
        struct stat before, after;
        int fd = make_tree(dir), o = -1;

        if (fstat(fd, &before) < 0)
                fail_msg("stat %s", dir);
        int r = rootfs_resolve(fd, path, mode, &resolved, &o, &err);
        if (fstat(fd, &after) < 0)
                fail_msg("stat %s", dir);
        struct stat a;
        bool changed = before.st_nlink != after.st_nlink ||
                       (fstatat(fd, "a", &a, 0) == 0 && a.st_nlink != 2) ||
                       faccessat(fd, "new", F_OK, AT_SYMLINK_NOFOLLOW) == 0;
        if (asprintf(&out, "%c%s%s", r == 0 ? '=' : '!', r == 0 ? resolved : err.msg,
                     changed ? "+" : "") < 0)
                fail_msg("asprintf");
        /* The dry walk has an fd where the path exists, none where it would
         * be made. */
        if (r == 0 && mode == ROOTFS_WOULD_CREATE) {
                const char *rel = strcmp(resolved, "/") == 0 ? "." : resolved + 1;
                assert_int_equal(o >= 0, faccessat(fd, rel, F_OK, AT_SYMLINK_NOFOLLOW) == 0);
        }
        if (o >= 0)
                close(o);
        free(resolved);
        sb_error_clear(&err);
        close(fd);
        remove_tree(dir);
        return out;
}

/* create's walk gives want, and creates (made) or not; the dry walk gives
 * the same result and never creates. */
static void expect_walk(const char *path, const char *want, bool made)
{
        char *created = walk(path, ROOTFS_CREATE_DIR);
        char *dry = walk(path, ROOTFS_WOULD_CREATE);
        char *want_created = NULL;

        if (asprintf(&want_created, "%s%s", want, made ? "+" : "") < 0)
                fail_msg("asprintf");
        assert_string_equal(created, want_created);
        assert_string_equal(dry, want);
        free(created);
        free(dry);
        free(want_created);
}

static void test_rootfs_would_create(void **state)
{
        (void)state;
        expect_walk("/a", "=/a", false);
        expect_walk("/l", "=/a", false);
        expect_walk("/up", "=/a", false);
        expect_walk("/new", "=/new", true);
        expect_walk("/new/x/y", "=/new/x/y", true);
        expect_walk("/l/new", "=/a/new", true);
        expect_walk("/new/../a", "=/a", true);
        expect_walk("/new/x/../../l/y", "=/a/y", true);
        expect_walk("/new/../../..", "=/", true);
        expect_walk("/esc", "!escapes the rootfs through symlink \"/esc\" -> \"../..\"", false);
        expect_walk("/esc/x", "!escapes the rootfs through symlink \"/esc\" -> \"../..\"", false);
        expect_walk("/dangling/x",
                    "!escapes the rootfs through symlink \"/dangling\" -> \"/nowhere\" (its "
                    "target does not exist in the rootfs)",
                    false);
        expect_walk("/f/x", "!/f/x", false);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_mount_flags),
                cmocka_unit_test(test_mount_recursive_options),
                cmocka_unit_test(test_mount_bind_and_propagation),
                cmocka_unit_test(test_mount_mode_size_data),
                cmocka_unit_test(test_mount_option_errors),
                cmocka_unit_test(test_rootfs_clean_path),
                cmocka_unit_test(test_rootfs_would_create),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
