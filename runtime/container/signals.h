#ifndef SB_SIGNALS_H
#define SB_SIGNALS_H

struct sb_error;

/* "KILL", "SIGKILL", "9", "RTMIN+3" → signal number (runc accepts all). */
int signal_parse(const char *text, int *signo, struct sb_error *err);

#endif
