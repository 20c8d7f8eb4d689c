#include "runtime/seccomp/seccomp_notify.h"

#include "config.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fd_passing.h"
#include "oci/json_write.h"
#include "oci/state.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int seccomp_notify_connect(const char *listener_path, struct sb_error *err)
{
        struct sockaddr_un addr = { .sun_family = AF_UNIX };
        _cleanup_close_ int fd = -1;

        if (strlen(listener_path) >= sizeof(addr.sun_path))
                return sb_fail(err, ENAMETOOLONG, "linux.seccomp.listenerPath: \"%s\"",
                               listener_path);
        strcpy(addr.sun_path, listener_path);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return sb_fail(err, errno, "linux.seccomp.listenerPath: socket");
        if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
                return sb_fail(err, errno, "linux.seccomp.listenerPath: connect to \"%s\"",
                               listener_path);
        return SB_STEAL_FD(fd);
}

/* The runtime-spec's containerProcessState, in its member order. */
char *seccomp_notify_state_json(const struct oci_state *state, const char *metadata,
                                struct sb_error *err)
{
        _cleanup_jw_ struct json_writer *w = jw_new(NULL, err);

        if (w == NULL)
                return NULL;
        jw_object_begin(w);
        jw_kv_string(w, "ociVersion", SBRUN_OCI_VERSION);
        jw_kv_strv(w, "fds", (const char *const[]){ "seccompFd", NULL });
        jw_kv_int(w, "pid", state->pid);
        if (metadata != NULL)
                jw_kv_string(w, "metadata", metadata);
        jw_key(w, "state");
        if (oci_state_write(w, state, err) < 0)
                return NULL;
        jw_object_end(w);
        return jw_to_string(w, err);
}

int seccomp_notify_hand_over(int channel, int listener_sock, const char *state_json,
                             struct sb_error *err)
{
        size_t len = strlen(state_json);
        ssize_t n = sb_send_fd(channel, listener_sock, state_json, len);

        if (n != (ssize_t)len)
                return sb_fail(
                        err, n < 0 ? errno : EIO,
                        "linux.seccomp.listenerPath: pass the listener socket to the container init");
        return 0;
}
