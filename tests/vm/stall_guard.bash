# tests/vm/stall_guard.bash: the VM suites' guard against a test that never
# ends. Sourced by tests/vm/cgroups-suite.sh and tests/vm/systemd-suite.sh in
# the guest.
#
# bats' own BATS_TEST_TIMEOUT is not enough there: it signals the test's
# direct children with SIGTERM and runs teardown, so a child that ignores it,
# a grandchild the test waits on, or a teardown that blocks keeps the test
# alive, and the lane then loses everything after it to run.sh's timeout with
# no word of what hung (CI once saw 2900 s of silence after "ok 7" in
# cgroups_v2.bats). The guard watches the suite's TAP output; when no line
# came for STALL_LIMIT seconds it prints what the guest is doing (the process
# tree with wait channels, the kernel stacks and open files of sbrun's
# processes and of anything in D state, the container cgroups, the kernel
# log's tail) to stderr, which reaches the host's lane log, then SIGKILLs
# every descendant of the bats test process that is running, so that the test
# fails, its teardown runs and the suite goes on.

STALL_PROGRESS=
STALL_GUARD_PID=

# stall_guard_start LIMIT: start the guard; suite_sel then tees bats' output
# into the progress file. STALL_POLL: how often it looks (10 s).
stall_guard_start() {
        local limit=$1
        STALL_PROGRESS=$(mktemp /tmp/stall-progress.XXXXXX)
        stall_guard_loop "$limit" "$STALL_PROGRESS" </dev/null 3>&- &
        STALL_GUARD_PID=$!
}

# stall_guarded CMD...: CMD under the guard, with the suites' limit
# (SBRUN_VM_STALL, default bats' timeout + 120 s).
stall_guarded() {
        stall_guard_start "${SBRUN_VM_STALL:-$((BATS_TEST_TIMEOUT + 120))}"
        "$@"
        stall_guard_stop
}

stall_guard_stop() {
        [ -n "$STALL_GUARD_PID" ] || return 0
        kill "$STALL_GUARD_PID" 2>/dev/null
        wait "$STALL_GUARD_PID" 2>/dev/null
        STALL_GUARD_PID=
        rm -f "$STALL_PROGRESS"
}

# stall_descendants PID: every descendant of PID, children first.
stall_descendants() {
        local kid
        for kid in $(ps -o pid= --ppid "$1"); do
                echo "$kid"
                stall_descendants "$kid"
        done
}

# stall_report: what the guest is doing, for the lane log.
stall_report() {
        local pid comm state
        echo "--- ps ---"
        # Without the kernel's threads (kthreadd, pid 2, and its children).
        ps -eo pid,ppid,pgid,stat,wchan:28,etimes,args --forest | awk '$1 != 2 && $2 != 2'
        for pid in $(ps -eo pid=); do
                [ -r "/proc/$pid/stat" ] || continue
                comm=$(cat "/proc/$pid/comm" 2>/dev/null)
                state=$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)
                case "$state:$comm" in
                D:* | *:sbrun* | *:bwrap | *:conmon | *:containerd-shim*) ;;
                *) continue ;;
                esac
                echo "--- $pid $comm (state $state) ---"
                cat "/proc/$pid/stack" 2>/dev/null
                ls -l "/proc/$pid/fd" 2>/dev/null | sed 1d
        done
        echo "--- container cgroups ---"
        find /sys/fs/cgroup -mindepth 1 -maxdepth 4 -type d \( -name 'sbt-*' -o -name '*.scope' \) \
                -exec sh -c 'printf "%s: %s\n" "$1" "$(tr "\n" " " <"$1/cgroup.procs")"' _ {} \; 2>/dev/null
        echo "--- dmesg ---"
        dmesg 2>/dev/null | tail -n 20
}

stall_guard_loop() {
        local limit=$1 progress=$2 age test pid reported=""
        while sleep "${STALL_POLL:-10}"; do
                age=$(($(date +%s) - $(stat -c %Y "$progress")))
                if [ "$age" -lt "$limit" ]; then
                        reported=""
                        continue
                fi
                [ -z "$reported" ] || continue
                reported=1
                # The suite's first bats-exec-test from the top: the test's
                # own shell, not bats' countdown subshell below it (the same
                # command line).
                test=""
                for pid in $(stall_descendants "$$"); do
                        if grep -qs bats-exec-test "/proc/$pid/cmdline"; then
                                test=$pid
                                break
                        fi
                done
                {
                        echo "# stall guard: no test result for ${age}s (limit ${limit}s); bats test process ${test:-none}"
                        stall_report 2>&1 | sed 's/^/# stall: /'
                } >&2
                [ -n "$test" ] || continue
                for pid in $(stall_descendants "$test"); do
                        kill -KILL "$pid" 2>/dev/null
                done
                echo "# stall guard: killed the descendants of $test" >&2
        done
}
