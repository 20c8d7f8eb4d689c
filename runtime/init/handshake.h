/* The single bytes sbrun's processes exchange over pipes, sockets and
 * exec.fifo while a container is created, started and joined. sbrun-init
 * is a static binary built from common/ and runtime/init/ only, so this
 * header stands alone. */
#ifndef SB_HANDSHAKE_H
#define SB_HANDSHAKE_H

enum handshake_byte {
        /* sbrun-init -> `sbrun create`, on the ready pipe (LFD_READY): the
         * container is set up and waits on exec.fifo. */
        HANDSHAKE_READY = 'R',
        /* The launcher or sbrun-init -> `sbrun create` on the ready pipe, or
         * exec's forked child -> `sbrun exec` on its report pipe: setup
         * failed; the one-line message follows, up to EOF. */
        HANDSHAKE_ERROR = 'E',
        /* exec's forked child -> `sbrun exec`, on its report pipe: the new
         * process runs in the container; its host pid follows in decimal. */
        HANDSHAKE_EXEC_PID = 'P',
        /* The launcher -> `sbrun create`, on the user namespace socket: the
         * launcher unshared its user namespace and waits for its maps. */
        HANDSHAKE_USERNS_UNSHARED = 'U',
        /* `sbrun create` -> the launcher, on the same socket: uid_map and
         * gid_map are written; the launcher goes on as the namespace's root. */
        HANDSHAKE_USERNS_MAPPED = 'M',
        /* `sbrun create` -> the launcher, or `sbrun exec` -> its forked
         * child, on a pipe: systemd moved it into the container's scope
         * (rootless, runtime/cgroup/systemd_scope.h); it may fork on. */
        HANDSHAKE_ATTACHED = 'A',
        /* sbrun-init -> `sbrun start`, through exec.fifo once start opened
         * it for reading: the container's process is exec'd next. */
        HANDSHAKE_START = '0',
};

#endif
