/* Whom sbrun's D-Bus client believes (runtime/dbus/dbus_connection.h,
 * runtime/host/rootless.h): a socket's server must be the caller or root
 * (its SO_PEERCRED, here on a socketpair made by the test and on one made
 * by a child that became another uid); on a bus, a signal is handed on only
 * when its sender is the unique name GetNameOwner gave for the watched
 * name, so that another client's forged JobRemoved is dropped; and
 * $XDG_RUNTIME_DIR, where the user's systemd socket is looked for, must be
 * the caller's own directory, writable by no one else, not a link. */
#include "common/error.h"
#include "runtime/dbus/dbus_connection.h"
#include "runtime/host/rootless.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#define OTHER_UID 65534

static void expect_error(struct sb_error *err, const char *needle)
{
        if (err->msg == NULL || strstr(err->msg, needle) == NULL)
                fail_msg("error \"%s\" does not say \"%s\"", err->msg ? err->msg : "(none)",
                         needle);
        sb_error_clear(err);
}

static void test_peer_is_caller(void **state)
{
        (void)state;
        struct sb_error err = { 0 };
        int sv[2];

        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
        assert_int_equal(dbus_peer_check(sv[0], "pair", &err), 0);
        close(sv[0]);
        close(sv[1]);
}

/* One end of a socketpair made by a child that became OTHER_UID: its
 * SO_PEERCRED names that uid. */
static int pair_of_other_uid(void)
{
        int ch[2], fd = -1;
        char c;
        struct iovec iov = { .iov_base = &c, .iov_len = 1 };
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(sizeof(int))];
        } u;
        struct msghdr mh = { .msg_iov = &iov,
                             .msg_iovlen = 1,
                             .msg_control = u.buf,
                             .msg_controllen = sizeof(u.buf) };

        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ch), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                int sv[2];
                if (setgid(OTHER_UID) < 0 || setuid(OTHER_UID) < 0 ||
                    socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
                        _exit(1);
                memset(u.buf, 0, sizeof(u.buf));
                struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
                cm->cmsg_level = SOL_SOCKET;
                cm->cmsg_type = SCM_RIGHTS;
                cm->cmsg_len = CMSG_LEN(sizeof(int));
                memcpy(CMSG_DATA(cm), &sv[0], sizeof(int));
                _exit(sendmsg(ch[1], &mh, 0) == 1 ? 0 : 1);
        }
        close(ch[1]);
        if (recvmsg(ch[0], &mh, 0) == 1 && CMSG_FIRSTHDR(&mh) != NULL)
                memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&mh)), sizeof(int));
        close(ch[0]);
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        assert_true(fd >= 0);
        return fd;
}

static void test_peer_of_another_uid(void **state)
{
        (void)state;
        struct sb_error err = { 0 };
        char uid[32];

        if (geteuid() != 0)
                skip();
        int fd = pair_of_other_uid();
        assert_int_equal(dbus_peer_check(fd, "/run/user/1000/systemd/private", &err), -1);
        assert_int_equal(err.kind, SB_ERR_DENIED);
        snprintf(uid, sizeof(uid), "served by uid %d", OTHER_UID);
        assert_non_null(strstr(err.msg, "/run/user/1000/systemd/private"));
        expect_error(&err, uid);
        close(fd);
}

/* A message as a bus sends it: fields by hand, the body copied after the
 * header's padding to 8 (where its alignment counts from). */
static uint8_t *craft(uint8_t type, uint32_t serial, uint32_t reply_serial, const char *sender,
                      const char *member, const char *sig, const struct dbus_writer *body,
                      size_t *len)
{
        struct dbus_writer w = { 0 };
        size_t body_len = body ? body->len : 0;

        dbus_put_byte(&w, 'l');
        dbus_put_byte(&w, type);
        dbus_put_byte(&w, 0);
        dbus_put_byte(&w, 1);
        dbus_put_u32(&w, (uint32_t)body_len);
        dbus_put_u32(&w, serial);
        dbus_array_open(&w, 8);
        if (type == DBUS_SIGNAL) {
                dbus_struct_open(&w);
                dbus_put_byte(&w, 1);
                dbus_variant_open(&w, "o");
                dbus_put_string(&w, "/org/freedesktop/systemd1");
                dbus_struct_open(&w);
                dbus_put_byte(&w, 2);
                dbus_variant_open(&w, "s");
                dbus_put_string(&w, "org.freedesktop.systemd1.Manager");
                dbus_struct_open(&w);
                dbus_put_byte(&w, 3);
                dbus_variant_open(&w, "s");
                dbus_put_string(&w, member);
        }
        if (reply_serial != 0) {
                dbus_struct_open(&w);
                dbus_put_byte(&w, 5);
                dbus_variant_open(&w, "u");
                dbus_put_u32(&w, reply_serial);
        }
        if (sender != NULL) {
                dbus_struct_open(&w);
                dbus_put_byte(&w, 7);
                dbus_variant_open(&w, "s");
                dbus_put_string(&w, sender);
        }
        if (sig != NULL) {
                dbus_struct_open(&w);
                dbus_put_byte(&w, 8);
                dbus_variant_open(&w, "g");
                dbus_put_signature(&w, sig);
        }
        dbus_array_close(&w);
        dbus_struct_open(&w); /* pad to 8: the body */
        assert_false(w.failed);
        uint8_t *msg = malloc(w.len + body_len);
        assert_non_null(msg);
        memcpy(msg, w.buf, w.len);
        if (body_len)
                memcpy(msg + w.len, body->buf, body_len);
        *len = w.len + body_len;
        dbus_writer_release(&w);
        return msg;
}

static void send_msg(int fd, uint8_t *msg, size_t len)
{
        assert_int_equal(write(fd, msg, len), (ssize_t)len);
        free(msg);
}

static void send_signal(int fd, const char *sender, const char *member)
{
        size_t len;
        uint8_t *m = craft(DBUS_SIGNAL, 100, 0, sender, member, NULL, NULL, &len);

        send_msg(fd, m, len);
}

struct seen {
        char members[8][32];
        size_t n;
        bool done;
};

static void on_signal(const struct dbus_message *m, void *data)
{
        struct seen *s = data;

        if (s->n < 8)
                snprintf(s->members[s->n++], sizeof(s->members[0]), "%s", m->member);
        s->done = strcmp(m->member, "Last") == 0;
}

/* A connection on one end of a socketpair, the test playing the bus. */
static void conn_on_pair(struct dbus_conn *c, bool bus, int *peer)
{
        int sv[2];

        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
        assert_int_equal(fcntl(sv[0], F_SETFL, O_NONBLOCK), 0);
        *c = (struct dbus_conn)DBUS_CONN_INIT;
        c->fd = sv[0];
        c->bus = bus;
        *peer = sv[1];
}

/* On a bus: the owner GetNameOwner names is the only sender believed; a
 * signal from another client, or with no sender, is dropped. */
static void test_bus_signals_from_owner_only(void **state)
{
        (void)state;
        struct dbus_conn c;
        struct dbus_writer owner = { 0 };
        struct sb_error err = { 0 };
        struct seen seen = { 0 };
        size_t len;
        int peer;

        conn_on_pair(&c, true, &peer);
        c.on_signal = on_signal;
        c.signal_data = &seen;
        /* Before the owner is known nothing is believed. */
        send_signal(peer, ":1.7", "Early");
        assert_int_equal(dbus_wait_signals(&c, &seen.done, 200, &err), -1);
        assert_int_equal(err.errnum, ETIMEDOUT);
        sb_error_clear(&err);
        assert_int_equal(seen.n, 0);

        /* The answer to the first call (serial 1) waits in the socket. */
        dbus_put_string(&owner, ":1.7");
        uint8_t *reply =
                craft(DBUS_METHOD_RETURN, 5, 1, "org.freedesktop.DBus", NULL, "s", &owner, &len);
        send_msg(peer, reply, len);
        dbus_writer_release(&owner);
        assert_int_equal(dbus_conn_watch_sender(&c, "org.freedesktop.systemd1", 1000, &err), 0);
        assert_string_equal(c.signal_sender, ":1.7");

        send_signal(peer, ":1.9", "Forged");
        send_signal(peer, NULL, "Unsent");
        send_signal(peer, ":1.7", "Real");
        send_signal(peer, ":1.7", "Last");
        assert_int_equal(dbus_wait_signals(&c, &seen.done, 1000, &err), 0);
        assert_int_equal(seen.n, 2);
        assert_string_equal(seen.members[0], "Real");
        assert_string_equal(seen.members[1], "Last");

        /* What was asked: GetNameOwner of the watched name. */
        uint8_t buf[512];
        ssize_t n = read(peer, buf, sizeof(buf));
        assert_true(n > 0);
        assert_non_null(memmem(buf, (size_t)n, "GetNameOwner", 12));
        assert_non_null(memmem(buf, (size_t)n, "org.freedesktop.systemd1", 24));
        dbus_conn_close(&c);
        close(peer);
}

/* A direct connection (systemd's private socket) has one peer, the one
 * whose credentials were checked: its signals carry no sender and count. */
static void test_direct_signals(void **state)
{
        (void)state;
        struct dbus_conn c;
        struct sb_error err = { 0 };
        struct seen seen = { 0 };
        int peer;

        conn_on_pair(&c, false, &peer);
        c.on_signal = on_signal;
        c.signal_data = &seen;
        assert_int_equal(dbus_conn_watch_sender(&c, "org.freedesktop.systemd1", 1000, &err), 0);
        send_signal(peer, NULL, "Last");
        assert_int_equal(dbus_wait_signals(&c, &seen.done, 1000, &err), 0);
        assert_int_equal(seen.n, 1);
        dbus_conn_close(&c);
        close(peer);
}

static void test_runtime_dir(void **state)
{
        (void)state;
        char dir[] = "/tmp/sbrun-xdg-XXXXXX", link[64], file[64], sub[64];
        struct sb_error err = { 0 };

        assert_non_null(mkdtemp(dir));
        assert_int_equal(rootless_runtime_dir_check(dir, &err), 0);

        assert_int_equal(chmod(dir, 0770), 0);
        assert_int_equal(rootless_runtime_dir_check(dir, &err), -1);
        expect_error(&err, "mode 0770");
        assert_int_equal(chmod(dir, 0703), 0);
        assert_int_equal(rootless_runtime_dir_check(dir, &err), -1);
        expect_error(&err, "XDG_RUNTIME_DIR=");
        assert_int_equal(chmod(dir, 0700), 0);

        snprintf(link, sizeof(link), "%s.link", dir);
        assert_int_equal(symlink(dir, link), 0);
        assert_int_equal(rootless_runtime_dir_check(link, &err), -1);
        expect_error(&err, "a symbolic link");
        unlink(link);

        snprintf(file, sizeof(file), "%s/file", dir);
        close(open(file, O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
        assert_int_equal(rootless_runtime_dir_check(file, &err), -1);
        expect_error(&err, "not a directory");
        unlink(file);

        snprintf(sub, sizeof(sub), "%s/missing", dir);
        assert_int_equal(rootless_runtime_dir_check(sub, &err), -1);
        assert_int_equal(err.errnum, ENOENT);
        sb_error_clear(&err);

        if (geteuid() == 0) {
                char want[64];
                assert_int_equal(chown(dir, OTHER_UID, OTHER_UID), 0);
                assert_int_equal(rootless_runtime_dir_check(dir, &err), -1);
                snprintf(want, sizeof(want), "owned by uid %d with mode 0700", OTHER_UID);
                expect_error(&err, want);
        }
        assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_peer_is_caller),
                cmocka_unit_test(test_peer_of_another_uid),
                cmocka_unit_test(test_bus_signals_from_owner_only),
                cmocka_unit_test(test_direct_signals),
                cmocka_unit_test(test_runtime_dir),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
