#include "runtime/sandbox/init_image.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

extern const unsigned char sbrun_init_blob_start[];
extern const unsigned char sbrun_init_blob_end[];

int init_image_memfd(struct sb_error *err)
{
        size_t len = (size_t)(sbrun_init_blob_end - sbrun_init_blob_start);
        _cleanup_close_ int fd = memfd_create("sbrun-init", MFD_ALLOW_SEALING);

        if (fd < 0)
                return sb_fail(err, errno, "memfd_create for sbrun-init");
        if (sb_write_all(fd, sbrun_init_blob_start, len) < 0)
                return sb_fail(err, errno, "copy sbrun-init into its memfd");
        /* Executable by the root of a user namespace, which is not the
         * host's root and does not own the memfd. */
        if (fchmod(fd, 0555) < 0)
                return sb_fail(err, errno, "chmod the sbrun-init memfd");
        if (fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) < 0)
                return sb_fail(err, errno, "seal the sbrun-init memfd");
        return SB_STEAL_FD(fd);
}
