#include "common/fault.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Built only with --enable-fault-injection (Makefile.am). The line on
 * stderr lets a test tell a death at the point from any other SIGKILL;
 * SIGKILL itself cannot be caught, so no cleanup of ours runs. */
void sb_fault_point(const char *name)
{
        const char *want = getenv("SBRUN_FAULT");

        if (want == NULL || strcmp(want, name) != 0)
                return;
        static const char prefix[] = "sbrun: fault point ";
        (void)!write(STDERR_FILENO, prefix, sizeof(prefix) - 1);
        (void)!write(STDERR_FILENO, name, strlen(name));
        (void)!write(STDERR_FILENO, ": SIGKILL\n", 10);
        for (;;)
                kill(getpid(), SIGKILL);
}
