#ifndef SB_INIT_IMAGE_H
#define SB_INIT_IMAGE_H

struct sb_error;

/* A sealed memfd holding sbrun-init. The container executes it through
 * /proc/self/fd/N: it can never reach, let alone overwrite, a host binary
 * through /proc/<pid>/exe (CVE-2019-5736), and the seals stop writes to the
 * memfd itself. The fd is not close-on-exec: it must cross bwrap's exec. */
int init_image_memfd(struct sb_error *err);

#endif
