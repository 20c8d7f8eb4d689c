/* A growable NULL-terminated string vector; a failed allocation is
 * remembered and reported once by strv_check(). */
#ifndef SB_STRV_H
#define SB_STRV_H

#include <stdbool.h>
#include <stddef.h>

struct strv {
        char **items;
        size_t n, cap;
        bool failed;
};

void strv_add(struct strv *v, const char *s);
void strv_addf(struct strv *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strv_release(struct strv *v);
/* Hand the NULL-terminated array out; the strv is left empty. */
char **strv_steal(struct strv *v);

/* Free an array of n strings (NULL-terminated or not) and the array. */
void strv_free_n(char **v, size_t n);

#endif
