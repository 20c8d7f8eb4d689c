/* A bind source's project quota, as create and `policy explain` find it:
 * read from the object the runtime holds open (runtime/sandbox/
 * bind_sources.h), never from a path. spec/floor_volumes.h decides what
 * it means. */
#ifndef SB_QUOTA_HOST_H
#define SB_QUOTA_HOST_H

#include "spec/floor_volumes.h"

struct stat;

/* fd: an O_PATH fd of the source directory, st its fstat. Never fails:
 * what cannot be read is said in out->unknown, and counts as unbounded. */
void quota_host_probe(int fd, const struct stat *st, struct volume_quota *out);

#endif
