#include "runtime/container/create_bundle.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "oci/config.h"
#include "runtime/container/create_ctx.h"
#include "runtime/container/global_options.h"
#include "runtime/sandbox/bwrap_args.h"
#include "runtime/sandbox/rootfs_path.h"

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
        return rootfs_open_root(c->config->root.path, c->bundle, &c->rootfs, &c->rootfs_fd, err);
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
                .caller_in_userns = c->global->in_userns,
                .notify = c->notify,
        };

        return bwrap_args_build(&in, &c->bwrap, &c->init_mounts, &c->mounts, &c->cwd, err);
}
