#include "common/size_parse.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

static int unit_shift(char c, unsigned int flags)
{
        switch (c) {
        case 'k':
        case 'K':
                return 10;
        case 'm':
        case 'M':
                return 20;
        case 'g':
        case 'G':
                return 30;
        case 't':
        case 'T':
                return flags & SIZE_TERA ? 40 : 0;
        default:
                return 0;
        }
}

int size_parse(const char *text, unsigned int flags, int64_t *out)
{
        const char *p = text;
        uint64_t n = 0;
        bool too_big = false;
        int shift;

        if (text == NULL)
                return -EINVAL;
        if ((flags & SIZE_UNLIMITED) && strcmp(text, "-1") == 0) {
                *out = -1;
                return 0;
        }
        /* Digits by hand, not strtoull: it skips spaces, takes a sign and
         * turns "-1" into 2^64-1. */
        if (*p < '0' || *p > '9')
                return -EINVAL;
        for (; *p >= '0' && *p <= '9'; p++) {
                unsigned int d = (unsigned int)(*p - '0');
                if (n > ((uint64_t)INT64_MAX - d) / 10)
                        too_big = true; /* still read on: a malformed text is -EINVAL */
                else if (!too_big)
                        n = n * 10 + d;
        }
        shift = unit_shift(*p, flags);
        if (shift != 0)
                p++;
        if ((flags & SIZE_BYTE_SUFFIX) && (*p == 'b' || *p == 'B'))
                p++;
        if (*p != '\0')
                return -EINVAL;
        if (too_big || n > ((uint64_t)INT64_MAX >> shift))
                return -ERANGE;
        if (n == 0 && !(flags & SIZE_ZERO))
                return -EINVAL;
        *out = (int64_t)(n << shift);
        return 0;
}
