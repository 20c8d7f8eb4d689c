/* One error shape for all of sbrun: a function returns 0 or -1 and fills
 * *err with the errno and a message naming what failed; callers add context
 * with sb_error_prefix() instead of printing again. */
#ifndef SB_ERROR_H
#define SB_ERROR_H

#include <stdarg.h>

/* What a caller may decide on, where the errno cannot say it (the
 * message is runc's wording, with no errno of its own): never the text. */
enum sb_error_kind {
        SB_ERR_OTHER = 0,
        SB_ERR_NOT_FOUND, /* the thing named does not exist: a container, an executable */
        SB_ERR_DENIED,    /* it exists and may not be used: an executable without x */
};

struct sb_error {
        int errnum;
        enum sb_error_kind kind;
        char *msg;
};

/* Fill *err (if no error is recorded yet) and return -1. */
int sb_fail(struct sb_error *err, int errnum, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
int sb_failv(struct sb_error *err, int errnum, const char *fmt, va_list ap);

/* sb_fail with a kind a caller decides on (the kind goes with the message:
 * kept only if this call records it). */
int sb_fail_kind(struct sb_error *err, enum sb_error_kind kind, int errnum, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

/* Prepend "context: " to an error already recorded; returns -1. */
int sb_error_prefix(struct sb_error *err, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

/* The message with ": strerror(errnum)" appended when errnum != 0. Caller frees. */
char *sb_error_text(const struct sb_error *err);

void sb_error_clear(struct sb_error *err);

#endif
