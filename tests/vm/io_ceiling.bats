#!/usr/bin/env bats
# The io ceiling (spec/floor_io.h) for real, on a pure cgroup v2 guest with
# the io controller: run it in the VM lane through tests/vm/cgroups-suite.sh.
# A strict container writing and reading with direct I/O past a 1 MiB/s
# ceiling, on a volume on a loop device's ext4 and on its root there, is
# held to it: io.max in its cgroup names the disk and the values, and
# N MiB take at least N-1 seconds, timed inside the container (a lower
# bound only: a slow guest cannot fail it, and TCG is slow). The same
# container under standard with no ceiling is not throttled (no io.max
# line for the disk); a blockIO asking for more is clamped with a warning,
# at create and at update; a writable bind from the 9p share cannot be
# held and refuses a strict create naming the mount. The verdict carries
# what the container read and wrote.

load ../helpers
load vm_helpers
load ../lib/disk_of

# MiB written or read, against a ceiling of 1 MiB/s: small, for TCG.
N=4
CEILING='"io": {"read_bps": "1M", "write_bps": "1M"}'
VALUES='rbps=1048576 wbps=1048576 riops=1000 wiops=1000'

setup() {
        vm_require_cgroup2
        grep -qw io /sys/fs/cgroup/cgroup.controllers || fail "no io controller in this guest"
        sb_setup
        EXT4=$("$SBRUN_SRCDIR/tests/vm/bundle-fs.sh" ext4) || fail "no ext4 location"
        VOLDIR=$EXT4/io-$(basename "$TEST_DIR")
        mkdir -m 0777 "$VOLDIR"
}

teardown() {
        rm -rf "${VOLDIR:?}" "${EXT4_BUNDLE:-/nonexistent}"
        sb_teardown
}

# strict_policy [JSON-MEMBERS]: strict with the 1 MiB/s ceiling, volumes'
# project quota waived (the loop file system has none; the io ceiling is
# what is tested).
strict_policy() {
        policy_with "{\"floor\": {\"profile\": \"strict\", \"volumes\": {\"require_project_quota\": false}, \"ceilings\": {$CEILING}}${1:+, $1}}" strict
}

# bind_volume: $VOLDIR (ext4 on a loop device) at /data, writable.
bind_volume() {
        edit_config '.mounts += [{destination: "/data", type: "bind", source: $s, options: ["rbind", "rw"]}]' \
                --arg s "$VOLDIR"
}

# timed CMD: the container prints its io.max, runs CMD and prints
# "elapsed S" (seconds, from its /proc/uptime: centiseconds).
timed() {
        set_cmd "cat /sys/fs/cgroup/io.max; echo ---
                t0=\$(cut -d' ' -f1 /proc/uptime)
                $1 2>/dev/null || echo 'dd failed'
                t1=\$(cut -d' ' -f1 /proc/uptime)
                echo elapsed \$(awk \"BEGIN { print \$t1 - \$t0 }\")"
}

# held DISK [VALUES]: $output (the container's) shows io.max with the
# ceiling (VALUES, strict's by default) on DISK, and the I/O took at least
# N-1 seconds.
held() {
        local values=${2:-$VALUES}
        [[ $output == *"$1 $values"* ]] || fail "io.max has no '$1 $values': $output"
        [[ $output != *"dd failed"* ]] || fail "dd failed: $output"
        local elapsed
        elapsed=$(awk '$1 == "elapsed" { print $2 }' <<<"$output")
        echo "$N MiB at 1 MiB/s took $elapsed s"
        awk -v e="$elapsed" -v n="$N" 'BEGIN { exit !(e >= n - 1) }' ||
                fail "$N MiB took $elapsed s: not held to 1 MiB/s"
}

@test "io ceiling: strict writing and reading a volume on a loop device's ext4 past the ceiling is held to it; io.max names the disk; the verdict counts it" {
        make_bundle
        bind_volume
        local disk
        disk=$(disk_of "$VOLDIR")
        timed "dd if=/dev/zero of=/data/f bs=64k count=$((N * 16)) oflag=direct"
        run --separate-stderr sbrun --policy "$(strict_policy)" --log "$TEST_DIR/sbrun.log" \
                run -b "$BUNDLE" --verdict-file "$TEST_DIR/verdict.json" "$ID"
        echo "$output $stderr"
        [ "$status" -eq 0 ]
        held "$disk"
        [ "$(stat -c %s "$VOLDIR/f")" -eq $((N << 20)) ]
        jq . "$TEST_DIR/verdict.json"
        [ "$(jq -r .verdict "$TEST_DIR/verdict.json")" = exited ]
        [ "$(jq -r .io.wbytes "$TEST_DIR/verdict.json")" -ge $((N << 20)) ]
        if [ -e /proc/pressure/io ]; then
                [ "$(jq -r '.io.pressure_some_usec | type' "$TEST_DIR/verdict.json")" = number ]
        fi

        sync
        echo 3 >/proc/sys/vm/drop_caches
        timed "dd if=/data/f of=/dev/null bs=64k iflag=direct"
        run --separate-stderr sbrun --policy "$(strict_policy)" run -b "$BUNDLE" "$ID"
        echo "$output $stderr"
        [ "$status" -eq 0 ]
        held "$disk"
        assert_no_leftovers "$ID"
}

# strict's root is read-only: reading is held there; writing on a root
# on that disk is held too under standard with the operator's ceiling.
@test "io ceiling: a container whose root is on a loop device's ext4 is held to the ceiling reading it (strict) and writing it (standard with an operator's ceiling)" {
        EXT4_BUNDLE=$EXT4/bundle-$(basename "$TEST_DIR")
        BUNDLE=$EXT4_BUNDLE make_bundle "$EXT4_BUNDLE"
        BUNDLE=$EXT4_BUNDLE
        dd if=/dev/urandom of="$BUNDLE/rootfs/big" bs=1M count=$N 2>/dev/null
        sync
        echo 3 >/proc/sys/vm/drop_caches
        local disk
        disk=$(disk_of "$BUNDLE/rootfs")
        timed "dd if=/big of=/dev/null bs=64k iflag=direct"
        run --separate-stderr sbrun --policy "$(strict_policy)" run -b "$BUNDLE" "$ID"
        echo "$output $stderr"
        [ "$status" -eq 0 ]
        held "$disk"

        edit_config '.root.readonly = false'
        timed "dd if=/dev/zero of=/written bs=64k count=$((N * 16)) oflag=direct"
        run --separate-stderr sbrun --policy "$(policy_with "{\"floor\": {\"ceilings\": {$CEILING}}}" op)" \
                run -b "$BUNDLE" "$ID"
        echo "$output $stderr"
        [ "$status" -eq 0 ]
        # The operator's ceiling has no IOPS: io.max says max for them.
        held "$disk" 'rbps=1048576 wbps=1048576 riops=max wiops=max'
        [ "$(stat -c %s "$BUNDLE/rootfs/written")" -eq $((N << 20)) ]
        assert_no_leftovers "$ID"
}

@test "io ceiling: the same container under standard with no ceiling is not throttled: io.max has no line for the disk" {
        make_bundle
        bind_volume
        local disk
        disk=$(disk_of "$VOLDIR")
        timed "dd if=/dev/zero of=/data/f bs=64k count=$((N * 16)) oflag=direct"
        run --separate-stderr sbrun --policy "$(policy_with '{}' std)" run -b "$BUNDLE" "$ID"
        echo "$output $stderr"
        [ "$status" -eq 0 ]
        [[ $output != *"dd failed"* ]]
        [[ $output != *"$disk "* ]] || fail "io.max names $disk under standard: $output"
        [ "$(stat -c %s "$VOLDIR/f")" -eq $((N << 20)) ]
        [[ $stderr != *"blockIO"* ]]
}

@test "io ceiling: a blockIO asking for more is clamped with a warning, at create and at update" {
        make_bundle
        bind_volume
        local disk maj min
        disk=$(disk_of "$VOLDIR")
        maj=${disk%:*} min=${disk#*:}
        edit_config '.linux.resources.blockIO = {"throttleWriteBpsDevice": [{"major": $M, "minor": $m, "rate": 104857600}]}' \
                --argjson M "$maj" --argjson m "$min"
        set_args sleep 600
        run detached sbrun --policy "$(strict_policy)" create -b "$BUNDLE" "$ID"
        echo "$output"
        [ "$status" -eq 0 ]
        [[ $output == *"warning: linux.resources.blockIO.throttleWriteBpsDevice[0]: requested $disk wbps=104857600, effective $disk wbps=1048576 (rule: strict io ceiling)"* ]]
        grep -x "$disk $VALUES" "$(cgdir)/io.max" || fail "io.max: $(cat "$(cgdir)/io.max")"

        # update: the same clamp, the same words; io.max unchanged.
        run sbrun update --resources - "$ID" <<<"{\"blockIO\": {\"throttleReadBpsDevice\": [{\"major\": $maj, \"minor\": $min, \"rate\": 0}]}}"
        echo "$output"
        [ "$status" -eq 0 ]
        [[ $output == *"linux.resources.blockIO.throttleReadBpsDevice[0]: requested $disk rbps=0 (no limit), effective $disk rbps=1048576 (rule: strict io ceiling)"* ]]
        grep -x "$disk $VALUES" "$(cgdir)/io.max" || fail "io.max after update: $(cat "$(cgdir)/io.max")"
        run sbrun delete -f "$ID"
        assert_no_leftovers "$ID"
}

@test "io ceiling: a writable bind from the 9p share cannot be held: a strict create is refused naming the mount, and leaves nothing" {
        [ -n "${SBRUN_VM_SHARE:-}" ] || skip "no shared tree (SBRUN_VM_SHARE)"
        local share
        share=$("$SBRUN_SRCDIR/tests/vm/bundle-fs.sh" 9p) || fail "no 9p location"
        make_bundle
        edit_config '.mounts += [{destination: "/share", type: "bind", source: $s, options: ["rbind", "rw"]}]' \
                --arg s "$share"
        local vol
        vol=$(jq '.mounts | length - 1' "$BUNDLE/config.json")
        run detached sbrun --policy "$(strict_policy)" create -b "$BUNDLE" "$ID"
        echo "$output"
        [ "$status" -ne 0 ]
        [[ $output == *"mounts[$vol].source: $share is on 9p on "*", a file system with no block device to hold to the io ceiling refused (rule: strict: every disk the container reads or writes is held to the io ceiling (floor.ceilings.io.require_enforced))"* ]]
        [ ! -e "$(cgdir)" ]
        assert_no_leftovers "$ID"
}
