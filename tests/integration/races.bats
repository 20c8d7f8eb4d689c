#!/usr/bin/env bats
# Races between commands on one container, an engine that dies under its
# containers, and pid reuse (runtime/container/state_dir.h for the state
# directory's lock, runtime/container/container_status.h for how a
# container's process is told from another one that got its pid).
#
# SBRUN_RACE_ROUNDS: how many times each race is run (default 10; 100 by
# hand for a longer hunt).

load ../helpers

ROUNDS=${SBRUN_RACE_ROUNDS:-10}
# A round takes up to ~3 s on a loaded host: more rounds, more time.
if [ $((60 + ROUNDS * 4)) -gt "${BATS_TEST_TIMEOUT:-120}" ]; then
        BATS_TEST_TIMEOUT=$((60 + ROUNDS * 4))
fi

# bg_sbrun OUTFILE ARGS...: `sbrun ARGS...` in the background under a
# 30 s timeout, output to OUTFILE; sets BG. A hang exits 124 and writes
# "HUNG" in OUTFILE.
bg_sbrun() {
        local out=$1
        shift
        {
                local t0=$SECONDS rc=0
                timeout -k 5 30 "${SBRUN_ARGV[@]}" "$@" </dev/null >"$out" 2>&1 3>&- || rc=$?
                if [ $((SECONDS - t0)) -ge 29 ]; then
                        echo HUNG >>"$out"
                        rc=124
                fi
                exit $rc
        } 3>&- &
        BG=$!
}

# status_of PID: wait for a background job (of this shell: not in a
# $(...)); sets ST to its exit status.
status_of() {
        ST=0
        wait "$1" || ST=$?
}

# clear_error FILE: the command's output holds one "sbrun: " error line
# and nothing of a crash.
clear_error() {
        grep -q '^sbrun: ' "$1" || return 1
        ! grep -qiE 'segmentation|core dumped|assert|abort|double free' "$1"
}

@test "races: two creates of one ID at once: exactly one wins, the loser harms nothing" {
        make_bundle
        set_cmd 'sleep 60'
        local i id a b sa sb loser
        for ((i = 0; i < ROUNDS; i++)); do
                id=$(new_id)
                bg_sbrun "$TEST_DIR/a.out" create -b "$BUNDLE" "$id"
                a=$BG
                bg_sbrun "$TEST_DIR/b.out" create -b "$BUNDLE" "$id"
                b=$BG
                status_of "$a"
                sa=$ST
                status_of "$b"
                sb=$ST
                if [ "$sa" = 0 ] && [ "$sb" = 1 ]; then
                        loser=$TEST_DIR/b.out
                elif [ "$sa" = 1 ] && [ "$sb" = 0 ]; then
                        loser=$TEST_DIR/a.out
                else
                        fail "round $i: statuses $sa and $sb: $(cat "$TEST_DIR/a.out" "$TEST_DIR/b.out")"
                fi
                grep -q "container \"$id\" already exists" "$loser" ||
                        fail "round $i: the loser says: $(cat "$loser")"
                # The winner's container is whole: created, startable,
                # exec-able, deletable.
                [ "$(container_status "$id")" = created ] ||
                        fail "round $i: status $(container_status "$id")"
                sbrun start "$id"
                [ "$(container_status "$id")" = running ]
                run sbrun exec "$id" true
                [ "$status" -eq 0 ] || fail "round $i: exec: $output"
                run sbrun delete -f "$id"
                [ "$status" -eq 0 ] || fail "round $i: delete: $output"
                assert_no_leftovers "$id"
        done
}

@test "races: create and delete -f of one ID at once: a whole container or none, never an orphan" {
        make_bundle
        set_cmd 'sleep 60'
        local i id c d sc sd pid
        for ((i = 0; i < ROUNDS; i++)); do
                id=$(new_id)
                bg_sbrun "$TEST_DIR/c.out" create -b "$BUNDLE" "$id"
                c=$BG
                # A few ms later: into create's window between its mkdir
                # and its lock, now and then.
                sleep "$(printf '0.%03d' $((RANDOM % 40)))"
                bg_sbrun "$TEST_DIR/d.out" delete -f "$id"
                d=$BG
                status_of "$c"
                sc=$ST
                status_of "$d"
                sd=$ST
                [ "$sd" = 0 ] || fail "round $i: delete -f exited $sd: $(cat "$TEST_DIR/d.out")"
                if [ "$sc" = 0 ] && [ "$(container_status "$id")" = created ]; then
                        pid=$(container_pid "$id")
                        kill -0 "$pid" || fail "round $i: recorded pid $pid is not alive"
                        sbrun delete -f "$id"
                elif [ "$sc" != 0 ]; then
                        [ "$sc" = 1 ] && clear_error "$TEST_DIR/c.out" ||
                                fail "round $i: create exited $sc: $(cat "$TEST_DIR/c.out")"
                fi
                assert_no_leftovers "$id"
        done
}

@test "races: kill, state, delete -f and exec at once on one container: clear answers, nothing left" {
        make_bundle
        set_cmd 'sleep 60'
        local i id p s name
        local -a pids names
        for ((i = 0; i < ROUNDS; i++)); do
                id=$(new_id)
                detached sbrun run -d -b "$BUNDLE" "$id"
                pids=() names=()
                # In a new order each round, so that each command gets to
                # go first.
                for name in $(shuf -e kill-KILL state delete-f exec kill-TERM delete-f2 state2 exec2); do
                        case $name in
                        kill-KILL) bg_sbrun "$TEST_DIR/$name.out" kill "$id" KILL ;;
                        kill-TERM) bg_sbrun "$TEST_DIR/$name.out" kill "$id" TERM ;;
                        state*) bg_sbrun "$TEST_DIR/$name.out" state "$id" ;;
                        delete*) bg_sbrun "$TEST_DIR/$name.out" delete -f "$id" ;;
                        exec*) bg_sbrun "$TEST_DIR/$name.out" exec "$id" sh -c 'echo in' ;;
                        esac
                        pids+=("$BG")
                        names+=("$name")
                done
                for p in "${!pids[@]}"; do
                        name=${names[$p]}
                        status_of "${pids[$p]}"
                        s=$ST
                        # delete -f of a container that is gone is done (runc).
                        [[ $name == delete* ]] && [ "$s" != 0 ] &&
                                fail "round $i: $name exited $s: $(cat "$TEST_DIR/$name.out")"
                        case $s in
                        0) ;;
                        1) clear_error "$TEST_DIR/$name.out" ||
                                fail "round $i: $name failed without a clear error: $(cat "$TEST_DIR/$name.out")" ;;
                        124) fail "round $i: $name hung: $(cat "$TEST_DIR/$name.out")" ;;
                        *)
                                # An exec'd process killed with its container
                                # reports the signal, as a shell would.
                                [[ $name == exec* ]] && { [ "$s" = 137 ] || [ "$s" = 143 ]; } ||
                                        fail "round $i: $name exited $s: $(cat "$TEST_DIR/$name.out")"
                                ;;
                        esac
                done
                # The container is gone or stopped; a last delete clears it.
                run sbrun delete -f "$id"
                [ "$status" -eq 0 ] || fail "round $i: final delete: $output"
                assert_no_leftovers "$id"
        done
}

@test "races: the engine that created the container is killed: the container runs on, state stays right" {
        make_bundle
        set_cmd 'sleep 60'
        # The engine: a subreaper (as conmon or a shim) that creates and
        # starts the container, then waits for it.
        start_helper "$(subreaper_bin)" "${SBRUN_ARGV[@]}" create -b "$BUNDLE" "$ID" \
                --then "${SBRUN_ARGV[@]}" start "$ID"
        local engine=$HELPER_PID pid
        wait_for_status "$ID" running 10
        pid=$(container_pid "$ID")
        grep -q "^PPid:[[:space:]]*$engine\$" "/proc/$pid/status" ||
                fail "container process $pid is not the engine's child: $(grep PPid "/proc/$pid/status")"

        kill -KILL "$engine"
        timeout_wait "$engine" 5 || fail "the engine did not die"
        sleep 0.5
        kill -0 "$pid" || fail "the container process $pid died with its engine"
        [ "$(container_status "$ID")" = running ]
        [ "$(container_pid "$ID")" = "$pid" ]
        run sbrun exec "$ID" sh -c 'echo alive'
        [ "$status" -eq 0 ] && [ "$output" = alive ] || fail "exec: $status $output"

        sbrun kill "$ID" KILL
        wait_for_status "$ID" stopped 5
        run sbrun delete "$ID"
        [ "$status" -eq 0 ] || fail "delete: $output"
        assert_no_leftovers "$ID"
}

@test "races: a foreground run killed with SIGKILL leaves a container that delete -f clears" {
        make_bundle
        set_cmd 'trap "" TERM; sleep 60 & while :; do sleep 1; done'
        run_bg "$TEST_DIR/run.out" run -b "$BUNDLE" "$ID"
        local runner=$BG_PID pid
        wait_for_status "$ID" running 10
        pid=$(container_pid "$ID")
        kill -KILL "$runner"
        timeout_wait "$runner" 5 || fail "run did not die"
        sleep 0.5
        kill -0 "$pid" || fail "the container process $pid died with run"
        [ "$(container_status "$ID")" = running ]
        run sbrun delete -f "$ID"
        [ "$status" -eq 0 ] || fail "delete: $output"
        assert_no_leftovers "$ID"
}

# The pid-reuse story, run in a pid namespace of the test's own where
# ns_last_pid picks the next pid: the container's process is killed behind
# sbrun's back, a new process gets its pid, and sbrun must not take it for
# the container.
@test "races: a pid reused by another process is never taken for the container" {
        make_bundle
        set_cmd 'sleep 60'
        cat >"$TEST_DIR/reuse.sh" <<'EOF'
set -u
S=("$@")
"${S[@]}" run -d -b "$BUNDLE" "$ID" </dev/null >/dev/null 2>&1 || { echo "run -d failed"; exit 1; }
P=$("${S[@]}" state "$ID" | jq -r .pid)
echo "container pid $P"
kill -KILL "$P"
for ((i = 0; i < 50; i++)); do [ -e "/proc/$P" ] || break; sleep 0.1; done
[ -e "/proc/$P" ] && { echo "pid $P still there"; exit 1; }
echo $((P - 1)) >/proc/sys/kernel/ns_last_pid
sleep 1000 &
N=$!
[ "$N" = "$P" ] || { echo "the new process got pid $N, not $P"; exit 1; }
echo "impostor $N"
echo "status $("${S[@]}" state "$ID" | jq -r .status)"
"${S[@]}" kill "$ID" KILL 2>&1; echo "kill rc $?"
"${S[@]}" kill --all "$ID" KILL 2>&1; echo "kill --all rc $?"
"${S[@]}" exec "$ID" true 2>&1; echo "exec rc $?"
sleep 0.2
kill -0 "$N" && echo "impostor alive after kill"
"${S[@]}" delete -f "$ID" 2>&1; echo "delete rc $?"
sleep 0.2
kill -0 "$N" && echo "impostor alive after delete"
kill -KILL "$N"
EOF
        run unshare --pid --fork --mount-proc "$(subreaper_bin)" --reap \
                env BUNDLE="$BUNDLE" ID="$ID" bash "$TEST_DIR/reuse.sh" "${SBRUN_ARGV[@]}"
        echo "$output"
        [ "$status" -eq 0 ] || fail "status $status"
        [[ $output == *"impostor "* ]] || fail "no pid reuse was staged"
        [[ $output == *"status stopped"* ]]
        [[ $output == *"kill rc 1"* ]]
        [[ $output == *"exec rc 1"* ]]
        [[ $output == *"impostor alive after kill"* ]]
        [[ $output == *"delete rc 0"* ]]
        [[ $output == *"impostor alive after delete"* ]]
        assert_no_leftovers "$ID"
}
