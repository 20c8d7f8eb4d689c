#include "runtime/cgroup/io_totals.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "oci/json_write.h"
#include "runtime/cgroup/cgroup_manager.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* io.stat: "MAJ:MIN rbytes=N wbytes=N rios=N wios=N dbytes=N dios=N" per
 * disk; every key=value pair of every line is summed by key. */
static void sum_stat(const char *text, struct cgroup_io_totals *t)
{
        const struct {
                const char *key;
                uint64_t *sum;
        } keys[] = { { "rbytes=", &t->rbytes },
                     { "wbytes=", &t->wbytes },
                     { "rios=", &t->rios },
                     { "wios=", &t->wios } };

        for (const char *p = text; *p != '\0';) {
                size_t n = strcspn(p, " \n");
                for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
                        size_t klen = strlen(keys[k].key);
                        uint64_t v;
                        if (n > klen && strncmp(p, keys[k].key, klen) == 0 &&
                            sscanf(p + klen, "%" SCNu64, &v) == 1)
                                *keys[k].sum += v;
                }
                p += n;
                p += strspn(p, " \n");
        }
}

/* io.pressure: "some avg10=0.00 avg60=0.00 avg300=0.00 total=N" and a
 * "full ..." line. */
static bool pressure_total(const char *text, const char *line, uint64_t *out)
{
        const char *p = text;
        size_t len = strlen(line);

        for (; p != NULL; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
                if (strncmp(p, line, len) != 0 || p[len] != ' ')
                        continue;
                const char *total = strstr(p, "total=");
                const char *end = strchr(p, '\n');
                return total != NULL && (end == NULL || total < end) &&
                       sscanf(total + 6, "%" SCNu64, out) == 1;
        }
        return false;
}

void cgroup_io_totals_read(struct cgroup *cg, struct cgroup_io_totals *t)
{
        _cleanup_free_ char *stat = NULL, *pressure = NULL;
        struct sb_error ignored = { 0 };

        memset(t, 0, sizeof(*t));
        if (cgroup_read(cg, "io.stat", &stat, &ignored) == 0) {
                t->stat = true;
                sum_stat(stat, t);
        }
        sb_error_clear(&ignored);
        if (cgroup_read(cg, "io.pressure", &pressure, &ignored) == 0)
                t->pressure = pressure_total(pressure, "some", &t->some_usec) &&
                              pressure_total(pressure, "full", &t->full_usec);
        sb_error_clear(&ignored);
}

void cgroup_io_totals_write(struct json_writer *w, const struct cgroup_io_totals *t)
{
        if (!t->stat && !t->pressure)
                return;
        jw_kv_object_begin(w, "io");
        if (t->stat) {
                jw_kv_uint(w, "rbytes", t->rbytes);
                jw_kv_uint(w, "wbytes", t->wbytes);
                jw_kv_uint(w, "rios", t->rios);
                jw_kv_uint(w, "wios", t->wios);
        }
        if (t->pressure) {
                jw_kv_uint(w, "pressure_some_usec", t->some_usec);
                jw_kv_uint(w, "pressure_full_usec", t->full_usec);
        }
        jw_object_end(w);
}
