#include "common/text_escape.h"

#include "common/utf8.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Code points past ASCII that change the layout of a line: C1 controls
 * (0x9b is CSI to some terminals), U+2028/2029, and the bidirectional
 * marks, embeddings, overrides and isolates ("Trojan Source"). */
static bool is_layout_control(uint32_t cp)
{
        return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
               (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

char *sb_text_escape(const char *s)
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
                } else if (cp == '\n' || cp == '\r' || cp == '\t') {
                        *o++ = '\\';
                        *o++ = cp == '\n' ? 'n' : cp == '\r' ? 'r' : 't';
                        p++;
                } else if (cp < 0x20 || cp == 0x7f) {
                        o += sprintf(o, "\\x%02x", *p++);
                } else if (is_layout_control(cp)) {
                        /* Two or three bytes become six characters. */
                        o += sprintf(o, "\\u%04x", (unsigned)cp);
                        p += n;
                } else {
                        memcpy(o, p, n);
                        o += n;
                        p += n;
                }
        }
        *o = '\0';
        return out;
}
