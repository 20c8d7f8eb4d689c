/* The audit trail read back, oldest line first, for `sbrun audit`. */
#ifndef SB_AUDIT_READ_H
#define SB_AUDIT_READ_H

#include <stddef.h>

struct sb_error;
struct audit_target;

/* Each line without its newline, empty ones too (nothing is passed over
 * here), with where it was: source (the file, or "journalctl's output")
 * and its 1-based number there. */
typedef int (*audit_line_fn)(const char *line, size_t len, const char *source, size_t lineno,
                             void *ctx, struct sb_error *err);

/* A file: its rotated copies (NAME.keep, ..., NAME.1) then NAME, each line
 * once (a missing file is no line). journald: the lines journalctl gives
 * for AUDIT_JOURNAL_IDENTIFIER written by this uid, so that a process of
 * another uid (a container's) cannot pass a line off as sbrun's. */
int audit_read(const struct audit_target *t, audit_line_fn fn, void *ctx, struct sb_error *err);

#endif
