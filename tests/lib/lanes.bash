# tests/lib/lanes.bash: the accounting of tests/run-all.sh, sourced by it and
# by tests/selftest/run_all.bats (which feeds it fake lanes).
#
# A lane is one runner (the unit binaries, one directory of bats files, the
# VM guest, the fuzz harnesses, ...). Each lane is recorded once with what it
# was expected to run (its plan, known before it starts) and what it
# reported; a test of the plan that never reported (the lane was killed,
# timed out or crashed) is a failure, named. The summary prints a line per
# lane, with its wall time, and a last line that is the sum of the lane
# lines: each test is counted once. A lane that reruns tests counted
# elsewhere (the ASan lane) is not added again: its failures are folded into
# the lane that owns the test (lanes_fold), so that they still fail the run.

LANE_NAMES=()
declare -A LANE_P LANE_F LANE_S LANE_T LANE_NOTE

# bats_names [-f REGEX] PATH...: the names of the tests bats would run, in
# its order (files of a directory sorted), one per line. Names holding a
# variable are printed as written: lanes_missing only uses them to name what
# is missing, never to count it.
bats_names() {
        local filter="" p f line name
        local dq='^@test[[:space:]]+"(([^"\\]|\\.)*)"' sq="^@test[[:space:]]+'([^']*)'"
        if [ "${1:-}" = -f ]; then
                filter=$2
                shift 2
        fi
        for p in "$@"; do
                if [ -d "$p" ]; then
                        printf '%s\n' "$p"/*.bats | LC_ALL=C sort
                else
                        printf '%s\n' "$p"
                fi
        done | while read -r f; do
                [ -f "$f" ] || continue
                while IFS= read -r line; do
                        if [[ $line =~ $dq ]]; then
                                # "...": bats shows it with its backslashes taken away.
                                name=${BASH_REMATCH[1]}
                                [[ $name != *\\* ]] || name=$(sed -E 's/\\(.)/\1/g' <<<"$name")
                        elif [[ $line =~ $sq ]]; then
                                name=${BASH_REMATCH[1]}
                        else
                                continue
                        fi
                        [ -z "$filter" ] || [[ $name =~ $filter ]] || continue
                        printf '%s\n' "$name"
                done <"$f"
        done
}

# suite_sel [-f REGEX] FILE...: one bats selection of a VM suite
# (tests/vm/cgroups-suite.sh, tests/vm/systemd-suite.sh), the only way a
# suite names what it runs, so that its plan and its run cannot differ. The
# suite_begin NAME ARG...: a VM suite's start (tests/vm/*-suite.sh). Sets
# SUITE (NAME), SUITE_MODE (plan with a first ARG --plan: print the names,
# on the host; run: run them, in the guest), SUITE_ARGS (the other ARGs,
# for bats) and SUITE_RC (0).
# shellcheck disable=SC2034 # the suite and suite_sel read them
suite_begin() {
        SUITE=$1
        shift
        SUITE_MODE=run
        if [ "${1:-}" = --plan ]; then
                SUITE_MODE=plan
                shift
        fi
        SUITE_ARGS=("$@")
        SUITE_RC=0
}

# suite_sel [-f REGEX] FILE...: one selection of a suite (see suite_begin).
# In run mode a selection that matches no test prints a "not ok" line, and
# it or a failed bats sets SUITE_RC=1.
# shellcheck disable=SC2034 # SUITE_RC is the suite's exit status
suite_sel() {
        local filter=() n
        if [ "$1" = -f ]; then
                filter=(-f "$2")
                shift 2
        fi
        if [ "$SUITE_MODE" = plan ]; then
                bats_names "${filter[@]}" "$@"
                return
        fi
        n=$(bats --count "${filter[@]}" "$@" 2>/dev/null)
        if [ "${n:-0}" -eq 0 ]; then
                echo "not ok - $SUITE: the selection ${filter[*]:-(all)} of ${*##*/} matches no test"
                SUITE_RC=1
                return
        fi
        if [ -n "${STALL_PROGRESS:-}" ]; then
                # The stall guard's progress (tests/vm/stall_guard.bash).
                bats "${SUITE_ARGS[@]}" "${filter[@]}" "$@" | tee -a "$STALL_PROGRESS"
                [ "${PIPESTATUS[0]}" -eq 0 ] || SUITE_RC=1
        else
                bats "${SUITE_ARGS[@]}" "${filter[@]}" "$@" || SUITE_RC=1
        fi
}

# tap_count LOG: the numbered results of a TAP log (bats' "ok 3 name", cmocka's
# "ok 3 - name", indented or not); sets p (passed, skips excluded), f, s.
tap_count() {
        p=$(grep -Ec '^ *ok [0-9]+' "$1")
        s=$(grep -Eic '^ *ok [0-9]+.*# *skip' "$1")
        f=$(grep -Ec '^ *not ok [0-9]+' "$1")
        p=$((p - s))
}

# tap_reported_names LOG: the names of the results in LOG, one per line.
tap_reported_names() {
        sed -nE 's/^ *(not )?ok [0-9]+ (- )?(.*)$/\3/p' "$1" |
                sed -E 's/ # (skip|SKIP|timeout|TODO).*$//; s/ in [0-9]+ms$//'
}

# tap_failed_names LOG: the names of the failed results in LOG, numbered or not
# (run-all's own "not ok - ..." lines: a lane that never reported, a crash).
tap_failed_names() {
        sed -nE 's/^ *not ok( [0-9]+)? (- )?(.*)$/\3/p' "$1" | sed -E 's/ # (timeout|TODO).*$//; s/ in [0-9]+ms$//'
}

# lanes_missing LOG PLANFILE: compares the plan (expected names, one per line)
# with LOG's results. Prints a "not ok" line for each test that never
# reported and sets missing to their number (the plan's count less the
# results, never the name matching, which is only used to name them).
lanes_missing() {
        local log=$1 plan=$2 expected reported n=0 name
        expected=$(grep -c '' "$plan")
        reported=$(($(grep -Ec '^ *(not )?ok [0-9]+' "$log")))
        missing=$((expected - reported))
        [ "$missing" -gt 0 ] || {
                missing=0
                return 0
        }
        local seen
        seen=$(tap_reported_names "$log")
        while IFS= read -r name; do
                [ "$n" -lt "$missing" ] || break
                grep -qxF -- "$name" <<<"$seen" && continue
                echo "not ok - $name (never reported: the lane ended before it)"
                n=$((n + 1))
        done <"$plan"
        while [ "$n" -lt "$missing" ]; do
                echo "not ok - one more test of the plan never reported"
                n=$((n + 1))
        done
}

# lane_record NAME P F S SECONDS [BUDGET] [NOTE]: one lane's results. A lane
# over its budget says so (never a failure: the machines are shared).
lane_record() {
        local name=$1 note=${7:-}
        if [ -n "${6:-}" ] && [ "$5" -gt "$6" ]; then
                note+="${note:+; }over its budget of ${6}s"
        fi
        [[ " ${LANE_NAMES[*]} " == *" $name "* ]] || LANE_NAMES+=("$name")
        LANE_P[$name]=$2 LANE_F[$name]=$3 LANE_S[$name]=$4 LANE_T[$name]=$5
        LANE_NOTE[$name]=$note
        echo "# $(lane_line "$name")"
}

lane_line() {
        local n=$1 line
        line="$n: ${LANE_P[$n]} passed, ${LANE_F[$n]} failed"
        [ "${LANE_S[$n]}" -gt 0 ] && line+=", ${LANE_S[$n]} skipped"
        line+=" in ${LANE_T[$n]}s"
        [ -n "${LANE_NOTE[$n]}" ] && line+=" (${LANE_NOTE[$n]})"
        printf '%s\n' "$line"
}

# lane_tap NAME LOG PLANFILE RC SECONDS [BUDGET]: a TAP lane: its results,
# the tests of its plan that never reported, a non-zero exit with no failure
# reported, and a lane that ran nothing, all as failures.
lane_tap() {
        local name=$1 log=$2 plan=$3 rc=$4 note=""
        tap_count "$log"
        lanes_missing "$log" "$plan" | tee -a "$log"
        local expected
        expected=$(grep -c '' "$plan")
        local miss=$((expected - p - f - s))
        [ "$miss" -lt 0 ] && miss=0
        f=$((f + miss))
        [ "$miss" -gt 0 ] && note="$miss never reported"
        if [ "$expected" -eq 0 ]; then
                echo "not ok - lane $name selects no test"
                f=$((f + 1))
                note+="${note:+; }selects no test"
        elif [ $((p + f + s)) -eq 0 ]; then
                echo "not ok - lane $name ran nothing"
                f=1
                note+="${note:+; }ran nothing"
        fi
        if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
                echo "not ok - lane $name exited with status $rc"
                f=1
                note+="${note:+; }exit status $rc"
        fi
        lane_record "$name" "$p" "$f" "$s" "$5" "${6:-}" "$note"
}

# lane_skipped NAME COUNT WHY: a lane switched off, with the number of tests it
# would have run.
lane_skipped() {
        lane_record "$1" 0 0 "$2" 0 "" "switched off: $3"
}

# lanes_fold LOG LANE...: the failures of a rerun lane's LOG (the ASan lane's)
# are charged to the lane among LANE... whose own log ($LANES_DIR/LANE.tap)
# reported the same test as passed: each test stays counted once, with the
# worse of its results. Sets unfolded to the failures no lane owns.
lanes_fold() {
        local log=$1 name lane
        shift
        unfolded=0
        while IFS= read -r name; do
                [ -n "$name" ] || continue
                local owner=""
                for lane in "$@"; do
                        [ -f "$LANES_DIR/$lane.tap" ] || continue
                        # grep reads to the end (no -q): run-all sets pipefail,
                        # and a grep that quits at an early match makes the
                        # sed before it die of SIGPIPE, which read as no match.
                        if tap_reported_names "$LANES_DIR/$lane.tap" | grep -xF -- "$name" >/dev/null; then
                                owner=$lane
                                break
                        fi
                done
                if [ -n "$owner" ] && [ "${LANE_P[$owner]}" -gt 0 ]; then
                        LANE_P[$owner]=$((LANE_P[$owner] - 1))
                        LANE_F[$owner]=$((LANE_F[$owner] + 1))
                        LANE_NOTE[$owner]+="${LANE_NOTE[$owner]:+; }failed under ASan/UBSan: $name"
                        echo "not ok - $name (under ASan/UBSan; counted in lane $owner)"
                else
                        unfolded=$((unfolded + 1))
                        echo "not ok - $name (under ASan/UBSan)"
                fi
        done < <(tap_failed_names "$log" | sed -E 's/ \(never reported.*$//')
}

# lanes_summary: a line per lane, then "N passed, M failed[, K skipped]", the
# sum of those lines. Returns non-zero if anything failed or nothing ran.
lanes_summary() {
        local n tp=0 tf=0 ts=0
        echo "#"
        for n in "${LANE_NAMES[@]}"; do
                echo "# $(lane_line "$n")"
                tp=$((tp + LANE_P[$n]))
                tf=$((tf + LANE_F[$n]))
                ts=$((ts + LANE_S[$n]))
        done
        local final="$tp passed, $tf failed"
        [ "$ts" -gt 0 ] && final+=", $ts skipped"
        echo "$final"
        [ "$tf" -eq 0 ] && [ "$tp" -gt 0 ]
}
