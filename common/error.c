#include "common/error.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sb_failv(struct sb_error *err, int errnum, const char *fmt, va_list ap)
{
        if (err == NULL || err->msg != NULL)
                return -1;
        err->errnum = errnum;
        if (vasprintf(&err->msg, fmt, ap) < 0)
                err->msg = NULL;
        return -1;
}

int sb_fail(struct sb_error *err, int errnum, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        sb_failv(err, errnum, fmt, ap);
        va_end(ap);
        return -1;
}

int sb_fail_kind(struct sb_error *err, enum sb_error_kind kind, int errnum, const char *fmt, ...)
{
        va_list ap;

        if (err == NULL || err->msg != NULL)
                return -1;
        va_start(ap, fmt);
        sb_failv(err, errnum, fmt, ap);
        va_end(ap);
        err->kind = kind;
        return -1;
}

int sb_error_prefix(struct sb_error *err, const char *fmt, ...)
{
        char *prefix = NULL;
        char *joined = NULL;
        va_list ap;

        if (err == NULL)
                return -1;
        va_start(ap, fmt);
        if (vasprintf(&prefix, fmt, ap) < 0)
                prefix = NULL;
        va_end(ap);
        if (prefix == NULL)
                return -1;
        if (asprintf(&joined, "%s: %s", prefix, err->msg ? err->msg : "unknown error") >= 0) {
                free(err->msg);
                err->msg = joined;
        }
        free(prefix);
        return -1;
}

char *sb_error_text(const struct sb_error *err)
{
        char *text = NULL;
        const char *msg = err->msg ? err->msg : "unknown error";

        if (err->errnum != 0) {
                /* Engines match runc's lower-case errno texts ("no such file
                 * or directory" → 127, "permission denied" → 126). */
                char reason[128];
                snprintf(reason, sizeof(reason), "%s", strerror(err->errnum));
                reason[0] = (char)tolower((unsigned char)reason[0]);
                if (asprintf(&text, "%s: %s", msg, reason) < 0)
                        text = NULL;
        } else {
                text = strdup(msg);
        }
        return text;
}

void sb_error_clear(struct sb_error *err)
{
        free(err->msg);
        err->msg = NULL;
        err->errnum = 0;
        err->kind = SB_ERR_OTHER;
}
