#!/bin/bash
# run-all.sh: sbrun's whole test suite with one summary line at the end.
#
#   SBRUN_BUILDDIR=build SBRUN_SRCDIR=. tests/run-all.sh   (what `make check` does)
#
# Lanes, each one line of the summary with its wall time and budget:
#   vm          tests/vm/cgroups-suite.sh in a qemu guest (real cgroup v2),
#               started first, in the background: it is the longest lane
#   vm-trixie   tests/vm/trixie-suite.sh in a second guest, Debian 13's
#               kernel and tree with its systemd as PID 1 (tests/vm/run.sh
#               --guest trixie), in the same background job right after vm's
#               guest ends: never two guests at once. Its tree is built
#               (tests/vm/setup.sh --guest trixie) in the background from the
#               start. It holds the Debian 12 systemd guest's files
#               (tests/vm/systemd_*.bats), which CI no longer boots: that
#               guest would not fit in the hour beside it
#   vm-nolandlock
#               tests/vm/nolandlock-suite.sh in a third, short guest whose
#               kernel boots without Landlock (tests/vm/run.sh --no-landlock),
#               in the same job after vm-trixie's guest
#   unit        the cmocka binaries of the build tree (tests/unit/test_*)
#   integration, adversarial, engines, faults, rootless, selftest, ...
#               each directory of bats files under tests/ (but vm), under a
#               child subreaper so that containers made by `sbrun create`
#               are reaped (tests/rootless: sbrun run by a user the tests make)
#   adversarial-rootless
#               tests/adversarial again, sbrun run by an unprivileged user
#               (tests/rootless/with-user.sh)
#   bench       tests/bench/run.sh --tiny, one test
#   format      clang-format, one test
#   fuzz        each libFuzzer harness for SBRUN_FUZZ_SECONDS, then the
#               hostile-config fuzzer (tests/fuzz/hostile/run.sh --ci) for
#               SBRUN_HOSTILE_COUNT (250 configs of each of seeds 1 and 2)
#   asan        tests/asan.sh: the tests that exercise memory (units,
#               integration but its soak/scale/timing files, the fault walk)
#               again under ASan/UBSan, after the host lanes, beside the VM
#   leftovers   what the run left behind (processes, mounts, state), one test
#
# Every lane's plan (the tests it will run, by name) is known before it
# starts; a test of the plan that never reports (the lane was killed, timed
# out, crashed) is a failure, named, and so is a lane that selects or runs
# nothing. The last line is exactly "N passed, M failed" (", K skipped" if
# any) and is the sum of the lane lines above it: each test is counted once.
# The ASan lane reruns tests of other lanes: its failures are charged to the
# lane that owns the test (the test counts once, failed), what no lane owns
# to its own line; its passes are not added again (tests/lib/lanes.bash).
#
# Switches, each reported as a skipped lane with the number of tests it
# would have run, and refused when CI=true: SBRUN_VM_LANE=0 (the VM lanes),
# SBRUN_ASAN_LANE=0, SBRUN_FUZZ=0, SBRUN_BATS_EXCLUDE="DIR ..." (tests/DIR).
# The guests' timeouts: SBRUN_VM_TIMEOUT (vm, 3000 s),
# SBRUN_VM_TRIXIE_TIMEOUT (vm-trixie, 1800 s) and
# SBRUN_VM_NOLANDLOCK_TIMEOUT (vm-nolandlock, 600 s).
# SBRUN_RUN_ROLE=asan is tests/asan.sh's own run (its lane selection).
set -uo pipefail

SBRUN_SRCDIR=${SBRUN_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
SBRUN_BUILDDIR=${SBRUN_BUILDDIR:-$SBRUN_SRCDIR}
SBRUN=${SBRUN:-$SBRUN_BUILDDIR/sbrun}
SBRUN_ROOTFS=${SBRUN_ROOTFS:-$SBRUN_BUILDDIR/tests/.work/rootfs}
export SBRUN_SRCDIR SBRUN_BUILDDIR SBRUN SBRUN_ROOTFS
export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-120}
role=${SBRUN_RUN_ROLE:-all}

SBRUN_TEST_TMP=$(mktemp -d /tmp/sbrun-tests.XXXXXX)
chmod 0755 "$SBRUN_TEST_TMP"
export SBRUN_TEST_TMP
export SUBREAPER=$SBRUN_TEST_TMP/subreaper
LANES_DIR=$SBRUN_TEST_TMP
# shellcheck source=tests/lib/lanes.bash
. "$SBRUN_SRCDIR/tests/lib/lanes.bash"

# Wall-time budgets in seconds (over budget is said, never failed: the
# machines are shared). The whole run must stay under 60 minutes on a
# 2-core machine: the VM lane runs beside all the others.
declare -A BUDGET=([unit]=120 [integration]=900 [adversarial]=180 [adversarial-rootless]=180
        [rootless]=300 [engines]=600
        [faults]=300 [package]=900 [selftest]=120 [bench]=300 [format]=60 [fuzz]=600
        [asan]=1500 [vm]=3000 [vm-trixie]=1500 [vm-nolandlock]=180 [leftovers]=30)

# The ASan lane's bats files: the create/exec/delete paths and the parsers
# behind them; not the soak, scale, race and timing files (hundreds of
# containers each, nothing the host lane does not already cover) nor the
# engines (the same sbrun commands, driven slower).
ASAN_BATS_EXCLUDE=" soak.bats scale.bats races.bats timeout.bats "
asan_bats_files() {
        local f
        for f in "$SBRUN_SRCDIR"/tests/integration/*.bats; do
                [[ $ASAN_BATS_EXCLUDE == *" $(basename "$f") "* ]] || echo "$f"
        done
}

bats_dirs_all() {
        [ -d "$SBRUN_SRCDIR/tests/integration" ] && echo "$SBRUN_SRCDIR/tests/integration"
        local dir
        for dir in "$SBRUN_SRCDIR"/tests/*/; do
                dir=${dir%/}
                case $(basename "$dir") in integration | vm) continue ;; esac
                compgen -G "$dir/*.bats" >/dev/null && echo "$dir"
        done
}

# --- lanes switched off -------------------------------------------------------

exclude=" ${SBRUN_BATS_EXCLUDE:-} "
off=()
if [ "$role" = all ]; then
        [ "${SBRUN_VM_LANE:-1}" = 0 ] && off+=("SBRUN_VM_LANE=0")
        [ "${SBRUN_ASAN_LANE:-1}" = 0 ] && off+=("SBRUN_ASAN_LANE=0")
        [ "${SBRUN_FUZZ:-1}" = 0 ] && off+=("SBRUN_FUZZ=0")
        [ -n "${SBRUN_BATS_EXCLUDE:-}" ] && [ "${SBRUN_BATS_EXCLUDE}" != vm ] &&
                off+=("SBRUN_BATS_EXCLUDE=$SBRUN_BATS_EXCLUDE")
fi
if [ "${CI:-}" = true ] && [ ${#off[@]} -gt 0 ]; then
        echo "not ok - CI=true runs every lane; refused: ${off[*]}"
        lane_record lanes 0 1 0 0 "" "a lane switched off under CI"
        lanes_summary
        rm -rf "$SBRUN_TEST_TMP"
        exit 1
fi

# --- set-up shared by the lanes -------------------------------------------------

setup_start=$SECONDS
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
# the faults lane rather than skip it.
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
                SBRUN_FAULTS=""
        fi
fi
export SBRUN_FAULTS
echo "# set-up took $((SECONDS - setup_start))s"

# --- interrupted runs -------------------------------------------------------------

# An interrupted run (CI cancelled, ^C) stops the lanes it started in the
# background: the ASan lane is a session of its own (setsid); the VM job's
# run.sh kills its qemu when it is signalled, and the job boots no guest
# once vm.stop exists (vm_guest). The leftovers check below fails on
# whatever of them is still running at the end.
asan_pid=""
asan_build=""
vm_pidfile=$SBRUN_TEST_TMP/vm.pid
vm_stopfile=$SBRUN_TEST_TMP/vm.stop
stop_lanes() {
        [ -n "$asan_pid" ] && kill -TERM -- "-$asan_pid" 2>/dev/null
        # The flag first: a guest whose pid is not in the file yet reads it.
        : >"$vm_stopfile"
        [ -s "$vm_pidfile" ] && kill -TERM "$(cat "$vm_pidfile")" 2>/dev/null
}
trap 'stop_lanes; exit 130' INT
trap 'stop_lanes; exit 143' TERM
trap 'stop_lanes; exit 129' HUP

# --- the VM lane: real cgroup v2, in the background from the start -------------

# This host (and CI) is a hybrid cgroup v1/v2 machine where sbrun fails
# closed; the cgroup tests run in a qemu guest with a pure v2 hierarchy and
# no opt-out policy (tests/vm/README.md). It is the longest lane (TCG), so it
# starts before the host lanes and runs beside them. The vm-trixie lane's
# guest (Debian 13, systemd as PID 1) boots in the same job when the first
# one has ended: the machine has two cores, and two guests under TCG beside
# the host lanes would starve all three. The vm-nolandlock lane's guest (a
# kernel without Landlock) boots third, in the same job.
vm_lane=0
vm_env=()
if [ "$role" = all ]; then
        # The plans, on the host: the same selections the guests will run.
        SBRUN_FAULTS=${SBRUN_FAULTS:-} "$SBRUN_SRCDIR/tests/vm/cgroups-suite.sh" --plan \
                >"$SBRUN_TEST_TMP/vm.plan" 2>"$SBRUN_TEST_TMP/vm.plan.err" ||
                echo "# tests/vm/cgroups-suite.sh --plan failed: $(tail -n 1 "$SBRUN_TEST_TMP/vm.plan.err")"
        SBRUN_FAULTS=${SBRUN_FAULTS:-} "$SBRUN_SRCDIR/tests/vm/trixie-suite.sh" --plan \
                >"$SBRUN_TEST_TMP/vm-trixie.plan" 2>"$SBRUN_TEST_TMP/vm-trixie.plan.err" ||
                echo "# tests/vm/trixie-suite.sh --plan failed: $(tail -n 1 "$SBRUN_TEST_TMP/vm-trixie.plan.err")"
        "$SBRUN_SRCDIR/tests/vm/nolandlock-suite.sh" --plan \
                >"$SBRUN_TEST_TMP/vm-nolandlock.plan" 2>"$SBRUN_TEST_TMP/vm-nolandlock.plan.err" ||
                echo "# tests/vm/nolandlock-suite.sh --plan failed: $(tail -n 1 "$SBRUN_TEST_TMP/vm-nolandlock.plan.err")"
        if [ "${SBRUN_VM_LANE:-1}" = 0 ]; then
                lane_skipped vm "$(grep -c '' "$SBRUN_TEST_TMP/vm.plan")" "SBRUN_VM_LANE=0"
                lane_skipped vm-trixie "$(grep -c '' "$SBRUN_TEST_TMP/vm-trixie.plan")" "SBRUN_VM_LANE=0"
                lane_skipped vm-nolandlock "$(grep -c '' "$SBRUN_TEST_TMP/vm-nolandlock.plan")" "SBRUN_VM_LANE=0"
        else
                vm_lane=1
        fi
fi
# vm_guest LANE NAME TIMEOUT RUN.SH-ARG...: one guest of the VM job, named
# $SBRUN_TEST_TMP/NAME (the leftovers check finds its qemu by it): its
# output to LANE.tap, its exit status to LANE.rc, when it started and ended
# (this run's SECONDS) to LANE.start and LANE.end. Its pid is in vm_pidfile
# before it boots, and it boots only if vm_stopfile is not there after that:
# stop_lanes makes the file before it reads the pid, so a guest is either
# signalled or never booted.
vm_guest() {
        local lane=$1 name=$2 timeout=$3
        shift 3
        echo "$SECONDS" >"$SBRUN_TEST_TMP/$lane.start"
        (cd "$SBRUN_SRCDIR" && echo "$BASHPID" >"$vm_pidfile" && [ ! -e "$vm_stopfile" ] &&
                SBRUN_VM_TIMEOUT=$timeout SBRUN_VM_NAME=$SBRUN_TEST_TMP/$name exec tests/vm/run.sh "$@") \
                </dev/null >"$SBRUN_TEST_TMP/$lane.tap" 2>&1
        echo $? >"$SBRUN_TEST_TMP/$lane.rc"
        rm -f "$vm_pidfile"
        echo "$SECONDS" >"$SBRUN_TEST_TMP/$lane.end"
}

if [ "$vm_lane" = 1 ]; then
        echo "# vm (cgroup v2 in qemu, in the background: $SBRUN_TEST_TMP/vm.tap)"
        echo "# vm-trixie (Debian 13 in qemu, after vm's guest: $SBRUN_TEST_TMP/vm-trixie.tap)"
        echo "# vm-nolandlock (a kernel without Landlock in qemu, after vm-trixie's guest: $SBRUN_TEST_TMP/vm-nolandlock.tap)"
        vm_start=$SECONDS
        # The guest replaces /tmp and /run: the binaries go where it sees them.
        vm_bin=$(mktemp -d /var/tmp/sbrun-vm-bin.XXXXXX)
        cp "$SBRUN" "$vm_bin/sbrun"
        # The host's busybox rootfs: each guest copies it rather than build
        # it again (most of a minute under TCG; tests/vm/suite_guest.bash).
        vm_env=()
        if cp -a "$SBRUN_ROOTFS" "$vm_bin/rootfs" 2>/dev/null; then
                vm_env+=(-e SBRUN_VM_ROOTFS="$vm_bin/rootfs")
        else
                rm -rf "$vm_bin/rootfs"
        fi
        if [ -n "$SBRUN_FAULTS" ] && cp "$SBRUN_FAULTS" "$vm_bin/sbrun-faults"; then
                vm_env+=(-e SBRUN_FAULTS="$vm_bin/sbrun-faults")
        fi
        # The attack program of tests/vm/floor_attacks.bats, built here: the
        # guest's compiler runs ~50x slower (cgroups-suite.sh falls back to it).
        if cc -O2 -Wall -static -o "$vm_bin/floor_attack" \
                "$SBRUN_SRCDIR/tests/helpers/floor_attack.c" -lpthread; then
                vm_env+=(-e SBRUN_FLOOR_ATTACK="$vm_bin/floor_attack")
        fi
        # The trixie guest has no compiler: the pty helper of
        # tests/engines/podman.bats's -it test and the sd_notify client of
        # trixie_podman.bats' notify tests, built here.
        trixie_env=()
        if cc -O2 -Wall -static -o "$vm_bin/pty_run" "$SBRUN_SRCDIR/tests/helpers/pty_run.c"; then
                trixie_env+=(-e SBRUN_PTY_RUN="$vm_bin/pty_run")
        fi
        if cc -O2 -Wall -static -o "$vm_bin/sd_notify" "$SBRUN_SRCDIR/tests/helpers/sd_notify.c"; then
                trixie_env+=(-e SBRUN_SD_NOTIFY="$vm_bin/sd_notify")
        fi
        (
                # The trixie tree (mmdebstrap: network and dpkg, a minute or
                # two the first time, a second once cached), beside the first
                # guest.
                "$SBRUN_SRCDIR/tests/vm/setup.sh" --guest trixie >"$SBRUN_TEST_TMP/vm-trixie-setup.log" 2>&1 &
                trixie_setup=$!
                if "$SBRUN_SRCDIR/tests/vm/setup.sh" >"$SBRUN_TEST_TMP/vm-setup.log" 2>&1; then
                        # Under TCG, beside the host lanes: 50 minutes at most.
                        vm_guest vm vm-guest "${SBRUN_VM_TIMEOUT:-3000}" --share "$SBRUN_SRCDIR" \
                                -e SBRUN="$vm_bin/sbrun" "${vm_env[@]}" tests/vm/cgroups-suite.sh --tap
                        # Then Debian 13, once the first has ended: one at a
                        # time. Its / is the trixie tree: sbrun and the rest of
                        # vm_bin come in through --host-dir.
                        if wait "$trixie_setup"; then
                                vm_guest vm-trixie vm-trixie-guest "${SBRUN_VM_TRIXIE_TIMEOUT:-1800}" --guest trixie \
                                        --share "$SBRUN_SRCDIR" --host-dir "$vm_bin" -e SBRUN="$vm_bin/sbrun" \
                                        "${vm_env[@]}" "${trixie_env[@]}" tests/vm/trixie-suite.sh --tap
                        else
                                tail -n 20 "$SBRUN_TEST_TMP/vm-trixie-setup.log" >"$SBRUN_TEST_TMP/vm-trixie.tap"
                                echo "not ok - tests/vm/setup.sh --guest trixie failed" >>"$SBRUN_TEST_TMP/vm-trixie.tap"
                                echo 1 >"$SBRUN_TEST_TMP/vm-trixie.rc"
                        fi
                        # Then the kernel without Landlock: a handful of tests.
                        vm_guest vm-nolandlock vm-nolandlock-guest "${SBRUN_VM_NOLANDLOCK_TIMEOUT:-600}" \
                                --no-landlock --share "$SBRUN_SRCDIR" -e SBRUN="$vm_bin/sbrun" "${vm_env[@]}" \
                                tests/vm/nolandlock-suite.sh --tap
                else
                        wait "$trixie_setup"
                        for lane in vm vm-trixie vm-nolandlock; do
                                tail -n 20 "$SBRUN_TEST_TMP/vm-setup.log" >"$SBRUN_TEST_TMP/$lane.tap"
                                echo "not ok - tests/vm/setup.sh failed" >>"$SBRUN_TEST_TMP/$lane.tap"
                                echo 1 >"$SBRUN_TEST_TMP/$lane.rc"
                        done
                fi
                # Every guest is done with the binaries.
                rm -rf "$vm_bin"
        ) &
        vm_job=$!
fi

# --- unit tests (cmocka) --------------------------------------------------------

# The binaries Makefile.am builds (each tests_unit_test_*_SOURCES): a missing one is a
# failure by name, none at all a failed lane.
unit_lane() {
        local start=$SECONDS bin name log rc up=0 uf=0 us=0 want
        want=$(sed -n 's|^tests_unit_\(test_[a-z0-9_]*\)_SOURCES.*|tests/unit/\1|p' \
                "$SBRUN_SRCDIR/Makefile.am" | sort -u)
        : >"$LANES_DIR/unit.tap"
        for name in $want; do
                bin=$SBRUN_BUILDDIR/$name
                log=$SBRUN_TEST_TMP/$(basename "$bin").tap
                echo "# unit/$(basename "$bin")"
                if [ ! -x "$bin" ]; then
                        echo "  not ok - unit/$(basename "$bin"): no binary at $bin" | tee -a "$LANES_DIR/unit.tap"
                        uf=$((uf + 1))
                        continue
                fi
                CMOCKA_MESSAGE_OUTPUT=TAP "$bin" >"$log" 2>&1 </dev/null
                rc=$?
                sed 's/^/  /' "$log" | tee -a "$LANES_DIR/unit.tap"
                tap_count "$log"
                # A crash or a non-zero exit with no failure reported is a failure;
                # so is a binary that reported nothing.
                if { [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; } || [ $((p + f + s)) -eq 0 ]; then
                        echo "  not ok - unit/$(basename "$bin") exited with status $rc after $((p + f + s)) results" |
                                tee -a "$LANES_DIR/unit.tap"
                        f=$((f + 1))
                fi
                up=$((up + p)) uf=$((uf + f)) us=$((us + s))
        done
        local note=""
        if [ -z "$want" ]; then
                echo "not ok - no unit test binary is named in Makefile.am"
                uf=$((uf + 1))
                note="no unit binaries"
        fi
        lane_record unit "$up" "$uf" "$us" $((SECONDS - start)) "${BUDGET[unit]}" "$note"
}
unit_lane

# --- bats lanes -----------------------------------------------------------------

# bats_lane NAME PATH...: one lane of bats files or directories, run
# under the command in lane_wrapper if it names one.
lane_wrapper=()
bats_lane() {
        local name=$1 start=$SECONDS log rc
        shift
        log=$LANES_DIR/$name.tap
        bats_names "$@" >"$LANES_DIR/$name.plan"
        echo "# $name (bats, $(grep -c '' "$LANES_DIR/$name.plan") tests)"
        if [ "$setup_ok" -eq 1 ]; then
                "$SUBREAPER" --reap "${lane_wrapper[@]}" bats --tap "$@" </dev/null 2>&1 | tee "$log"
                rc=${PIPESTATUS[0]}
        else
                bats --tap "$@" </dev/null 2>&1 | tee "$log"
                rc=${PIPESTATUS[0]}
        fi
        lane_tap "$name" "$log" "$LANES_DIR/$name.plan" "$rc" $((SECONDS - start)) "${BUDGET[$name]:-600}"
}

host_lanes=(unit)
if [ "$role" = asan ]; then
        mapfile -t files < <(asan_bats_files)
        bats_lane integration "${files[@]}"
        host_lanes+=(integration)
        dirs=("$SBRUN_SRCDIR/tests/faults")
else
        mapfile -t dirs < <(bats_dirs_all)
fi
for dir in "${dirs[@]}"; do
        name=$(basename "$dir")
        if [[ $exclude == *" $name "* ]]; then
                lane_skipped "$name" "$(bats_names "$dir" | grep -c '')" "SBRUN_BATS_EXCLUDE"
                continue
        fi
        if [ "$name" = faults ] && [ "$faults_ok" -eq 0 ]; then
                echo "not ok - tests/faults: no sbrun-faults (see above)"
                lane_record faults 0 1 0 0 "" "no sbrun-faults"
                continue
        fi
        bats_lane "$name" "$dir"
        host_lanes+=("$name")
done

# The floor's attack suite again, with sbrun run by an unprivileged user
# the wrapper makes and removes (tests/rootless/with-user.sh): every
# guarantee of the floor holds rootless too. (A tree without both, as
# tests/selftest's, has no such lane.)
if [ "$role" = all ] && [ -d "$SBRUN_SRCDIR/tests/adversarial" ] &&
        [ -x "$SBRUN_SRCDIR/tests/rootless/with-user.sh" ]; then
        if [[ $exclude == *" rootless "* ]] || [[ $exclude == *" adversarial "* ]]; then
                lane_skipped adversarial-rootless "$(bats_names "$SBRUN_SRCDIR/tests/adversarial" | grep -c '')" \
                        "SBRUN_BATS_EXCLUDE"
        else
                lane_wrapper=("$SBRUN_SRCDIR/tests/rootless/with-user.sh")
                bats_lane adversarial-rootless "$SBRUN_SRCDIR/tests/adversarial"
                lane_wrapper=()
                host_lanes+=(adversarial-rootless)
        fi
fi

if [ "$role" = all ]; then
        # --- the bench, once at a tiny size -------------------------------------

        # tests/bench/run.sh --tiny proves that the benchmark still runs (every
        # runtime on the bundle, the scale cases, the results, the plot); one
        # test, passed when the results were written. No time is ever asserted.
        echo "# bench (tests/bench/run.sh --tiny)"
        start=$SECONDS
        bench_out=$SBRUN_TEST_TMP/bench
        if TMPDIR=$SBRUN_TEST_TMP "$SBRUN_SRCDIR/tests/bench/run.sh" --tiny --out "$bench_out" \
                </dev/null >"$SBRUN_TEST_TMP/bench.log" 2>&1 &&
                jq -e '.cases.run.ratios["sbrun/crun"] and .scale.list_n_over_1' \
                        "$bench_out/results.json" >/dev/null &&
                [ -s "$bench_out/table.txt" ] && [ -s "$bench_out/bench.png" ]; then
                sed 's/^/  # /' "$bench_out/table.txt"
                echo "ok 1 the bench ran at a tiny size: results.json, table.txt, bench.png"
                lane_record bench 1 0 0 $((SECONDS - start)) "${BUDGET[bench]}"
        else
                tail -n 20 "$SBRUN_TEST_TMP/bench.log" | sed 's/^/  # /'
                echo "not ok 1 tests/bench/run.sh --tiny did not produce its results"
                lane_record bench 0 1 0 $((SECONDS - start)) "${BUDGET[bench]}"
        fi

        # --- style ----------------------------------------------------------------

        # The C tree follows .clang-format; a file that does not is a failed
        # test, and so is a missing clang-format (check-format.sh says so): a
        # check that cannot run must not pass silently.
        echo "# format (clang-format)"
        start=$SECONDS
        if "$SBRUN_SRCDIR/tests/check-format.sh"; then
                echo "ok 1 every C file follows .clang-format"
                lane_record format 1 0 0 $((SECONDS - start)) "${BUDGET[format]}"
        else
                echo "not ok 1 C files differ from .clang-format, or no clang-format (tests/check-format.sh)"
                lane_record format 0 1 0 $((SECONDS - start)) "${BUDGET[format]}"
        fi

        # --- fuzzing (libFuzzer) --------------------------------------------------

        # Each harness of tests/fuzz/ (one per input sbrun parses) runs for
        # SBRUN_FUZZ_SECONDS from its seed corpus; each is one test. New inputs
        # go to a temporary directory, never into the source tree. Then the
        # hostile-config fuzzer (tests/fuzz/hostile/) runs mutated engine
        # configs with the built sbrun, SBRUN_HOSTILE_COUNT of each seed, one test.
        ls "$SBRUN_SRCDIR"/tests/fuzz/fuzz_*.c 2>/dev/null |
                sed 's|.*/fuzz_\(.*\)\.c$|fuzz \1|' >"$LANES_DIR/fuzz.plan"
        hostile=$SBRUN_SRCDIR/tests/fuzz/hostile/run.sh
        [ -x "$hostile" ] && echo "fuzz hostile" >>"$LANES_DIR/fuzz.plan"
        if [ "${SBRUN_FUZZ:-1}" = 0 ]; then
                lane_skipped fuzz "$(grep -c '' "$LANES_DIR/fuzz.plan")" "SBRUN_FUZZ=0"
        else
                log=$LANES_DIR/fuzz.tap
                start=$SECONDS
                fuzz_seconds=${SBRUN_FUZZ_SECONDS:-30}
                echo "# fuzz (libFuzzer, ${fuzz_seconds}s per harness)"
                SBRUN_FUZZ_BUILDDIR=${SBRUN_FUZZ_BUILDDIR:-$SBRUN_BUILDDIR/tests/.work/fuzz} \
                        "$SBRUN_SRCDIR/tests/fuzz/run.sh" "$fuzz_seconds" </dev/null 2>&1 | tee "$log.raw"
                rc=${PIPESTATUS[0]}
                if [ -x "$hostile" ]; then
                        TMPDIR=$SBRUN_TEST_TMP "$hostile" --ci "${SBRUN_HOSTILE_COUNT:-250}" </dev/null 2>&1 |
                                tee -a "$log.raw"
                        [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
                fi
                # run.sh prints "ok - fuzz NAME ...": numbered here for the plan check.
                awk '/^(not )?ok - fuzz / { n++; sub(/ - /, " " n " "); print; next } { print }' \
                        "$log.raw" >"$log"
                lane_tap fuzz "$log" "$LANES_DIR/fuzz.plan" "$rc" $((SECONDS - start)) "${BUDGET[fuzz]}"
        fi

        # --- the ASan/UBSan lane, after the host lanes, beside the VM lane ---------

        # tests/asan.sh builds sbrun with the sanitizers and runs this script
        # again with SBRUN_RUN_ROLE=asan (its selection above); a leak, an
        # invalid access or undefined behaviour fails the test that ran it.
        # Its plan: the unit results of this run and its bats selection.
        if [ "${SBRUN_ASAN_LANE:-1}" = 0 ]; then
                mapfile -t files < <(asan_bats_files)
                { tap_reported_names "$LANES_DIR/unit.tap"; bats_names "${files[@]}" "$SBRUN_SRCDIR/tests/faults"; } \
                        >"$LANES_DIR/asan.plan"
                lane_skipped asan "$(grep -c '' "$LANES_DIR/asan.plan")" "SBRUN_ASAN_LANE=0"
        else
                mapfile -t files < <(asan_bats_files)
                { tap_reported_names "$LANES_DIR/unit.tap"; bats_names "${files[@]}" "$SBRUN_SRCDIR/tests/faults"; } \
                        >"$LANES_DIR/asan.plan"
                asan_log=$SBRUN_TEST_TMP/asan.log
                asan_build=${SBRUN_ASAN_BUILDDIR:-$SBRUN_BUILDDIR/tests/.work/asan}
                echo "# asan (units, integration, faults under ASan/UBSan: $asan_log)"
                start=$SECONDS
                # The sanitizers make sbrun two to three times slower.
                BATS_TEST_TIMEOUT=$((BATS_TEST_TIMEOUT * 5 / 2)) SBRUN_ASAN_BUILDDIR=$asan_build \
                        setsid "$SBRUN_SRCDIR/tests/asan.sh" </dev/null >"$asan_log" 2>&1 &
                asan_pid=$!
                wait "$asan_pid"
                rc=$?
                asan_pid=""
                t=$((SECONDS - start))
                # The first line of each sanitizer report.
                grep -E 'ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: ' "$asan_log" |
                        sed 's/^/#   /' | head -n 40
                tap_count "$asan_log"
                ap=$p af=$f as=$s
                lanes_missing "$asan_log" "$LANES_DIR/asan.plan" >>"$asan_log"
                lanes_fold "$asan_log" "${host_lanes[@]}"
                note="reran $((ap + af + as)) tests of the lanes above: $ap passed, $af failed"
                [ "$unfolded" -lt $(grep -Ec '^ *not ok' "$asan_log") ] && note+="; failures are counted in their own lanes"
                if [ "$rc" -ne 0 ] && [ "$unfolded" -eq 0 ] && [ "$(grep -Ec '^ *not ok' "$asan_log")" -eq 0 ]; then
                        tail -n 20 "$asan_log" | sed 's/^/#   /'
                        echo "not ok - tests/asan.sh exited with status $rc (log: $asan_log)"
                        unfolded=1
                fi
                lane_record asan 0 "$unfolded" 0 "$t" "${BUDGET[asan]}" "$note"
        fi
fi

# vm_lane_tap LANE FROM: a guest's lane, from the files vm_guest wrote; its
# wall time from FROM (the lane's start in this run's SECONDS) to the end of
# its guest.
vm_lane_tap() {
        local lane=$1 from=$2 end t=$SBRUN_TEST_TMP
        end=$(cat "$t/$lane.end" 2>/dev/null || echo "$from")
        touch "$t/$lane.tap"
        cat "$t/$lane.tap"
        lane_tap "$lane" "$t/$lane.tap" "$t/$lane.plan" "$(cat "$t/$lane.rc" 2>/dev/null || echo 1)" \
                $((end - from)) "${BUDGET[$lane]}"
}

if [ "$vm_lane" = 1 ]; then
        echo "# waiting for the VM lanes"
        wait "$vm_job"
        vm_lane_tap vm "$vm_start"
        vm_lane_tap vm-trixie "$(cat "$SBRUN_TEST_TMP/vm-trixie.start" 2>/dev/null || echo "$SECONDS")"
        vm_lane_tap vm-nolandlock "$(cat "$SBRUN_TEST_TMP/vm-nolandlock.start" 2>/dev/null || echo "$SECONDS")"
fi

# --- leftovers --------------------------------------------------------------------

# What this run left: processes rooted in a test rootfs or naming the test
# dir (bwrap's command line names the bundle), mounts under the test dir,
# container state in the per-test roots (every test passes its own --root
# under the test dir, with its own seccomp cache), and containers in the
# default state root whose bundle is in the test dir. The default root's
# .seccomp-cache is shared by every sbrun on the machine and is not ours to
# judge: another program's sbrun may write it at any time.
DEFAULT_ROOT=/run/sbrun
leftovers() {
        local t=$SBRUN_TEST_TMP
        if [ -s "$t/rootfs.ids" ]; then
                stat -L -c '%n %d:%i' /proc/[0-9]*/root /proc/[0-9]*/cwd 2>/dev/null |
                        awk 'NR == FNR { want[$1] = 1; next }
                             ($2 in want) { split($1, p, "/"); print "process " p[3] " rooted in a test rootfs" }' \
                                "$t/rootfs.ids" - | sort -u
        fi
        # "[/]tmp/..." matches the test dir but not grep's own command line;
        # test.* are the bats tests' dirs (bwrap names the bundle), vm-guest,
        # vm-trixie-guest and vm-nolandlock-guest the VM lanes' qemu (its
        # -name); the ASan lane's make and bats name its build dir.
        local a=${asan_build:-$t/no-asan-lane}
        grep -lsE -- "[${t:0:1}]${t:1}/(test\.|vm-guest|vm-trixie-guest|vm-nolandlock-guest)|[${a:0:1}]${a:1}/" /proc/[0-9]*/cmdline 2>/dev/null |
                while read -r f; do
                        pid=$(cut -d/ -f3 <<<"$f")
                        echo "process $pid: $(tr '\0' ' ' <"$f" 2>/dev/null)"
                done
        awk -v d="$t/" 'index($5, d) == 1 { print "mount " $5 }' /proc/self/mountinfo
        find "$t" -mindepth 3 -maxdepth 3 -path "$t/test.*/state/*" -printf 'state %p\n' 2>/dev/null
        grep -lsF -- "$t/" "$DEFAULT_ROOT"/*/state.json 2>/dev/null | sed 's|^|default state root: |'
        # The rootless tests' users (tests/rootless/rootless.bash): gone,
        # with their processes, runtime directories, subordinate ids and
        # systemd units.
        local user uid
        while read -r user uid; do
                getent passwd "$user" >/dev/null && echo "user $user still exists"
                grep -qs "^$user:" /etc/subuid /etc/subgid && echo "subordinate ids of $user"
                [ -e "/run/user/$uid" ] && echo "runtime directory /run/user/$uid"
                [ -e "/var/lib/systemd/linger/$user" ] && echo "linger file of $user"
                awk -v u="$uid" '/^Uid:/ && $2 == u { split(FILENAME, p, "/"); print "process " p[3] " of user " u }' \
                        /proc/[0-9]*/status 2>/dev/null
        done < <(cat "$t/rootless.users" 2>/dev/null)
}

start=$SECONDS
found=""
for i in $(seq 50); do
        found=$(leftovers)
        [ -z "$found" ] && break
        sleep 0.1
done
if [ -z "$found" ]; then
        echo "ok 1 the run left no process, mount or state behind"
        lane_record leftovers 1 0 0 $((SECONDS - start)) "${BUDGET[leftovers]}"
else
        echo "not ok 1 the run left things behind:"
        sed 's/^/#   /' <<<"$found"
        lane_record leftovers 0 1 0 $((SECONDS - start)) "${BUDGET[leftovers]}"
fi

if ! awk -v d="$SBRUN_TEST_TMP/" 'index($5, d) == 1 { exit 1 }' /proc/self/mountinfo; then
        echo "# keeping $SBRUN_TEST_TMP: something is still mounted below it"
else
        rm -rf --one-file-system "$SBRUN_TEST_TMP"
fi

lanes_summary
