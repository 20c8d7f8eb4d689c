/* Paths and mounts inside the container, done by sbrun-init after bwrap's own
 * setup. The rootfs is untrusted: every path goes through init_resolve(), so
 * no symlink in it can send a mount, mkdir or chdir outside "/". */
#ifndef SB_INIT_MOUNTS_H
#define SB_INIT_MOUNTS_H

#include "runtime/init/init_plan.h"

#include <sys/types.h>

struct sb_error;

/* An O_CLOEXEC|O_PATH fd (plus extra_flags, e.g. O_DIRECTORY) for an absolute
 * container path, or -1 with errno set (ENOENT is for the caller to judge). */
int init_resolve(const char *path, int extra_flags);

/* mkdir -p inside the container; components that exist are left alone. */
int init_mkdir_p(const char *path, mode_t mode, struct sb_error *err);

/* The plan's mounts, in order. */
int init_apply_mounts(const struct init_mount *mounts, size_t n, struct sb_error *err);

/* Remount "/" read-only, keeping the flags bwrap forced on it. */
int init_remount_root_readonly(struct sb_error *err);

/* chdir to a container path, refusing one that ends up outside "/". */
int init_enter_cwd(const char *cwd, struct sb_error *err);

#endif
