#include "runtime/sandbox/namespaces.h"

#include "common/error.h"
#include "spec/sysctl_namespaces.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <string.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const int ns_clone_flag[OCI_NS_COUNT] = {
        [OCI_NS_PID] = CLONE_NEWPID,       [OCI_NS_NETWORK] = CLONE_NEWNET,
        [OCI_NS_MOUNT] = CLONE_NEWNS,      [OCI_NS_IPC] = CLONE_NEWIPC,
        [OCI_NS_UTS] = CLONE_NEWUTS,       [OCI_NS_USER] = CLONE_NEWUSER,
        [OCI_NS_CGROUP] = CLONE_NEWCGROUP, [OCI_NS_TIME] = CLONE_NEWTIME,
};

static int open_namespace(const struct oci_namespace *ns, size_t index, struct sb_error *err)
{
        int fd = open(ns->path, O_RDONLY | O_CLOEXEC);
        int type;

        if (fd < 0)
                return sb_fail(err, errno, "linux.namespaces[%zu].path: \"%s\"", index, ns->path);
        type = ioctl(fd, NS_GET_NSTYPE);
        if (type < 0) {
                close(fd);
                return sb_fail(err, 0, "linux.namespaces[%zu].path: \"%s\" is not a namespace file",
                               index, ns->path);
        }
        if (type != ns_clone_flag[ns->type]) {
                close(fd);
                return sb_fail(err, 0, "linux.namespaces[%zu].path: \"%s\" is not a %s namespace",
                               index, ns->path, oci_namespace_type_name(ns->type));
        }
        return fd;
}

int ns_setup_prepare(const struct oci_config *config, struct ns_setup *ns, struct sb_error *err)
{
        const struct oci_linux *linux_ = config->linux_;

        for (int t = 0; t < OCI_NS_COUNT; t++) {
                ns->join_fds[t] = -1;
                ns->unshare[t] = false;
        }
        ns->new_pid = false;
        ns->new_user = false;
        for (size_t i = 0; linux_ && i < linux_->n_namespaces; i++) {
                const struct oci_namespace *n = &linux_->namespaces[i];
                switch (n->type) {
                case OCI_NS_MOUNT:
                        /* bwrap always makes a new mount namespace. */
                        if (n->path)
                                return sb_fail(
                                        err, 0,
                                        "linux.namespaces[%zu].path: joining a mount namespace is not supported",
                                        i);
                        continue;
                case OCI_NS_USER:
                        if (n->path == NULL) {
                                if (linux_->n_uid_mappings == 0 || linux_->n_gid_mappings == 0)
                                        return sb_fail(
                                                err, 0,
                                                "linux.uidMappings: a new user namespace needs uidMappings and gidMappings");
                                ns->new_user = true;
                                continue;
                        }
                        break;
                case OCI_NS_TIME:
                        return sb_fail(
                                err, 0,
                                "linux.namespaces[%zu]: time namespaces are not implemented yet in sbrun",
                                i);
                case OCI_NS_PID:
                        if (n->path == NULL) {
                                ns->new_pid = true;
                                continue;
                        }
                        break;
                default:
                        if (n->path == NULL) {
                                ns->unshare[n->type] = true;
                                continue;
                        }
                        break;
                }
                ns->join_fds[n->type] = open_namespace(n, i, err);
                if (ns->join_fds[n->type] < 0)
                        return -1;
        }
        return 0;
}

void ns_setup_release(struct ns_setup *ns)
{
        for (int t = 0; t < OCI_NS_COUNT; t++) {
                if (ns->join_fds[t] >= 0)
                        close(ns->join_fds[t]);
                ns->join_fds[t] = -1;
        }
}

static bool has_ns(const struct ns_setup *ns, enum oci_namespace_type t)
{
        return ns->unshare[t] || ns->join_fds[t] >= 0;
}

int ns_check_identity(const struct oci_config *config, const struct ns_setup *ns,
                      struct sb_error *err)
{
        if (config->hostname && *config->hostname && !has_ns(ns, OCI_NS_UTS))
                return sb_fail(err, 0,
                               "hostname: cannot set the hostname without a private UTS namespace");
        if (config->domainname && *config->domainname && !has_ns(ns, OCI_NS_UTS))
                return sb_fail(
                        err, 0,
                        "domainname: cannot set the domainname without a private UTS namespace");
        /* The floor refused every key that is not namespaced (spec/). */
        for (size_t i = 0; config->linux_ && i < config->linux_->n_sysctl; i++) {
                const char *key = config->linux_->sysctl[i].key;
                enum oci_namespace_type needs;

                if (!sysctl_namespace(key, &needs))
                        return sb_fail(err, 0,
                                       "linux.sysctl: \"%s\" is not a namespaced sysctl: refused",
                                       key);
                if (!has_ns(ns, needs))
                        return sb_fail(
                                err, 0,
                                "linux.sysctl: \"%s\" needs a %s namespace of the container's own",
                                key, oci_namespace_type_name(needs));
        }
        return 0;
}

static const struct {
        const char *name;
        int flag;
} joinable[] = {
        { "user", CLONE_NEWUSER },     { "mnt", CLONE_NEWNS },  { "pid", CLONE_NEWPID },
        { "net", CLONE_NEWNET },       { "ipc", CLONE_NEWIPC }, { "uts", CLONE_NEWUTS },
        { "cgroup", CLONE_NEWCGROUP },
};

int ns_inode(int pid, const char *type, ino_t *ino)
{
        char path[64];
        struct stat st;

        if (pid < 0) {
                errno = EINVAL;
                return -1;
        }
        if (pid > 0)
                snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid, type);
        else
                snprintf(path, sizeof(path), "/proc/self/ns/%s", type);
        if (stat(path, &st) < 0)
                return -1;
        *ino = st.st_ino;
        return 0;
}

int ns_join_process(int pidfd, int pid)
{
        int flags = 0;

        /* Only the namespaces that differ from ours: joining one's own user
         * namespace is an error, and a container may share some with the host. */
        for (size_t i = 0; i < sizeof(joinable) / sizeof(joinable[0]); i++) {
                char theirs[64], ours[64];
                struct stat a, b;
                snprintf(theirs, sizeof(theirs), "/proc/%d/ns/%s", pid, joinable[i].name);
                snprintf(ours, sizeof(ours), "/proc/self/ns/%s", joinable[i].name);
                if (stat(theirs, &a) < 0 || stat(ours, &b) < 0)
                        continue;
                if (a.st_ino != b.st_ino || a.st_dev != b.st_dev)
                        flags |= joinable[i].flag;
        }
        /* One setns through the pidfd enters them all at once, user first. */
        return flags == 0 ? 0 : setns(pidfd, flags);
}

int ns_enter_pid(void *pid)
{
        int target = *(const int *)pid;
        int pidfd = (int)syscall(SYS_pidfd_open, target, 0);
        int status;

        if (pidfd < 0 || ns_join_process(pidfd, target) < 0)
                return -1;
        /* setns into a pid namespace takes effect for children only, and a
         * process outside it finds no /proc/self in the container's /proc
         * (a script's interpreter needs it). So the caller goes on in a
         * child, which dies with us if a timeout kills us. */
        pid_t child = fork();
        if (child < 0)
                return -1;
        if (child == 0)
                return prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 ? -1 : 0;
        while (waitpid(child, &status, 0) < 0) {
                if (errno != EINTR)
                        _exit(126);
        }
        _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}
