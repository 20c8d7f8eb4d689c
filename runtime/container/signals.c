#include "runtime/container/signals.h"

#include "common/error.h"

#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
        const char *name;
        int signo;
} signal_names[] = {
        { "HUP", SIGHUP },       { "INT", SIGINT },   { "QUIT", SIGQUIT },     { "ILL", SIGILL },
        { "TRAP", SIGTRAP },     { "ABRT", SIGABRT }, { "IOT", SIGIOT },       { "BUS", SIGBUS },
        { "FPE", SIGFPE },       { "KILL", SIGKILL }, { "USR1", SIGUSR1 },     { "SEGV", SIGSEGV },
        { "USR2", SIGUSR2 },     { "PIPE", SIGPIPE }, { "ALRM", SIGALRM },     { "TERM", SIGTERM },
        { "STKFLT", SIGSTKFLT }, { "CHLD", SIGCHLD }, { "CONT", SIGCONT },     { "STOP", SIGSTOP },
        { "TSTP", SIGTSTP },     { "TTIN", SIGTTIN }, { "TTOU", SIGTTOU },     { "URG", SIGURG },
        { "XCPU", SIGXCPU },     { "XFSZ", SIGXFSZ }, { "VTALRM", SIGVTALRM }, { "PROF", SIGPROF },
        { "WINCH", SIGWINCH },   { "IO", SIGIO },     { "POLL", SIGPOLL },     { "PWR", SIGPWR },
        { "SYS", SIGSYS },
};

static int parse_number(const char *text, int *out)
{
        char *end = NULL;
        long v;

        errno = 0;
        v = strtol(text, &end, 10);
        if (errno != 0 || end == text || *end != '\0')
                return -1;
        *out = (int)v;
        return 0;
}

int signal_parse(const char *text, int *signo, struct sb_error *err)
{
        const char *name = text;
        int n;

        if (parse_number(text, &n) == 0) {
                if (n <= 0 || n > SIGRTMAX)
                        return sb_fail(err, 0, "invalid signal \"%s\"", text);
                *signo = n;
                return 0;
        }
        if (strncasecmp(name, "SIG", 3) == 0)
                name += 3;
        for (size_t i = 0; i < sizeof(signal_names) / sizeof(signal_names[0]); i++) {
                if (strcasecmp(name, signal_names[i].name) == 0) {
                        *signo = signal_names[i].signo;
                        return 0;
                }
        }
        if (strncasecmp(name, "RTMIN", 5) == 0 || strncasecmp(name, "RTMAX", 5) == 0) {
                bool min = strncasecmp(name, "RTMIN", 5) == 0;
                int base = min ? SIGRTMIN : SIGRTMAX;
                int offset = 0;
                if (name[5] != '\0' && parse_number(name + 5, &offset) < 0)
                        return sb_fail(err, 0, "invalid signal \"%s\"", text);
                n = base + offset;
                if (n >= SIGRTMIN && n <= SIGRTMAX) {
                        *signo = n;
                        return 0;
                }
        }
        return sb_fail(err, 0, "invalid signal \"%s\"", text);
}
