#ifndef SB_FS_UTIL_H
#define SB_FS_UTIL_H

#include <stddef.h>
#include <sys/types.h>

struct sb_error;

/* Read a whole regular file (at most max_len bytes) into a NUL-terminated
 * buffer. Anything else (a FIFO, a device, a directory) is refused by its
 * type, without waiting on it. */
int sb_read_file(const char *path, size_t max_len, char **out, size_t *out_len,
                 struct sb_error *err);
/* "a FIFO", "a directory", ...: the type of mode, for an error. */
const char *sb_file_type_name(mode_t mode);

int sb_read_fd(int fd, size_t max_len, char **out, size_t *out_len, struct sb_error *err);

/* Write data to dirfd/name through a temporary file and rename, so readers
 * never see a partial file. */
int sb_write_file_atomic(int dirfd, const char *name, const void *data, size_t len, mode_t mode,
                         struct sb_error *err);

/* The path the kernel gives for what fd holds (readlink of
 * /proc/self/fd/FD): canonical for a file of this mount namespace. NULL
 * with errno set. Caller frees. */
char *sb_fd_path(int fd);

/* write() all of buf, retrying on EINTR and short writes. */
int sb_write_all(int fd, const void *buf, size_t len);

/* A close-on-exec memfd named `name` holding data, its offset back at 0. */
int sb_memfd_with(const char *name, const void *data, size_t len, struct sb_error *err);

#endif
