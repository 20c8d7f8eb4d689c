/* Logging in runc's formats: engines read the last {"level":"error","msg":…}
 * line of --log, so warnings and the final error all go through here. */
#ifndef SB_LOG_H
#define SB_LOG_H

#include <stdbool.h>

enum sb_log_level { SB_LOG_ERROR, SB_LOG_WARNING, SB_LOG_INFO, SB_LOG_DEBUG };
enum sb_log_format { SB_LOG_TEXT, SB_LOG_JSON };

struct sb_error;

/* path may be NULL (stderr only). Returns -1 with *err filled. */
int sb_log_open(const char *path, enum sb_log_format format, bool debug, struct sb_error *err);
void sb_log_close(void);

void sb_log(enum sb_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define sb_warn(...) sb_log(SB_LOG_WARNING, __VA_ARGS__)
#define sb_info(...) sb_log(SB_LOG_INFO, __VA_ARGS__)
#define sb_debug(...) sb_log(SB_LOG_DEBUG, __VA_ARGS__)

/* Report a failed command: error line in the log file and on stderr. */
void sb_log_error(const struct sb_error *err);

bool sb_log_debug_enabled(void);
bool sb_log_has_file(void);

#endif
