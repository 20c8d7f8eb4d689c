/* tests/helpers/perf_hold.c: hold one task-bound perf event open until
 * killed, so that the guest kernel's perf_sched_events static key stays on.
 *
 * Why: under qemu's TCG the VM lane's guests crashed with "Oops: int3" in
 * __schedule when CRIU's first ptrace hardware breakpoint switched that key
 * on (perf_event_alloc -> static_branch_enable -> text_poke_bp): TCG went on
 * running the int3 that the patch had put into __schedule after the kernel
 * had removed it (CI of 2026-12-06, Debian 13 guest; see tests/vm/README.md).
 * Every task-bound perf event counts towards that key, and the kernel
 * switches it only when the count goes from 0 to 1 and back, so while this
 * event is open, no breakpoint patches __schedule again. tests/vm/run.sh
 * builds this and starts it in the guest before the command. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
        struct perf_event_attr attr;

        memset(&attr, 0, sizeof(attr));
        attr.size = sizeof(attr);
        attr.type = PERF_TYPE_SOFTWARE;
        attr.config = PERF_COUNT_SW_DUMMY;
        attr.disabled = 1;
        /* pid 0, cpu -1: bound to this task, on any CPU. */
        if (syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC) < 0) {
                perror("perf_hold: perf_event_open");
                return 1;
        }
        /* Held: let go of the caller's output (the guest's console FIFO). */
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null >= 0)
                for (int fd = 0; fd < 3; fd++)
                        dup2(null, fd);
        for (;;)
                pause();
}
