/*
 * subreaper: play the part of conmon or a containerd shim in the tests.
 *
 *   subreaper CMD... [--then CMD...]...
 *       Become a child subreaper, run each command in turn (each must exit
 *       0), then wait for every remaining child -- the container process,
 *       reparented to us once `sbrun create` let go of it -- and print one
 *       line per reaped process: "reaped PID exit N" or "reaped PID signal N".
 *       Exits 0 once no child is left, 1 if a command failed.
 *
 *   subreaper --reap CMD...
 *       Become a child subreaper, run CMD, silently reap every orphan that
 *       lands on us meanwhile, and exit with CMD's status. The test driver
 *       runs the suite this way so that containers made by `sbrun create`
 *       are reaped by someone: pid 1 of some machines never reaps.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t spawn(char **argv)
{
        pid_t pid = fork();

        if (pid < 0) {
                perror("subreaper: fork");
                exit(1);
        }
        if (pid == 0) {
                execvp(argv[0], argv);
                fprintf(stderr, "subreaper: exec %s: %s\n", argv[0], strerror(errno));
                _exit(127);
        }
        return pid;
}

static int exit_code(int status)
{
        if (WIFEXITED(status))
                return WEXITSTATUS(status);
        return 128 + WTERMSIG(status);
}

/* Wait for PID, reaping (and in verbose mode, reporting) any orphan on the way. */
static int wait_for(pid_t pid, int verbose)
{
        for (;;) {
                int status;
                pid_t got = waitpid(-1, &status, 0);

                if (got < 0) {
                        if (errno == EINTR)
                                continue;
                        perror("subreaper: waitpid");
                        exit(1);
                }
                if (got == pid)
                        return status;
                if (verbose) {
                        if (WIFEXITED(status))
                                printf("reaped %d exit %d\n", (int)got, WEXITSTATUS(status));
                        else
                                printf("reaped %d signal %d\n", (int)got, WTERMSIG(status));
                        fflush(stdout);
                }
        }
}

static int reap_mode(char **argv)
{
        pid_t pid = spawn(argv);
        int status = wait_for(pid, 0);

        /* Collect orphans that are already dead; never wait for live ones. */
        while (waitpid(-1, NULL, WNOHANG) > 0)
                ;
        return exit_code(status);
}

int main(int argc, char **argv)
{
        int i, start;

        if (argc < 2) {
                fprintf(stderr, "usage: subreaper CMD... [--then CMD...]... | --reap CMD...\n");
                return 2;
        }
        if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
                perror("subreaper: PR_SET_CHILD_SUBREAPER");
                return 1;
        }
        /* A test may close our stdin; never let SIGPIPE or SIGCHLD defaults surprise us. */
        signal(SIGPIPE, SIG_IGN);

        if (strcmp(argv[1], "--reap") == 0) {
                if (argc < 3) {
                        fprintf(stderr, "subreaper: --reap needs a command\n");
                        return 2;
                }
                return reap_mode(argv + 2);
        }

        start = 1;
        for (i = 1; i <= argc; i++) {
                int status;

                if (i < argc && strcmp(argv[i], "--then") != 0)
                        continue;
                argv[i < argc ? i : argc] = NULL;
                if (i == start) {
                        fprintf(stderr, "subreaper: empty command\n");
                        return 2;
                }
                status = wait_for(spawn(argv + start), 1);
                if (exit_code(status) != 0) {
                        fprintf(stderr, "subreaper: %s exited with %d\n", argv[start],
                                exit_code(status));
                        return 1;
                }
                start = i + 1;
        }

        /* Every command succeeded: now wait for the container process. */
        for (;;) {
                int status;
                pid_t got = waitpid(-1, &status, 0);

                if (got < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == ECHILD)
                                return 0;
                        perror("subreaper: waitpid");
                        return 1;
                }
                if (WIFEXITED(status))
                        printf("reaped %d exit %d\n", (int)got, WEXITSTATUS(status));
                else
                        printf("reaped %d signal %d\n", (int)got, WTERMSIG(status));
                fflush(stdout);
        }
}
