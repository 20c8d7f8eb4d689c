#include "runtime/dbus/dbus_connection.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/log.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait until fd is ready for events or the deadline passed. */
static int wait_fd(int fd, short events, long long deadline, struct sb_error *err)
{
        for (;;) {
                long long left = deadline - now_ms();
                if (left <= 0)
                        return sb_fail(err, ETIMEDOUT, "D-Bus: no answer in time");
                struct pollfd p = { .fd = fd, .events = events };
                int n = poll(&p, 1, left > 60000 ? 60000 : (int)left);
                if (n < 0 && errno != EINTR)
                        return sb_fail(err, errno, "D-Bus: poll");
                if (n > 0)
                        return 0;
        }
}

static int write_all(struct dbus_conn *c, const void *buf, size_t len, long long deadline,
                     struct sb_error *err)
{
        const char *p = buf;

        while (len > 0) {
                ssize_t n = send(c->fd, p, len, MSG_NOSIGNAL);
                if (n < 0 && errno == EAGAIN) {
                        if (wait_fd(c->fd, POLLOUT, deadline, err) < 0)
                                return -1;
                        continue;
                }
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return sb_fail(err, errno, "D-Bus: send");
                p += n;
                len -= (size_t)n;
        }
        return 0;
}

/* Read what the socket has (waiting for something) into c->in. */
static int fill(struct dbus_conn *c, long long deadline, struct sb_error *err)
{
        for (;;) {
                if (c->in_cap - c->in_len < 4096) {
                        size_t cap = c->in_cap ? c->in_cap * 2 : 16384;
                        if (cap > 2 * (size_t)DBUS_MAX_MESSAGE)
                                return sb_fail(err, EMSGSIZE, "D-Bus: message too large");
                        uint8_t *b = realloc(c->in, cap);
                        if (b == NULL)
                                return sb_fail(err, ENOMEM, "D-Bus: read");
                        c->in = b;
                        c->in_cap = cap;
                }
                ssize_t n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, 0);
                if (n > 0) {
                        c->in_len += (size_t)n;
                        return 0;
                }
                if (n == 0)
                        return sb_fail(err, ECONNRESET, "D-Bus: the peer closed the connection");
                if (errno == EINTR)
                        continue;
                if (errno != EAGAIN)
                        return sb_fail(err, errno, "D-Bus: read");
                if (wait_fd(c->fd, POLLIN, deadline, err) < 0)
                        return -1;
        }
}

/* The next whole message, read until the deadline. */
static int next_message(struct dbus_conn *c, long long deadline, struct dbus_message *m,
                        struct sb_error *err)
{
        for (;;) {
                long size = dbus_message_size(c->in, c->in_len);
                if (size < 0)
                        return sb_fail(err, EBADMSG, "D-Bus: the peer sent no D-Bus message");
                if (size > 0 && c->in_len >= (size_t)size) {
                        uint8_t *buf = malloc((size_t)size);
                        if (buf == NULL)
                                return sb_fail(err, ENOMEM, "D-Bus: read");
                        memcpy(buf, c->in, (size_t)size);
                        c->in_len -= (size_t)size;
                        memmove(c->in, c->in + size, c->in_len);
                        if (dbus_message_parse(buf, (size_t)size, m) < 0)
                                return sb_fail(err, EBADMSG, "D-Bus: a malformed message");
                        return 0;
                }
                if (fill(c, deadline, err) < 0)
                        return -1;
        }
}

/* On a bus any client may send a signal to any other (a unicast one gets
 * past every match rule): only the watched sender's are believed. */
static void dispatch_signal(struct dbus_conn *c, const struct dbus_message *m)
{
        if (m->type != DBUS_SIGNAL || c->on_signal == NULL)
                return;
        if (c->bus && (c->signal_sender == NULL || m->sender == NULL ||
                       strcmp(m->sender, c->signal_sender) != 0)) {
                sb_debug("D-Bus: a signal %s.%s from %s dropped: not from %s", m->interface,
                         m->member, m->sender ? m->sender : "(no sender)",
                         c->signal_sender ? c->signal_sender : "(none watched)");
                return;
        }
        c->on_signal(m, c->signal_data);
}

int dbus_peer_check(int fd, const char *path, struct sb_error *err)
{
        struct ucred cred;
        socklen_t len = sizeof(cred);

        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || len != sizeof(cred))
                return sb_fail(err, errno, "D-Bus: %s: the peer's credentials", path);
        if (cred.uid == geteuid() || cred.uid == 0)
                return 0;
        return sb_fail_kind(err, SB_ERR_DENIED, 0,
                            "D-Bus: %s is served by uid %u (pid %d), neither the caller (uid %u) "
                            "nor root: refused, another user's server could forge what systemd "
                            "says",
                            path, (unsigned)cred.uid, (int)cred.pid, (unsigned)geteuid());
}

/* SASL EXTERNAL with no identity of our own: the server takes it from the
 * socket's credentials (SO_PEERCRED), so a uid that differs between user
 * namespaces (rootless podman's root) is not claimed wrongly. AUTH, DATA
 * and BEGIN go in one write, as libsystemd sends them; the answers are
 * read after. */
static int authenticate(struct dbus_conn *c, long long deadline, struct sb_error *err)
{
        static const char hello[] = "\0AUTH EXTERNAL\r\nDATA\r\nBEGIN\r\n";

        if (write_all(c, hello, sizeof(hello) - 1, deadline, err) < 0)
                return -1;
        for (;;) {
                char *eol = c->in_len ? memmem(c->in, c->in_len, "\r\n", 2) : NULL;
                if (eol == NULL) {
                        if (c->in_len > 512)
                                return sb_fail(err, EPROTO, "D-Bus: authentication: no answer");
                        if (fill(c, deadline, err) < 0)
                                return sb_error_prefix(err, "D-Bus: authentication");
                        continue;
                }
                size_t line = (size_t)(eol - (char *)c->in);
                bool ok = line >= 2 && memcmp(c->in, "OK", 2) == 0;
                bool data = line == 4 && memcmp(c->in, "DATA", 4) == 0;
                if (!ok && !data)
                        return sb_fail(err, EACCES, "D-Bus: authentication refused: %.*s",
                                       (int)(line > 80 ? 80 : line), (char *)c->in);
                c->in_len -= line + 2;
                memmove(c->in, c->in + line + 2, c->in_len);
                if (ok)
                        return 0;
        }
}

int dbus_conn_open(struct dbus_conn *c, const char *path, bool bus, int timeout_ms,
                   struct sb_error *err)
{
        long long deadline = now_ms() + timeout_ms;
        struct sockaddr_un sa = { .sun_family = AF_UNIX };

        *c = (struct dbus_conn)DBUS_CONN_INIT;
        if (strlen(path) >= sizeof(sa.sun_path))
                return sb_fail(err, ENAMETOOLONG, "D-Bus: %s", path);
        strcpy(sa.sun_path, path);
        c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (c->fd < 0)
                return sb_fail(err, errno, "D-Bus: socket");
        /* A unix socket's connect waits while the server's backlog is full
         * (a hundred creates at once): bounded by the send timeout. Then
         * every wait is poll's, against the deadline. */
        struct timeval tv = { .tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000 };
        int r;
        (void)setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
        do
                r = connect(c->fd, (struct sockaddr *)&sa, sizeof(sa));
        while (r < 0 && errno == EINTR);
        if (r < 0 || fcntl(c->fd, F_SETFL, O_NONBLOCK) < 0) {
                int e = errno;
                dbus_conn_close(c);
                return sb_fail(err, e, "D-Bus: connect to %s", path);
        }
        /* Before anything is sent: a server someone else runs hears nothing. */
        if (dbus_peer_check(c->fd, path, err) < 0) {
                dbus_conn_close(c);
                return -1;
        }
        if (authenticate(c, deadline, err) < 0) {
                dbus_conn_close(c);
                return sb_error_prefix(err, "%s", path);
        }
        if (bus) {
                struct dbus_call_head h = {
                        .destination = "org.freedesktop.DBus",
                        .path = "/org/freedesktop/DBus",
                        .interface = "org.freedesktop.DBus",
                        .member = "Hello",
                };
                struct dbus_message reply;
                r = dbus_call(c, &h, NULL, (int)(deadline - now_ms()), &reply, err);
                if (r == 1)
                        sb_fail(err, EPROTO, "D-Bus: Hello: %s", dbus_error_text(&reply));
                dbus_message_release(&reply);
                if (r != 0) {
                        dbus_conn_close(c);
                        return -1;
                }
                c->bus = true;
        }
        return 0;
}

void dbus_conn_close(struct dbus_conn *c)
{
        if (c->fd >= 0)
                close(c->fd);
        free(c->in);
        free(c->signal_sender);
        *c = (struct dbus_conn)DBUS_CONN_INIT;
}

int dbus_conn_watch_sender(struct dbus_conn *c, const char *name, int timeout_ms,
                           struct sb_error *err)
{
        struct dbus_writer body = { 0 };
        struct dbus_message reply;
        struct dbus_reader r;
        const char *owner;
        struct dbus_call_head h = {
                .destination = "org.freedesktop.DBus",
                .path = "/org/freedesktop/DBus",
                .interface = "org.freedesktop.DBus",
                .member = "GetNameOwner",
                .signature = "s",
        };

        if (!c->bus || c->signal_sender != NULL)
                return 0;
        dbus_put_string(&body, name);
        int rc = dbus_call(c, &h, &body, timeout_ms, &reply, err);
        dbus_writer_release(&body);
        if (rc == 1)
                sb_fail(err, 0, "D-Bus: the owner of %s: %s", name, dbus_error_text(&reply));
        else if (rc == 0) {
                dbus_reader_init(&r, &reply);
                if (!dbus_get_string(&r, &owner) || owner[0] != ':')
                        rc = sb_fail(err, EBADMSG, "D-Bus: the owner of %s: not a unique name",
                                     name);
                else if ((c->signal_sender = strdup(owner)) == NULL)
                        rc = sb_fail(err, ENOMEM, "D-Bus: the owner of %s", name);
        }
        dbus_message_release(&reply);
        return rc == 0 ? 0 : -1;
}

int dbus_call(struct dbus_conn *c, const struct dbus_call_head *h, const struct dbus_writer *body,
              int timeout_ms, struct dbus_message *reply, struct sb_error *err)
{
        long long deadline = now_ms() + timeout_ms;
        _cleanup_free_ uint8_t *out = NULL;
        size_t out_len;
        uint32_t serial = ++c->serial;

        *reply = (struct dbus_message){ 0 };
        if (dbus_message_build(h, serial, body, &out, &out_len) < 0)
                return sb_fail(err, EINVAL, "D-Bus: %s: the call could not be built", h->member);
        if (write_all(c, out, out_len, deadline, err) < 0)
                return sb_error_prefix(err, "%s", h->member);
        for (;;) {
                struct dbus_message m;
                if (next_message(c, deadline, &m, err) < 0)
                        return sb_error_prefix(err, "%s", h->member);
                if ((m.type == DBUS_METHOD_RETURN || m.type == DBUS_ERROR) &&
                    m.reply_serial == serial) {
                        *reply = m;
                        return m.type == DBUS_ERROR ? 1 : 0;
                }
                dispatch_signal(c, &m);
                dbus_message_release(&m);
        }
}

int dbus_wait_signals(struct dbus_conn *c, const bool *done, int timeout_ms, struct sb_error *err)
{
        long long deadline = now_ms() + timeout_ms;

        while (!*done) {
                struct dbus_message m;
                if (next_message(c, deadline, &m, err) < 0)
                        return -1;
                dispatch_signal(c, &m);
                dbus_message_release(&m);
        }
        return 0;
}

const char *dbus_error_text(const struct dbus_message *m)
{
        struct dbus_reader r;
        const char *text;

        if (m->buf == NULL)
                return "no answer";
        dbus_reader_init(&r, m);
        if (m->signature[0] == 's' && dbus_get_string(&r, &text) && *text)
                return text;
        return m->error_name ? m->error_name : "an error";
}
