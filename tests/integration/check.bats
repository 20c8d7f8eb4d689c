#!/usr/bin/env bats
# `sbrun check`: whether this host can run confined containers, and why not.
# A table for people, JSON for tools, exit status 1 when a required item is
# missing. The cgroup line is create's own decision: on a host without
# usable cgroup v2 controllers the default policy refuses (FAIL, exit 1),
# the operator's opt-out allows (warn).

load ../helpers

# The tests pass their own policies.
SB_DEFAULT_POLICY=0

ITEMS="root policy bwrap namespace-user namespace-pid namespace-mount namespace-network
namespace-ipc namespace-uts namespace-cgroup cgroups io seccomp seccomp-flags seccomp-notify
openat2 lsm systemd landlock audit criu"

# item_field ITEM FIELD: a field of one item of the JSON in $output.
item_field() {
        jq -r --arg i "$1" ".items[] | select(.item == \$i) | .$2" <<<"$output"
}

enforcing_policy() {
        printf '{}\n' >"$TEST_DIR/enforce.json"
        chmod 0644 "$TEST_DIR/enforce.json"
        echo "$TEST_DIR/enforce.json"
}

optout_policy() {
        printf '{"cgroups": {"enforce": false}}\n' >"$TEST_DIR/optout.json"
        chmod 0644 "$TEST_DIR/optout.json"
        echo "$TEST_DIR/optout.json"
}

@test "check prints one line per item with ok, warn or FAIL, then a verdict" {
        run sbrun --policy "$(optout_policy)" check
        [ "${lines[0]}" = "ITEM               STATUS DETAIL" ]
        local item line
        for item in $ITEMS; do
                line=$(grep -E "^${item//-/ } +(ok|warn|FAIL) " <<<"$output") ||
                        fail "no line for $item: $output"
        done
        [ "${#lines[@]}" -eq 23 ] || fail "expected 21 items and 2 more lines: $output"
        [[ ${lines[-1]} == "ready: this host can run confined containers" ]] ||
                [[ ${lines[-1]} == "not ready: "* ]]
        [[ $output == *"bwrap              ok     "*": bubblewrap "[0-9]* ]]
        [[ $output == *"root               ok     uid 0"* ]]
}

@test "check --format json: the same items, ready matches the exit status" {
        run sbrun --policy "$(optout_policy)" check --format json
        jq -e . <<<"$output" >/dev/null || fail "not JSON: $output"
        [ "$(jq -r '.items | length' <<<"$output")" -eq 21 ]
        [ "$(jq -r '[.items[] | select(.status | test("^(ok|warn|FAIL)$") | not)] | length' \
                <<<"$output")" -eq 0 ]
        [ "$(jq -r '[.items[] | select((.detail | type) != "string")] | length' <<<"$output")" -eq 0 ]
        local item
        for item in $ITEMS; do
                [ -n "$(item_field "${item//-/ }" status)" ] || fail "no item $item"
        done
        if [ "$(jq -r .ready <<<"$output")" = true ]; then
                [ "$status" -eq 0 ]
        else
                [ "$status" -eq 1 ]
        fi
}

@test "check: the systemd driver is a warning, not a failure, where systemd is not reachable, and says why" {
        # (Where systemd runs, tests/vm/systemd_cgroup.bats checks the ok line.)
        run sbrun --policy "$(optout_policy)" check --format json
        [ "$(item_field systemd status)" = warn ]
        [[ $(item_field systemd detail) == "--systemd-cgroup: cannot connect to systemd over the system bus"* ]]
}

@test "the default policy on this host: cgroups as create decides, exit 1 on a hybrid host" {
        run sbrun --policy "$(enforcing_policy)" check --format json
        if host_has_v2_controllers; then
                [ "$(item_field cgroups status)" = ok ]
                [[ $(item_field cgroups detail) == "limits are enforced in /sys/fs/cgroup"* ]]
                return 0
        fi
        [ "$status" -eq 1 ]
        [ "$(jq -r .ready <<<"$output")" = false ]
        [ "$(item_field cgroups status)" = FAIL ]
        local detail
        detail=$(item_field cgroups detail)
        if grep -q cgroup2 /proc/mounts; then
                [[ $detail == *"(hybrid v1/v2 host)"* ]] || fail "hybrid layout not named: $detail"
        fi
        [[ $detail == *"set \"cgroups\": {\"enforce\": false} in $TEST_DIR/enforce.json"* ]]

        # create refuses with the very reason check gives.
        make_bundle
        run detached sbrun --policy "$TEST_DIR/enforce.json" create -b "$BUNDLE" "$ID"
        [ "$status" -eq 1 ]
        [[ $output == *"$detail"* ]] || fail "create's refusal differs from check's '$detail': $output"
}

@test "the table names the hybrid layout, says not ready and exits 1" {
        run sbrun --policy "$(enforcing_policy)" check
        if host_has_v2_controllers; then
                [[ $output == *$'\n'"cgroups            ok     limits are enforced in "* ]]
                return 0
        fi
        [ "$status" -eq 1 ]
        [[ $output == *$'\n'"cgroups            FAIL   cgroup v2: "* ]]
        [[ ${lines[-1]} == "not ready: "*" failed:"*" cgroups"* ]]
}

@test "--policy with the opt-out: cgroups is a warning, allowed by that policy, as create runs" {
        local p
        p=$(optout_policy)
        run sbrun --policy "$p" check --format json
        if host_has_v2_controllers; then
                [ "$(item_field cgroups status)" = ok ]
                return 0
        fi
        [ "$(item_field cgroups status)" = warn ]
        [[ $(item_field cgroups detail) == "not enforced, allowed by policy $p "* ]]
        [[ $(item_field cgroups detail) == *"cgroup v2: "* ]]
        [ "$(item_field policy detail)" = "$p" ]
        # A warning alone does not make the host unready.
        [ "$(jq -r '[.items[] | select(.status == "FAIL")] | length' <<<"$output")" -eq 0 ] ||
                fail "other items failed: $output"
        [ "$status" -eq 0 ]
        [ "$(jq -r .ready <<<"$output")" = true ]

        make_bundle
        run sbrun --policy "$p" run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [[ $output == *"runs WITHOUT resource limits"* ]]
}

@test "an unusable policy file is a failed item, and cgroups cannot be decided" {
        printf '{"cgroups": {"enforce": false}}\n' >"$TEST_DIR/bad.json"
        chmod 0666 "$TEST_DIR/bad.json"
        run sbrun --policy "$TEST_DIR/bad.json" check --format json
        [ "$status" -eq 1 ]
        [ "$(item_field policy status)" = FAIL ]
        [[ $(item_field policy detail) == *"$TEST_DIR/bad.json"* ]]
        [ "$(item_field cgroups status)" = FAIL ]
}

@test "check makes nothing: the state root stays empty, no process is left" {
        # Output through files: a probe child left behind must not be waited for.
        run detached sbrun --policy "$(optout_policy)" check
        [[ $output == *"namespace uts"* ]]
        [ -z "$(ls -A "$ROOT")" ]
        [ -z "$(procs_rooted_in /dev/null "$TEST_DIR/")" ]
}

@test "check: a bad command line exits 1 with the usage error" {
        run sbrun check --bogus
        [ "$status" -eq 1 ]
        [[ $output == *'check: unknown option "--bogus"'* ]]
        run sbrun check --format yaml
        [ "$status" -eq 1 ]
        [[ $output == *'check: --format: "yaml" is not text or json'* ]]
        run sbrun check extra
        [ "$status" -eq 1 ]
        [[ $output == *'check: unexpected argument "extra"'* ]]
        run sbrun check --help
        [ "$status" -eq 0 ]
        [[ $output == "usage: sbrun check [options]"* ]]
        [[ $output == *"-f, --format text|json"* ]]
}
