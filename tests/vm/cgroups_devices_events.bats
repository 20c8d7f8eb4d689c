#!/usr/bin/env bats
# cgroup v2 for real, continued: the device program made from
# linux.resources.devices, and `sbrun events` read from the container's
# cgroup. Run in the VM lane through tests/vm/cgroups-suite.sh.

load ../helpers

setup() {
        [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ] ||
                fail "/sys/fs/cgroup is not cgroup2: run this in the VM lane (tests/vm/cgroups-suite.sh)"
        sb_setup
}

cgdir() {
        echo "/sys/fs/cgroup/sbrun/${1:-$ID}"
}

@test "devices: deny all, allow c 1:3: /dev/null works, a /dev/zero of the config's own is EPERM" {
        make_bundle
        # /dev/zero from linux.devices replaces the default allow rule for
        # that path (as with runc), so only the config's rules judge it.
        set_cmd 'head -c1 /dev/zero >/dev/null && echo zero-read
                 echo x >/dev/null && echo null-ok'
        edit_config '.linux.devices = [{"path": "/dev/zero", "type": "c", "major": 1, "minor": 5,
                                        "fileMode": 438}] |
                .linux.resources.devices = [{"allow": false, "access": "rwm"},
                                            {"allow": true, "type": "c", "major": 1, "minor": 3,
                                             "access": "rwm"}]'

        run detached sbrun run -b "$BUNDLE" "$ID"
        echo "$output"
        [[ $output == *"/dev/zero"*"Operation not permitted"* ]]
        [[ $output != *zero-read* ]]
        [[ $output == *null-ok* ]]
}

@test "devices: the last matching rule wins: a later deny of writes to /dev/full" {
        make_bundle
        set_cmd 'head -c1 /dev/full >/dev/null && echo full-read
                 echo x >/dev/full; echo "write status $?"'
        edit_config '.linux.devices = [{"path": "/dev/full", "type": "c", "major": 1, "minor": 7,
                                        "fileMode": 438}] |
                .linux.resources.devices = [{"allow": false, "access": "rwm"},
                                            {"allow": true, "type": "c", "major": 1, "minor": 7,
                                             "access": "rwm"},
                                            {"allow": false, "type": "c", "major": 1, "minor": 7,
                                             "access": "w"}]'

        run detached sbrun run -b "$BUNDLE" "$ID"
        echo "$output"
        [[ $output == *full-read* ]]
        # Not ENOSPC (what writing /dev/full gives): the open is refused.
        [[ $output == *"/dev/full"*"Operation not permitted"* ]]
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
        local usage
        usage=$(jq -r .data.memory.usage.usage <<<"$output")
        echo "memory.current before: $mem_before, events: $usage, after: $(cat "$cg/memory.current")"
        [ "$usage" -gt 0 ] && [ "$usage" -le 67108864 ]
        # Within a MiB of the file (the container is idle).
        [ $((usage - mem_before)) -lt 1048576 ] && [ $((mem_before - usage)) -lt 1048576 ]
        jq -e '.data.memory.raw | has("anon") and has("file")' <<<"$output"
        jq -e '.data.cpu.usage.total > 0' <<<"$output"
}

@test "events streams stats every interval and an oom event, and ends when the container stops" {
        make_bundle
        set_cmd 'sleep 2; dd if=/dev/zero of=/dev/null bs=64M count=1; sleep 1000'
        edit_config '.linux.resources.memory = {"limit": 33554432, "swap": 33554432}'
        detached sbrun run -d -b "$BUNDLE" "$ID"

        sbrun events --interval 1s "$ID" >"$TEST_DIR/events" 2>"$TEST_DIR/events.err" &
        local epid=$! i
        for ((i = 0; i < 600; i++)); do
                grep -q '"type":"oom"' "$TEST_DIR/events" &&
                        [ "$(grep -c '"type":"stats"' "$TEST_DIR/events")" -ge 2 ] && break
                sleep 0.1
        done
        cat "$TEST_DIR/events" "$TEST_DIR/events.err"
        grep -q "{\"type\":\"oom\",\"id\":\"$ID\"}" "$TEST_DIR/events"
        [ "$(grep -c '"type":"stats"' "$TEST_DIR/events")" -ge 2 ]

        run sbrun kill "$ID" KILL
        [ "$status" -eq 0 ]
        # The stream ends by itself once the cgroup is empty.
        local rc=0
        for ((i = 0; i < 300; i++)); do
                kill -0 "$epid" 2>/dev/null || break
                sleep 0.1
        done
        kill -0 "$epid" 2>/dev/null && { kill "$epid"; fail "events did not end with the container"; }
        wait "$epid" || rc=$?
        [ "$rc" -eq 0 ]
}
