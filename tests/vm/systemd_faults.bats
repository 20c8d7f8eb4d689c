#!/usr/bin/env bats
# The fault walk of tests/faults/crash.bats with the systemd driver: sbrun
# --systemd-cgroup killed by SIGKILL at each fault point of create and of
# delete, then `delete --force`: besides what crash.bats asks (a consistent
# state, no state dir, process, mount or cgroup), no scope of the container
# (active, failed or loaded), no slice made for it and no failed unit may
# be left. Needs SBRUN_FAULTS (the host's `make sbrun-faults`, built with
# the driver); run in the systemd guest of the VM lane
# (tests/vm/systemd-suite.sh leaves this file out without SBRUN_FAULTS).

load ../faults/faults_helpers
load vm_helpers

setup() {
        [ "$(cat /proc/1/comm)" = systemd ] || fail "PID 1 is not systemd: run this through tests/vm/run.sh --systemd"
        [ -x "$SBRUN_FAULTS" ] || fail "no fault build: SBRUN_FAULTS=$SBRUN_FAULTS (make sbrun-faults)"
        "$SBRUN_FAULTS" --version | grep -qx 'fault-injection: on' ||
                fail "$SBRUN_FAULTS is not a fault-injection build"
        sb_setup
        SBRUN_ARGV+=(--systemd-cgroup)
        make_bundle
        set_args sleep 1000
        edit_config '.hooks = {"prestart": [{"path": "/bin/true"}], "poststop": [{"path": "/bin/true"}]} |
                .linux.resources = {"memory": {"limit": 67108864}, "pids": {"limit": 64}}'
}

teardown() {
        sb_teardown
        systemctl stop "sbtest-*.scope" "sbt-fw*.slice" sbt.slice >/dev/null 2>&1 || true
        systemctl reset-failed >/dev/null 2>&1 || true
}

# for_id ID SLICE: the bundle's cgroupsPath for container ID, in SLICE.
for_id() {
        edit_config '.linux.cgroupsPath = $slice + ":sbtest:" + $id' --arg id "$1" --arg slice "$2"
}

# units_check POINT ID SLICE: after delete --force, no unit of ID, no slice
# made for it, no failed unit.
units_check() {
        local left
        local slices=()
        # A slice of the host's (machine.slice) is not the container's; "-"
        # nests, so sbt-fw1.slice is in sbt.slice, made for it as well.
        [ "$3" = machine.slice ] || slices=("$3" sbt.slice)
        left=$(systemctl list-units --all --no-legend --plain "sbtest-$2.scope" "${slices[@]}" |
                awk '$3 != "inactive" { print $1 " " $2 " " $3 }')
        [ -z "$left" ] || {
                fail "$1: units left: $left"
                return 1
        }
        left=$(systemctl list-units --failed --no-legend --plain)
        [ -z "$left" ] || {
                fail "$1: failed units: $left"
                return 1
        }
}

@test "systemd driver: create killed at each fault point, then delete --force leaves no scope, slice or failed unit" {
        local p id slice n=0
        for p in $(fault_points 'create\.|seccomp-cache\.'); do
                id=$(new_id)
                # A slice of its own (made by systemd for this container
                # only) for every other point, machine.slice for the rest.
                slice=machine.slice
                ((n % 2)) && slice=sbt-fw$n.slice
                for_id "$id" "$slice"
                rm -rf "$ROOT/.seccomp-cache"
                faulted "$p" "${SBRUN_ARGV[@]}" create --bundle "$BUNDLE" "$id"
                crash_check "$p" "$id" "$F_STATUS" "$F_OUTPUT"
                units_check "$p" "$id" "$slice"
                n=$((n + 1))
        done
        [ "$n" -ge 10 ] || fail "only $n create points"
}

@test "systemd driver: delete killed at each fault point, then delete --force leaves no scope, slice or failed unit" {
        local p id slice n=0
        for p in $(fault_points 'delete\.'); do
                id=$(new_id)
                slice=sbt-fwd$n.slice
                for_id "$id" "$slice"
                detached "${SBRUN_ARGV[@]}" create --bundle "$BUNDLE" "$id" || fail "create $id failed"
                "${SBRUN_ARGV[@]}" start "$id" || fail "start $id failed"
                [ "$(systemctl show -P ActiveState "sbtest-$id.scope")" = active ] || fail "$p: no active scope"
                faulted "$p" "${SBRUN_ARGV[@]}" delete --force "$id"
                crash_check "$p" "$id" "$F_STATUS" "$F_OUTPUT"
                units_check "$p" "$id" "$slice"
                n=$((n + 1))
        done
        [ "$n" -ge 3 ] || fail "only $n delete points"
}
