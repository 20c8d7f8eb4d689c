#!/usr/bin/env bats
# The floor across checkpoint and restore (runtime/checkpoint/), with the
# real CRIU in the VM lane (tests/vm/cgroups-suite.sh): what CRIU cannot
# restore as confined is refused by name, a restore is judged against the
# policy and config in force then, never the checkpoint's, and what CRIU
# gives back weaker is set again before the process runs.

load ../helpers
load vm_helpers

setup() {
        vm_require_cgroup2
        command -v criu >/dev/null || fail "criu not installed: tests/vm/setup.sh installs it"
        sb_setup
        IMG=$TEST_DIR/img
}

# piped_run ID [GLOBAL-OPTION...]: `sbrun run -d ID` with its stdio on
# pipes, as engines give it (CRIU dumps pipes, not a host file).
piped_run() {
        local id=$1
        shift
        # shellcheck disable=SC2016 # expanded by the inner bash
        start_helper bash -c 'sleep 100000 | "${@:2}" 2>&1 | cat >"$1"' _ "$TEST_DIR/$id.out" \
                "${SBRUN_ARGV[@]}" "$@" run -d -b "$BUNDLE" "$id"
        wait_for_status "$id" running 60 2>/dev/null ||
                fail "$id is not running: $(cat "$TEST_DIR/$id.out")"
}

# piped_restore ID [GLOBAL-OPTION...]: `sbrun restore -d ID` with stdin on
# a pipe; sets status and output.
piped_restore() {
        local id=$1
        shift
        # shellcheck disable=SC2016 # expanded by the inner bash
        start_helper bash -c '"${@:2}" >"$1" 2>&1 < <(exec sleep 100000)' _ "$TEST_DIR/$id.restore" \
                "${SBRUN_ARGV[@]}" "$@" restore -d -b "$BUNDLE" --image-path "$IMG" "$id"
        timeout_wait "$HELPER_PID" 120 || fail "restore did not return: $(cat "$TEST_DIR/$id.restore")"
        output=$(cat "$TEST_DIR/$id.restore")
        status=$WAIT_STATUS
}

# counter: the process counts in /tmp, a tmpfs (CRIU keeps its contents).
counter() {
        edit_config '.mounts += [{destination: "/tmp", type: "tmpfs", source: "tmpfs", options: ["size=1m", "nr_inodes=1k"]}]'
        set_cmd 'i=0; while :; do i=$((i+1)); echo $i >/tmp/count; sleep 0.2; done'
}

@test "checkpoint: a strict container under Landlock is refused naming Landlock; it runs on and nothing is dumped" {
        local strict
        strict=$(policy_with '{"floor": {"profile": "strict"}}' strict)
        make_bundle
        set_cmd 'while :; do sleep 1; done'
        piped_run "$ID" --policy "$strict"
        run sbrun --policy "$strict" checkpoint --image-path "$IMG" "$ID"
        [ "$status" -eq 1 ]
        [[ $output == *"checkpoint: container $ID runs under Landlock (strict profile): CRIU cannot dump or restore a Landlock domain"* ]] ||
                fail "$output"
        [ "$(container_status "$ID")" = running ]
        [ ! -e "$IMG" ] || fail "the image directory was made: $(ls -la "$IMG")"
}

@test "restore: a checkpoint taken under standard is refused where the policy is strict, and leaves nothing" {
        local strict
        strict=$(policy_with '{"floor": {"profile": "strict"}}' strict)
        make_bundle
        counter
        piped_run "$ID"
        sbrun checkpoint --image-path "$IMG" "$ID"
        [ "$(container_status "$ID")" = none ]
        piped_restore "$ID" --policy "$strict"
        [ "$status" -ne 0 ] || fail "restored under strict: $output"
        [[ $output == *"restore: the floor puts this container under Landlock (strict profile): CRIU cannot restore a Landlock domain; refused"* ]] ||
                fail "$output"
        stop_helpers
        assert_no_leftovers "$ID"
}

@test "restore: a config whose seccomp filters differ from the checkpoint's is refused before the process runs, and leaves nothing" {
        make_bundle
        counter
        piped_run "$ID"
        sbrun checkpoint --image-path "$IMG" "$ID"
        edit_config '.linux.seccomp = {defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["sethostname"], action: "SCMP_ACT_ERRNO"}]}'
        piped_restore "$ID"
        [ "$status" -ne 0 ] || fail "restored: $output"
        [[ $output == *"seccomp filters are not the 2 the floor requires now"* ]] || fail "$output"
        stop_helpers
        assert_no_leftovers "$ID"
}

@test "restore: a mount the images name from outside that the config does not bind is refused, never bound" {
        make_bundle
        counter
        mkdir "$TEST_DIR/data"
        bind_volume "$TEST_DIR/data" rw
        piped_run "$ID"
        sbrun checkpoint --image-path "$IMG" "$ID"
        # The bundle's writer takes the bind out; the images still name it.
        edit_config 'del(.mounts[-1])'
        piped_restore "$ID"
        [ "$status" -ne 0 ] || fail "restored: $output"
        [[ $output == *"restore: the checkpoint has a mount from outside the container at /data, which the config does not bind"* ]] ||
                fail "$output"
        stop_helpers
        assert_no_leftovers "$ID"
}

@test "restore: a read-only root CRIU leaves writable is read-only again, and no_new_privs holds, before the count goes on" {
        make_bundle
        edit_config '.root.readonly = true'
        counter
        piped_run "$ID"
        local pid after
        pid=$(container_pid "$ID")
        grep -q '^NoNewPrivs:.*1$' "/proc/$pid/status"
        sleep 1
        sbrun checkpoint --image-path "$IMG" "$ID"
        piped_restore "$ID"
        [ "$status" -eq 0 ] || fail "restore failed: $output"
        [ "$(container_status "$ID")" = running ]
        pid=$(container_pid "$ID")
        awk '$5 == "/" { print $6 }' "/proc/$pid/mountinfo" | grep -q '^ro' ||
                fail "root not read-only: $(awk '$5 == "/"' "/proc/$pid/mountinfo")"
        grep -q '^NoNewPrivs:.*1$' "/proc/$pid/status" || fail "$(grep NoNewPrivs "/proc/$pid/status")"
        run sbrun exec "$ID" sh -c 'touch /x 2>&1; cat /tmp/count'
        [[ $output == *"Read-only file system"* ]] || fail "root writable: $output"
        after=$(tail -n1 <<<"$output")
        [ "$after" -gt 5 ] || fail "the count restarted: $after"
        run sbrun audit --id "$ID"
        [ "$(jq -r 'select(.event == "checkpoint") | "\(.ok) \(.image_path)"' <<<"$output")" = "true $IMG" ] ||
                fail "no checkpoint line: $output"
        [ "$(jq -r 'select(.event == "restore") | "\(.ok) \(.pid)"' <<<"$output")" = "true $pid" ] ||
                fail "no restore line: $output"
}
