#!/usr/bin/env bats
# cgroup v2 for real, continued: the device program made from
# linux.resources.devices, and `sbrun events` read from the container's
# cgroup. Run in the VM lane through tests/vm/cgroups-suite.sh.

load ../helpers
load vm_helpers

setup() {
        vm_require_cgroup2
        sb_setup
}

# Nodes outside runc's default allow list, which the operator lets
# linux.devices create: /dev/kmsg (c 1:11; written without CAP_SYSLOG) and
# /dev/fuse (c 10:229). Without the device program neither open fails with
# EPERM. (true, not ":": a failed redirection of a special builtin ends sh.)
device_policy() {
        POLICY=$TEST_DIR/policy.json
        printf '%s\n' '{"floor": {"devices": ["/dev/kmsg", "/dev/fuse"]}}' >"$POLICY"
        edit_config '.linux.devices = [{"path": "/dev/kmsg", "type": "c", "major": 1, "minor": 11,
                                        "fileMode": 438},
                                       {"path": "/dev/fuse", "type": "c", "major": 10, "minor": 229,
                                        "fileMode": 438}]'
}

@test "devices: deny all, allow c 1:11 w: /dev/kmsg opens for writing, /dev/fuse is EPERM, /dev/null still works" {
        make_bundle
        device_policy
        set_cmd 'true >/dev/kmsg && echo kmsg-write
                 true </dev/fuse && echo fuse-open
                 echo x >/dev/null && echo null-ok'
        edit_config '.linux.resources.devices = [{"allow": false, "access": "rwm"},
                                                 {"allow": true, "type": "c", "major": 1, "minor": 11,
                                                  "access": "w"}]'

        run detached sbrun --policy "$POLICY" run -b "$BUNDLE" "$ID"
        echo "$output"
        [[ $output == *kmsg-write* ]]
        [[ $output == *"/dev/fuse"*"Operation not permitted"* ]]
        [[ $output != *fuse-open* ]]
        [[ $output == *null-ok* ]]
}

@test "devices: the last matching rule wins: a later deny of writes to /dev/kmsg" {
        make_bundle
        device_policy
        set_cmd 'true >/dev/kmsg && echo kmsg-write
                 true </dev/fuse && echo fuse-open'
        edit_config '.linux.resources.devices = [{"allow": false, "access": "rwm"},
                                                 {"allow": true, "type": "c", "major": 1, "minor": 11,
                                                  "access": "rwm"},
                                                 {"allow": true, "type": "c", "major": 10,
                                                  "access": "rwm"},
                                                 {"allow": false, "type": "c", "major": 1, "minor": 11,
                                                  "access": "w"}]'

        run detached sbrun --policy "$POLICY" run -b "$BUNDLE" "$ID"
        echo "$output"
        [[ $output == *"/dev/kmsg"*"Operation not permitted"* ]]
        [[ $output != *kmsg-write* ]]
        # The earlier allow of c 10:* still holds (ENODEV at most, never EPERM).
        [[ $output != *"/dev/fuse"*"Operation not permitted"* ]]
}

@test "events --stats prints the cgroup's memory and pids as runc does" {
        make_bundle
        set_cmd 'sleep 1001 & sleep 1000'
        edit_config '.linux.resources.memory = {"limit": 67108864} | .linux.resources.pids = {"limit": 50}'
        detached sbrun run -d -b "$BUNDLE" "$ID"
        cg=$(cgdir)
        local i
        for ((i = 0; i < 100; i++)); do
                [ "$(cat "$cg/pids.current")" -ge 3 ] && break
                sleep 0.1
        done
        local pids_before mem_before
        pids_before=$(cat "$cg/pids.current")
        mem_before=$(cat "$cg/memory.current")

        run sbrun events --stats "$ID"
        [ "$status" -eq 0 ]
        echo "$output"
        [ "${#lines[@]}" -eq 1 ]
        [ "$(jq -r .type <<<"$output")" = stats ]
        [ "$(jq -r .id <<<"$output")" = "$ID" ]
        [ "$(jq -r .data.pids.current <<<"$output")" = "$pids_before" ]
        [ "$(jq -r .data.pids.current <<<"$output")" = "$(cat "$cg/pids.current")" ]
        [ "$(jq -r .data.pids.limit <<<"$output")" = 50 ]
        [ "$(jq -r .data.memory.usage.limit <<<"$output")" = 67108864 ]
        local usage mem_after
        usage=$(jq -r .data.memory.usage.usage <<<"$output")
        mem_after=$(cat "$cg/memory.current")
        echo "memory.current before: $mem_before, events: $usage, after: $mem_after"
        # Each its own command: bats fails a test on a failed command, not on
        # the first half of an && list.
        [ "$usage" -gt 0 ]
        [ "$usage" -le 67108864 ]
        # Between the file's readings before and after, give or take a
        # quarter, at most a MiB (the container is idle): it holds less than
        # a MiB, where a MiB alone lets through a usage an eighth of the
        # file's.
        local lo=$((mem_before < mem_after ? mem_before : mem_after))
        local hi=$((mem_before > mem_after ? mem_before : mem_after))
        local slack=$((lo / 4 < 1048576 ? lo / 4 : 1048576))
        [ $((usage - hi)) -lt "$slack" ]
        [ $((lo - usage)) -lt "$slack" ]
        jq -e '.data.memory.raw | has("anon") and has("file")' <<<"$output"
        jq -e '.data.cpu.usage.total > 0' <<<"$output"
}

# wait_for_lines FILE PATTERN COUNT SECONDS: FILE has COUNT lines matching.
wait_for_lines() {
        local deadline=$((SECONDS + $4))
        while [ "$(grep -c -- "$2" "$1" 2>/dev/null)" -lt "$3" ]; do
                [ "$SECONDS" -lt "$deadline" ] || return 1
                sleep 0.5
        done
}

@test "events streams stats every interval, and ends when the container stops" {
        make_bundle
        set_args sleep 1000
        edit_config '.linux.resources.memory = {"limit": 33554432}'
        detached sbrun run -d -b "$BUNDLE" "$ID"

        # Bounded by the two waits below (each kills the stream when it
        # fails) and by BATS_TEST_TIMEOUT, not by timeout(1): its own exit
        # status (124) would hide the stream's.
        "$SBRUN" --root "$ROOT" events --interval 1s "$ID" \
                >"$TEST_DIR/events" 2>"$TEST_DIR/events.err" 3>&- </dev/null &
        local epid=$! rc=0
        wait_for_lines "$TEST_DIR/events" '"type":"stats"' 2 120 || rc=1
        [ "$rc" -eq 0 ] || { kill -KILL "$epid"; fail "fewer than two stats events: $(cat "$TEST_DIR"/events*)"; }

        # The stream holds no lock: state and kill return while it runs
        # (bounded, so that one that blocks fails here by name).
        run timeout 60 "${SBRUN_ARGV[@]}" state "$ID"
        [ "$status" -eq 0 ] || { kill -KILL "$epid"; fail "state while events streams: $status $output"; }
        run timeout 60 "${SBRUN_ARGV[@]}" kill "$ID" KILL
        [ "$status" -eq 0 ] || { kill -KILL "$epid"; fail "kill while events streams: $status $output"; }
        # The stream ends by itself once the cgroup is empty (inotify on
        # cgroup.events wakes it), with status 0 and nothing on stderr.
        local deadline=$((SECONDS + 120))
        while kill -0 "$epid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do
                sleep 0.5
        done
        kill -0 "$epid" 2>/dev/null && { kill -KILL "$epid"; fail "events did not end with the container"; }
        wait "$epid" || rc=$?
        # What it printed is judged once it has ended: a failed assertion
        # while it runs would leave bats waiting for it until the timeout.
        head -n 1 "$TEST_DIR/events"
        echo "events ended with status $rc: $(cat "$TEST_DIR/events.err")"
        [ "$rc" -eq 0 ]
        [ ! -s "$TEST_DIR/events.err" ]
        [ "$(head -n 1 "$TEST_DIR/events" | jq -r .id)" = "$ID" ]
        [ "$(head -n 1 "$TEST_DIR/events" | jq -r .data.memory.usage.limit)" = 33554432 ]
}
