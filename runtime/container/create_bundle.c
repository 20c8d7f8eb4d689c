#include "runtime/container/create_bundle.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "oci/config.h"
#include "runtime/container/create_ctx.h"
#include "runtime/sandbox/bwrap_args.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int create_load_bundle(struct create_ctx *c, const char *bundle, struct sb_error *err)
{
        char real[PATH_MAX];

        if (bundle == NULL)
                bundle = ".";
        if (realpath(bundle, real) == NULL)
                return sb_fail(err, errno, "--bundle: \"%s\"", bundle);
        c->bundle = strdup(real);
        c->config = oci_config_load_bundle_text(c->bundle, &c->config_text, &c->config_len, err);
        if (c->config == NULL)
                return -1;
        if (c->config->process == NULL)
                return sb_fail(err, 0, "config.json: process: required to create a container");
        return 0;
}

int create_open_rootfs(struct create_ctx *c, struct sb_error *err)
{
        _cleanup_free_ char *joined = NULL;
        const char *path = c->config->root.path;
        char real[PATH_MAX];

        if (path[0] != '/') {
                if (asprintf(&joined, "%s/%s", c->bundle, path) < 0)
                        return sb_fail(err, ENOMEM, "root.path");
                path = joined;
        }
        if (realpath(path, real) == NULL)
                return sb_fail(err, errno, "root.path: \"%s\"", c->config->root.path);
        c->rootfs = strdup(real);
        c->rootfs_fd = open(real, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (c->rootfs == NULL || c->rootfs_fd < 0)
                return sb_fail(err, errno, "root.path: open \"%s\"", real);
        return 0;
}

int create_build_bwrap_args(struct create_ctx *c, struct sb_error *err)
{
        const struct bwrap_inputs in = {
                .config = c->config,
                .bundle = c->bundle,
                .rootfs = c->rootfs,
                .rootfs_fd = c->rootfs_fd,
                .ns = &c->ns,
                .binds = &c->binds,
                .preserve_fds = c->preserve_fds,
        };

        return bwrap_args_build(&in, &c->bwrap, &c->init_mounts, &c->mounts, &c->cwd, err);
}
