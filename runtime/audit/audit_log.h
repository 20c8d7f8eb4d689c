/* Where the audit trail's lines go, and how one is written: a JSON-lines
 * file appended by one write(2) per line with O_APPEND (the kernel keeps
 * concurrent appenders' lines whole), rotated by size under a lock on its
 * directory; or journald's native socket, one datagram per line. */
#ifndef SB_AUDIT_LOG_H
#define SB_AUDIT_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spec/audit_policy.h"

struct sb_error;
struct global_options;

struct audit_target {
        enum audit_sink sink;
        char *path; /* AUDIT_FILE */
        bool fsync;
        int64_t max_size;
        int keep;
};

#define AUDIT_TARGET_INIT         \
        {                         \
                .sink = AUDIT_OFF \
        }

/* The operator's settings as this caller carries them out: a user (not the
 * host's root) writes their own log beneath $XDG_STATE_HOME, whatever path
 * the operator set (spec/audit_policy.h). */
int audit_target_resolve(const struct audit_settings *settings, const struct global_options *global,
                         struct audit_target *t, struct sb_error *err);
void audit_target_release(struct audit_target *t);

/* The directory the file is in, or NULL (journald, off). */
char *audit_target_dir(const struct audit_target *t);
/* The same for these settings as this caller carries them out: what the
 * floor keeps out of every container's binds. NULL: no file (or no place
 * for one, which the line's own write reports). */
char *audit_settings_dir(const struct audit_settings *settings,
                         const struct global_options *global);

/* Whether a line could be written now, without writing one: the file (or
 * the nearest directory of its path that exists) writable and its file
 * system not full; journald's socket there. *detail says what was found
 * (caller frees). */
bool audit_target_probe(const struct audit_target *t, char **detail);

/* One line (no newline in it; one is added). event and id become journald
 * fields of their own. */
int audit_append(const struct audit_target *t, const char *line, size_t len, const char *event,
                 const char *id, struct sb_error *err);

/* The journald identifier every line carries: `sbrun audit` selects by it. */
#define AUDIT_JOURNAL_IDENTIFIER "sbrun-audit"
#define AUDIT_JOURNAL_SOCKET "/run/systemd/journal/socket"
int audit_journal_send(const char *line, size_t len, const char *event, const char *id,
                       struct sb_error *err);

#endif
