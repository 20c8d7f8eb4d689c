#include "common/json_escape.h"

#include "common/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *sb_json_escape(const char *s)
{
        size_t len = strlen(s);
        char *out = malloc(len * 6 + 1);
        char *p = out;
        uint32_t cp;
        size_t n = 0;

        if (out == NULL)
                return NULL;
        for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
                switch (*c) {
                case '"':
                        *p++ = '\\';
                        *p++ = '"';
                        break;
                case '\\':
                        *p++ = '\\';
                        *p++ = '\\';
                        break;
                case '\n':
                        *p++ = '\\';
                        *p++ = 'n';
                        break;
                case '\r':
                        *p++ = '\\';
                        *p++ = 'r';
                        break;
                case '\t':
                        *p++ = '\\';
                        *p++ = 't';
                        break;
                default:
                        if (*c < 0x20) {
                                p += sprintf(p, "\\u%04x", *c);
                        } else if (*c >= 0x80 && (n = sb_utf8_sequence(c, &cp)) == 0) {
                                /* No UTF-8: as the text \xHH, so that the
                                 * line stays JSON (common/utf8.h). */
                                p += sprintf(p, "\\\\x%02x", *c);
                        } else if (*c >= 0x80) {
                                memcpy(p, c, n);
                                p += n;
                                c += n - 1;
                        } else {
                                *p++ = (char)*c;
                        }
                }
        }
        *p = '\0';
        return out;
}
