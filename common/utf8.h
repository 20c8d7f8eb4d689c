/* UTF-8 as JSON readers take it (RFC 8259 asks for it, yajl refuses
 * anything else): what sbrun writes from bytes it did not choose (a
 * command line's arguments) is made valid here before it is written. */
#ifndef SB_UTF8_H
#define SB_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The length (1 to 4) of the valid UTF-8 sequence s starts with, its code
 * point in *cp; 0 when the bytes there are none: a stray continuation byte,
 * an overlong form, a surrogate, beyond U+10FFFF, cut short. s is
 * NUL-terminated and not at its end. */
size_t sb_utf8_sequence(const unsigned char *s, uint32_t *cp);

bool sb_utf8_valid(const char *s);

/* Writes one valid sequence (n bytes at seq, code point cp) at out, at
 * most 4 characters per byte it takes, and returns how many it wrote. */
typedef size_t (*sb_utf8_emit)(char *out, const unsigned char *seq, size_t n, uint32_t cp);

/* A copy of s in which each valid sequence is what emit writes (NULL: the
 * sequence as it is) and each byte that is no part of one is \xHH; NULL
 * when out of memory. */
char *sb_utf8_rewrite(const char *s, sb_utf8_emit emit);

/* A copy of s in which each byte that is no part of a valid sequence is the
 * four characters \xHH (Python's "backslashreplace"); NULL when out of
 * memory. */
char *sb_utf8_backslash_invalid(const char *s);

#endif
