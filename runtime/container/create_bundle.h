/* The bundle phase of create: config.json, the root filesystem, bwrap's
 * options that build the container's root from it, and the executable
 * found inside. */
#ifndef SB_CREATE_BUNDLE_H
#define SB_CREATE_BUNDLE_H

struct sb_error;
struct create_ctx;

/* --bundle (NULL: the current directory) resolved, config.json loaded. */
int create_load_bundle(struct create_ctx *c, const char *bundle, struct sb_error *err);
/* root.path, relative to the bundle or absolute, resolved and held open. */
int create_open_rootfs(struct create_ctx *c, struct sb_error *err);
/* bwrap's options: the root, the mounts and the cwd (c->bwrap, c->cwd). */
int create_build_bwrap_args(struct create_ctx *c, struct sb_error *err);

#endif
