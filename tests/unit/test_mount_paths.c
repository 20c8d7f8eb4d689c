/* The pure parts of runtime/sandbox/: a mount's options as the kernel and
 * bwrap will get them (mount_options_parse), and the lexical cleaning of
 * container paths that refuses ".." (rootfs_clean_path). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "runtime/sandbox/mount_translate.h"
#include "runtime/sandbox/rootfs_path.h"

#include "common/error.h"
#include "oci/config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

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
        expect_option_error((char *[]){ "idmap", NULL },
                            "mounts[3].options: \"idmap\" is not supported by sbrun");
        expect_option_error((char *[]){ "rbind", "ridmap", NULL },
                            "mounts[3].options: \"ridmap\" is not supported by sbrun");
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

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_mount_flags),
                cmocka_unit_test(test_mount_bind_and_propagation),
                cmocka_unit_test(test_mount_mode_size_data),
                cmocka_unit_test(test_mount_option_errors),
                cmocka_unit_test(test_rootfs_clean_path),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
