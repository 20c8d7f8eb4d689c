#include "runtime/container/container_id.h"

#include "common/error.h"

#include <stdbool.h>
#include <string.h>

static bool id_char_ok(char c, bool first)
{
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
                return true;
        return !first && (c == '_' || c == '+' || c == '-' || c == '.');
}

int container_id_validate(const char *id, struct sb_error *err)
{
        size_t len = strlen(id);

        if (len == 0 || len > 1024 || strcmp(id, ".") == 0 || strcmp(id, "..") == 0)
                return sb_fail(err, 0, "invalid container ID \"%s\"", id);
        for (size_t i = 0; i < len; i++) {
                if (!id_char_ok(id[i], i == 0))
                        return sb_fail(
                                err, 0,
                                "invalid container ID \"%s\": only letters, digits and _+.- are allowed, starting with a letter or digit",
                                id);
        }
        return 0;
}
