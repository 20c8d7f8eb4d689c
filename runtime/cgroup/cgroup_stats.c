#include "runtime/cgroup/cgroup_stats.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "oci/json_write.h"
#include "runtime/cgroup/cgroup_manager.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct kv {
        char *key;
        uint64_t value;
};

struct kv_list {
        struct kv *items;
        size_t n;
};

struct memory_entry {
        uint64_t limit, usage, max;
};

struct io_entry {
        uint64_t major, minor, value;
        const char *op; /* "Read" or "Write" */
};

struct io_list {
        struct io_entry *items;
        size_t n;
};

struct stats {
        uint64_t cpu_total, cpu_user, cpu_kernel;
        uint64_t periods, throttled_periods, throttled_time;
        struct memory_entry usage, swap;
        uint64_t cache;
        struct kv_list raw;
        uint64_t pids_current, pids_limit;
        struct io_list io_bytes, io_serviced;
        struct kv_list hugetlb_usage, hugetlb_failcnt; /* same keys, same order */
};

static void kv_list_release(struct kv_list *l)
{
        for (size_t i = 0; i < l->n; i++)
                free(l->items[i].key);
        free(l->items);
        l->items = NULL;
        l->n = 0;
}

static void stats_release(struct stats *s)
{
        kv_list_release(&s->raw);
        kv_list_release(&s->hugetlb_usage);
        kv_list_release(&s->hugetlb_failcnt);
        free(s->io_bytes.items);
        free(s->io_serviced.items);
}

static int kv_add(struct kv_list *l, const char *key, size_t key_len, uint64_t value,
                  struct sb_error *err)
{
        struct kv *items = realloc(l->items, (l->n + 1) * sizeof(*items));

        if (items == NULL)
                return sb_fail(err, ENOMEM, "cgroup stats");
        l->items = items;
        items[l->n].key = strndup(key, key_len);
        if (items[l->n].key == NULL)
                return sb_fail(err, ENOMEM, "cgroup stats");
        items[l->n++].value = value;
        return 0;
}

static int io_add(struct io_list *l, uint64_t major, uint64_t minor, const char *op, uint64_t value,
                  struct sb_error *err)
{
        struct io_entry *items = realloc(l->items, (l->n + 1) * sizeof(*items));

        if (items == NULL)
                return sb_fail(err, ENOMEM, "cgroup stats");
        l->items = items;
        items[l->n++] = (struct io_entry){ major, minor, value, op };
        return 0;
}

/* 1 with *out set, 0 when the file does not exist (its controller or
 * feature is off), -1 on any other failure. */
static int read_optional(struct cgroup *cg, const char *file, char **out, struct sb_error *err)
{
        if (cgroup_read(cg, file, out, err) == 0)
                return 1;
        if (err->errnum != ENOENT)
                return -1;
        sb_error_clear(err);
        return 0;
}

/* A value as runc's GetCgroupParamUint reads it: "max" is 2^64-1. */
static bool parse_u64(const char *s, uint64_t *out)
{
        char *end = NULL;

        if (strncmp(s, "max", 3) == 0 && (s[3] == '\0' || s[3] == '\n' || s[3] == ' ')) {
                *out = UINT64_MAX;
                return true;
        }
        errno = 0;
        *out = strtoull(s, &end, 10);
        return errno == 0 && end != s;
}

/* required: the file of a controller sbrun always enables (cpu, memory,
 * pids), so its absence is an error like any other. */
static int read_text(struct cgroup *cg, const char *file, bool required, char **text,
                     struct sb_error *err)
{
        if (!required)
                return read_optional(cg, file, text, err);
        return cgroup_read(cg, file, text, err) == 0 ? 1 : -1;
}

static int read_u64(struct cgroup *cg, const char *file, uint64_t *out, bool required,
                    struct sb_error *err)
{
        _cleanup_free_ char *text = NULL;
        int r = read_text(cg, file, required, &text, err);

        *out = 0;
        if (r <= 0)
                return r;
        if (!parse_u64(text, out))
                return sb_fail(err, 0, "cgroup %s: %s: \"%s\" is not a number", cg->path, file,
                               text);
        return 0;
}

/* Each "key value" line of a flat-keyed file, in file order. */
static int read_flat(struct cgroup *cg, const char *file, bool required, struct kv_list *out,
                     struct sb_error *err)
{
        _cleanup_free_ char *text = NULL;
        int r = read_text(cg, file, required, &text, err);

        if (r <= 0)
                return r;
        for (char *line = text; *line;) {
                size_t len = strcspn(line, "\n");
                size_t key_len = strcspn(line, " ");
                uint64_t v;
                if (key_len < len && parse_u64(line + key_len + 1, &v) &&
                    kv_add(out, line, key_len, v, err) < 0)
                        return -1;
                line += len;
                if (*line == '\n')
                        line++;
        }
        return 0;
}

static uint64_t kv_get(const struct kv_list *l, const char *key)
{
        for (size_t i = 0; i < l->n; i++)
                if (strcmp(l->items[i].key, key) == 0)
                        return l->items[i].value;
        return 0;
}

static int read_cpu(struct cgroup *cg, struct stats *s, struct sb_error *err)
{
        struct kv_list cpu = { 0 };

        if (read_flat(cg, "cpu.stat", true, &cpu, err) < 0) {
                kv_list_release(&cpu);
                return -1;
        }
        s->cpu_total = kv_get(&cpu, "usage_usec") * 1000;
        s->cpu_user = kv_get(&cpu, "user_usec") * 1000;
        s->cpu_kernel = kv_get(&cpu, "system_usec") * 1000;
        s->periods = kv_get(&cpu, "nr_periods");
        s->throttled_periods = kv_get(&cpu, "nr_throttled");
        s->throttled_time = kv_get(&cpu, "throttled_usec") * 1000;
        kv_list_release(&cpu);
        return 0;
}

/* memory.{current,max,peak} or memory.swap.{…}; absent swap files read 0. */
static int read_memory_entry(struct cgroup *cg, const char *prefix, struct memory_entry *e,
                             struct sb_error *err)
{
        char file[64];

        bool required = strcmp(prefix, "memory") == 0; /* swap accounting may be off */

        snprintf(file, sizeof(file), "%s.current", prefix);
        if (read_u64(cg, file, &e->usage, required, err) < 0)
                return -1;
        snprintf(file, sizeof(file), "%s.max", prefix);
        if (read_u64(cg, file, &e->limit, required, err) < 0)
                return -1;
        /* memory.peak since Linux 5.19, memory.swap.peak since 6.5. */
        snprintf(file, sizeof(file), "%s.peak", prefix);
        return read_u64(cg, file, &e->max, false, err);
}

static int compare_kv(const void *a, const void *b)
{
        return strcmp(((const struct kv *)a)->key, ((const struct kv *)b)->key);
}

static int read_memory(struct cgroup *cg, struct stats *s, struct sb_error *err)
{
        if (read_flat(cg, "memory.stat", true, &s->raw, err) < 0 ||
            read_memory_entry(cg, "memory", &s->usage, err) < 0 ||
            read_memory_entry(cg, "memory.swap", &s->swap, err) < 0)
                return -1;
        /* Go prints a map sorted by key. */
        if (s->raw.n > 0)
                qsort(s->raw.items, s->raw.n, sizeof(*s->raw.items), compare_kv);
        s->cache = kv_get(&s->raw, "file");
        /* As cgroup v1 did (and runc reports): swap is memory+swap. The sums
         * wrap like Go's uint64, so that runc's numbers come out. */
        s->swap.usage += s->usage.usage;
        if (s->swap.limit != UINT64_MAX)
                s->swap.limit += s->usage.limit;
        s->swap.max = 0;
        return 0;
}

static int read_pids(struct cgroup *cg, struct stats *s, struct sb_error *err)
{
        if (read_u64(cg, "pids.current", &s->pids_current, true, err) < 0 ||
            read_u64(cg, "pids.max", &s->pids_limit, true, err) < 0)
                return -1;
        if (s->pids_limit == UINT64_MAX) /* runc's "no limit" is 0 */
                s->pids_limit = 0;
        return 0;
}

/* io.stat: "MAJ:MIN rbytes=N wbytes=N rios=N wios=N dbytes=N dios=N". */
static int read_io(struct cgroup *cg, struct stats *s, struct sb_error *err)
{
        _cleanup_free_ char *text = NULL;
        int r = read_optional(cg, "io.stat", &text, err);

        if (r <= 0)
                return r;
        for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
                unsigned long long major, minor;
                int used = 0;
                if (sscanf(line, "%llu:%llu%n", &major, &minor, &used) != 2)
                        continue;
                for (char *p = line + used; *p;) {
                        p += strspn(p, " ");
                        size_t len = strcspn(p, " ");
                        char *eq = memchr(p, '=', len);
                        uint64_t v;
                        if (eq != NULL && parse_u64(eq + 1, &v)) {
                                size_t klen = (size_t)(eq - p);
                                struct io_list *l = NULL;
                                const char *op = NULL;
                                if (klen == 6 && strncmp(p, "rbytes", 6) == 0)
                                        l = &s->io_bytes, op = "Read";
                                else if (klen == 6 && strncmp(p, "wbytes", 6) == 0)
                                        l = &s->io_bytes, op = "Write";
                                else if (klen == 4 && strncmp(p, "rios", 4) == 0)
                                        l = &s->io_serviced, op = "Read";
                                else if (klen == 4 && strncmp(p, "wios", 4) == 0)
                                        l = &s->io_serviced, op = "Write";
                                if (l != NULL && io_add(l, major, minor, op, v, err) < 0)
                                        return -1;
                        }
                        p += len;
                }
        }
        return 0;
}

/* Every page size with a hugetlb.<size>.current file. */
static int read_hugetlb(struct cgroup *cg, struct stats *s, struct sb_error *err)
{
        int fd = openat(cg->dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR *dir = fd < 0 ? NULL : fdopendir(fd);
        struct dirent *de;
        int ret = 0;

        if (dir == NULL) {
                if (fd >= 0)
                        close(fd);
                return sb_fail(err, errno, "cgroup %s: list", cg->path);
        }
        while (ret == 0 && (de = readdir(dir)) != NULL) {
                const char *name = de->d_name, *size = name + 8;
                size_t size_len = strcspn(size, ".");
                if (strncmp(name, "hugetlb.", 8) != 0 || strcmp(size + size_len, ".current") != 0)
                        continue;
                if (kv_add(&s->hugetlb_usage, size, size_len, 0, err) < 0)
                        ret = -1;
        }
        closedir(dir);
        if (ret < 0)
                return -1;
        if (s->hugetlb_usage.n > 0)
                qsort(s->hugetlb_usage.items, s->hugetlb_usage.n, sizeof(struct kv), compare_kv);
        for (size_t i = 0; i < s->hugetlb_usage.n; i++) {
                struct kv *k = &s->hugetlb_usage.items[i];
                struct kv_list events = { 0 };
                char file[300];
                snprintf(file, sizeof(file), "hugetlb.%s.current", k->key);
                if (read_u64(cg, file, &k->value, true, err) < 0)
                        return -1;
                snprintf(file, sizeof(file), "hugetlb.%s.events", k->key);
                int r = read_flat(cg, file, false, &events, err);
                uint64_t failcnt = kv_get(&events, "max");
                kv_list_release(&events);
                if (r < 0 || kv_add(&s->hugetlb_failcnt, k->key, strlen(k->key), failcnt, err) < 0)
                        return -1;
        }
        return 0;
}

static void write_nonzero(struct json_writer *w, const char *key, uint64_t v)
{
        if (v != 0)
                jw_kv_uint(w, key, v);
}

/* types.MemoryEntry, omitted (omitzero) when all zero. */
static void write_memory_entry(struct json_writer *w, const char *key, const struct memory_entry *e)
{
        if (e->limit == 0 && e->usage == 0 && e->max == 0)
                return;
        jw_kv_object_begin(w, key);
        jw_kv_uint(w, "limit", e->limit);
        write_nonzero(w, "usage", e->usage);
        write_nonzero(w, "max", e->max);
        jw_kv_uint(w, "failcnt", 0);
        jw_object_end(w);
}

static void write_io(struct json_writer *w, const char *key, const struct io_list *l)
{
        if (l->n == 0)
                return;
        jw_kv_array_begin(w, key);
        for (size_t i = 0; i < l->n; i++) {
                jw_object_begin(w);
                write_nonzero(w, "major", l->items[i].major);
                write_nonzero(w, "minor", l->items[i].minor);
                jw_kv_string(w, "op", l->items[i].op);
                write_nonzero(w, "value", l->items[i].value);
                jw_object_end(w);
        }
        jw_array_end(w);
}

static void write_cpu(struct json_writer *w, const struct stats *s)
{
        jw_kv_object_begin(w, "cpu");
        if (s->cpu_total || s->cpu_user || s->cpu_kernel) {
                jw_kv_object_begin(w, "usage");
                write_nonzero(w, "total", s->cpu_total);
                jw_kv_uint(w, "kernel", s->cpu_kernel);
                jw_kv_uint(w, "user", s->cpu_user);
                jw_object_end(w);
        }
        if (s->periods || s->throttled_periods || s->throttled_time) {
                jw_kv_object_begin(w, "throttling");
                write_nonzero(w, "periods", s->periods);
                write_nonzero(w, "throttledPeriods", s->throttled_periods);
                write_nonzero(w, "throttledTime", s->throttled_time);
                jw_object_end(w);
        }
        jw_object_end(w);
}

/* cgroup v2 has no v1 cpuset flags: runc prints them as zero. */
static void write_cpuset(struct json_writer *w)
{
        static const char *const keys[] = {
                "cpu_exclusive",   "mem_hardwall",       "mem_exclusive",
                "memory_migrate",  "memory_spread_page", "memory_spread_slab",
                "memory_pressure", "sched_load_balance", "sched_relax_domain_level",
        };
        jw_kv_object_begin(w, "cpuset");
        for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
                jw_kv_uint(w, keys[i], 0);
        jw_object_end(w);
}

static void write_stats(struct json_writer *w, const struct stats *s)
{
        jw_object_begin(w);
        write_cpu(w, s);
        write_cpuset(w);
        jw_kv_object_begin(w, "memory");
        write_nonzero(w, "cache", s->cache);
        write_memory_entry(w, "usage", &s->usage);
        write_memory_entry(w, "swap", &s->swap);
        if (s->raw.n > 0) {
                jw_kv_object_begin(w, "raw");
                for (size_t i = 0; i < s->raw.n; i++)
                        jw_kv_uint(w, s->raw.items[i].key, s->raw.items[i].value);
                jw_object_end(w);
        }
        jw_object_end(w);
        jw_kv_object_begin(w, "pids");
        write_nonzero(w, "current", s->pids_current);
        write_nonzero(w, "limit", s->pids_limit);
        jw_object_end(w);
        jw_kv_object_begin(w, "blkio");
        write_io(w, "ioServiceBytesRecursive", &s->io_bytes);
        write_io(w, "ioServicedRecursive", &s->io_serviced);
        jw_object_end(w);
        jw_kv_object_begin(w, "hugetlb");
        for (size_t i = 0; i < s->hugetlb_usage.n; i++) {
                jw_kv_object_begin(w, s->hugetlb_usage.items[i].key);
                write_nonzero(w, "usage", s->hugetlb_usage.items[i].value);
                jw_kv_uint(w, "failcnt", s->hugetlb_failcnt.items[i].value);
                jw_object_end(w);
        }
        jw_object_end(w);
        jw_kv_object_begin(w, "intel_rdt");
        jw_object_end(w);
        jw_kv_null(w, "network_interfaces");
        jw_object_end(w);
}

int cgroup_stats_write(struct cgroup *cg, struct json_writer *w, struct sb_error *err)
{
        struct stats s = { 0 };
        int r = 0;

        if (read_cpu(cg, &s, err) < 0 || read_memory(cg, &s, err) < 0 ||
            read_pids(cg, &s, err) < 0 || read_io(cg, &s, err) < 0 || read_hugetlb(cg, &s, err) < 0)
                r = -1;
        else
                write_stats(w, &s);
        stats_release(&s);
        return r;
}
