#!/bin/bash
# timeline.sh [-n RUNS] -- SBRUN_RUN_COMMAND...: the phases of one `sbrun run`
# of a short-lived container, as medians over RUNS runs (default 21), from
# the kernel's process events (perf's sched tracepoints: exec, fork, exit),
# so that sbrun itself is not instrumented. Prints one line per phase in ms:
#
#   sbrun         exec of sbrun .. fork of the launcher (parse, floor, plan,
#                 state dir, memfds)
#   launcher      fork .. exec of bwrap (cgroup join, namespaces, maps)
#   bwrap         exec of bwrap .. bwrap's clone of the container
#   bwrap-child   clone .. exec of sbrun-init (mounts, pivot_root)
#   init+start    exec of sbrun-init .. exec of the process (the init's
#                 mounts, READY, sbrun's record and start, the fifo)
#   process       the container's process, exec .. exit
#   teardown      exit of the process .. exit of sbrun (reap, delete)
#   total         exec of sbrun .. exit of sbrun
#
# Needs perf (linux-perf) and root. Example:
#   tests/bench/timeline.sh -- ./sbrun --root /run/sbrun-bench run -b BUNDLE ID
set -euo pipefail

runs=21
while [ $# -gt 0 ]; do
        case $1 in
        -n) runs=$2; shift 2 ;;
        --) shift; break ;;
        *) echo "usage: $0 [-n RUNS] -- COMMAND..." >&2; exit 2 ;;
        esac
done
[ $# -gt 0 ] || { echo "usage: $0 [-n RUNS] -- COMMAND..." >&2; exit 2; }
command -v perf >/dev/null || { echo "$0: perf not found (apt-get install linux-perf)" >&2; exit 1; }

data=$(mktemp /tmp/sbrun-timeline.XXXXXX)
trap 'rm -f "$data" "$data".old' EXIT
for _ in $(seq "$runs"); do
        perf record -q -o "$data" -e sched:sched_process_exec -e sched:sched_process_fork \
                -e sched:sched_process_exit -- "$@" >/dev/null 2>&1 || true
        perf script -i "$data" -F comm,pid,time,event,trace 2>/dev/null | awk '
                NR == 1 { t0 = $3 + 0 }
                { t = ($3 + 0 - t0) * 1000 }
                /sched_process_fork/ && $1 == "sbrun" && fork == "" { fork = t }
                /sched_process_exec: filename=[^ ]*bwrap / { bwrap = t }
                /sched_process_fork/ && $1 == "bwrap" && clone == "" { clone = t }
                /sched_process_exec: filename=\/proc\/self\/fd\// { init = t }
                /sched_process_exec/ && init != "" && !/filename=\/proc\/self\/fd\// && proc == "" { proc = t }
                /sched_process_exit/ && proc != "" && $1 != "sbrun" && $1 != "bwrap" && pexit == "" { pexit = t }
                /sched_process_exit/ && $1 == "sbrun" { last = t }
                END {
                        if (proc == "" || last == "") exit
                        printf "%.3f %.3f %.3f %.3f %.3f %.3f %.3f %.3f\n", fork, bwrap - fork,
                                clone - bwrap, init - clone, proc - init, pexit - proc, last - pexit, last
                }'
done | awk '
        { for (i = 1; i <= 8; i++) v[i, NR] = $i; n = NR }
        END {
                if (n == 0) { print "no complete run recorded" > "/dev/stderr"; exit 1 }
                split("sbrun launcher bwrap bwrap-child init+start process teardown total", name, " ")
                for (i = 1; i <= 8; i++) {
                        for (j = 1; j <= n; j++) a[j] = v[i, j]
                        # insertion sort: n is small
                        for (j = 2; j <= n; j++) { x = a[j]; k = j - 1
                                while (k >= 1 && a[k] > x) { a[k + 1] = a[k]; k-- }
                                a[k + 1] = x }
                        printf "%-12s %8.2f ms\n", name[i], a[int((n + 1) / 2)]
                }
                printf "(medians of %d runs)\n", n
        }'
