#!/usr/bin/env bats
# tests/run-all.sh itself, run on a fake source tree whose lanes are scripts
# that print what the test wants (a lane killed mid-way, a failure only
# under ASan, ...): the summary must count each test once, name what never
# reported, and refuse switched-off lanes under CI.

setup() {
        SELF_DIR=$(mktemp -d "${SBRUN_TEST_TMP:-/tmp}/selftest.XXXXXX")
        src=$SELF_DIR/src
        mkdir -p "$src/tests/lib" "$src/tests/helpers" "$src/tests/integration" "$src/tests/vm" \
                "$src/tests/bench" "$src/tests/fuzz" "$src/build/tests/unit"
        cp "$SBRUN_SRCDIR/tests/run-all.sh" "$src/tests/"
        cp "$SBRUN_SRCDIR/tests/lib/lanes.bash" "$src/tests/lib/"
        cp "$SBRUN_SRCDIR/tests/helpers/subreaper.c" "$src/tests/helpers/"
        printf '#!/bin/sh\nexit 0\n' >"$src/tests/lib/make-rootfs.sh"
        printf '#!/bin/sh\necho fault-injection: on\n' >"$src/build/sbrun"
        # One unit binary, two results.
        echo 'tests_unit_test_one_SOURCES = tests/unit/test_one.c' >"$src/Makefile.am"
        printf '#!/bin/sh\necho 1..2\necho "ok 1 - u_first"\necho "ok 2 - u_second"\n' \
                >"$src/build/tests/unit/test_one"
        # A bats lane of three tests.
        # (printf: bats would take an "@test" line of this file as its own)
        for t in one two three; do
                printf '@%s "alpha %s" { true; }\n' test "$t"
        done >"$src/tests/integration/a.bats"
        # The VM lanes: vm's plan has three tests, vm-trixie's two,
        # vm-nolandlock's one; how each guest ends is the test's. Each guest notes in guests.log when it
        # begins and ends, and whether the sbrun copy it was given is there.
        cat >"$src/tests/vm/cgroups-suite.sh" <<'B'
#!/bin/bash
[ "$1" = --plan ] && printf 'vm one\nvm two\nvm three\n'
B
        cat >"$src/tests/vm/trixie-suite.sh" <<'B'
#!/bin/bash
[ "$1" = --plan ] && printf 'sd one\nsd two\n'
B
        cat >"$src/tests/vm/nolandlock-suite.sh" <<'B'
#!/bin/bash
[ "$1" = --plan ] && printf 'nl one\n'
B
        printf '#!/bin/sh\nexit 0\n' >"$src/tests/vm/setup.sh"
        cat >"$src/tests/vm/run.sh" <<'B'
#!/bin/bash
log=$SELF_DIR/guests.log
for a; do case $a in SBRUN=*) [ -x "${a#SBRUN=}" ] || echo "${SBRUN_VM_NAME##*/}: no sbrun" >>"$log" ;; esac; done
echo "${SBRUN_VM_NAME##*/} begin" >>"$log"
trap 'echo "${SBRUN_VM_NAME##*/} end" >>"$log"' EXIT
case $1 in
--guest) cmd=${SELF_VM_TRIXIE:-"printf '1..2\nok 1 sd one\nok 2 sd two\n'"} ;;
--no-landlock) cmd=${SELF_VM_NOLANDLOCK:-"printf '1..1\nok 1 nl one\n'"} ;;
*) cmd=${SELF_VM:-"sleep 1; printf '1..3\nok 1 vm one\nok 2 vm two\nok 3 vm three\n'"} ;;
esac
# As the real run.sh: a TERM ends the guest too.
bash -c "$cmd" &
trap 'kill $! 2>/dev/null; exit 143' TERM
wait $!
B
        cat >"$src/tests/bench/run.sh" <<'B'
#!/bin/bash
while [ $# -gt 0 ]; do [ "$1" = --out ] && out=$2; shift; done
mkdir -p "$out"; echo '{"cases":{"run":{"ratios":{"sbrun/crun":1}}},"scale":{"list_n_over_1":1}}' >"$out/results.json"
echo t >"$out/table.txt"; echo p >"$out/bench.png"
B
        printf '#!/bin/sh\nexit 0\n' >"$src/tests/check-format.sh"
        touch "$src/tests/fuzz/fuzz_a.c" "$src/tests/fuzz/fuzz_b.c"
        printf '#!/bin/sh\necho "ok - fuzz a"\necho "ok - fuzz b"\n' >"$src/tests/fuzz/run.sh"
        # The ASan lane reruns the unit and alpha tests; what it prints is the test's.
        cat >"$src/tests/asan.sh" <<'B'
#!/bin/bash
exec bash -c "${SELF_ASAN:-printf '  ok 1 - u_first\n  ok 2 - u_second\nok 1 alpha one\nok 2 alpha two\nok 3 alpha three\n'}"
B
        chmod +x "$src"/tests/*.sh "$src"/tests/*/*.sh "$src/build/sbrun" "$src/build/tests/unit/test_one"
}

teardown() {
        rm -rf "$SELF_DIR"
}

# The outer run's switches and paths must not reach the fake run.
clean_env=(-u CI -u SBRUN_VM_LANE -u SBRUN_ASAN_LANE -u SBRUN_FUZZ -u SBRUN_BATS_EXCLUDE
        -u SBRUN_RUN_ROLE -u SBRUN -u SBRUN_ROOTFS -u SBRUN_FUZZ_SECONDS -u SBRUN_FUZZ_BUILDDIR)

run_all() {
        run env "${clean_env[@]}" SBRUN_SRCDIR="$src" SBRUN_BUILDDIR="$src/build" SBRUN_FAULTS=/bin/true \
                SBRUN_ASAN_BUILDDIR="$SELF_DIR/asan" SELF_DIR="$SELF_DIR" "$@" bash "$src/tests/run-all.sh"
        last=${lines[${#lines[@]} - 1]}
}

# The lane lines of the closing summary, summed, as "P passed, F failed, S skipped".
lane_sum() {
        printf '%s\n' "$output" | sed -n '/^#$/,$p' |
                sed -nE 's/^# [a-z-]+: ([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)? in .*/\1 \2 \4/p' |
                awk '{ p += $1; f += $2; s += $3 } END { printf "%d passed, %d failed", p, f; if (s) printf ", %d skipped", s }'
}

@test "selftest: every lane passing: the last line is the sum of the lane lines, each test once" {
        run_all
        [ "$status" -eq 0 ]
        # unit 2, alpha 3, bench 1, format 1, fuzz 2, vm 3, vm-trixie 2,
        # vm-nolandlock 1, leftovers 1; asan adds nothing.
        [ "$last" = "16 passed, 0 failed" ]
        [ "$(lane_sum)" = "$last" ]
        [[ $output == *"# asan: 0 passed, 0 failed in "*"reran 5 tests of the lanes above: 5 passed, 0 failed"* ]]
        [[ $output =~ \#\ vm:\ 3\ passed,\ 0\ failed\ in\ [0-9]+s ]]
        [[ $output =~ \#\ vm-trixie:\ 2\ passed,\ 0\ failed\ in\ [0-9]+s ]]
        [[ $output =~ \#\ vm-nolandlock:\ 1\ passed,\ 0\ failed\ in\ [0-9]+s ]]
}

@test "selftest: the trixie guest boots after the busybox guest has ended, the no-Landlock guest after it, each with its own name, the sbrun copy still there" {
        run_all
        [ "$status" -eq 0 ]
        run cat "$SELF_DIR/guests.log"
        [ "${lines[*]}" = "vm-guest begin vm-guest end vm-trixie-guest begin vm-trixie-guest end vm-nolandlock-guest begin vm-nolandlock-guest end" ]
}

@test "selftest: a trixie guest killed mid-way counts the tests it never reported as failed, by name" {
        SELF_VM_TRIXIE="printf '1..2\nok 1 sd one\n'; exit 124" run_all
        [ "$status" -ne 0 ]
        [[ $output == *"not ok - sd two (never reported"* ]]
        [[ $output == *"# vm-trixie: 1 passed, 1 failed in "*"1 never reported"* ]]
        [[ $output =~ \#\ vm:\ 3\ passed,\ 0\ failed\ in\ [0-9]+s ]]
        [ "$last" = "15 passed, 1 failed" ]
        [ "$(lane_sum)" = "$last" ]
}

@test "selftest: a no-Landlock guest that dies before it reports counts its test as failed, by name" {
        SELF_VM_NOLANDLOCK="exit 125" run_all
        [ "$status" -ne 0 ]
        [[ $output == *"not ok - nl one (never reported"* ]]
        [[ $output == *"# vm-nolandlock: 0 passed, 1 failed in "*"1 never reported"* ]]
        [[ $output =~ \#\ vm-trixie:\ 2\ passed,\ 0\ failed\ in\ [0-9]+s ]]
        [ "$last" = "15 passed, 1 failed" ]
        [ "$(lane_sum)" = "$last" ]
}

@test "selftest: a run stopped while the busybox guest runs stops it and never boots the trixie or the no-Landlock guest" {
        local t i
        env "${clean_env[@]}" SBRUN_SRCDIR="$src" SBRUN_BUILDDIR="$src/build" SBRUN_FAULTS=/bin/true \
                SBRUN_ASAN_BUILDDIR="$SELF_DIR/asan" SELF_DIR="$SELF_DIR" SELF_VM="exec sleep 60" \
                bash "$src/tests/run-all.sh" >"$SELF_DIR/out" 2>&1 </dev/null 3>&- &
        local pid=$!
        for ((i = 0; i < 300; i++)); do
                grep -q '^# waiting for the VM lanes' "$SELF_DIR/out" && break
                sleep 0.1
        done
        grep -qx 'vm-guest begin' "$SELF_DIR/guests.log"
        kill -TERM "$pid"
        status=0
        wait "$pid" || status=$?
        [ "$status" -eq 143 ]
        # The run's test dir (an interrupted run leaves it): the job ends there.
        t=$(sed -nE 's|^# vm \(.*in the background: (.*)/vm\.tap\)$|\1|p' "$SELF_DIR/out")
        [ -d "$t" ]
        for ((i = 0; i < 100; i++)); do
                [ -e "$t/vm-nolandlock.rc" ] && break
                sleep 0.1
        done
        [ -e "$t/vm-trixie.rc" ]
        [ -e "$t/vm-nolandlock.rc" ]
        rm -rf "$t"
        run cat "$SELF_DIR/guests.log"
        [ "${lines[*]}" = "vm-guest begin vm-guest end" ]
}

@test "selftest: a VM lane killed mid-way counts the tests it never reported as failed, by name" {
        SELF_VM="printf '1..3\nok 1 vm one\n'; exit 124" run_all
        [ "$status" -ne 0 ]
        [[ $output == *"not ok - vm two (never reported"* ]]
        [[ $output == *"not ok - vm three (never reported"* ]]
        [[ $output == *"# vm: 1 passed, 2 failed in "*"2 never reported"* ]]
        [[ $output =~ \#\ vm-trixie:\ 2\ passed,\ 0\ failed\ in\ [0-9]+s ]]
        [ "$last" = "14 passed, 2 failed" ]
        [ "$(lane_sum)" = "$last" ]
}

@test "selftest: a failure only under ASan fails the run and counts its test once, in its own lane" {
        SELF_ASAN="printf '  ok 1 - u_first\n  ok 2 - u_second\nok 1 alpha one\nnot ok 2 alpha two\nok 3 alpha three\n'; exit 1" run_all
        [ "$status" -ne 0 ]
        [[ $output == *"not ok - alpha two (under ASan/UBSan; counted in lane integration)"* ]]
        [[ $output == *"# integration: 2 passed, 1 failed in "* ]]
        [ "$last" = "15 passed, 1 failed" ]
        [ "$(lane_sum)" = "$last" ]
}

@test "selftest: an ASan failure early in a long lane is still counted in that lane (pipefail)" {
        # A real lane's TAP is larger than a pipe: the owner is found with
        # the output after the match still to come (run-all sets pipefail).
        (
                set -uo pipefail
                # shellcheck source=tests/lib/lanes.bash
                . "$SBRUN_SRCDIR/tests/lib/lanes.bash"
                LANES_DIR=$SELF_DIR
                {
                        echo "ok 1 the first test"
                        for ((i = 2; i <= 4000; i++)); do
                                echo "ok $i a test with a name long enough to fill the pipe buffer: $i"
                        done
                } >"$LANES_DIR/integration.tap"
                LANE_P[integration]=4000 LANE_F[integration]=0
                echo "not ok 1 the first test" >"$SELF_DIR/asan.log"
                lanes_fold "$SELF_DIR/asan.log" unit integration
                echo "integration ${LANE_P[integration]} ${LANE_F[integration]} unfolded $unfolded"
        ) >"$SELF_DIR/fold.out" 2>&1
        cat "$SELF_DIR/fold.out"
        grep -qxF "not ok - the first test (under ASan/UBSan; counted in lane integration)" "$SELF_DIR/fold.out"
        grep -qx "integration 3999 1 unfolded 0" "$SELF_DIR/fold.out"
}

@test "selftest: an ASan lane that dies early names what it never ran" {
        SELF_ASAN="printf '  ok 1 - u_first\n'; exit 1" run_all
        [ "$status" -ne 0 ]
        [[ $output == *"not ok - alpha one (under ASan/UBSan"* ]]
        [ "$(lane_sum)" = "$last" ]
        [[ $last == *" failed" ]]
        [[ $last != *" 0 failed" ]]
}

@test "selftest: switched-off lanes are skipped with the number of tests they would have run" {
        run_all SBRUN_VM_LANE=0 SBRUN_FUZZ=0 SBRUN_ASAN_LANE=0 SBRUN_BATS_EXCLUDE=integration
        [ "$status" -eq 0 ]
        [[ $output == *"# vm: 0 passed, 0 failed, 3 skipped in 0s (switched off: SBRUN_VM_LANE=0)"* ]]
        [[ $output == *"# vm-trixie: 0 passed, 0 failed, 2 skipped in 0s (switched off: SBRUN_VM_LANE=0)"* ]]
        [[ $output == *"# vm-nolandlock: 0 passed, 0 failed, 1 skipped in 0s (switched off: SBRUN_VM_LANE=0)"* ]]
        [[ $output == *"# fuzz: 0 passed, 0 failed, 2 skipped"* ]]
        [[ $output == *"# integration: 0 passed, 0 failed, 3 skipped"* ]]
        [[ $output == *"# asan: 0 passed, 0 failed, 5 skipped"* ]]
        [ "$last" = "5 passed, 0 failed, 16 skipped" ]
        [ ! -e "$SELF_DIR/guests.log" ]
        [ "$(lane_sum)" = "$last" ]
}

@test "selftest: CI=true refuses to switch a lane off" {
        for sw in SBRUN_VM_LANE=0 SBRUN_ASAN_LANE=0 SBRUN_FUZZ=0 SBRUN_BATS_EXCLUDE=integration; do
                run env "${clean_env[@]}" SBRUN_SRCDIR="$src" SBRUN_BUILDDIR="$src/build" CI=true "$sw" bash "$src/tests/run-all.sh"
                [ "$status" -ne 0 ]
                [[ $output == *"CI=true runs every lane; refused: $sw"* ]]
                [ "${lines[${#lines[@]} - 1]}" = "0 passed, 1 failed" ]
        done
}

@test "selftest: no unit binary, a lane that selects nothing, a lane that exits non-zero silently: all failures" {
        rm "$src/build/tests/unit/test_one"
        printf '#!/bin/bash\n[ "$1" = --plan ] && true\n' >"$src/tests/vm/cgroups-suite.sh"
        cp "$src/tests/vm/cgroups-suite.sh" "$src/tests/vm/trixie-suite.sh"
        cp "$src/tests/vm/cgroups-suite.sh" "$src/tests/vm/nolandlock-suite.sh"
        SELF_VM="exit 0" SELF_VM_TRIXIE="exit 0" SELF_VM_NOLANDLOCK="exit 0" run_all
        [ "$status" -ne 0 ]
        [[ $output == *"not ok - unit/test_one: no binary at"* ]]
        [[ $output == *"not ok - lane vm selects no test"* ]]
        [[ $output == *"not ok - lane vm-trixie selects no test"* ]]
        [[ $output == *"not ok - lane vm-nolandlock selects no test"* ]]
        printf '#!/bin/bash\n[ "$1" = --plan ] && printf "vm one\\n"\n' >"$src/tests/vm/cgroups-suite.sh"
        SELF_VM="printf '1..1\nok 1 vm one\n'; exit 3" run_all
        [ "$status" -ne 0 ]
        [[ $output == *"not ok - lane vm exited with status 3"* ]]
        [ "$(lane_sum)" = "$last" ]
}
