/* A D-Bus connection over a unix socket: SASL EXTERNAL, Hello on a bus,
 * method calls with a deadline, and the signals that arrive meanwhile
 * handed to a callback. One call at a time, no threads: what the systemd
 * cgroup driver needs and no more (runtime/cgroup/systemd_scope.c).
 *
 * Who answers is checked, since what systemd says (a job's result, a
 * scope's cgroup) is acted on: the socket's server must be the caller or
 * root (SO_PEERCRED), before a byte is sent; on a bus, where any client may
 * send us a signal, only those whose sender is the owner of the name the
 * caller watches (dbus_conn_watch_sender) are handed on. A direct
 * connection has one peer, the one checked. */
#ifndef SB_DBUS_CONNECTION_H
#define SB_DBUS_CONNECTION_H

#include "runtime/dbus/dbus_message.h"

#include <stdbool.h>
#include <stdint.h>

struct sb_error;

typedef void (*dbus_signal_fn)(const struct dbus_message *m, void *data);

struct dbus_conn {
        int fd;
        uint32_t serial;
        bool bus; /* through a message bus (Hello sent), not a direct peer */
        uint8_t *in;
        size_t in_len, in_cap;
        dbus_signal_fn on_signal;
        void *signal_data;
        char *signal_sender; /* on a bus: the unique name signals must come from */
};

#define DBUS_CONN_INIT   \
        {                \
                .fd = -1 \
        }

/* Connect to the socket at path and authenticate as whoever we are (the
 * server reads our credentials from the socket). bus: it is a message bus,
 * so say Hello first. timeout_ms bounds the whole. */
int dbus_conn_open(struct dbus_conn *c, const char *path, bool bus, int timeout_ms,
                   struct sb_error *err);
void dbus_conn_close(struct dbus_conn *c);

/* The server at the other end of fd (a connected unix socket) is the
 * caller (its euid, as this user namespace sees it) or root: else -1 with
 * err naming path, the peer's uid and pid (kind SB_ERR_DENIED). A peer
 * whose uid this namespace does not map shows as the overflow uid and is
 * refused. */
int dbus_peer_check(int fd, const char *path, struct sb_error *err);

/* On a bus: signals are handed to on_signal only when sent by the current
 * owner of name (GetNameOwner, e.g. systemd's org.freedesktop.systemd1);
 * until this is called, none is. On a direct connection: nothing to do. */
int dbus_conn_watch_sender(struct dbus_conn *c, const char *name, int timeout_ms,
                           struct sb_error *err);

/* Call and wait for the reply, at most timeout_ms; signals that arrive
 * meanwhile go to on_signal. Returns 0 with *reply the method return, 1
 * with *reply an error reply (its error_name and first string are
 * systemd's words), or -1 when the call could not be made or had no answer
 * (err says which; *reply is empty). what names the call in err. */
int dbus_call(struct dbus_conn *c, const struct dbus_call_head *h, const struct dbus_writer *body,
              int timeout_ms, struct dbus_message *reply, struct sb_error *err);

/* Read and dispatch signals until *done is true or timeout_ms passed
 * (ETIMEDOUT in err). */
int dbus_wait_signals(struct dbus_conn *c, const bool *done, int timeout_ms, struct sb_error *err);

/* The text of an error reply: its first string argument, or its name. */
const char *dbus_error_text(const struct dbus_message *m);

#endif
