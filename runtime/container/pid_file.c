#include "runtime/container/pid_file.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int pid_file_write(const char *path, int pid, struct sb_error *err)
{
        _cleanup_free_ char *tmp = NULL;
        char value[32];
        int n = snprintf(value, sizeof(value), "%d", pid);
        _cleanup_close_ int fd = -1;

        if (asprintf(&tmp, "%s.sbrun-tmp", path) < 0)
                return sb_fail(err, ENOMEM, "--pid-file");
        fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
                return sb_fail(err, errno, "--pid-file: create %s", tmp);
        if (sb_write_all(fd, value, (size_t)n) < 0 || rename(tmp, path) < 0) {
                int saved = errno;
                unlink(tmp);
                return sb_fail(err, saved, "--pid-file: write %s", path);
        }
        return 0;
}
