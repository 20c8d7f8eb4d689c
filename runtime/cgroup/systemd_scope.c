#include "runtime/cgroup/systemd_scope.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/log.h"
#include "runtime/cgroup/systemd_props.h"
#include "runtime/dbus/dbus_connection.h"
#include "runtime/host/rootless.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int systemd_holder_spawn(struct systemd_holder *h, struct sb_error *err)
{
        int p[2];

        if (pipe2(p, O_CLOEXEC) < 0)
                return sb_fail(err, errno, "systemd scope: pipe");
        pid_t parent = getpid();
        pid_t pid = fork();
        if (pid < 0) {
                int e = errno;
                close(p[0]);
                close(p[1]);
                return sb_fail(err, e, "systemd scope: fork");
        }
        if (pid == 0) {
                char c;
                /* A killed create must not leave it (and so the scope) behind. */
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (getppid() != parent)
                        _exit(0);
                close(p[1]);
                while (read(p[0], &c, 1) < 0 && errno == EINTR)
                        ;
                _exit(0);
        }
        close(p[0]);
        h->pid = pid;
        h->release = p[1];
        return 0;
}

void systemd_holder_end(struct systemd_holder *h)
{
        if (h->release >= 0)
                close(h->release);
        h->release = -1;
        if (h->pid > 0) {
                while (waitpid(h->pid, NULL, 0) < 0 && errno == EINTR)
                        ;
        }
        h->pid = 0;
}

#define SD_DEST "org.freedesktop.systemd1"
#define SD_PATH "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"
#define SD_UNIT "org.freedesktop.systemd1.Unit"
#define DBUS_PROPERTIES "org.freedesktop.DBus.Properties"
/* systemd's own bound on a method call is 25 s; a job may queue behind
 * others (a busy manager under emulation takes seconds). */
#define JOB_TIMEOUT_MS (60 * 1000)

/* systemd's own socket, as systemctl uses it as root: a direct connection,
 * so each call is one round trip to PID 1 instead of two through
 * dbus-daemon, with no Hello or AddMatch calls, and systemd sends its
 * signals to every direct connection unasked (no Subscribe). */
#define SD_PRIVATE_SOCKET "/run/systemd/private"
#define SYSTEM_BUS_SOCKET "/run/dbus/system_bus_socket"

struct sd_bus {
        struct dbus_conn conn;
        bool direct; /* systemd's private socket, not the system bus */
};

static void sd_bus_closep(struct sd_bus *b)
{
        dbus_conn_close(&b->conn);
}
static void msg_releasep(struct dbus_message *m)
{
        dbus_message_release(m);
}
static void writer_releasep(struct dbus_writer *w)
{
        dbus_writer_release(w);
}
#define _cleanup_sd_bus_ __attribute__((cleanup(sd_bus_closep)))
#define _cleanup_msg_ __attribute__((cleanup(msg_releasep)))
#define _cleanup_writer_ __attribute__((cleanup(writer_releasep)))

/* Whether we are root of the initial user namespace: systemd accepts only
 * uid 0 (as it sees it) on its private socket, and root of another user
 * namespace (rootless podman's) is someone else there. */
static bool initial_root(void)
{
        char map[64] = "";
        int fd = geteuid() == 0 ? open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC) : -1;
        ssize_t n = fd >= 0 ? read(fd, map, sizeof(map) - 1) : -1;

        if (fd >= 0)
                close(fd);
        if (n <= 0)
                return false;
        unsigned long inside, outside, count;
        return sscanf(map, "%lu %lu %lu", &inside, &outside, &count) == 3 && inside == 0 &&
               outside == 0 && count == 4294967295UL;
}

/* The system bus: $DBUS_SYSTEM_BUS_ADDRESS as libdbus and sd-bus read it
 * (a unix path only), else the well-known socket. */
static int system_bus_path(const char **path, struct sb_error *err)
{
        const char *a = getenv("DBUS_SYSTEM_BUS_ADDRESS");

        *path = SYSTEM_BUS_SOCKET;
        if (a == NULL || *a == '\0')
                return 0;
        if (strncmp(a, "unix:path=", 10) != 0 || strpbrk(a + 10, ",;") != NULL)
                return sb_fail(err, EINVAL,
                               "DBUS_SYSTEM_BUS_ADDRESS=%s: only a unix:path= address is supported",
                               a);
        *path = a + 10;
        return 0;
}

/* A rootless caller's manager is its own systemd --user (user@UID.service,
 * which delegates cpu, memory and pids to it): its private socket in
 * $XDG_RUNTIME_DIR, which it opens to its own uid only (the peer's uid as
 * the host sees it: rootless podman's root is the user there), else the
 * user's bus. The directory is checked first (the caller's, writable by no
 * one else), and each socket's server (dbus_conn_open: the caller or
 * root): a private socket that someone else serves is refused, not passed
 * over for the bus. */
static int user_bus_open(struct sd_bus *b, struct sb_error *err)
{
        const char *dir = getenv("XDG_RUNTIME_DIR");
        const char *a = getenv("DBUS_SESSION_BUS_ADDRESS");
        struct sb_error first = { 0 };
        _cleanup_free_ char *private = NULL, *bus = NULL;

        if (dir == NULL || dir[0] != '/')
                return sb_fail(err, 0,
                               "--systemd-cgroup (rootless): XDG_RUNTIME_DIR is not set: the "
                               "user's systemd is found there");
        if (rootless_runtime_dir_check(dir, err) < 0)
                return sb_error_prefix(err, "--systemd-cgroup (rootless)");
        if (asprintf(&private, "%s/systemd/private", dir) < 0 || asprintf(&bus, "%s/bus", dir) < 0)
                return sb_fail(err, ENOMEM, "--systemd-cgroup");
        b->direct = dbus_conn_open(&b->conn, private, false, JOB_TIMEOUT_MS, &first) == 0;
        if (!b->direct && first.kind == SB_ERR_DENIED) {
                *err = first;
                return sb_error_prefix(err, "--systemd-cgroup (rootless)");
        }
        sb_error_clear(&first);
        if (b->direct)
                return 0;
        if (a != NULL && strncmp(a, "unix:path=", 10) == 0 && strpbrk(a + 10, ",;") == NULL) {
                free(bus);
                bus = strdup(a + 10);
                if (bus == NULL)
                        return sb_fail(err, ENOMEM, "--systemd-cgroup");
        }
        if (dbus_conn_open(&b->conn, bus, true, JOB_TIMEOUT_MS, err) < 0) {
                if (err->kind == SB_ERR_DENIED)
                        return sb_error_prefix(err, "--systemd-cgroup (rootless)");
                return sb_error_prefix(err,
                                       "--systemd-cgroup (rootless): cannot connect to the "
                                       "user's systemd at %s or %s (is systemd --user running "
                                       "for uid %u? `loginctl enable-linger` starts it without "
                                       "a login)",
                                       private, bus, (unsigned)getuid());
        }
        return 0;
}

static int bus_open(struct sd_bus *b, struct sb_error *err)
{
        struct sb_error ignored = { 0 };
        const char *path;

        if (rootless_detect())
                return user_bus_open(b, err);
        /* Root of the initial user namespace is served on systemd's own
         * socket; a systemd that has none is reached through the system bus. */
        b->direct = initial_root() && dbus_conn_open(&b->conn, SD_PRIVATE_SOCKET, false,
                                                     JOB_TIMEOUT_MS, &ignored) == 0;
        sb_error_clear(&ignored);
        if (b->direct)
                return 0;
        if (system_bus_path(&path, err) < 0 ||
            dbus_conn_open(&b->conn, path, true, JOB_TIMEOUT_MS, err) < 0)
                return sb_error_prefix(
                        err, "--systemd-cgroup: cannot connect to systemd over the system "
                             "bus (is systemd PID 1 and D-Bus running? without systemd, "
                             "run without --systemd-cgroup)");
        return 0;
}

/* A call to systemd (destination named on the bus only). 0: the return in
 * *reply; 1: systemd's error in *reply; -1: no answer (err). */
static int sd_call(struct sd_bus *b, const char *path, const char *iface, const char *member,
                   const char *sig, const struct dbus_writer *body, struct dbus_message *reply,
                   struct sb_error *err)
{
        struct dbus_call_head h = {
                .destination = b->direct ? NULL : SD_DEST,
                .path = path,
                .interface = iface,
                .member = member,
                .signature = sig,
        };
        return dbus_call(&b->conn, &h, body, JOB_TIMEOUT_MS, reply, err);
}

/* A call whose error reply is a failure: "systemd: WHAT UNIT: its words". */
static int sd_call_ok(struct sd_bus *b, const char *member, const char *sig,
                      const struct dbus_writer *body, struct dbus_message *reply, const char *what,
                      const char *unit, struct sb_error *err)
{
        int r = sd_call(b, SD_PATH, SD_MANAGER, member, sig, body, reply, err);

        if (r < 0)
                return sb_error_prefix(err, "systemd: %s %s", what, unit);
        if (r == 1)
                return sb_fail(err, 0, "systemd: %s %s: %s", what, unit, dbus_error_text(reply));
        return 0;
}

static bool error_is(const struct dbus_message *m, const char *name)
{
        return m->error_name != NULL && strcmp(m->error_name, name) == 0;
}

struct job_wait {
        const char *path; /* the job we wait for, once known */
        char *result;
        bool done;
        /* Jobs removed before the call that queued ours returned. */
        char *early[8][2];
        size_t n_early;
};

static void on_signal(const struct dbus_message *m, void *data)
{
        struct job_wait *w = data;
        struct dbus_reader r;
        const char *path, *unit, *result;
        uint32_t id;

        if (strcmp(m->interface, SD_MANAGER) != 0 || strcmp(m->member, "JobRemoved") != 0)
                return;
        dbus_reader_init(&r, m);
        if (!dbus_get_u32(&r, &id) || !dbus_get_string(&r, &path) || !dbus_get_string(&r, &unit) ||
            !dbus_get_string(&r, &result))
                return;
        if (w->path != NULL) {
                if (w->result == NULL && strcmp(path, w->path) == 0) {
                        w->result = strdup(result);
                        w->done = true;
                }
        } else if (w->n_early < 8) {
                w->early[w->n_early][0] = strdup(path);
                w->early[w->n_early][1] = strdup(result);
                w->n_early++;
        }
}

static void job_wait_release(struct job_wait *w)
{
        for (size_t i = 0; i < w->n_early; i++) {
                free(w->early[i][0]);
                free(w->early[i][1]);
        }
        free(w->result);
}

/* Watch for JobRemoved before the call that queues the job. On the system
 * bus systemd broadcasts a job's JobRemoved when the client that queued it
 * is still connected, and every signal while any client is subscribed; the
 * Subscribe keeps the first true for systemd versions that track no
 * requester. A direct connection gets every signal unasked. */
static int watch_jobs(struct sd_bus *b, struct job_wait *w, struct sb_error *err)
{
        _cleanup_writer_ struct dbus_writer match = { 0 };
        _cleanup_msg_ struct dbus_message reply = { 0 };
        struct dbus_message sub = { 0 };
        int r;

        b->conn.on_signal = on_signal;
        b->conn.signal_data = w;
        if (b->direct)
                return 0;
        /* Only systemd's own JobRemoved is believed (a forged "done" would
         * pass a scope that failed): its unique name, asked before the
         * job is queued. */
        if (dbus_conn_watch_sender(&b->conn, SD_DEST, JOB_TIMEOUT_MS, err) < 0)
                return sb_error_prefix(err, "systemd: watch the jobs");
        dbus_put_string(&match, "type='signal',sender='" SD_DEST "',path='" SD_PATH
                                "',interface='" SD_MANAGER "',member='JobRemoved'");
        struct dbus_call_head h = {
                .destination = "org.freedesktop.DBus",
                .path = "/org/freedesktop/DBus",
                .interface = "org.freedesktop.DBus",
                .member = "AddMatch",
                .signature = "s",
        };
        r = dbus_call(&b->conn, &h, &match, JOB_TIMEOUT_MS, &reply, err);
        if (r != 0)
                return r < 0 ? sb_error_prefix(err, "systemd: watch the jobs") :
                               sb_fail(err, 0, "systemd: watch the jobs: %s",
                                       dbus_error_text(&reply));
        r = sd_call(b, SD_PATH, SD_MANAGER, "Subscribe", NULL, NULL, &sub, err);
        /* A second job on the same connection (the slices after the scope). */
        if (r == 1 && error_is(&sub, "org.freedesktop.systemd1.AlreadySubscribed"))
                r = 0;
        if (r != 0) {
                if (r == 1)
                        sb_fail(err, 0, "systemd: subscribe to the manager: %s",
                                dbus_error_text(&sub));
                else
                        sb_error_prefix(err, "systemd: subscribe to the manager");
        }
        dbus_message_release(&sub);
        return r == 0 ? 0 : -1;
}

/* The job path a StartUnit-like call returned, then wait for its
 * JobRemoved and judge its result. */
static int wait_job(struct sd_bus *b, struct job_wait *w, const struct dbus_message *reply,
                    const char *what, const char *unit, struct sb_error *err)
{
        struct dbus_reader r;
        const char *path;

        dbus_reader_init(&r, reply);
        if (!dbus_get_string(&r, &path))
                return sb_fail(err, EBADMSG, "systemd: %s %s: no job in the answer", what, unit);
        w->path = path;
        for (size_t i = 0; i < w->n_early && w->result == NULL; i++) {
                if (w->early[i][0] && strcmp(w->early[i][0], path) == 0) {
                        w->result = w->early[i][1] ? strdup(w->early[i][1]) : NULL;
                        w->done = w->result != NULL;
                }
        }
        if (dbus_wait_signals(&b->conn, &w->done, JOB_TIMEOUT_MS, err) < 0) {
                if (err->errnum == ETIMEDOUT)
                        return sb_error_prefix(err,
                                               "systemd: %s %s: its job did not finish within %d s",
                                               what, unit, JOB_TIMEOUT_MS / 1000);
                return sb_error_prefix(err, "systemd: %s %s", what, unit);
        }
        if (strcmp(w->result, "done") != 0)
                return sb_fail(err, 0,
                               "systemd: %s %s: the job ended \"%s\" (journalctl -u %s says why)",
                               what, unit, w->result, unit);
        return 0;
}

static void put_prop_string(struct dbus_writer *m, const char *name, const char *sig,
                            const char *value)
{
        dbus_struct_open(m);
        dbus_put_string(m, name);
        dbus_variant_open(m, sig);
        dbus_put_string(m, value);
}

static void put_prop_bool(struct dbus_writer *m, const char *name, bool value)
{
        dbus_struct_open(m);
        dbus_put_string(m, name);
        dbus_variant_open(m, "b");
        dbus_put_bool(m, value);
}

static void append_props(struct dbus_writer *m, const struct systemd_props *props)
{
        for (size_t i = 0; i < props->n; i++) {
                const struct systemd_prop *p = &props->items[i];
                dbus_struct_open(m);
                dbus_put_string(m, p->name);
                if (p->type == SYSTEMD_PROP_U64) {
                        dbus_variant_open(m, "t");
                        dbus_put_u64(m, p->u64);
                } else {
                        dbus_variant_open(m, "ay");
                        dbus_array_open(m, 1);
                        for (size_t j = 0; j < p->n_bits; j++)
                                dbus_put_byte(m, p->bits[j]);
                        dbus_array_close(m);
                }
        }
}

int systemd_scope_start(const char *unit, const char *slice, const char *description,
                        const struct systemd_props *props, pid_t pid, bool *made,
                        struct sb_error *err)
{
        _cleanup_sd_bus_ struct sd_bus b = { .conn = DBUS_CONN_INIT };
        _cleanup_writer_ struct dbus_writer m = { 0 };
        _cleanup_msg_ struct dbus_message reply = { 0 };
        struct job_wait w = { 0 };
        int r, ret = -1;

        *made = false;
        if (bus_open(&b, err) < 0 || watch_jobs(&b, &w, err) < 0)
                goto out;
        dbus_put_string(&m, unit);
        /* "fail": a job that conflicts with one queued (a stop of the same
         * slice) fails this create instead of cancelling the other. */
        dbus_put_string(&m, "fail");
        dbus_array_open(&m, 8);
        put_prop_string(&m, "Description", "s", description);
        put_prop_string(&m, "Slice", "s", slice);
        put_prop_bool(&m, "Delegate", true);
        /* CollectMode: systemd unloads the unit when it stops, failed or
         * not, so that no failed scope stays listed after the container. */
        put_prop_string(&m, "CollectMode", "s", "inactive-or-failed");
        dbus_struct_open(&m);
        dbus_put_string(&m, "PIDs");
        dbus_variant_open(&m, "au");
        dbus_array_open(&m, 4);
        dbus_put_u32(&m, (uint32_t)pid);
        dbus_array_close(&m);
        /* The controllers the limits need, in the scope and its slices. */
        put_prop_bool(&m, "MemoryAccounting", true);
        put_prop_bool(&m, "CPUAccounting", true);
        put_prop_bool(&m, "IOAccounting", true);
        put_prop_bool(&m, "TasksAccounting", true);
        append_props(&m, props);
        dbus_array_close(&m);
        dbus_array_open(&m, 8); /* no auxiliary units */
        dbus_array_close(&m);
        r = sd_call(&b, SD_PATH, SD_MANAGER, "StartTransientUnit", "ssa(sv)a(sa(sv))", &m, &reply,
                    err);
        if (r == 1 && error_is(&reply, "org.freedesktop.systemd1.UnitExists")) {
                sb_fail(err, 0,
                        "linux.cgroupsPath: systemd unit %s exists already (another "
                        "container's?): %s",
                        unit, dbus_error_text(&reply));
                goto out;
        }
        if (r == 1) {
                sb_fail(err, 0, "systemd: start %s: %s", unit, dbus_error_text(&reply));
                goto out;
        }
        if (r < 0) {
                sb_error_prefix(err, "systemd: start %s", unit);
                goto out;
        }
        *made = true;
        ret = wait_job(&b, &w, &reply, "start", unit, err);
out:
        job_wait_release(&w);
        return ret;
}

int systemd_scope_update(const char *unit, const struct systemd_props *props, struct sb_error *err)
{
        _cleanup_sd_bus_ struct sd_bus b = { .conn = DBUS_CONN_INIT };
        _cleanup_writer_ struct dbus_writer m = { 0 };
        _cleanup_msg_ struct dbus_message reply = { 0 };

        if (bus_open(&b, err) < 0)
                return -1;
        dbus_put_string(&m, unit);
        dbus_put_bool(&m, true); /* runtime only, as systemctl set-property --runtime */
        dbus_array_open(&m, 8);
        append_props(&m, props);
        dbus_array_close(&m);
        return sd_call_ok(&b, "SetUnitProperties", "sba(sv)", &m, &reply, "set the properties of",
                          unit, err);
}

int systemd_scope_attach(const char *unit, pid_t pid, struct sb_error *err)
{
        _cleanup_sd_bus_ struct sd_bus b = { .conn = DBUS_CONN_INIT };
        _cleanup_writer_ struct dbus_writer m = { 0 };
        _cleanup_msg_ struct dbus_message reply = { 0 };

        if (bus_open(&b, err) < 0)
                return -1;
        dbus_put_string(&m, unit);
        dbus_put_string(&m, ""); /* the unit's own cgroup */
        dbus_array_open(&m, 4);
        dbus_put_u32(&m, (uint32_t)pid);
        dbus_array_close(&m);
        return sd_call_ok(&b, "AttachProcessesToUnit", "ssau", &m, &reply, "move a process into",
                          unit, err);
}

static bool no_such_unit(const struct dbus_message *m)
{
        return error_is(m, "org.freedesktop.systemd1.NoSuchUnit") ||
               error_is(m, "org.freedesktop.systemd1.LoadFailed");
}

/* Stop name and wait; a unit that is not there is stopped already. */
static int stop_unit(struct sd_bus *b, const char *name, const char *mode, struct sb_error *err)
{
        _cleanup_writer_ struct dbus_writer m = { 0 };
        _cleanup_msg_ struct dbus_message reply = { 0 };
        struct job_wait w = { 0 };
        int r, ret = -1;

        if (watch_jobs(b, &w, err) < 0)
                goto out;
        dbus_put_string(&m, name);
        dbus_put_string(&m, mode);
        r = sd_call(b, SD_PATH, SD_MANAGER, "StopUnit", "ss", &m, &reply, err);
        if (r == 1 && no_such_unit(&reply))
                ret = 0;
        else if (r == 1)
                sb_fail(err, 0, "systemd: stop %s: %s", name, dbus_error_text(&reply));
        else if (r < 0)
                sb_error_prefix(err, "systemd: stop %s", name);
        else
                ret = wait_job(b, &w, &reply, "stop", name, err);
out:
        b->conn.on_signal = NULL;
        b->conn.signal_data = NULL;
        job_wait_release(&w);
        return ret;
}

static void reset_failed(struct sd_bus *b, const char *name)
{
        _cleanup_writer_ struct dbus_writer m = { 0 };
        _cleanup_msg_ struct dbus_message reply = { 0 };
        struct sb_error ignored = { 0 };

        /* Not failed, or already unloaded (CollectMode): nothing to reset. */
        dbus_put_string(&m, name);
        (void)sd_call(b, SD_PATH, SD_MANAGER, "ResetFailedUnit", "s", &m, &reply, &ignored);
        sb_error_clear(&ignored);
}

/* Whether dir (a slice's cgroup) holds no cgroup below it: then no unit is
 * in that slice any more. Read locally, with no round trip to systemd, so
 * that a slice in use (system.slice, a pod's slice while other containers
 * run) costs nothing. A directory that is gone holds nothing. */
static bool cgroup_dir_empty(const char *dir)
{
        _cleanup_closedir_ DIR *d = opendir(dir);
        struct dirent *de;

        if (d == NULL)
                return errno == ENOENT;
        while ((de = readdir(d)) != NULL) {
                if (de->d_type == DT_DIR && de->d_name[0] != '.')
                        return false;
        }
        return true;
}

/* A property (of iface) of the object at path: *reply holds its variant,
 * and *r is a reader at its value of type sig. */
static bool get_property(struct sd_bus *b, const char *path, const char *iface, const char *name,
                         const char *sig, struct dbus_message *reply, struct dbus_reader *r,
                         struct sb_error *err)
{
        _cleanup_writer_ struct dbus_writer m = { 0 };

        dbus_put_string(&m, iface);
        dbus_put_string(&m, name);
        int rc = sd_call(b, path, DBUS_PROPERTIES, "Get", "ss", &m, reply, err);
        if (rc == 1)
                sb_fail(err, 0, "systemd: read %s: %s", name, dbus_error_text(reply));
        if (rc != 0)
                return false;
        dbus_reader_init(r, reply);
        if (!dbus_get_variant(r, sig)) {
                sb_fail(err, EBADMSG, "systemd: read %s: not of type %s", name, sig);
                return false;
        }
        return true;
}

static bool unit_property(struct sd_bus *b, const char *path, const char *name, const char *sig,
                          struct dbus_message *reply, struct dbus_reader *r)
{
        struct sb_error ignored = { 0 };
        bool ok = get_property(b, path, SD_UNIT, name, sig, reply, r, &ignored);

        sb_error_clear(&ignored);
        return ok;
}

/* Whether slice is one systemd made only because a unit named it (no unit
 * file, not transient): then the scope's start made it and it goes too. */
static bool implicit_slice(struct sd_bus *b, const char *slice)
{
        _cleanup_writer_ struct dbus_writer m = { 0 };
        _cleanup_msg_ struct dbus_message unit = { 0 }, fragment = { 0 }, transient = { 0 };
        struct sb_error ignored = { 0 };
        struct dbus_reader r;
        const char *path, *file;
        bool is_transient = true;

        dbus_put_string(&m, slice);
        int rc = sd_call(b, SD_PATH, SD_MANAGER, "GetUnit", "s", &m, &unit, &ignored);
        sb_error_clear(&ignored);
        if (rc != 0)
                return false;
        dbus_reader_init(&r, &unit);
        if (!dbus_get_string(&r, &path))
                return false;
        if (!unit_property(b, path, "FragmentPath", "s", &fragment, &r) ||
            !dbus_get_string(&r, &file) || *file != '\0')
                return false;
        return unit_property(b, path, "Transient", "b", &transient, &r) &&
               dbus_get_bool(&r, &is_transient) && !is_transient;
}

/* Stop each slice above the scope, innermost first, that is empty and
 * implicit. cgroup_path is the scope's directory: its parent is the
 * innermost slice's ("a.slice/a-b.slice/x.scope": a-b.slice, then a.slice),
 * and a slice's name loses its last "-part" one level up. */
static void stop_made_slices(struct sd_bus *b, const char *slice, const char *cgroup_path)
{
        _cleanup_free_ char *name = strdup(slice), *dir = strdup(cgroup_path);
        struct sb_error ignored = { 0 };
        char *cut;

        /* Never "-.slice", the root. */
        while (name != NULL && dir != NULL && strcmp(name, "-.slice") != 0) {
                if ((cut = strrchr(dir, '/')) == NULL || cut == dir)
                        return;
                *cut = '\0';
                if (!cgroup_dir_empty(dir) || !implicit_slice(b, name))
                        return;
                if (stop_unit(b, name, "fail", &ignored) < 0) {
                        _cleanup_free_ char *text = sb_error_text(&ignored);
                        sb_warn("%s", text ? text : "systemd: stop a slice");
                        sb_error_clear(&ignored);
                        return;
                }
                reset_failed(b, name);
                if ((cut = strrchr(name, '-')) == NULL)
                        return;
                strcpy(cut, ".slice");
        }
}

int systemd_scope_stop(const char *unit, const char *slice, const char *cgroup_path,
                       struct sb_error *err)
{
        _cleanup_sd_bus_ struct sd_bus b = { .conn = DBUS_CONN_INIT };

        if (bus_open(&b, err) < 0)
                return -1;
        /* No ResetFailedUnit: the scope was started with CollectMode
         * inactive-or-failed, so systemd unloads it as it stops, failed
         * or not; there is no failed state left to reset. */
        if (stop_unit(&b, unit, "replace", err) < 0)
                return -1;
        if (slice != NULL && cgroup_path != NULL)
                stop_made_slices(&b, slice, cgroup_path);
        return 0;
}

/* A string property of the manager, copied. */
static int manager_string(struct sd_bus *b, const char *name, char **out, struct sb_error *err)
{
        _cleanup_msg_ struct dbus_message reply = { 0 };
        struct dbus_reader r;
        const char *v;

        *out = NULL;
        if (!get_property(b, SD_PATH, SD_MANAGER, name, "s", &reply, &r, err))
                return -1;
        if (!dbus_get_string(&r, &v))
                return sb_fail(err, EBADMSG, "systemd: read %s: not a string", name);
        *out = strdup(v);
        return *out ? 0 : sb_fail(err, ENOMEM, "systemd: read %s", name);
}

int systemd_probe(char **version, bool *direct, struct sb_error *err)
{
        _cleanup_sd_bus_ struct sd_bus b = { .conn = DBUS_CONN_INIT };

        *version = NULL;
        if (bus_open(&b, err) < 0)
                return -1;
        *direct = b.direct;
        if (manager_string(&b, "Version", version, err) < 0)
                return sb_error_prefix(err, "systemd: the version of the manager");
        return 0;
}

int systemd_manager_cgroup(char **cgroup, struct sb_error *err)
{
        _cleanup_sd_bus_ struct sd_bus b = { .conn = DBUS_CONN_INIT };

        *cgroup = NULL;
        if (bus_open(&b, err) < 0)
                return -1;
        if (manager_string(&b, "ControlGroup", cgroup, err) < 0)
                return sb_error_prefix(err, "systemd: the manager's cgroup");
        return 0;
}
