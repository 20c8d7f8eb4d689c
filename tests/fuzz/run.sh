#!/bin/bash
# Run each libFuzzer harness for SECONDS (default 60) and fail if any
# finds a crash, a leak or undefined behaviour.
#   tests/fuzz/run.sh [SECONDS] [HARNESS...]      (HARNESS: config, process, ...)
# Builds the harnesses with tests/fuzz/build.sh first ($SBRUN_FUZZ_BUILDDIR,
# default /tmp/sbrun-fuzz-build). New inputs go to a temporary directory,
# never into the repository: tests/fuzz/corpus/NAME/ is only read, as the
# seed. A crashing input is left in the work directory printed at the end;
# once the bug is fixed, add it to tests/fuzz/corpus/NAME/ as a regression
# case. SBRUN_FUZZ_KEEP=DIR keeps each harness's grown corpus and log in DIR.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
seconds=${1:-60}
[ $# -gt 0 ] && shift
all=(config process policy state floor seccomp mounts dbus)
names=("$@")
[ ${#names[@]} -gt 0 ] || names=("${all[@]}")
build=${SBRUN_FUZZ_BUILDDIR:-/tmp/sbrun-fuzz-build}

"$here/build.sh" "$build" || { echo "not ok - fuzz harnesses do not build" >&2; exit 1; }

work=${SBRUN_FUZZ_KEEP:-$(mktemp -d /tmp/sbrun-fuzz.XXXXXX)}
mkdir -p "$work"
# halt_on_error: UBSan's reports fail the run as ASan's do.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:fast_unwind_on_malloc=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
# Leaks inside a dependency's own error paths (tests/fuzz/lsan.supp).
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$here/lsan.supp}
failed=0
for name in "${names[@]}"; do
        bin=$build/obj/tests/fuzz/fuzz_$name
        mkdir -p "$work/$name/corpus" "$work/$name/artifacts"
        # -close_fd_mask=2: sbrun's warnings (every floor change, every
        # unknown syscall) would flood the log; libFuzzer and the
        # sanitizers keep their own copy of stderr for their reports.
        "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
                -dict="$here/oci.dict" -close_fd_mask=2 -print_final_stats=1 \
                -artifact_prefix="$work/$name/artifacts/" \
                "$work/$name/corpus" "$here/corpus/$name" >"$work/$name/log" 2>&1
        rc=$?
        stats=$(grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb):' \
                "$work/$name/log" | sed 's/^stat:://' | tr '\n' ' ')
        cov=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$work/$name/log" | tail -1 |
                grep -oE 'cov: [0-9]+ ft: [0-9]+' || true)
        if [ $rc -eq 0 ]; then
                echo "ok - fuzz $name ${seconds}s: $cov $stats"
        else
                failed=1
                echo "not ok - fuzz $name (exit $rc): $cov $stats"
                grep -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|SUMMARY' \
                        "$work/$name/log" | head -5 | sed 's/^/#   /'
                for a in "$work/$name/artifacts"/*; do
                        [ -e "$a" ] && echo "#   input: $a"
                done
                echo "#   log: $work/$name/log"
        fi
done
if [ $failed -eq 0 ] && [ -z "${SBRUN_FUZZ_KEEP:-}" ]; then
        rm -rf "$work"
fi
exit $failed
