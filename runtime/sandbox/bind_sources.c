#include "runtime/sandbox/bind_sources.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"
#include "oci/config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int bind_sources_open(const struct oci_config *config, const char *bundle, struct bind_sources *bs,
                      struct sb_error *err)
{
        bs->n = config->n_mounts;
        bs->fds = malloc((bs->n + 1) * sizeof(*bs->fds));
        bs->paths = calloc(bs->n + 1, sizeof(*bs->paths));
        bs->stats = calloc(bs->n + 1, sizeof(*bs->stats));
        bs->passed = malloc((bs->n + 1) * sizeof(*bs->passed));
        if (bs->fds == NULL || bs->paths == NULL || bs->stats == NULL || bs->passed == NULL)
                return sb_fail(err, ENOMEM, "mounts");
        for (size_t i = 0; i < bs->n; i++)
                bs->fds[i] = -1;
        for (size_t i = 0; i < bs->n; i++) {
                const struct oci_mount *m = &config->mounts[i];
                _cleanup_free_ char *joined = NULL;
                const char *source = m->source;

                if (!oci_mount_is_bind(m))
                        continue;
                if (source == NULL)
                        return sb_fail(err, 0, "mounts[%zu].source: required for a bind mount", i);
                if (source[0] != '/') {
                        if (asprintf(&joined, "%s/%s", bundle, source) < 0) {
                                joined = NULL;
                                return sb_fail(err, ENOMEM, "mounts[%zu]", i);
                        }
                        source = joined;
                }
                bs->fds[i] = open(source, O_PATH | O_CLOEXEC);
                if (bs->fds[i] < 0)
                        return sb_fail(err, errno, "mounts[%zu].source: \"%s\"", i, m->source);
                bs->paths[i] = sb_fd_path(bs->fds[i]);
                if (bs->paths[i] == NULL || fstat(bs->fds[i], &bs->stats[i]) < 0)
                        return sb_fail(err, errno, "mounts[%zu].source: \"%s\"", i, m->source);
        }
        return 0;
}

int bind_sources_pass(struct bind_sources *bs, size_t i, int first_fd)
{
        if (i >= bs->n || bs->fds[i] < 0)
                return -1;
        bs->passed[bs->n_passed] = bs->fds[i];
        return first_fd + (int)bs->n_passed++;
}

void bind_sources_release(struct bind_sources *bs)
{
        for (size_t i = 0; i < bs->n; i++) {
                if (bs->fds && bs->fds[i] >= 0)
                        close(bs->fds[i]);
                if (bs->paths)
                        free(bs->paths[i]);
        }
        free(bs->fds);
        free(bs->paths);
        free(bs->stats);
        free(bs->passed);
        memset(bs, 0, sizeof(*bs));
}
