#include "runtime/cgroup/systemd_props.h"

#include "common/error.h"
#include "runtime/cgroup/cgroup_resources.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* cgroup v2 file → property, for the files that hold one number (or
 * "max"). cpu.max and cpuset.* have their own parsers below. */
static const struct {
        const char *file;
        const char *property;
} number_props[] = {
        { "memory.max", "MemoryMax" },          { "memory.high", "MemoryHigh" },
        { "memory.low", "MemoryLow" },          { "memory.min", "MemoryMin" },
        { "memory.swap.max", "MemorySwapMax" }, { "pids.max", "TasksMax" },
        { "cpu.weight", "CPUWeight" },
};

static int parse_number(const char *text, const struct cgroup_setting *s, uint64_t *out,
                        struct sb_error *err)
{
        char *end = NULL;

        if (strncmp(text, "max", 3) == 0 && (text[3] == '\0' || text[3] == ' ')) {
                *out = UINT64_MAX;
                return 0;
        }
        errno = 0;
        unsigned long long v = strtoull(text, &end, 10);
        if (errno != 0 || end == text || (*end != '\0' && *end != ' ') || text[0] == '-')
                return sb_fail(err, 0, "%s: \"%s\" for %s is not a number systemd can take",
                               s->field, text, s->file);
        *out = v;
        return 0;
}

static struct systemd_prop *add(struct systemd_props *p, const char *name, struct sb_error *err)
{
        /* A property given twice (a unified key after the field that made
         * the same file): the last one wins, as the later file write does. */
        for (size_t i = 0; i < p->n; i++) {
                if (strcmp(p->items[i].name, name) == 0) {
                        free(p->items[i].bits);
                        p->items[i] = (struct systemd_prop){ .name = name };
                        return &p->items[i];
                }
        }
        struct systemd_prop *grown = realloc(p->items, (p->n + 1) * sizeof(*grown));
        if (grown == NULL) {
                sb_fail(err, ENOMEM, "systemd unit properties");
                return NULL;
        }
        p->items = grown;
        p->items[p->n] = (struct systemd_prop){ .name = name };
        return &p->items[p->n++];
}

static int add_u64(struct systemd_props *p, const char *name, uint64_t v, struct sb_error *err)
{
        struct systemd_prop *prop = add(p, name, err);

        if (prop == NULL)
                return -1;
        prop->type = SYSTEMD_PROP_U64;
        prop->u64 = v;
        return 0;
}

/* cpu.max "QUOTA PERIOD" (or "max PERIOD", or "QUOTA"): systemd keeps the
 * quota per second of time and the period, and writes QUOTA*PERIOD/1s. */
static int add_cpu_max(struct systemd_props *p, const struct cgroup_setting *s,
                       struct sb_error *err)
{
        uint64_t quota, period = 100000;
        const char *space = strchr(s->value, ' ');

        if (parse_number(s->value, s, &quota, err) < 0)
                return -1;
        if (space != NULL && parse_number(space + 1, s, &period, err) < 0)
                return -1;
        if (period == 0 || period == UINT64_MAX)
                return sb_fail(err, 0, "%s: period \"%s\" of %s", s->field, s->value, s->file);
        if (add_u64(p, "CPUQuotaPeriodUSec", period, err) < 0)
                return -1;
        if (quota == UINT64_MAX)
                return add_u64(p, "CPUQuotaPerSecUSec", UINT64_MAX, err);
        if (quota > UINT64_MAX / 1000000)
                return sb_fail(err, 0, "%s: quota \"%s\" of %s is too large", s->field, s->value,
                               s->file);
        return add_u64(p, "CPUQuotaPerSecUSec", quota * 1000000 / period, err);
}

/* cpuset's list syntax, "0-3,8" → a bit mask, as AllowedCPUs= takes it. */
static int add_cpuset(struct systemd_props *p, const char *name, const struct cgroup_setting *s,
                      struct sb_error *err)
{
        uint8_t *bits = NULL;
        size_t n = 0;
        const char *at = s->value;

        while (*at != '\0' && *at != '\n') {
                char *end = NULL;
                unsigned long lo = strtoul(at, &end, 10), hi;
                if (end == at)
                        goto bad;
                hi = lo;
                if (*end == '-') {
                        at = end + 1;
                        hi = strtoul(at, &end, 10);
                        if (end == at || hi < lo)
                                goto bad;
                }
                /* The kernel's limit on CPUs is far below this. */
                if (hi >= 65536)
                        goto bad;
                if (hi / 8 + 1 > n) {
                        uint8_t *grown = realloc(bits, hi / 8 + 1);
                        if (grown == NULL) {
                                free(bits);
                                return sb_fail(err, ENOMEM, "%s", s->field);
                        }
                        memset(grown + n, 0, hi / 8 + 1 - n);
                        bits = grown;
                        n = hi / 8 + 1;
                }
                for (unsigned long i = lo; i <= hi; i++)
                        bits[i / 8] |= (uint8_t)(1u << (i % 8));
                at = end;
                if (*at == ',')
                        at++;
                else if (*at != '\0' && *at != '\n')
                        goto bad;
        }
        struct systemd_prop *prop = add(p, name, err);
        if (prop == NULL) {
                free(bits);
                return -1;
        }
        prop->type = SYSTEMD_PROP_BITS;
        prop->bits = bits;
        prop->n_bits = n;
        return 0;
bad:
        free(bits);
        return sb_fail(err, 0, "%s: \"%s\" for %s is not a CPU or node list", s->field, s->value,
                       s->file);
}

static int add_one(struct systemd_props *p, const struct cgroup_setting *s, struct sb_error *err)
{
        uint64_t v;

        for (size_t i = 0; i < sizeof(number_props) / sizeof(number_props[0]); i++) {
                if (strcmp(s->file, number_props[i].file) != 0)
                        continue;
                if (parse_number(s->value, s, &v, err) < 0)
                        return -1;
                return add_u64(p, number_props[i].property, v, err);
        }
        if (strcmp(s->file, "cpu.max") == 0)
                return add_cpu_max(p, s, err);
        if (strcmp(s->file, "cpuset.cpus") == 0)
                return add_cpuset(p, "AllowedCPUs", s, err);
        if (strcmp(s->file, "cpuset.mems") == 0)
                return add_cpuset(p, "AllowedMemoryNodes", s, err);
        /* io.weight "default N" is the device-less weight; per-device
         * weights (MAJ:MIN N) systemd takes by path only: sbrun's file. */
        if (strcmp(s->file, "io.weight") == 0 && strncmp(s->value, "default ", 8) == 0) {
                if (parse_number(s->value + 8, s, &v, err) < 0)
                        return -1;
                return add_u64(p, "IOWeight", v, err);
        }
        return 0;
}

int systemd_props_from_settings(const struct cgroup_settings *settings, bool at_start,
                                struct systemd_props *out, struct sb_error *err)
{
        *out = (struct systemd_props){ 0 };
        if (at_start && add_u64(out, "TasksMax", UINT64_MAX, err) < 0)
                goto fail;
        for (size_t i = 0; settings && i < settings->n; i++) {
                if (add_one(out, &settings->items[i], err) < 0)
                        goto fail;
        }
        return 0;
fail:
        systemd_props_release(out);
        return -1;
}

void systemd_props_release(struct systemd_props *props)
{
        for (size_t i = 0; i < props->n; i++)
                free(props->items[i].bits);
        free(props->items);
        props->items = NULL;
        props->n = 0;
}
