#include "runtime/audit/audit_log.h"

#include "common/cleanup.h"
#include "common/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

/* journald's native protocol (systemd's journal-native-protocol): one
 * datagram of NAME=value lines. A value holding a newline would need the
 * binary form; the JSON line has none (strings are escaped), nor has a
 * container ID (runtime/container/container_id.c). No libsystemd. */
int audit_journal_send(const char *line, size_t len, const char *event, const char *id,
                       struct sb_error *err)
{
        struct sockaddr_un addr = { .sun_family = AF_UNIX };
        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        _cleanup_free_ char *msg = NULL;
        int n;

        if (fd < 0)
                return sb_fail(err, errno, "journald: socket");
        n = asprintf(&msg,
                     "MESSAGE=%.*s\nSYSLOG_IDENTIFIER=" AUDIT_JOURNAL_IDENTIFIER
                     "\nPRIORITY=6\nSBRUN_EVENT=%s\nSBRUN_CONTAINER_ID=%s\n",
                     (int)len, line, event, id ? id : "");
        if (n < 0)
                return sb_fail(err, ENOMEM, "journald");
        snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", AUDIT_JOURNAL_SOCKET);
        if (sendto(fd, msg, (size_t)n, MSG_NOSIGNAL, (struct sockaddr *)&addr, sizeof(addr)) < 0)
                return sb_fail(err, errno, "journald: send to %s", AUDIT_JOURNAL_SOCKET);
        return 0;
}
