#ifndef SB_PID_FILE_H
#define SB_PID_FILE_H

struct sb_error;

/* --pid-file: the host pid, written whole (temporary file and rename), so an
 * engine polling for the file never reads a partial number. */
int pid_file_write(const char *path, int pid, struct sb_error *err);

#endif
