#!/bin/bash
# run-all.sh: sbrun's whole test suite with one summary line at the end.
#
#   SBRUN_BUILDDIR=build SBRUN_SRCDIR=. tests/run-all.sh   (what `make check` does)
#
# Runs the cmocka unit test binaries of the build tree (tests/unit/test_*),
# then every directory of bats tests under tests/ (integration first), under
# a child subreaper so that containers made by `sbrun create` are reaped.
# Ends by checking that the run left nothing behind (processes, mounts,
# state), which counts as one more test. The last line printed is exactly
# "N passed, M failed" (", K skipped" if any); the exit status is non-zero
# if anything failed or nothing ran.
set -uo pipefail

SBRUN_SRCDIR=${SBRUN_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
SBRUN_BUILDDIR=${SBRUN_BUILDDIR:-$SBRUN_SRCDIR}
SBRUN=${SBRUN:-$SBRUN_BUILDDIR/sbrun}
SBRUN_ROOTFS=${SBRUN_ROOTFS:-$SBRUN_BUILDDIR/tests/.work/rootfs}
export SBRUN_SRCDIR SBRUN_BUILDDIR SBRUN SBRUN_ROOTFS
export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-120}

SBRUN_TEST_TMP=$(mktemp -d /tmp/sbrun-tests.XXXXXX)
chmod 0755 "$SBRUN_TEST_TMP"
export SBRUN_TEST_TMP
export SUBREAPER=$SBRUN_TEST_TMP/subreaper

passed=0
failed=0
skipped=0
summaries=()

# count_tap FILE: add FILE's TAP results to the totals; sets p f s.
count_tap() {
        p=$(grep -Ec '^ok [0-9]+' "$1" | head -n 1)
        s=$(grep -Eic '^ok [0-9]+.*# *skip' "$1" | head -n 1)
        f=$(grep -Ec '^not ok [0-9]+' "$1" | head -n 1)
        p=$((p - s))
}

add_suite() { # NAME P F S
        passed=$((passed + $2))
        failed=$((failed + $3))
        skipped=$((skipped + $4))
        local line="$1: $2 passed, $3 failed"
        [ "$4" -gt 0 ] && line+=", $4 skipped"
        summaries+=("$line")
        echo "# $line"
}

# Every test passes its own --root: the default state root must come out of
# the run exactly as it went in (no container directory, no .seccomp-cache).
DEFAULT_ROOT=/run/sbrun
default_root_snapshot() {
        find "$DEFAULT_ROOT" -printf '%p %y %s %T@\n' 2>/dev/null | sort
}
default_root_before=$(default_root_snapshot)

# --- unit tests (cmocka) ------------------------------------------------------

run_unit() {
        local bin=$1 name log rc
        name=unit/$(basename "$bin")
        log=$SBRUN_TEST_TMP/$(basename "$bin").tap
        echo "# $name"
        CMOCKA_MESSAGE_OUTPUT=TAP "$bin" >"$log" 2>&1 </dev/null
        rc=$?
        sed 's/^/  /' "$log"
        count_tap "$log"
        if [ $((p + f + s)) -eq 0 ]; then
                # Not TAP (an old cmocka): read its plain summary lines.
                p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
                f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
                s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
                p=${p:-0} f=${f:-0} s=${s:-0}
        fi
        # A crash or a non-zero exit with no failure reported is a failure.
        if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
                echo "  not ok - $name exited with status $rc"
                f=1
        fi
        add_suite "$name" "$p" "$f" "$s"
}

units=()
for bin in "$SBRUN_BUILDDIR"/tests/unit/test_*; do
        [ -f "$bin" ] && [ -x "$bin" ] || continue
        case $bin in *.c | *.o | *.h | *.log | *.trs) continue ;; esac
        units+=("$bin")
done
for bin in "${units[@]}"; do
        run_unit "$bin"
done

# --- integration tests (bats) -----------------------------------------------

setup_ok=1
if ! cc -O2 -Wall -o "$SUBREAPER" "$SBRUN_SRCDIR/tests/helpers/subreaper.c"; then
        echo "# cannot build tests/helpers/subreaper.c"
        setup_ok=0
fi
if ! "$SBRUN_SRCDIR/tests/lib/make-rootfs.sh" "$SBRUN_ROOTFS"; then
        echo "# cannot build the busybox rootfs in $SBRUN_ROOTFS"
        setup_ok=0
fi
[ "$(id -u)" -eq 0 ] || echo "# the integration tests must run as root: they will fail"
[ -x "$SBRUN" ] || echo "# $SBRUN not found: the integration tests will fail"

# tests/faults walks sbrun's fault points (common/fault.h) with a sbrun
# whose points are live: `make sbrun-faults` compiles again only the files
# that hold points, in this build tree. A build that cannot make it fails
# here rather than skip the directory.
faults_ok=1
if [ -z "${SBRUN_FAULTS:-}" ]; then
        if "$SBRUN" --version 2>/dev/null | grep -qx 'fault-injection: on'; then
                SBRUN_FAULTS=$SBRUN
        elif make -C "$SBRUN_BUILDDIR" sbrun-faults >"$SBRUN_TEST_TMP/sbrun-faults.log" 2>&1; then
                SBRUN_FAULTS=$SBRUN_BUILDDIR/sbrun-faults
        else
                tail -n 20 "$SBRUN_TEST_TMP/sbrun-faults.log"
                echo "# cannot build sbrun-faults: tests/faults cannot run"
                faults_ok=0
        fi
fi
export SBRUN_FAULTS

# tests/integration first, then any other directory of bats files, except
# lanes that need another machine and have their own runner (tests/vm: a
# cgroup v2 kernel in qemu, see tests/vm/README.md).
exclude=" ${SBRUN_BATS_EXCLUDE:-vm} "
bats_dirs=()
[ -d "$SBRUN_SRCDIR/tests/integration" ] && bats_dirs+=("$SBRUN_SRCDIR/tests/integration")
for dir in "$SBRUN_SRCDIR"/tests/*/; do
        dir=${dir%/}
        [ "$dir" = "$SBRUN_SRCDIR/tests/integration" ] && continue
        [[ $exclude == *" $(basename "$dir") "* ]] && continue
        compgen -G "$dir/*.bats" >/dev/null && bats_dirs+=("$dir")
done

if [ "$faults_ok" -eq 0 ]; then
        add_suite faults 0 1 0
fi
for dir in "${bats_dirs[@]}"; do
        name=$(basename "$dir")
        [ "$name" = faults ] && [ "$faults_ok" -eq 0 ] && continue
        log=$SBRUN_TEST_TMP/$name.tap
        echo "# $name (bats)"
        if [ "$setup_ok" -eq 1 ]; then
                "$SUBREAPER" --reap bats --tap "$dir" </dev/null 2>&1 | tee "$log"
                rc=${PIPESTATUS[0]}
        else
                bats --tap "$dir" </dev/null 2>&1 | tee "$log"
                rc=${PIPESTATUS[0]}
        fi
        count_tap "$log"
        if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
                echo "not ok - bats $name exited with status $rc"
                f=1
        fi
        add_suite "$name" "$p" "$f" "$s"
done

# --- the bench, once at a tiny size -------------------------------------------

# tests/bench/run.sh --tiny proves that the benchmark still runs (every
# runtime on the bundle, the scale cases, the results, the plot); one test,
# passed when the results were written. No time is ever asserted.
echo "# bench (tests/bench/run.sh --tiny)"
bench_out=$SBRUN_TEST_TMP/bench
if TMPDIR=$SBRUN_TEST_TMP "$SBRUN_SRCDIR/tests/bench/run.sh" --tiny --out "$bench_out" \
        </dev/null >"$SBRUN_TEST_TMP/bench.log" 2>&1 &&
        jq -e '.cases.run.ratios["sbrun/crun"] and .scale.list_n_over_1' \
                "$bench_out/results.json" >/dev/null &&
        [ -s "$bench_out/table.txt" ] && [ -s "$bench_out/bench.png" ]; then
        sed 's/^/  # /' "$bench_out/table.txt"
        echo "ok 1 the bench ran at a tiny size: results.json, table.txt, bench.png"
        add_suite bench 1 0 0
else
        tail -n 20 "$SBRUN_TEST_TMP/bench.log" | sed 's/^/  # /'
        echo "not ok 1 tests/bench/run.sh --tiny did not produce its results"
        add_suite bench 0 1 0
fi

# --- style ------------------------------------------------------------------

# The C tree follows .clang-format; a file that does not is a failed test,
# and so is a missing clang-format (check-format.sh says so): a check that
# cannot run must not pass silently.
echo "# format (clang-format)"
if "$SBRUN_SRCDIR/tests/check-format.sh"; then
        echo "ok 1 every C file follows .clang-format"
        add_suite format 1 0 0
else
        echo "not ok 1 C files differ from .clang-format, or no clang-format (tests/check-format.sh)"
        add_suite format 0 1 0
fi

# --- fuzzing (libFuzzer) ----------------------------------------------------

# Each harness of tests/fuzz/ (one per input sbrun parses) runs for
# SBRUN_FUZZ_SECONDS from its seed corpus; each is one test. New inputs go
# to a temporary directory, never into the source tree. SBRUN_FUZZ=0 skips.
if [ "${SBRUN_FUZZ:-1}" != 0 ]; then
        log=$SBRUN_TEST_TMP/fuzz.tap
        fuzz_seconds=${SBRUN_FUZZ_SECONDS:-30}
        echo "# fuzz (libFuzzer, ${fuzz_seconds}s per harness)"
        SBRUN_FUZZ_BUILDDIR=${SBRUN_FUZZ_BUILDDIR:-$SBRUN_BUILDDIR/tests/.work/fuzz} \
                "$SBRUN_SRCDIR/tests/fuzz/run.sh" "$fuzz_seconds" </dev/null 2>&1 | tee "$log"
        rc=${PIPESTATUS[0]}
        p=$(grep -c '^ok - fuzz ' "$log")
        f=$(grep -c '^not ok - fuzz ' "$log")
        if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
                echo "not ok - tests/fuzz/run.sh exited with status $rc"
                f=1
        fi
        add_suite fuzz "$p" "$f" 0
fi

# --- the host suite under ASan/UBSan, beside the VM lane ----------------------

# tests/asan.sh builds sbrun with the sanitizers and runs this suite again
# without the VM lane; a leak, an invalid access or undefined behaviour in
# any command fails the test that ran it. It runs in the background while
# the VM lane below runs (or alone without one), and counts as one suite.
# SBRUN_ASAN_LANE=0 skips it (tests/asan.sh sets it for its own run).
asan_pid=""
asan_build=""
vm_pidfile=$SBRUN_TEST_TMP/vm.pid
# An interrupted run (CI cancelled, ^C) stops the lanes it started in the
# background: the ASan lane is a session of its own (setsid) and the VM
# lane's run.sh kills its qemu when it is signalled. The leftovers check
# below fails on whatever of them is still running at the end.
stop_lanes() {
        [ -n "$asan_pid" ] && kill -TERM -- "-$asan_pid" 2>/dev/null
        [ -s "$vm_pidfile" ] && kill -TERM "$(cat "$vm_pidfile")" 2>/dev/null
}
trap 'stop_lanes; exit 130' INT
trap 'stop_lanes; exit 143' TERM
trap 'stop_lanes; exit 129' HUP
if [ "${SBRUN_ASAN_LANE:-1}" != 0 ]; then
        asan_log=$SBRUN_TEST_TMP/asan.log
        asan_build=${SBRUN_ASAN_BUILDDIR:-$SBRUN_BUILDDIR/tests/.work/asan}
        echo "# asan (the host suite under ASan/UBSan, in the background: $asan_log)"
        # The sanitizers make sbrun two to three times slower.
        BATS_TEST_TIMEOUT=$((BATS_TEST_TIMEOUT * 5 / 2)) \
                SBRUN_VM_LANE=0 SBRUN_ASAN_BUILDDIR=$asan_build \
                setsid "$SBRUN_SRCDIR/tests/asan.sh" </dev/null >"$asan_log" 2>&1 &
        asan_pid=$!
        asan_start=$SECONDS
fi

# --- the VM lane: real cgroup v2 ---------------------------------------------

# This host (and CI) is a hybrid cgroup v1/v2 machine where sbrun fails
# closed; the cgroup tests run in a qemu guest with a pure v2 hierarchy and
# no opt-out policy (tests/vm/README.md). SBRUN_VM_LANE=0 skips it locally.
if [ "${SBRUN_VM_LANE:-1}" != 0 ]; then
        log=$SBRUN_TEST_TMP/vm.tap
        echo "# vm (cgroup v2 in qemu)"
        # The guest replaces /tmp and /run: the binary goes where it sees it.
        vm_bin=$(mktemp -d /var/tmp/sbrun-vm-bin.XXXXXX)
        cp "$SBRUN" "$vm_bin/sbrun"
        # The attack program of tests/vm/floor_attacks.bats, built here: the
        # guest's compiler runs ~50x slower (cgroups-suite.sh falls back to it).
        vm_env=()
        if [ -n "${SBRUN_FAULTS:-}" ] && cp "$SBRUN_FAULTS" "$vm_bin/sbrun-faults"; then
                vm_env+=(-e SBRUN_FAULTS="$vm_bin/sbrun-faults")
        fi
        if cc -O2 -Wall -static -o "$vm_bin/floor_attack" \
                "$SBRUN_SRCDIR/tests/helpers/floor_attack.c" -lpthread; then
                vm_env+=(-e SBRUN_FLOOR_ATTACK="$vm_bin/floor_attack")
        fi
        if "$SBRUN_SRCDIR/tests/vm/setup.sh" >"$SBRUN_TEST_TMP/vm-setup.log" 2>&1; then
                # Under TCG: the cgroup tests, the 512 KiB runs, the fault
                # points, races and escapes, then the engines' resource
                # checks; over 30 minutes on a 2-core machine, with the ASan
                # lane beside it for the first part. 55 minutes at most.
                (cd "$SBRUN_SRCDIR" && echo "$BASHPID" >"$vm_pidfile" &&
                        SBRUN_VM_TIMEOUT=${SBRUN_VM_TIMEOUT:-3300} SBRUN_VM_NAME=$SBRUN_TEST_TMP/vm-guest \
                        exec tests/vm/run.sh --share "$SBRUN_SRCDIR" \
                        -e SBRUN="$vm_bin/sbrun" "${vm_env[@]}" tests/vm/cgroups-suite.sh --tap) \
                        </dev/null 2>&1 | tee "$log"
                rc=${PIPESTATUS[0]}
                rm -f "$vm_pidfile"
        else
                tail -n 20 "$SBRUN_TEST_TMP/vm-setup.log"
                echo "not ok - tests/vm/setup.sh failed" | tee "$log"
                rc=1
        fi
        rm -rf "$vm_bin"
        count_tap "$log"
        if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
                echo "not ok - the VM lane exited with status $rc"
                f=1
        fi
        add_suite vm "$p" "$f" "$s"
fi

if [ -n "$asan_pid" ]; then
        wait "$asan_pid"
        rc=$?
        echo "# asan: the host suite under ASan/UBSan took $((SECONDS - asan_start))s"
        # Its failures and the first line of each sanitizer report.
        grep -E '^ *not ok|ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: ' \
                "$asan_log" | sed 's/^/#   /' | head -n 60
        summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$asan_log" | tail -n 1)
        if [ -n "$summary" ]; then
                read -r ap _ af _ as _ <<<"${summary//,/}"
                as=${as:-0}
        else
                tail -n 20 "$asan_log" | sed 's/^/#   /'
                ap=0 af=0 as=0
        fi
        if [ "$rc" -ne 0 ] && [ "$af" -eq 0 ]; then
                echo "not ok - tests/asan.sh exited with status $rc (log: $asan_log)"
                af=1
        fi
        add_suite asan "$ap" "$af" "$as"
fi

# --- leftovers --------------------------------------------------------------

# What the run may have left: processes rooted in a test rootfs or naming the
# test dir (bwrap's command line names the bundle), mounts under the test
# dir, container state in the per-test roots, anything new or changed in the
# default state root.
leftovers() {
        local t=$SBRUN_TEST_TMP
        if [ -s "$t/rootfs.ids" ]; then
                stat -L -c '%n %d:%i' /proc/[0-9]*/root /proc/[0-9]*/cwd 2>/dev/null |
                        awk 'NR == FNR { want[$1] = 1; next }
                             ($2 in want) { split($1, p, "/"); print "process " p[3] " rooted in a test rootfs" }' \
                                "$t/rootfs.ids" - | sort -u
        fi
        # "[/]tmp/..." matches the test dir but not grep's own command line;
        # test.* are the bats tests' dirs (bwrap names the bundle), vm-guest
        # the VM lane's qemu (its -name); the ASan lane's make and bats name
        # its build dir.
        local a=${asan_build:-$t/no-asan-lane}
        grep -lsE -- "[${t:0:1}]${t:1}/(test\.|vm-guest)|[${a:0:1}]${a:1}/" /proc/[0-9]*/cmdline 2>/dev/null |
                while read -r f; do
                        pid=$(cut -d/ -f3 <<<"$f")
                        echo "process $pid: $(tr '\0' ' ' <"$f" 2>/dev/null)"
                done
        awk -v d="$t/" 'index($5, d) == 1 { print "mount " $5 }' /proc/self/mountinfo
        find "$t" -mindepth 3 -maxdepth 3 -path "$t/test.*/state/*" -printf 'state %p\n' 2>/dev/null
        diff <(echo "$default_root_before") <(default_root_snapshot) |
                sed -n "s|^> |default state root changed: |p"
}

found=""
for i in $(seq 50); do
        found=$(leftovers)
        [ -z "$found" ] && break
        sleep 0.1
done
if [ -z "$found" ]; then
        echo "ok - the run left no process, mount or state behind"
        add_suite leftovers 1 0 0
else
        echo "not ok - the run left things behind:"
        sed 's/^/#   /' <<<"$found"
        add_suite leftovers 0 1 0
fi

if ! awk -v d="$SBRUN_TEST_TMP/" 'index($5, d) == 1 { exit 1 }' /proc/self/mountinfo; then
        echo "# keeping $SBRUN_TEST_TMP: something is still mounted below it"
else
        rm -rf --one-file-system "$SBRUN_TEST_TMP"
fi

echo "#"
for line in "${summaries[@]}"; do
        echo "# $line"
done
total=$((passed + failed + skipped))
final="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && final+=", $skipped skipped"
echo "$final"
[ "$failed" -eq 0 ] && [ "$total" -gt 1 ]
