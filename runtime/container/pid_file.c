#include "runtime/container/pid_file.h"

#include "common/caller_file.h"

#include <stdio.h>

int pid_file_write(const char *path, int pid, struct sb_error *err)
{
        char value[32];
        int n = snprintf(value, sizeof(value), "%d", pid);

        return caller_file_replace("--pid-file", path, value, (size_t)n, 0644, err);
}
