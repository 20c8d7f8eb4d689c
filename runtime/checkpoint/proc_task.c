#include "runtime/checkpoint/proc_task.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "runtime/host/path_identity.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/filter.h>
#include <linux/mount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PTRACE_SECCOMP_GET_FILTER
#define PTRACE_SECCOMP_GET_FILTER 0x420c
#endif

int task_confinement_read(pid_t tid, struct task_confinement *c, struct sb_error *err)
{
        static const char *const caps[5] = { "CapInh:", "CapPrm:", "CapEff:", "CapBnd:",
                                             "CapAmb:" };
        char path[64];
        _cleanup_free_ char *line = NULL;
        size_t cap = 0;
        int seen = 0;

        snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (f == NULL)
                return sb_fail(err, errno, "task %d", (int)tid);
        *c = (struct task_confinement){ .no_new_privs = -1,
                                        .seccomp_mode = -1,
                                        .seccomp_filters = -1 };
        while (getline(&line, &cap, f) > 0) {
                for (int i = 0; i < 5; i++)
                        if (strncmp(line, caps[i], 7) == 0 &&
                            sscanf(line + 7, "%" SCNx64, &c->cap[i]) == 1)
                                seen |= 1 << i;
                if (strncmp(line, "NoNewPrivs:", 11) == 0)
                        c->no_new_privs = atoi(line + 11);
                else if (strncmp(line, "Seccomp:", 8) == 0)
                        c->seccomp_mode = atoi(line + 8);
                else if (strncmp(line, "Seccomp_filters:", 16) == 0)
                        c->seccomp_filters = atoi(line + 16);
        }
        if (seen != 0x1f || c->no_new_privs < 0 || c->seccomp_mode < 0)
                return sb_fail(err, 0, "task %d: %s lacks the capability or seccomp lines",
                               (int)tid, path);
        return 0;
}

void task_filters_release(struct task_filters *f)
{
        for (size_t i = 0; i < f->n; i++)
                free(f->bpf[i]);
        free(f->bpf);
        free(f->size);
        *f = (struct task_filters){ 0 };
}

static int read_filters(pid_t tid, struct task_filters *f, struct sb_error *err)
{
        /* PTRACE_SECCOMP_GET_FILTER counts from the newest filter. */
        for (unsigned long i = 0;; i++) {
                long len = ptrace(PTRACE_SECCOMP_GET_FILTER, tid, (void *)i, NULL);
                if (len < 0 && errno == ENOENT)
                        break;
                if (len <= 0)
                        return sb_fail(err, errno, "task %d: read seccomp filter %lu", (int)tid, i);
                size_t bytes = (size_t)len * sizeof(struct sock_filter);
                void *buf = malloc(bytes);
                void **bpf = realloc(f->bpf, (f->n + 1) * sizeof(*bpf));
                size_t *size = bpf ? realloc(f->size, (f->n + 1) * sizeof(*size)) : NULL;
                if (bpf != NULL)
                        f->bpf = bpf;
                if (size != NULL)
                        f->size = size;
                if (buf == NULL || bpf == NULL || size == NULL) {
                        free(buf);
                        return sb_fail(err, ENOMEM, "task %d: seccomp filters", (int)tid);
                }
                if (ptrace(PTRACE_SECCOMP_GET_FILTER, tid, (void *)i, buf) != len) {
                        free(buf);
                        return sb_fail(err, errno, "task %d: read seccomp filter %lu", (int)tid, i);
                }
                f->bpf[f->n] = buf;
                f->size[f->n] = bytes;
                f->n++;
        }
        /* Oldest first, the order they were loaded in. */
        for (size_t a = 0, b = f->n ? f->n - 1 : 0; a < b; a++, b--) {
                void *t = f->bpf[a];
                size_t s = f->size[a];
                f->bpf[a] = f->bpf[b];
                f->size[a] = f->size[b];
                f->bpf[b] = t;
                f->size[b] = s;
        }
        return 0;
}

int task_filters_read(pid_t tid, struct task_filters *f, struct sb_error *err)
{
        int status, ret;

        *f = (struct task_filters){ 0 };
        if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) < 0)
                return sb_fail(err, errno, "task %d: ptrace", (int)tid);
        if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0) {
                ret = sb_fail(err, errno, "task %d: ptrace interrupt", (int)tid);
                goto out;
        }
        /* A frozen task never stops for ptrace: give up after 5 s. */
        for (int i = 0;; i++) {
                pid_t w = waitpid(tid, &status, __WALL | WNOHANG);
                if (w == tid)
                        break;
                if (w < 0 && errno != EINTR) {
                        ret = sb_fail(err, errno, "task %d: wait for its stop", (int)tid);
                        goto out;
                }
                if (i == 500) {
                        ret = sb_fail(err, ETIMEDOUT,
                                      "task %d: it does not stop for ptrace "
                                      "(frozen?)",
                                      (int)tid);
                        goto out;
                }
                usleep(10000);
        }
        ret = read_filters(tid, f, err);
out:
        ptrace(PTRACE_DETACH, tid, NULL, NULL);
        if (ret < 0)
                task_filters_release(f);
        return ret;
}

static const struct {
        const char *word;
        unsigned flag;
} mount_words[] = {
        { "ro", MOUNT_ATTR_RDONLY },
        { "nosuid", MOUNT_ATTR_NOSUID },
        { "nodev", MOUNT_ATTR_NODEV },
        { "noexec", MOUNT_ATTR_NOEXEC },
};

unsigned mount_flags_parse(const char *text)
{
        unsigned flags = 0;
        size_t len;

        for (const char *p = text; *p != '\0'; p += len + (p[len] == ',')) {
                len = strcspn(p, ",");
                for (size_t i = 0; i < sizeof(mount_words) / sizeof(mount_words[0]); i++)
                        if (strlen(mount_words[i].word) == len &&
                            strncmp(p, mount_words[i].word, len) == 0)
                                flags |= mount_words[i].flag;
                if (p[len] == '\0')
                        break;
        }
        return flags;
}

const char *mount_flags_text(unsigned flags)
{
        static char buf[64];

        buf[0] = '\0';
        for (size_t i = 0; i < sizeof(mount_words) / sizeof(mount_words[0]); i++)
                if (flags & mount_words[i].flag) {
                        if (buf[0] != '\0')
                                strcat(buf, ",");
                        strcat(buf, mount_words[i].word);
                }
        return buf[0] ? buf : "rw";
}

void task_mounts_release(struct task_mounts *t)
{
        for (size_t i = 0; i < t->n; i++) {
                free(t->m[i].root);
                free(t->m[i].point);
                free(t->m[i].fstype);
        }
        free(t->m);
        *t = (struct task_mounts){ 0 };
}

/* id parent major:minor root point options [optional...] - fstype source super */
static int parse_line(char *line, struct task_mount *m)
{
        char *field[6], *save = NULL, *sep;
        int n = 0;

        for (char *tok = strtok_r(line, " \n", &save); tok != NULL;
             tok = strtok_r(NULL, " \n", &save)) {
                field[n++] = tok;
                if (n == 6)
                        break;
        }
        if (n < 6)
                return -1;
        sep = strstr(save ? save : "", "- ");
        if (sep == NULL)
                return -1;
        char *fstype = strtok_r(sep + 2, " \n", &save);
        if (fstype == NULL || sscanf(field[2], "%u:%u", &m->major, &m->minor) != 2)
                return -1;
        m->id = atoi(field[0]);
        m->parent = atoi(field[1]);
        path_identity_unescape(field[3]);
        path_identity_unescape(field[4]);
        m->root = strdup(field[3]);
        m->point = strdup(field[4]);
        m->fstype = strdup(fstype);
        m->flags = mount_flags_parse(field[5]);
        return m->root && m->point && m->fstype ? 0 : -1;
}

int task_mounts_read(pid_t pid, struct task_mounts *out, struct sb_error *err)
{
        char path[64];
        _cleanup_free_ char *line = NULL;
        size_t cap = 0;

        *out = (struct task_mounts){ 0 };
        snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)pid);
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (f == NULL)
                return sb_fail(err, errno, "%s", path);
        while (getline(&line, &cap, f) > 0) {
                struct task_mount *m = realloc(out->m, (out->n + 1) * sizeof(*m));
                if (m == NULL)
                        goto nomem;
                out->m = m;
                out->m[out->n] = (struct task_mount){ 0 };
                if (parse_line(line, &out->m[out->n]) < 0) {
                        struct task_mount *bad = &out->m[out->n];
                        free(bad->root);
                        free(bad->point);
                        free(bad->fstype);
                        task_mounts_release(out);
                        return sb_fail(err, 0, "%s: a line that is no mount", path);
                }
                out->n++;
        }
        return 0;
nomem:
        task_mounts_release(out);
        return sb_fail(err, ENOMEM, "%s", path);
}

const struct task_mount *task_mounts_top(const struct task_mounts *t, const char *point)
{
        const struct task_mount *top = NULL;

        /* Mounted over another at the same place, a mount's parent is the
         * one it covers: the top is the one no other there has as parent. */
        for (size_t i = 0; i < t->n; i++) {
                if (strcmp(t->m[i].point, point) != 0)
                        continue;
                bool covered = false;
                for (size_t j = 0; j < t->n && !covered; j++)
                        covered = t->m[j].parent == t->m[i].id && strcmp(t->m[j].point, point) == 0;
                if (!covered)
                        top = &t->m[i];
        }
        return top;
}

int cgroup_threads_read(const char *cgroup_path, pid_t **tids, size_t *n, struct sb_error *err)
{
        char path[4096];
        _cleanup_free_ char *line = NULL;
        size_t cap = 0;

        *tids = NULL;
        *n = 0;
        snprintf(path, sizeof(path), "%s/cgroup.threads", cgroup_path);
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (f == NULL)
                return sb_fail(err, errno, "%s", path);
        while (getline(&line, &cap, f) > 0) {
                pid_t *t = realloc(*tids, (*n + 1) * sizeof(**tids));
                if (t == NULL) {
                        free(*tids);
                        *tids = NULL;
                        return sb_fail(err, ENOMEM, "%s", path);
                }
                *tids = t;
                (*tids)[(*n)++] = (pid_t)atoi(line);
        }
        return 0;
}
