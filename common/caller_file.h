/* Files sbrun writes for its caller at a path the caller names: --pid-file,
 * run --verdict-file, --log. Others may write that directory too (a
 * container it is bound into, a user whose directory root writes to), and
 * may have planted a symlink or a hard link at the name, so nothing here
 * follows a symlink in the last component or writes into a file that was
 * already there:
 *   - a whole file (the pid, the verdict) is written to a new file of a
 *     random name, created O_EXCL in the same directory, then renamed over
 *     the path: whatever the path was (a symlink, a link to another file)
 *     is replaced, never written through nor truncated;
 *   - a log is appended to, and an existing one is kept (engines pass a
 *     log that holds earlier lines), but only a regular file (or a
 *     character device such as /dev/null) with a single link: never a
 *     symlink, never a hard link to someone else's file.
 * The directory is opened once and everything is done relative to it.
 * Errors name the option and the path ("--pid-file /x/pid: ..."). */
#ifndef SB_CALLER_FILE_H
#define SB_CALLER_FILE_H

#include <stddef.h>
#include <sys/types.h>

struct sb_error;

/* path holds exactly data when this returns 0; on failure it is as it was. */
int caller_file_replace(const char *option, const char *path, const void *data, size_t len,
                        mode_t mode, struct sb_error *err);

/* An O_APPEND | O_CLOEXEC fd of path, created with mode if missing. */
int caller_file_append(const char *option, const char *path, mode_t mode, struct sb_error *err);

#endif
