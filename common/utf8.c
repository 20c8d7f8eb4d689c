#include "common/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t sb_utf8_sequence(const unsigned char *s, uint32_t *cp)
{
        size_t len;
        uint32_t c, min;

        if (s[0] < 0x80) {
                *cp = s[0];
                return 1;
        }
        if ((s[0] & 0xe0) == 0xc0) {
                len = 2, c = s[0] & 0x1f, min = 0x80;
        } else if ((s[0] & 0xf0) == 0xe0) {
                len = 3, c = s[0] & 0x0f, min = 0x800;
        } else if ((s[0] & 0xf8) == 0xf0) {
                len = 4, c = s[0] & 0x07, min = 0x10000;
        } else {
                return 0;
        }
        /* A NUL ends the loop too: it is no continuation byte. */
        for (size_t i = 1; i < len; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                c = c << 6 | (s[i] & 0x3f);
        }
        if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
                return 0;
        *cp = c;
        return len;
}

bool sb_utf8_valid(const char *s)
{
        const unsigned char *p = (const unsigned char *)s;
        uint32_t cp;

        while (*p != '\0') {
                size_t n = sb_utf8_sequence(p, &cp);
                if (n == 0)
                        return false;
                p += n;
        }
        return true;
}

char *sb_utf8_rewrite(const char *s, sb_utf8_emit emit)
{
        /* The longest output per input byte: "\xHH" for one byte. */
        char *out = malloc(strlen(s) * 4 + 1);
        const unsigned char *p = (const unsigned char *)s;
        char *o = out;
        uint32_t cp;

        if (out == NULL)
                return NULL;
        while (*p != '\0') {
                size_t n = sb_utf8_sequence(p, &cp);
                if (n == 0) {
                        o += sprintf(o, "\\x%02x", *p++);
                        continue;
                }
                if (emit != NULL) {
                        o += emit(o, p, n, cp);
                } else {
                        memcpy(o, p, n);
                        o += n;
                }
                p += n;
        }
        *o = '\0';
        return out;
}

char *sb_utf8_backslash_invalid(const char *s)
{
        return sb_utf8_rewrite(s, NULL);
}
