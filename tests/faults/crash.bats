#!/usr/bin/env bats
# sbrun killed by SIGKILL at every fault point of its source (common/fault.h,
# tests/faults/fault-points.sh): `state` then shows a consistent container or
# says clearly that there is none, and `delete --force` leaves nothing. Each
# test walks every point of one command, so a new point is walked as soon as
# it is in the source; a point that is never reached fails.

load faults_helpers

# A container with create-time hooks, so that the points around them are
# between real steps; `sleep` keeps it alive for what follows.
crash_bundle() {
        make_bundle
        set_args sleep 1000
        edit_config '.hooks = {"prestart": [{"path": "/bin/true"}], "createRuntime": [{"path": "/bin/true"}], "poststart": [{"path": "/bin/true"}], "poststop": [{"path": "/bin/true"}]}'
}

running_container() {
        detached sbrun create --bundle "$BUNDLE" "$1" || fail "create $1 failed"
        sbrun start "$1" || fail "start $1 failed"
}

@test "the source has fault points for every command, and only literal names" {
        run "$SBRUN_SRCDIR/tests/faults/fault-points.sh" "$SBRUN_SRCDIR"
        [ "$status" -eq 0 ] || fail "$output"
        for cmd in create start exec kill delete run seccomp-cache; do
                grep -q "^$cmd\." <<<"$output" || fail "no fault point in $cmd"
        done
}

@test "the normal build has no fault points" {
        run "$SBRUN_BUILDDIR/sbrun" --version
        [ "$status" -eq 0 ]
        [[ $output != *fault-injection* ]] || fail "sbrun of the normal build: $output"
        # sbrun is stripped: the points' names are what a build with points
        # carries (the faults build does, the control), not its symbols.
        local p
        p=$(fault_points 'seccomp-cache\.' | head -n 1)
        [ -n "$p" ] || fail "no seccomp-cache point in the faults build's list"
        grep -aqF -- "$p" "$SBRUN_FAULTS" || fail "the faults build does not hold the point name $p"
        ! grep -aqF -- "$p" "$SBRUN_BUILDDIR/sbrun" || fail "sbrun of the normal build holds the point $p"
}

@test "create: killed at each fault point, then delete --force leaves nothing" {
        crash_bundle
        local n=0
        for p in $(fault_points 'create\.|seccomp-cache\.'); do
                local id
                id=$(new_id)
                # The cache is written on a miss only.
                rm -rf "$ROOT/.seccomp-cache"
                faulted "$p" "${SBRUN_ARGV[@]}" create --bundle "$BUNDLE" "$id"
                crash_check "$p" "$id" "$F_STATUS" "$F_OUTPUT"
                n=$((n + 1))
        done
        [ "$n" -ge 10 ] || fail "only $n create points"
}

@test "start: killed at each fault point, then delete --force leaves nothing" {
        crash_bundle
        for p in $(fault_points 'start\.'); do
                local id
                id=$(new_id)
                detached sbrun create --bundle "$BUNDLE" "$id"
                faulted "$p" "${SBRUN_ARGV[@]}" start "$id"
                crash_check "$p" "$id" "$F_STATUS" "$F_OUTPUT"
        done
}

@test "exec: killed at each fault point, then delete --force leaves nothing" {
        crash_bundle
        for p in $(fault_points 'exec\.'); do
                local id
                id=$(new_id)
                running_container "$id"
                faulted "$p" "${SBRUN_ARGV[@]}" exec "$id" sleep 500
                crash_check "$p" "$id" "$F_STATUS" "$F_OUTPUT"
        done
}

@test "kill: killed at each fault point, then delete --force leaves nothing" {
        crash_bundle
        for p in $(fault_points 'kill\.'); do
                local id
                id=$(new_id)
                running_container "$id"
                faulted "$p" "${SBRUN_ARGV[@]}" kill "$id" KILL
                crash_check "$p" "$id" "$F_STATUS" "$F_OUTPUT"
        done
}

@test "delete: killed at each fault point, then delete --force leaves nothing" {
        crash_bundle
        for p in $(fault_points 'delete\.'); do
                local id
                id=$(new_id)
                running_container "$id"
                faulted "$p" "${SBRUN_ARGV[@]}" delete --force "$id"
                crash_check "$p" "$id" "$F_STATUS" "$F_OUTPUT"
        done
}

@test "run: killed at each fault point, then delete --force leaves nothing" {
        crash_bundle
        set_args true
        for p in $(fault_points 'run\.'); do
                local id
                id=$(new_id)
                faulted "$p" "${SBRUN_ARGV[@]}" run --bundle "$BUNDLE" "$id"
                crash_check "$p" "$id" "$F_STATUS" "$F_OUTPUT"
        done
}
