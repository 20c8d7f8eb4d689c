#!/usr/bin/env bats
# Scale: many containers at once, many state directories. Nothing here is
# timed (tests/bench/run.sh times the same cases): the create of the 101st
# container is held to the first's count of system calls, a deterministic
# stand-in for its cost.

load ../helpers

# SBRUN_SCALE_N: how many containers run at once (default 100).
SCALE_N=${SBRUN_SCALE_N:-100}
# SBRUN_SCALE_DIRS: how many state directories list reads (default 1000).
SCALE_DIRS=${SBRUN_SCALE_DIRS:-1000}

# syscalls_of_create ID: the system calls `sbrun create ID` makes itself
# (strace without -f: the container it leaves behind would keep strace
# attached), one line each in $TEST_DIR/strace.ID.
syscalls_of_create() {
        strace -qq -o "$TEST_DIR/strace.$1" "${SBRUN_ARGV[@]}" create -b "$BUNDLE" "$1" \
                </dev/null >/dev/null 2>>"$TEST_DIR/create.err" 3>&- ||
                fail "create $1 failed: $(cat "$TEST_DIR/create.err")"
        grep -vc -e '^+++ ' -e '^--- ' "$TEST_DIR/strace.$1"
}

# The many containers of a test are not in $TEST_DIR/ids: teardown checks
# each ID there for leftovers, which for a hundred takes minutes. Teardown
# deletes them first, and then checks the root as a whole (its ls of $ROOT).
teardown() {
        local id
        for id in $(cat "$TEST_DIR/many.ids" 2>/dev/null); do
                "${SBRUN_ARGV[@]}" delete --force "$id" >/dev/null 2>&1 3>&- || true
        done
        sb_teardown
}

# sbrun_processes: processes whose executable is the sbrun under test.
sbrun_processes() {
        local exe p n=0
        exe=$(realpath "$SBRUN")
        for p in /proc/[0-9]*; do
                [ "$(readlink "$p/exe" 2>/dev/null)" = "$exe" ] && n=$((n + 1))
        done
        echo "$n"
}

@test "with $SCALE_N containers running no sbrun process stays, and the next create costs no more than the first" {
        command -v strace >/dev/null || fail "strace not found: tests/install-deps.sh installs it"
        make_bundle
        set_args sleep 100000
        # The first create of a root compiles and caches the seccomp filter:
        # warm it, so that "first" is the first of an empty root, not a cold
        # cache.
        local warm first next ids=() id k
        warm=$(new_id)
        detached sbrun create -b "$BUNDLE" "$warm"
        sbrun delete --force "$warm"

        id=$(new_id)
        first=$(syscalls_of_create "$id")
        sbrun delete --force "$id"

        for ((k = 1; k <= SCALE_N; k++)); do
                id=many-$k
                ids+=("$id")
                echo "$id" >>"$TEST_DIR/many.ids"
                sbrun create -b "$BUNDLE" "$id" </dev/null >/dev/null 2>>"$TEST_DIR/create.err" ||
                        fail "create $id: $(cat "$TEST_DIR/create.err")"
                sbrun start "$id"
        done
        run sbrun list --format json
        [ "$status" -eq 0 ]
        [ "$(jq '[.[] | select(.status == "running")] | length' <<<"$output")" -eq "$SCALE_N" ] ||
                fail "$(jq -c 'group_by(.status) | map({(.[0].status): length}) | add' <<<"$output") running, want $SCALE_N"

        # No sbrun stays per running container (docs/design.md): the
        # containers belong to their engine, not to a runtime process.
        [ "$(sbrun_processes)" -eq 0 ] || fail "$(sbrun_processes) sbrun processes while $SCALE_N containers run"

        id=$(new_id)
        next=$(syscalls_of_create "$id")
        echo "# system calls of create: first $first, with $SCALE_N running $next" >&3
        [ $((next * 10)) -le $((first * 12)) ] ||
                fail "create with $SCALE_N running made $next system calls, the first $first (> 1.2x)"
        [ "$(container_status "$id")" = created ]

        for id in "${ids[@]}" "$id"; do
                sbrun delete --force "$id"
        done
        run sbrun list -q
        [ -z "$output" ]
}

@test "list reads $SCALE_DIRS state directories and lists each once, in every format" {
        make_bundle
        set_args sleep 100000
        local proto k d rec lots=$TEST_DIR/lots
        proto=$(new_id)
        detached sbrun create -b "$BUNDLE" "$proto"
        sbrun kill "$proto" KILL
        wait_for_status "$proto" stopped
        # Copies of a stopped container's state directory, each record
        # under its new ID (a root of its own: teardown checks $ROOT).
        # Shell built-ins write the records: a jq per directory takes a minute.
        mkdir -m 0700 "$lots"
        rec=$(jq -c . "$ROOT/$proto/state.json")
        [[ $rec == *"\"id\":\"$proto\""* ]] || fail "unexpected record: $rec"
        for ((k = 1; k <= SCALE_DIRS; k++)); do
                d=$(printf 'many-%05d' "$k")
                echo "$d"
        done | xargs -I{} cp -a "$ROOT/$proto" "$lots/{}"
        for d in "$lots"/*; do
                d=${d##*/}
                printf '%s\n' "${rec/\"id\":\"$proto\"/\"id\":\"$d\"}" >"$lots/$d/state.json"
        done
        sbrun delete --force "$proto"

        run "$SBRUN" --root "$lots" list -q
        [ "$status" -eq 0 ]
        diff <(printf '%s\n' "${lines[@]}" | sort) <(ls -1 "$lots" | sort) ||
                fail "list -q did not list each of the $SCALE_DIRS directories once"

        run "$SBRUN" --root "$lots" list --format json
        [ "$status" -eq 0 ]
        [ "$(jq 'length' <<<"$output")" -eq "$SCALE_DIRS" ]
        [ "$(jq '[.[] | select(.status == "stopped" and .pid == 0)] | length' <<<"$output")" -eq "$SCALE_DIRS" ]
        [ "$(jq -r '[.[].id] | unique | length' <<<"$output")" -eq "$SCALE_DIRS" ]
        [ "$(jq -r '[.[].bundle] | unique | .[]' <<<"$output")" = "$BUNDLE" ]

        run "$SBRUN" --root "$lots" list
        [ "$status" -eq 0 ]
        [ "${#lines[@]}" -eq $((SCALE_DIRS + 1)) ]
        [[ ${lines[0]} == ID* ]]
        # Every row: ID, PID 0, stopped, the bundle.
        [ "$(printf '%s\n' "${lines[@]:1}" | awk -v b="$BUNDLE" '$2 == 0 && $3 == "stopped" && $4 == b' | wc -l)" -eq "$SCALE_DIRS" ]
}
