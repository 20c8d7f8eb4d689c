#include "runtime/sandbox/id_map.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "oci/config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

long long id_map_to_host(const struct oci_idmap *maps, size_t n, uint32_t id)
{
        for (size_t i = 0; i < n; i++) {
                if (id >= maps[i].container_id && id - maps[i].container_id < maps[i].size)
                        return (long long)maps[i].host_id + (id - maps[i].container_id);
        }
        return -1;
}

int id_map_write(pid_t pid, const char *file, const char *field, const struct oci_idmap *maps,
                 size_t n, struct sb_error *err)
{
        char path[64];
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        _cleanup_close_ int fd = -1;

        text = calloc(n, 3 * 11 + 3);
        if (text == NULL)
                return sb_fail(err, ENOMEM, "%s", field);
        for (size_t i = 0; i < n; i++)
                len += (size_t)sprintf(text + len, "%u %u %u\n", maps[i].container_id,
                                       maps[i].host_id, maps[i].size);
        snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
        fd = open(path, O_WRONLY | O_CLOEXEC);
        /* The kernel takes the whole map in one write, or none of it. */
        if (fd < 0 || write(fd, text, len) != (ssize_t)len)
                return sb_fail(err, errno, "%s: write %s", field, path);
        return 0;
}
