#!/usr/bin/env bats
# The audit trail in journald (runtime/audit/audit_journal.c): with
# "audit": {"log": "journald"} each line is a journal entry of its own, its
# event and container ID as fields, and `sbrun audit` reads back only what
# this uid wrote: a process of another uid (a container's) cannot pass a
# line off as sbrun's. Needs the VM lane's systemd boot (journald running):
# run it through tests/vm/systemd-suite.sh.

load ../helpers
load vm_helpers

setup() {
        vm_require_cgroup2
        vm_require_systemd
        sb_setup
}

@test "systemd host: audit.log journald: a line per event with its fields; sbrun audit reads them, not another uid's" {
        make_bundle
        # The systemd driver, as the engines on such a host use it.
        edit_config '.linux.cgroupsPath = "machine.slice:sbtest:" + $id' --arg id "$ID"
        local p
        p=$(policy_with '{"audit": {"log": "journald"}}' journald)
        run sbrun --systemd-cgroup --policy "$p" --log "$TEST_DIR/sbrun.log" run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "run: $output"
        ! grep -q "audit trail" "$TEST_DIR/sbrun.log" || fail "$(cat "$TEST_DIR/sbrun.log")"
        # The same identifier and ID from uid 65534, as a container's root
        # in a user namespace would be to the journal.
        setpriv --reuid=65534 --regid=65534 --clear-groups logger -t sbrun-audit \
                "{\"time\":\"2026-01-01T00:00:00.000000000Z\",\"event\":\"delete\",\"id\":\"$ID\"}"
        journalctl --sync

        run journalctl -q -o json SYSLOG_IDENTIFIER=sbrun-audit SBRUN_CONTAINER_ID="$ID"
        [ "$(jq -r .SBRUN_EVENT <<<"$output" | tr '\n' ' ')" = "create verdict delete " ] ||
                fail "journal: $output"
        [ "$(jq -r '.MESSAGE | fromjson | .id' <<<"$output" | sort -u)" = "$ID" ] || fail "$output"
        [ "$(jq -r ._UID <<<"$output" | sort -u)" = 0 ] || fail "$output"

        run sbrun --policy "$p" audit --id "$ID"
        [ "$status" -eq 0 ] || fail "audit: $output"
        [ "$(jq -r .event <<<"$output" | tr '\n' ' ')" = "create verdict delete " ] ||
                fail "sbrun audit: $output"
        [ "$(jq -r 'select(.event == "verdict") | .verdict' <<<"$output")" = exited ] || fail "$output"
}
