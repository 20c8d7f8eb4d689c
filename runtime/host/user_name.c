#include "runtime/host/user_name.h"

#include "common/cleanup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Field FIELD (0: the name, 5: the home) of uid's line in /etc/passwd. */
static bool passwd_field(uid_t uid, int field, char *out, size_t len)
{
        _cleanup_fclose_ FILE *f = fopen("/etc/passwd", "re");
        char line[1024];

        while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
                char *fields[7], *rest = line;
                int n = 0;

                line[strcspn(line, "\n")] = '\0';
                while (n < 7 && rest != NULL) {
                        fields[n++] = rest;
                        rest = strchr(rest, ':');
                        if (rest != NULL)
                                *rest++ = '\0';
                }
                if (n < 3 || field >= n || strtoul(fields[2], NULL, 10) != uid)
                        continue;
                if (strlen(fields[field]) >= len)
                        return false;
                memcpy(out, fields[field], strlen(fields[field]) + 1);
                return true;
        }
        return false;
}

bool host_user_name(uid_t uid, char *out, size_t len)
{
        return passwd_field(uid, 0, out, len);
}

bool host_user_home(uid_t uid, char *out, size_t len)
{
        return passwd_field(uid, 5, out, len) && out[0] == '/';
}
