#include "runtime/container/container_id.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/text_escape.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* An error shows at most this much of a refused ID. */
#define SHOWN_MAX 64

#define ALLOWED "letters, digits and _+-., starting with a letter or digit"

static bool id_char_ok(char c, bool first)
{
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
                return true;
        return !first && (c == '_' || c == '+' || c == '-' || c == '.');
}

/* The ID as an error shows it: its start, terminal controls escaped. */
static char *shown_id(const char *id, size_t len)
{
        char head[SHOWN_MAX + 1];

        snprintf(head, sizeof(head), "%s", id);
        _cleanup_free_ char *escaped = sb_text_escape(head);
        char *out = NULL;

        if (escaped == NULL ||
            asprintf(&out, "\"%s\"%s", escaped, len > SHOWN_MAX ? "..." : "") < 0)
                return NULL;
        return out;
}

int container_id_validate(const char *id, struct sb_error *err)
{
        size_t len = strlen(id);
        _cleanup_free_ char *shown = NULL;
        char bad[8];
        size_t i;

        if (len == 0)
                return sb_fail(err, 0, "invalid container ID \"\": an ID must not be empty");
        shown = shown_id(id, len);
        if (shown == NULL)
                return sb_fail(err, ENOMEM, "invalid container ID");
        if (len > CONTAINER_ID_MAX)
                return sb_fail(err, 0,
                               "invalid container ID %s: %zu characters, longer than the "
                               "%zu an ID may have",
                               shown, len, (size_t)CONTAINER_ID_MAX);
        if (strcmp(id, ".") == 0 || strcmp(id, "..") == 0)
                return sb_fail(err, 0, "invalid container ID %s: \".\" and \"..\" are not IDs",
                               shown);
        for (i = 0; i < len && id_char_ok(id[i], i == 0); i++)
                ;
        if (i == len)
                return 0;
        unsigned char c = (unsigned char)id[i];
        if (c == '\'')
                snprintf(bad, sizeof(bad), "\"'\"");
        else if (c > 0x20 && c < 0x7f)
                snprintf(bad, sizeof(bad), "'%c'", c);
        else if (c == ' ')
                snprintf(bad, sizeof(bad), "a space");
        else
                snprintf(bad, sizeof(bad), "\\x%02x", c);
        if (i == 0)
                return sb_fail(err, 0,
                               "invalid container ID %s: it starts with %s: an ID is " ALLOWED,
                               shown, bad);
        return sb_fail(
                err, 0,
                "invalid container ID %s: %s (character %zu) is not allowed: an ID is " ALLOWED,
                shown, bad, i + 1);
}
