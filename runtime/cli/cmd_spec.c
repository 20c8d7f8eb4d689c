/* `sbrun spec`: write a starter config.json into a bundle, as `runc spec`. */
#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"
#include "runtime/cli/cli_options.h"
#include "runtime/cli/commands.h"
#include "spec/spec_template.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct spec_options {
        const char *bundle;
        bool rootless;
};

/* Returns 1 when --help was handled, 0 to go on, -1 on a bad command line. */
static int parse_options(int argc, char **argv, struct spec_options *opts, struct sb_error *err)
{
        const struct cli_option options[] = {
                { "bundle", 'b', CLI_STRING, .to.string = &opts->bundle, .arg = "DIR",
                  .help = "write DIR/config.json (default: the current directory); an existing "
                          "one is refused" },
                { "rootless", 0, CLI_FLAG, .to.flag = &opts->rootless,
                  .help = "a config with a user namespace mapping root to the caller's uid and "
                          "gid" },
                { NULL },
        };
        const struct cli_command cmd = {
                .name = "spec",
                .usage = "usage: sbrun spec [options]\n\n"
                         "Write a starter config.json, which `sbrun run` runs as it is.\n",
                .options = options,
        };
        int next, r = cli_parse(&cmd, argc, argv, &next, err);

        if (r != 0)
                return r;
        if (next < argc)
                return sb_fail(err, 0, "spec: takes no arguments, got \"%s\"", argv[next]);
        return 0;
}

/* O_EXCL rather than a stat() first: no window in which another writer (or a
 * symlink planted in the bundle) could be followed and overwritten. */
static int write_config(const char *bundle, const char *json, struct sb_error *err)
{
        _cleanup_close_ int dirfd = open(bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        _cleanup_close_ int fd = -1;

        if (dirfd < 0)
                return sb_fail(err, errno, "spec: bundle %s", bundle);
        fd = openat(dirfd, "config.json", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
                    0666);
        if (fd < 0 && errno == EEXIST)
                return sb_fail(err, 0, "File config.json exists. Remove it first");
        if (fd < 0)
                return sb_fail(err, errno, "spec: create %s/config.json", bundle);
        if (sb_write_all(fd, json, strlen(json)) < 0 || sb_write_all(fd, "\n", 1) < 0 ||
            fsync(fd) < 0) {
                int saved = errno;
                /* Leave no truncated config.json for a later `run` to trip on. */
                unlinkat(dirfd, "config.json", 0);
                return sb_fail(err, saved, "spec: write %s/config.json", bundle);
        }
        return 0;
}

int cmd_spec(const struct global_options *global, int argc, char **argv, struct sb_error *err)
{
        struct spec_options opts = { .bundle = "." };
        int r = parse_options(argc, argv, &opts, err);

        if (r != 0)
                return r < 0 ? 1 : 0;
        /* Effective ids, as runc: they are what the kernel checks when the
         * caller writes the user namespace's maps. */
        _cleanup_free_ char *json = spec_template_json(opts.rootless, geteuid(), getegid(), err);
        if (json == NULL)
                return 1;
        if (write_config(opts.bundle, json, err) < 0)
                return 1;
        return 0;
}
