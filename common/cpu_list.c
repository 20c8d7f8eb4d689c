#include "common/cpu_list.h"

#include <string.h>

/* A decimal number below CPU_LIST_MAX at *p; advances *p. */
static int cpu_number(const char **p, unsigned long *out)
{
        unsigned long v = 0;
        const char *s = *p;

        if (*s < '0' || *s > '9')
                return -1;
        while (*s >= '0' && *s <= '9') {
                v = v * 10 + (unsigned long)(*s - '0');
                if (v >= CPU_LIST_MAX)
                        return -1;
                s++;
        }
        *p = s;
        *out = v;
        return 0;
}

int cpu_list_parse(const char *text, unsigned long mask[CPU_LIST_WORDS])
{
        const size_t bits = 8 * sizeof(unsigned long);
        const char *p = text;

        memset(mask, 0, CPU_LIST_WORDS * sizeof(unsigned long));
        if (p == NULL)
                return -1;
        for (;;) {
                unsigned long first, last;
                if (cpu_number(&p, &first) < 0)
                        return -1;
                last = first;
                if (*p == '-') {
                        p++;
                        if (cpu_number(&p, &last) < 0 || last < first)
                                return -1;
                }
                for (unsigned long cpu = first; cpu <= last; cpu++)
                        mask[cpu / bits] |= 1UL << (cpu % bits);
                if (*p == '\0')
                        return 0;
                if (*p++ != ',')
                        return -1;
        }
}
