/* sd_notify for containers, as runc does it: the caller's NOTIFY_SOCKET
 * (systemd's, or conmon's) never enters the container. create makes
 * <state>/notify, bound read-only at /run/notify, and sets the process's
 * NOTIFY_SOCKET to /run/notify/notify.sock; start binds that socket, lets
 * the process go and waits until it says READY=1 (or is gone), then tells
 * the caller's socket READY=1 and MAINPID, nothing else the container sent.
 * docs/design.md, "sd_notify". */
#ifndef SB_NOTIFY_SOCKET_H
#define SB_NOTIFY_SOCKET_H

#include <stdbool.h>
#include <sys/types.h>

struct sb_error;
struct oci_process;
struct state_dir;

#include "runtime/sandbox/mount_translate.h" /* NOTIFY_MOUNT_POINT: where NOTIFY_DIR is bound */

#define NOTIFY_DIR "notify"       /* in the state directory */
#define NOTIFY_SOCK "notify.sock" /* in NOTIFY_DIR */
#define NOTIFY_SOCKET_IN_CONTAINER NOTIFY_MOUNT_POINT "/" NOTIFY_SOCK

/* The caller's NOTIFY_SOCKET, or NULL when it has none (unset or empty). */
const char *notify_socket_host(void);

/* A value sd_notify could reach: an absolute path or an abstract name
 * ("@..."), short enough for sun_path. Names the variable and value. */
int notify_socket_check(const char *host, struct sb_error *err);

/* The process's environment with NOTIFY_SOCKET pointing at the proxy
 * (replacing one the config sets, which could not be reached). */
int notify_socket_set_env(struct oci_process *p, struct sb_error *err);

/* create: <state>/notify, 0755 (the container's users traverse it). Returns
 * an O_PATH fd of it, bound by bwrap, or -1. */
int notify_socket_make_dir(struct state_dir *sd, struct sb_error *err);

struct notify_proxy {
        int dir;  /* <state>/notify, O_PATH */
        int sock; /* bound there as NOTIFY_SOCK */
        int host; /* connected to the caller's NOTIFY_SOCKET */
};
#define NOTIFY_PROXY_INIT                         \
        {                                         \
                .dir = -1, .sock = -1, .host = -1 \
        }

/* start, before the process is released: connects to host (fails while
 * nothing is started) and binds the proxy socket in <state>/notify. With a
 * container created without NOTIFY_SOCKET, p->sock stays -1 (nothing inside
 * can speak, so nothing is awaited). */
int notify_proxy_open(struct state_dir *sd, const char *host, struct notify_proxy *p,
                      struct sb_error *err);

/* Wait until a datagram on the proxy has a line READY=1, then send the host
 * READY=1 and MAINPID=mainpid and wait for systemd's BARRIER=1 answer (at
 * most NOTIFY_BARRIER_MS). Returns 0 without a word to the host when the
 * process behind pidfd ends first. Needs no lock of the state directory. */
int notify_proxy_forward(const struct notify_proxy *p, int pidfd, pid_t mainpid,
                         struct sb_error *err);

/* Removes the socket file and closes the fds. */
void notify_proxy_release(struct notify_proxy *p);
#define _cleanup_notify_proxy_ __attribute__((cleanup(notify_proxy_release)))

#endif
