#include "runtime/cgroup/systemd_scope.h"

#include "config.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/log.h"
#include "runtime/cgroup/systemd_props.h"

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

#ifdef HAVE_SYSTEMD

#include <systemd/sd-bus.h>
#include <time.h>

#define SD_DEST "org.freedesktop.systemd1"
#define SD_PATH "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"
#define SD_UNIT "org.freedesktop.systemd1.Unit"
/* systemd's own bound on a method call is 25 s; a job may queue behind
 * others (a busy manager under emulation takes seconds). */
#define JOB_TIMEOUT_US (60ULL * 1000 * 1000)

bool systemd_driver_built(void)
{
        return true;
}

int systemd_driver_require(struct sb_error *err)
{
        (void)err;
        return 0;
}

static void bus_unrefp(sd_bus **bus)
{
        if (*bus)
                sd_bus_flush_close_unref(*bus);
}
static void msg_unrefp(sd_bus_message **m)
{
        sd_bus_message_unref(*m);
}
static void slot_unrefp(sd_bus_slot **s)
{
        sd_bus_slot_unref(*s);
}
#define _cleanup_bus_ __attribute__((cleanup(bus_unrefp)))
#define _cleanup_msg_ __attribute__((cleanup(msg_unrefp)))
#define _cleanup_slot_ __attribute__((cleanup(slot_unrefp)))
#define _cleanup_bus_error_ __attribute__((cleanup(sd_bus_error_free)))

/* A D-Bus failure: systemd's own words when it gave any. */
static int bus_fail(struct sb_error *err, int r, const sd_bus_error *e, const char *what,
                    const char *unit)
{
        if (e != NULL && sd_bus_error_is_set(e))
                return sb_fail(err, 0, "systemd: %s %s: %s", what, unit,
                               e->message ? e->message : e->name);
        return sb_fail(err, r < 0 ? -r : EIO, "systemd: %s %s", what, unit);
}

/* systemd's own socket, as systemctl uses it as root: a direct connection,
 * so each call is one round trip to PID 1 instead of two through
 * dbus-daemon, with no Hello or AddMatch calls, and systemd sends its
 * signals to every direct connection unasked (no Subscribe). */
#define SD_PRIVATE_ADDRESS "unix:path=/run/systemd/private"

static int bus_open_private(sd_bus **bus)
{
        sd_bus *b = NULL;
        int r = sd_bus_new(&b);

        if (r >= 0)
                r = sd_bus_set_address(b, SD_PRIVATE_ADDRESS);
        if (r >= 0)
                r = sd_bus_start(b);
        if (r < 0) {
                sd_bus_unref(b);
                return r;
        }
        *bus = b;
        return 0;
}

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

/* *direct: the connection is systemd's private one (see above). */
static int bus_open(sd_bus **bus, bool *direct, struct sb_error *err)
{
        int r;

        /* Anyone but root, or a systemd that has no such socket, is reached
         * through the system bus. */
        *direct = initial_root() && bus_open_private(bus) == 0;
        if (*direct)
                return 0;
        r = sd_bus_open_system(bus);
        if (r < 0)
                return sb_fail(err, -r,
                               "--systemd-cgroup: cannot connect to systemd over the system bus "
                               "(is systemd PID 1 and D-Bus running? without systemd, run "
                               "without --systemd-cgroup)");
        return 0;
}

struct job_wait {
        const char *path; /* the job we wait for, once known */
        char *result;
        /* Jobs removed before the call that queued ours returned. */
        char *early[8][2];
        size_t n_early;
};

static int on_job_removed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        struct job_wait *w = userdata;
        uint32_t id;
        const char *path, *unit, *result;

        (void)ret_error;
        if (sd_bus_message_read(m, "uoss", &id, &path, &unit, &result) < 0)
                return 0;
        if (w->path != NULL) {
                if (w->result == NULL && strcmp(path, w->path) == 0)
                        w->result = strdup(result);
        } else if (w->n_early < 8) {
                w->early[w->n_early][0] = strdup(path);
                w->early[w->n_early][1] = strdup(result);
                w->n_early++;
        }
        return 0;
}

static void job_wait_release(struct job_wait *w)
{
        for (size_t i = 0; i < w->n_early; i++) {
                free(w->early[i][0]);
                free(w->early[i][1]);
        }
        free(w->result);
}

static unsigned long long now_us(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (unsigned long long)ts.tv_sec * 1000000ULL + (unsigned long long)ts.tv_nsec / 1000;
}

/* Watch for JobRemoved before the call that queues the job. On the system
 * bus systemd broadcasts a job's JobRemoved when the client that queued it
 * is still connected, and every signal while any client is subscribed; the
 * Subscribe keeps the first true for systemd versions that track no
 * requester. A direct connection's messages carry no sender: match none. */
static int watch_jobs(sd_bus *bus, bool direct, sd_bus_slot **slot, struct job_wait *w,
                      struct sb_error *err)
{
        _cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
        int r = sd_bus_match_signal(bus, slot, direct ? NULL : SD_DEST, SD_PATH, SD_MANAGER,
                                    "JobRemoved", on_job_removed, w);

        if (r < 0)
                return bus_fail(err, r, NULL, "watch the jobs for", "");
        if (direct)
                return 0;
        r = sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "Subscribe", &e, NULL, "");
        /* A second job on the same connection (the slices after the scope). */
        if (r < 0 && !sd_bus_error_has_name(&e, "org.freedesktop.systemd1.AlreadySubscribed"))
                return bus_fail(err, r, &e, "subscribe to", "the manager");
        return 0;
}

/* Wait for JobRemoved of job path, then judge its result. */
static int wait_job(sd_bus *bus, struct job_wait *w, const char *path, const char *what,
                    const char *unit, struct sb_error *err)
{
        unsigned long long deadline = now_us() + JOB_TIMEOUT_US;

        w->path = path;
        for (size_t i = 0; i < w->n_early && w->result == NULL; i++) {
                if (w->early[i][0] && strcmp(w->early[i][0], path) == 0)
                        w->result = w->early[i][1] ? strdup(w->early[i][1]) : NULL;
        }
        while (w->result == NULL) {
                int r = sd_bus_process(bus, NULL);
                if (r < 0)
                        return bus_fail(err, r, NULL, what, unit);
                if (r > 0)
                        continue;
                unsigned long long now = now_us();
                if (now >= deadline)
                        return sb_fail(err, ETIMEDOUT,
                                       "systemd: %s %s: its job did not finish within %llu s", what,
                                       unit, JOB_TIMEOUT_US / 1000000);
                r = sd_bus_wait(bus, deadline - now);
                if (r < 0 && r != -EINTR)
                        return bus_fail(err, r, NULL, what, unit);
        }
        if (strcmp(w->result, "done") != 0)
                return sb_fail(err, 0,
                               "systemd: %s %s: the job ended \"%s\" (journalctl -u %s says why)",
                               what, unit, w->result, unit);
        return 0;
}

static int append_props(sd_bus_message *m, const struct systemd_props *props)
{
        for (size_t i = 0; i < props->n; i++) {
                const struct systemd_prop *p = &props->items[i];
                int r;
                if (p->type == SYSTEMD_PROP_U64) {
                        r = sd_bus_message_append(m, "(sv)", p->name, "t", p->u64);
                } else {
                        r = sd_bus_message_open_container(m, 'r', "sv");
                        if (r >= 0)
                                r = sd_bus_message_append(m, "s", p->name);
                        if (r >= 0)
                                r = sd_bus_message_open_container(m, 'v', "ay");
                        if (r >= 0)
                                r = sd_bus_message_append_array(m, 'y', p->bits, p->n_bits);
                        if (r >= 0)
                                r = sd_bus_message_close_container(m);
                        if (r >= 0)
                                r = sd_bus_message_close_container(m);
                }
                if (r < 0)
                        return r;
        }
        return 0;
}

int systemd_scope_start(const char *unit, const char *slice, const char *description,
                        const struct systemd_props *props, pid_t pid, bool *made,
                        struct sb_error *err)
{
        _cleanup_bus_ sd_bus *bus = NULL;
        _cleanup_slot_ sd_bus_slot *slot = NULL;
        _cleanup_msg_ sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
        struct job_wait w = { 0 };
        const char *job;
        bool direct;
        int r, ret = -1;

        *made = false;
        if (bus_open(&bus, &direct, err) < 0 || watch_jobs(bus, direct, &slot, &w, err) < 0)
                goto out;
        r = sd_bus_message_new_method_call(bus, &m, SD_DEST, SD_PATH, SD_MANAGER,
                                           "StartTransientUnit");
        /* "fail": a job that conflicts with one queued (a stop of the same
         * slice) fails this create instead of cancelling the other. */
        if (r >= 0)
                r = sd_bus_message_append(m, "ss", unit, "fail");
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "(sv)");
        /* CollectMode: systemd unloads the unit when it stops, failed or
         * not, so that no failed scope stays listed after the container. */
        if (r >= 0)
                r = sd_bus_message_append(m, "(sv)(sv)(sv)(sv)(sv)", "Description", "s",
                                          description, "Slice", "s", slice, "Delegate", "b", 1,
                                          "CollectMode", "s", "inactive-or-failed", "PIDs", "au", 1,
                                          (uint32_t)pid);
        /* The controllers the limits need, in the scope and its slices. */
        if (r >= 0)
                r = sd_bus_message_append(m, "(sv)(sv)(sv)(sv)", "MemoryAccounting", "b", 1,
                                          "CPUAccounting", "b", 1, "IOAccounting", "b", 1,
                                          "TasksAccounting", "b", 1);
        if (r >= 0)
                r = append_props(m, props);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_append(m, "a(sa(sv))", 0);
        if (r < 0) {
                bus_fail(err, r, NULL, "build the start of", unit);
                goto out;
        }
        r = sd_bus_call(bus, m, JOB_TIMEOUT_US, &e, &reply);
        if (r < 0 && sd_bus_error_has_name(&e, "org.freedesktop.systemd1.UnitExists")) {
                sb_fail(err, 0,
                        "linux.cgroupsPath: systemd unit %s exists already (another "
                        "container's?): %s",
                        unit, e.message ? e.message : e.name);
                goto out;
        }
        if (r < 0) {
                bus_fail(err, r, &e, "start", unit);
                goto out;
        }
        *made = true;
        r = sd_bus_message_read(reply, "o", &job);
        if (r < 0) {
                bus_fail(err, r, NULL, "start", unit);
                goto out;
        }
        ret = wait_job(bus, &w, job, "start", unit, err);
out:
        job_wait_release(&w);
        return ret;
}

int systemd_scope_update(const char *unit, const struct systemd_props *props, struct sb_error *err)
{
        _cleanup_bus_ sd_bus *bus = NULL;
        _cleanup_msg_ sd_bus_message *m = NULL;
        _cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
        bool direct;
        int r;

        if (bus_open(&bus, &direct, err) < 0)
                return -1;
        r = sd_bus_message_new_method_call(bus, &m, SD_DEST, SD_PATH, SD_MANAGER,
                                           "SetUnitProperties");
        if (r >= 0)
                r = sd_bus_message_append(m, "sb", unit, 1);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "(sv)");
        if (r >= 0)
                r = append_props(m, props);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r < 0)
                return bus_fail(err, r, NULL, "build the update of", unit);
        r = sd_bus_call(bus, m, JOB_TIMEOUT_US, &e, NULL);
        if (r < 0)
                return bus_fail(err, r, &e, "set the properties of", unit);
        return 0;
}

static bool no_such_unit(const sd_bus_error *e)
{
        return sd_bus_error_has_name(e, "org.freedesktop.systemd1.NoSuchUnit") ||
               sd_bus_error_has_name(e, "org.freedesktop.systemd1.LoadFailed");
}

/* Stop name and wait; a unit that is not there is stopped already. */
static int stop_unit(sd_bus *bus, bool direct, const char *name, const char *mode,
                     struct sb_error *err)
{
        _cleanup_slot_ sd_bus_slot *slot = NULL;
        _cleanup_msg_ sd_bus_message *reply = NULL;
        _cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
        struct job_wait w = { 0 };
        const char *job;
        int r, ret = -1;

        if (watch_jobs(bus, direct, &slot, &w, err) < 0)
                goto out;
        r = sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "StopUnit", &e, &reply, "ss",
                               name, mode);
        if (r < 0) {
                if (no_such_unit(&e))
                        ret = 0;
                else
                        bus_fail(err, r, &e, "stop", name);
                goto out;
        }
        r = sd_bus_message_read(reply, "o", &job);
        if (r < 0) {
                bus_fail(err, r, NULL, "stop", name);
                goto out;
        }
        ret = wait_job(bus, &w, job, "stop", name, err);
out:
        job_wait_release(&w);
        return ret;
}

static void reset_failed(sd_bus *bus, const char *name)
{
        _cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;

        /* Not failed, or already unloaded (CollectMode): nothing to reset. */
        (void)sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "ResetFailedUnit", &e, NULL,
                                 "s", name);
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

/* Whether slice is one systemd made only because a unit named it (no unit
 * file, not transient): then the scope's start made it and it goes too. */
static bool implicit_slice(sd_bus *bus, const char *slice)
{
        _cleanup_msg_ sd_bus_message *reply = NULL;
        _cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *fragment = NULL;
        const char *path;
        int transient = 0;

        if (sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "GetUnit", &e, &reply, "s",
                               slice) < 0 ||
            sd_bus_message_read(reply, "o", &path) < 0)
                return false;
        if (sd_bus_get_property_string(bus, SD_DEST, path, SD_UNIT, "FragmentPath", &e, &fragment) <
                    0 ||
            *fragment != '\0')
                return false;
        return sd_bus_get_property_trivial(bus, SD_DEST, path, SD_UNIT, "Transient", &e, 'b',
                                           &transient) >= 0 &&
               !transient;
}

/* Stop each slice above the scope, innermost first, that is empty and
 * implicit. cgroup_path is the scope's directory: its parent is the
 * innermost slice's ("a.slice/a-b.slice/x.scope": a-b.slice, then a.slice),
 * and a slice's name loses its last "-part" one level up. */
static void stop_made_slices(sd_bus *bus, bool direct, const char *slice, const char *cgroup_path)
{
        _cleanup_free_ char *name = strdup(slice), *dir = strdup(cgroup_path);
        struct sb_error ignored = { 0 };
        char *cut;

        /* Never "-.slice", the root. */
        while (name != NULL && dir != NULL && strcmp(name, "-.slice") != 0) {
                if ((cut = strrchr(dir, '/')) == NULL || cut == dir)
                        return;
                *cut = '\0';
                if (!cgroup_dir_empty(dir) || !implicit_slice(bus, name))
                        return;
                if (stop_unit(bus, direct, name, "fail", &ignored) < 0) {
                        _cleanup_free_ char *text = sb_error_text(&ignored);
                        sb_warn("%s", text ? text : "systemd: stop a slice");
                        sb_error_clear(&ignored);
                        return;
                }
                reset_failed(bus, name);
                if ((cut = strrchr(name, '-')) == NULL)
                        return;
                strcpy(cut, ".slice");
        }
}

int systemd_scope_stop(const char *unit, const char *slice, const char *cgroup_path,
                       struct sb_error *err)
{
        _cleanup_bus_ sd_bus *bus = NULL;
        bool direct;

        if (bus_open(&bus, &direct, err) < 0)
                return -1;
        /* No ResetFailedUnit: the scope was started with CollectMode
         * inactive-or-failed, so systemd unloads it as it stops, failed
         * or not; there is no failed state left to reset. */
        if (stop_unit(bus, direct, unit, "replace", err) < 0)
                return -1;
        if (slice != NULL && cgroup_path != NULL)
                stop_made_slices(bus, direct, slice, cgroup_path);
        return 0;
}

int systemd_probe(char **version, bool *direct, struct sb_error *err)
{
        _cleanup_bus_ sd_bus *bus = NULL;
        _cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
        int r;

        if (bus_open(&bus, direct, err) < 0)
                return -1;
        r = sd_bus_get_property_string(bus, SD_DEST, SD_PATH, SD_MANAGER, "Version", &e, version);
        if (r < 0)
                return bus_fail(err, r, &e, "read the version of", "the manager");
        return 0;
}

#else /* !HAVE_SYSTEMD */

#define NOT_BUILT                                                                          \
        "--systemd-cgroup: this sbrun was built without the systemd cgroup driver "        \
        "(configure found no libsystemd: install libsystemd-dev and build again), or run " \
        "without --systemd-cgroup"

bool systemd_driver_built(void)
{
        return false;
}

int systemd_driver_require(struct sb_error *err)
{
        return sb_fail(err, 0, NOT_BUILT);
}

int systemd_scope_start(const char *unit, const char *slice, const char *description,
                        const struct systemd_props *props, pid_t pid, bool *made,
                        struct sb_error *err)
{
        (void)unit, (void)slice, (void)description, (void)props, (void)pid;
        *made = false;
        return sb_fail(err, 0, NOT_BUILT);
}

int systemd_scope_update(const char *unit, const struct systemd_props *props, struct sb_error *err)
{
        (void)unit, (void)props;
        return sb_fail(err, 0, NOT_BUILT);
}

int systemd_scope_stop(const char *unit, const char *slice, const char *cgroup_path,
                       struct sb_error *err)
{
        (void)unit, (void)slice, (void)cgroup_path;
        return sb_fail(err, 0, NOT_BUILT);
}

int systemd_probe(char **version, bool *direct, struct sb_error *err)
{
        *version = NULL;
        *direct = false;
        return sb_fail(err, 0, NOT_BUILT);
}

#endif
