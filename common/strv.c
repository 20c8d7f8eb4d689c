#include "common/strv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void strv_push(struct strv *v, char *owned)
{
        if (owned == NULL) {
                v->failed = true;
                return;
        }
        if (v->n + 2 > v->cap) {
                size_t cap = v->cap ? v->cap * 2 : 16;
                char **grown = realloc(v->items, cap * sizeof(char *));
                if (grown == NULL) {
                        free(owned);
                        v->failed = true;
                        return;
                }
                v->items = grown;
                v->cap = cap;
        }
        v->items[v->n++] = owned;
        v->items[v->n] = NULL;
}

void strv_add(struct strv *v, const char *s)
{
        strv_push(v, strdup(s));
}

void strv_addf(struct strv *v, const char *fmt, ...)
{
        char *s = NULL;
        va_list ap;

        va_start(ap, fmt);
        if (vasprintf(&s, fmt, ap) < 0)
                s = NULL;
        va_end(ap);
        strv_push(v, s);
}

void strv_release(struct strv *v)
{
        for (size_t i = 0; i < v->n; i++)
                free(v->items[i]);
        free(v->items);
        memset(v, 0, sizeof(*v));
}

char **strv_steal(struct strv *v)
{
        char **items = v->items;

        if (items == NULL)
                items = calloc(1, sizeof(char *));
        memset(v, 0, sizeof(*v));
        return items;
}

void strv_free_n(char **v, size_t n)
{
        if (v == NULL)
                return;
        for (size_t i = 0; i < n; i++)
                free(v[i]);
        free(v);
}
