#include "common/json_escape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *sb_json_escape(const char *s)
{
        size_t len = strlen(s);
        char *out = malloc(len * 6 + 1);
        char *p = out;

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
                        if (*c < 0x20)
                                p += sprintf(p, "\\u%04x", *c);
                        else
                                *p++ = (char)*c;
                }
        }
        *p = '\0';
        return out;
}
