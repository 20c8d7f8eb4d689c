#!/usr/bin/env bats
# `sbrun check` on a host that can run confined containers: real cgroup v2
# with the cpu, memory and pids controllers, AppArmor enabled. Every item
# must be ok, the verdict ready, the exit status 0, with no opt-out policy.
# Run through tests/vm/cgroups-suite.sh.

load ../helpers
load vm_helpers

# No opt-out policy, not even the suite's: ready means ready as shipped.
SB_DEFAULT_POLICY=0

setup() {
        vm_require_cgroup2
        sb_setup
}

@test "vm: check says ready, every item ok but systemd (busybox is PID 1 here), exit status 0" {
        run sbrun check --format json
        [ "$status" -eq 0 ] || fail "status $status: $output"
        [ "$(jq -r .ready <<<"$output")" = true ]
        local not_ok
        not_ok=$(jq -r '.items[] | select(.status != "ok" and .item != "systemd") | "\(.item): \(.status) \(.detail)"' \
                <<<"$output")
        [ -z "$not_ok" ] || fail "items not ok: $not_ok"
        [ "$(jq -r '.items[] | select(.item == "systemd") | .status' <<<"$output")" = warn ]
        [ "$(jq -r '.items | length' <<<"$output")" -eq 21 ]
        [[ $(jq -r '.items[] | select(.item == "cgroups") | .detail' <<<"$output") == \
                "limits are enforced in /sys/fs/cgroup"*"unified cgroup v2 host"* ]]
        [[ $(jq -r '.items[] | select(.item == "lsm") | .detail' <<<"$output") == \
                *"AppArmor enabled"* ]]
        [[ $(jq -r '.items[] | select(.item == "landlock") | .detail' <<<"$output") == \
                "ABI "*" (sbrun uses up to 4)" ]]
        [[ $(jq -r '.items[] | select(.item == "criu") | .detail' <<<"$output") == \
                "criu "*": criu check passes" ]]
}

@test "vm: the table ends with the ready verdict" {
        run sbrun check
        [ "$status" -eq 0 ] || fail "status $status: $output"
        [ "${lines[-1]}" = "ready: this host can run confined containers" ]
        ! grep -vE '^systemd ' <<<"$output" | grep -qE '^[a-z0-9 ]+ +(warn|FAIL) ' || fail "$output"
}
