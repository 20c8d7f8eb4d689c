#include "runtime/sandbox/bwrap_args.h"

#include "config.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"
#include "common/strv.h"
#include "oci/config.h"
#include "runtime/sandbox/bwrap_binary.h"
#include "runtime/sandbox/launcher.h"
#include "runtime/sandbox/mount_translate.h"
#include "runtime/sandbox/namespaces.h"
#include "runtime/sandbox/rootfs_path.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* runc creates a missing cwd and refuses one that is not a directory. */
static int resolve_cwd(const struct bwrap_inputs *in, const struct mount_table *mounts, char **cwd,
                       struct sb_error *err)
{
        const char *wanted = in->config->process->cwd;
        _cleanup_free_ char *clean = NULL;
        _cleanup_close_ int fd = -1;
        struct stat st;

        if (rootfs_clean_path(wanted, &clean, err) < 0)
                return sb_error_prefix(err, "process.cwd");
        if (mount_table_find(mounts, clean) != NULL) {
                /* Inside a mount the rootfs on disk says nothing; bwrap's
                 * --dir makes it after the mounts. */
                *cwd = SB_STEAL_PTR(clean);
                return 0;
        }
        if (rootfs_resolve(in->rootfs_fd, clean,
                           in->dry_run ? ROOTFS_WOULD_CREATE : ROOTFS_CREATE_DIR, cwd, &fd,
                           err) < 0)
                return sb_error_prefix(err, "process.cwd: \"%s\"", wanted);
        if (fd < 0) /* dry run: a directory create would make */
                return 0;
        if (fstat(fd, &st) < 0)
                return sb_fail(err, errno, "process.cwd: \"%s\"", wanted);
        if (!S_ISDIR(st.st_mode))
                return sb_fail(err, 0, "process.cwd: \"%s\": not a directory", wanted);
        return 0;
}

int bwrap_args_build(const struct bwrap_inputs *in, struct strv *args,
                     struct init_mount_list *init_mounts, struct mount_table *mounts, char **cwd,
                     struct sb_error *err)
{
        const struct ns_setup *ns = in->ns;

        /* The directory the floor judged, never the path again: a rootfs
         * symlink swapped since cannot change what becomes the root. */
        strv_add(args, "--bind-fd");
        strv_addf(args, "%d", launcher_fd_number(in->preserve_fds, LFD_ROOTFS));
        strv_add(args, "/");
        if (ns->new_pid) {
                /* The user process is pid 1 of its namespace, as with runc. */
                strv_add(args, "--unshare-pid");
                strv_add(args, "--as-pid-1");
        } else if (ns->join_fds[OCI_NS_PID] >= 0) {
                strv_add(args, "--pidns");
                strv_addf(args, "%d", launcher_fd_number(in->preserve_fds, LFD_PIDNS));
        }
        mounts->in_userns = ns->new_user || ns->join_fds[OCI_NS_USER] >= 0 || in->caller_in_userns;
        mounts->new_cgroupns = ns->unshare[OCI_NS_CGROUP];
        mounts->dry_run = in->dry_run;
        mounts->rootless = in->caller_in_userns || geteuid() != 0;
        /* bwrap labels its tmpfs, /dev and the files it creates with this,
         * as runc does with linux.mountLabel; set only where SELinux is
         * enabled (floor_lsm_decide), the init's mounts get it in plan_build. */
        const char *label = in->config->linux_ ? in->config->linux_->mount_label : NULL;
        if (label != NULL && *label != '\0') {
                strv_add(args, "--file-label");
                strv_add(args, label);
        }
        if (mounts_translate(in->config, in->bundle, in->rootfs_fd, in->binds,
                             launcher_fd_number(in->preserve_fds, LFD_COUNT), args, init_mounts,
                             mounts, err) < 0)
                return -1;
        /* After every mount of the config, so that a tmpfs on /run is
         * under it rather than over it. */
        if (in->notify &&
            mounts_add_notify(in->rootfs_fd, launcher_fd_number(in->preserve_fds, LFD_NOTIFY), args,
                              init_mounts, mounts, err) < 0)
                return -1;
        if (resolve_cwd(in, mounts, cwd, err) < 0)
                return -1;
        strv_add(args, "--dir");
        strv_add(args, *cwd);
        strv_add(args, "--chdir");
        strv_add(args, *cwd);
        strv_add(args, "--info-fd");
        strv_addf(args, "%d", launcher_fd_number(in->preserve_fds, LFD_INFO));
        return args->failed ? sb_fail(err, ENOMEM, "bwrap arguments") : 0;
}

int bwrap_args_memfd(const struct strv *args, struct sb_error *err)
{
        size_t len = 0;
        for (size_t i = 0; i < args->n; i++)
                len += strlen(args->items[i]) + 1;
        _cleanup_free_ char *buf = malloc(len ? len : 1);
        if (buf == NULL)
                return sb_fail(err, ENOMEM, "bwrap arguments");
        char *p = buf;
        for (size_t i = 0; i < args->n; i++) {
                size_t n = strlen(args->items[i]) + 1;
                memcpy(p, args->items[i], n);
                p += n;
        }
        return sb_memfd_with("sbrun-bwrap-args", buf, len, err);
}

int bwrap_command(int preserve_fds, struct strv *argv, struct sb_error *err)
{
        strv_add(argv, sbrun_bwrap_path);
        strv_add(argv, "--args");
        strv_addf(argv, "%d", launcher_fd_number(preserve_fds, LFD_ARGS));
        strv_add(argv, "--");
        strv_addf(argv, "/proc/self/fd/%d", launcher_fd_number(preserve_fds, LFD_INIT_IMAGE));
        strv_addf(argv, "%d", launcher_fd_number(preserve_fds, LFD_PLAN));
        return argv->failed ? sb_fail(err, ENOMEM, "bwrap arguments") : 0;
}
