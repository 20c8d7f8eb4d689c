#include "runtime/process_wait.h"

#include <errno.h>
#include <sys/wait.h>

static const int forwarded_signals[] = {
        SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT, SIGTSTP,
        SIGTTIN, SIGTTOU, SIGALRM, SIGPWR,
};

void process_wait_block_signals(sigset_t *set)
{
        sigemptyset(set);
        sigaddset(set, SIGCHLD);
        for (size_t i = 0; i < sizeof(forwarded_signals) / sizeof(forwarded_signals[0]); i++)
                sigaddset(set, forwarded_signals[i]);
        sigprocmask(SIG_BLOCK, set, NULL);
}

int process_wait_forward(int pid, const sigset_t *set)
{
        for (;;) {
                int status;
                pid_t reaped;

                while ((reaped = waitpid(-1, &status, WNOHANG)) > 0) {
                        if (reaped != pid)
                                continue;
                        if (WIFEXITED(status))
                                return WEXITSTATUS(status);
                        return 128 + WTERMSIG(status);
                }
                if (reaped < 0 && errno == ECHILD)
                        return 255;
                siginfo_t info;
                int signo = sigwaitinfo(set, &info);
                if (signo > 0 && signo != SIGCHLD)
                        kill(pid, signo);
        }
}
