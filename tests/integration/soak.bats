#!/usr/bin/env bats
# Soak: many container lifecycles, one after another and side by side, must
# all succeed and leave nothing that grows: no fd of the engine (a
# subreaper, as conmon or a shim) or of sbrun, no container in the state
# root, no mount, no process, no pidfd or memfd held by what remains.
#
# The loops run in a mount namespace of their own (so that other mounts of
# the machine do not count) under tests/helpers/subreaper.c (the engine).
#
# SBRUN_SOAK_SEQ    sequential lifecycles (default 1000; 1,000 took 6 min
#                   on a heavily loaded 2-core host; a smaller number for a
#                   quick local run)
# SBRUN_SOAK_PAR    parallel lifecycles (default 200)
# SBRUN_SOAK_BATCH  how many run at once (default 20)

load ../helpers

SEQ=${SBRUN_SOAK_SEQ:-1000}
PAR=${SBRUN_SOAK_PAR:-200}
BATCH=${SBRUN_SOAK_BATCH:-20}
# Long by nature: the suite's per-test limit (tests/run-all.sh) is for
# single lifecycles. About 0.05-0.35 s a lifecycle, by the machine's load.
if [ $((300 + SEQ + PAR)) -gt "${BATS_TEST_TIMEOUT:-120}" ]; then
        BATS_TEST_TIMEOUT=$((300 + SEQ + PAR))
fi

# The measures a soak compares before and after, as "name value" lines.
# $1 is the engine's pid.
cat_measures() {
        cat <<'EOF'
measures() {
        local engine=$1
        echo "engine_fds $(ls /proc/$engine/fd | wc -l)"
        echo "engine_pidfds $(ls -l /proc/$engine/fd | grep -c 'anon_inode:\[pidfd\]')"
        echo "engine_memfds $(ls -l /proc/$engine/fd | grep -c '/memfd:')"
        echo "shell_fds $(ls /proc/$$/fd | wc -l)"
        echo "mounts $(wc -l </proc/self/mountinfo)"
        echo "state_entries $(ls -A "$ROOT" | grep -vc '^\.seccomp-cache$')"
        echo "seccomp_cache $(ls -A "$ROOT/.seccomp-cache" 2>/dev/null | wc -l)"
        # Children of the engine other than this shell: containers it
        # reaped not, sbrun processes left over.
        echo "engine_children $(grep -l "^PPid:[[:space:]]*$engine\$" /proc/[0-9]*/status 2>/dev/null |
                cut -d/ -f3 | grep -vxc "$$")"
}
EOF
}

# run_soak SCRIPT-BODY: the measures, then BODY, then the measures, in a
# mount namespace of its own under the subreaper. Prints both sets.
run_soak() {
        {
                echo 'set -u'
                echo 'S=("$@")'
                cat_measures
                echo 'engine=$PPID'
                echo 'measures "$engine" | sed "s/^/before /"'
                echo "$1"
                echo 'measures "$engine" | sed "s/^/after /"'
        } >"$TEST_DIR/soak.sh"
        run unshare --mount --propagation private "$(subreaper_bin)" --reap \
                env ROOT="$ROOT" BUNDLE="$BUNDLE" TEST_DIR="$TEST_DIR" SEQ="$SEQ" PAR="$PAR" \
                BATCH="$BATCH" bash "$TEST_DIR/soak.sh" "${SBRUN_ARGV[@]}"
}

# measure NAME WHEN: a number out of run_soak's output.
measure() {
        awk -v w="$2" -v n="$1" '$1 == w && $2 == n { print $3 }' <<<"$output"
}

# assert_no_growth: every measure after is what it was before; no
# container in the state root; the engine has no child left.
assert_no_growth() {
        local m b a
        for m in engine_fds engine_pidfds engine_memfds shell_fds mounts state_entries seccomp_cache; do
                b=$(measure "$m" before)
                a=$(measure "$m" after)
                [ -n "$b" ] && [ -n "$a" ] || fail "no measure $m: $output"
                [ "$a" -le "$b" ] || fail "$m grew from $b to $a"
        done
        [ "$(measure state_entries after)" = 0 ] || fail "the state root is not empty: $(ls -A "$ROOT")"
        [ "$(measure engine_children after)" = 0 ] || fail "the engine has children left"
}

@test "soak: $SEQ sequential lifecycles (run, and create/start/wait/delete) all succeed and leave nothing" {
        make_bundle
        set_cmd 'ls /proc/self/fd | wc -l'
        # One lifecycle first, so that the seccomp cache and the like are
        # made before the "before" measures.
        sbrun run -b "$BUNDLE" "$ID" >/dev/null
        run_soak '
t0=$(date +%s%N)
first=""
for ((i = 0; i < SEQ; i++)); do
        id=soak-$i
        if ((i % 2 == 0)); then
                out=$("${S[@]}" run -b "$BUNDLE" "$id" 2>&1 </dev/null) || { echo "FAILED run $i: $out"; exit 1; }
        else
                "${S[@]}" create -b "$BUNDLE" "$id" </dev/null >"$TEST_DIR/c.out" 2>&1 ||
                        { echo "FAILED create $i: $(cat "$TEST_DIR/c.out")"; exit 1; }
                out=$("${S[@]}" start "$id" 2>&1) || { echo "FAILED start $i: $out"; exit 1; }
                for ((w = 0; w < 200; w++)); do
                        st=$("${S[@]}" state "$id" 2>&1) || { echo "FAILED state $i: $st"; exit 1; }
                        [[ $st == *"\"stopped\""* ]] && break
                        sleep 0.01
                done
                [[ $st == *"\"stopped\""* ]] || { echo "FAILED wait $i: $st"; exit 1; }
                d=$("${S[@]}" delete "$id" 2>&1) || { echo "FAILED delete $i: $d"; exit 1; }
                out=$(cat "$TEST_DIR/c.out")
        fi
        # The fds the container got: the same in every lifecycle.
        fds=$(tail -n 1 <<<"$out")
        [ -n "$first" ] || first=$fds
        [ "$fds" = "$first" ] || { echo "FAILED fds $i: the container had $fds fds, the first $first"; exit 1; }
done
echo "elapsed_ms $((($(date +%s%N) - t0) / 1000000))"
echo "container_fds $first"
'
        echo "$output" | grep -v '^sbrun: warning' >"$TEST_DIR/soak.out"
        echo "$output" | grep -E '^(before|after|elapsed|container|FAILED)' >&3 || true
        [ "$status" -eq 0 ] || fail "status $status: $(grep FAILED <<<"$output")"
        ! grep -q FAILED <<<"$output" || fail "$(grep FAILED <<<"$output")"
        assert_no_growth
        assert_no_leftovers "$ID"
}

@test "soak: $PAR parallel lifecycles, $BATCH at a time, all succeed and leave nothing" {
        make_bundle
        # Each container says it is up (a file in the gate directory) and
        # waits while the gate's "hold" exists: the soak counts the fds of
        # every sbrun run while all of its batch wait there, in the same
        # phase, not at a fixed time when some are still setting up.
        mkdir "$TEST_DIR/gate"
        edit_config '.mounts += [{"destination": "/gate", "type": "bind", "source": $g, "options": ["rbind", "rw"]}]' \
                --arg g "$TEST_DIR/gate"
        set_cmd 'mktemp /gate/up.XXXXXX >/dev/null; while [ -e /gate/hold ]; do sleep 0.05; done; ls /proc/self/fd | wc -l'
        sbrun run -b "$BUNDLE" "$ID" >/dev/null
        run_soak '
GATE=$TEST_DIR/gate
# fds PID: the number of fds of PID once it holds still (the same twice,
# 0.1 s apart).
fds() {
        local a b=-1 t
        for ((t = 0; t < 50; t++)); do
                a=$(ls /proc/$1/fd 2>/dev/null | wc -l)
                [ "$a" = "$b" ] && break
                b=$a
                sleep 0.1
        done
        echo "$a"
}
t0=$(date +%s%N)
for ((b = 0; b < PAR; b += BATCH)); do
        pids=()
        rm -f "$GATE"/up.*
        touch "$GATE/hold"
        for ((i = b; i < b + BATCH && i < PAR; i++)); do
                "${S[@]}" run -b "$BUNDLE" "par-$i" </dev/null >"$TEST_DIR/par-$i.out" 2>&1 &
                pids+=($!)
        done
        for ((t = 0; t < 1200; t++)); do
                [ "$(ls "$GATE" | grep -c "^up\.")" -ge "${#pids[@]}" ] && break
                sleep 0.05
        done
        [ "$(ls "$GATE" | grep -c "^up\.")" -ge "${#pids[@]}" ] ||
                echo "FAILED batch $b: $(ls "$GATE" | grep -c "^up\.") of ${#pids[@]} containers came up in 60 s"
        for p in "${pids[@]}"; do
                echo "runfds $b $(fds "$p")"
        done
        rm -f "$GATE/hold"
        i=$b
        for p in "${pids[@]}"; do
                wait "$p" || { echo "FAILED run par-$i: $(cat "$TEST_DIR/par-$i.out")"; }
                i=$((i + 1))
        done
done
echo "elapsed_ms $((($(date +%s%N) - t0) / 1000000))"
'
        echo "$output" | grep -E '^(before|after|elapsed|FAILED)' >&3 || true
        [ "$status" -eq 0 ] || fail "status $status"
        ! grep -q FAILED <<<"$output" || fail "$(grep FAILED <<<"$output" | head -5)"
        # Every sbrun run, waiting for its container, holds as many fds as
        # every other: in the last batch as in the first.
        local counts
        counts=$(awk '$1 == "runfds" { print $3 }' <<<"$output" | sort -u)
        [ -n "$counts" ] || fail "no fd counts of sbrun run: $output"
        [ "$(wc -l <<<"$counts")" = 1 ] ||
                fail "sbrun run held different numbers of fds: $(awk '$1 == "runfds" { print "batch " $2 ": " $3 }' <<<"$output" | sort | uniq -c)"
        # Every container saw the same fds.
        [ "$(tail -qn 1 "$TEST_DIR"/par-*.out | sort -u | wc -l)" = 1 ] ||
                fail "containers saw different fd counts: $(tail -qn 1 "$TEST_DIR"/par-*.out | sort | uniq -c)"
        assert_no_growth
        assert_no_leftovers "$ID"
}
