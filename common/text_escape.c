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

/* One valid sequence, its controls spelled out (utf8.h sb_utf8_emit). */
static size_t emit_escaped(char *o, const unsigned char *p, size_t n, uint32_t cp)
{
        if (cp == '\n' || cp == '\r' || cp == '\t') {
                o[0] = '\\';
                o[1] = cp == '\n' ? 'n' : cp == '\r' ? 'r' : 't';
                return 2;
        }
        if (cp < 0x20 || cp == 0x7f)
                return (size_t)sprintf(o, "\\x%02x", *p);
        /* Two or three bytes become six characters. */
        if (is_layout_control(cp))
                return (size_t)sprintf(o, "\\u%04x", (unsigned)cp);
        memcpy(o, p, n);
        return n;
}

char *sb_text_escape(const char *s)
{
        return sb_utf8_rewrite(s, emit_escaped);
}
