#include "runtime/host/user_name.h"

#include "common/cleanup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool host_user_name(uid_t uid, char *out, size_t len)
{
        _cleanup_fclose_ FILE *f = fopen("/etc/passwd", "re");
        char line[512];

        while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
                char *pw = strchr(line, ':');
                char *id = pw ? strchr(pw + 1, ':') : NULL;
                if (id == NULL || strtoul(id + 1, NULL, 10) != uid)
                        continue;
                *pw = '\0';
                if (strlen(line) >= len)
                        return false;
                memcpy(out, line, strlen(line) + 1);
                return true;
        }
        return false;
}
