#ifndef SB_PID_FILE_H
#define SB_PID_FILE_H

struct sb_error;

/* --pid-file: the host pid, written whole (a new file renamed over path,
 * common/caller_file.h), so an engine polling for the file never reads a
 * partial number, and a symlink planted at path is replaced, not followed. */
int pid_file_write(const char *path, int pid, struct sb_error *err);

#endif
