#include "runtime/container/container_procs.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "runtime/sandbox/namespaces.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <fcntl.h>

int container_procs_signal_all(int pid, int signo, struct sb_error *err)
{
        _cleanup_closedir_ DIR *proc = opendir("/proc");
        ino_t container_ns, host_ns;
        struct dirent *de;

        if (proc == NULL)
                return sb_fail(err, errno, "open /proc");
        /* Gone already (e.g. just SIGKILLed): as the init of its pid
         * namespace it took every process in it along. */
        if (ns_inode(pid, "pid", &container_ns) < 0)
                return 0;
        /* A container in the host's pid namespace has no boundary to find
         * its processes by: only its own process is signalled then. */
        if (ns_inode(getpid(), "pid", &host_ns) == 0 && host_ns == container_ns)
                return 0;
        while ((de = readdir(proc)) != NULL) {
                char *end = NULL;
                long other = strtol(de->d_name, &end, 10);
                ino_t ino;
                if (end == de->d_name || *end != '\0' || other == pid)
                        continue;
                if (ns_inode((int)other, "pid", &ino) < 0 || ino != container_ns)
                        continue;
                /* Open a pidfd first so the signal cannot reach a recycled pid. */
                int fd = (int)syscall(SYS_pidfd_open, (pid_t)other, 0);
                if (fd < 0)
                        continue;
                if (ns_inode((int)other, "pid", &ino) == 0 && ino == container_ns)
                        syscall(SYS_pidfd_send_signal, fd, signo, NULL, 0);
                close(fd);
        }
        return 0;
}
