#!/usr/bin/env bats
# The io ceiling (spec/floor_io.h) as this host can show it: the policy's
# keys and their refusals, what `policy show`, `policy explain` and `check`
# say, the disks the ceiling is added for (the root's, a loop device's as
# it is), blockIO clamped with a warning, and a strict create refused by
# the mount's name where a writable bind is on a file system with no block
# device (FUSE: fuse-overlayfs), or let through with a warning where the
# policy waives it. On a host without usable cgroup v2 (this hybrid host,
# with the suite's cgroups opt-out) the ceiling is decided and reported as
# everywhere and dropped with every other limit: that too is tested here.
# tests/vm/io_ceiling.bats holds real disks to it.

load ../helpers
load ../lib/disk_of

teardown() {
        local rc=0
        sb_teardown || rc=1
        if [ -n "${QDIR:-}" ]; then
                if mountpoint -q "$QDIR/mnt"; then umount "$QDIR/mnt" || rc=1; fi
                if [ -n "${QLOOP:-}" ]; then losetup -d "$QLOOP" || rc=1; fi
                rm -rf --one-file-system "$QDIR"
        fi
        return $rc
}

STRICT_ADDED='rbps=33554432 wbps=33554432 riops=1000 wiops=1000'
RULE='strict: every disk the container reads or writes is held to the io ceiling (floor.ceilings.io.require_enforced)'

# strict [JSON-MEMBERS]: a strict policy (with the suite's opt-out, and
# volumes' project quota waived: these binds are about io) for this test.
strict() {
        policy_with "{\"floor\": {\"profile\": \"strict\", \"volumes\": {\"require_project_quota\": false}${1:+, $1}}}" strict
}

# fuse_dir: a FUSE file system (fuse-overlayfs) at $QDIR/mnt, or a skip.
fuse_dir() {
        command -v fuse-overlayfs >/dev/null || skip "no fuse-overlayfs: apt-get install fuse-overlayfs"
        [ -e /dev/fuse ] || skip "no /dev/fuse"
        QDIR=$(mktemp -d "$SBRUN_TEST_TMP/io.XXXXXX")
        chmod 0755 "$QDIR"
        mkdir "$QDIR/mnt" "$QDIR/l" "$QDIR/u" "$QDIR/w"
        chmod 0777 "$QDIR/u"
        fuse-overlayfs -o "lowerdir=$QDIR/l,upperdir=$QDIR/u,workdir=$QDIR/w,allow_other" \
                "$QDIR/mnt" || skip "fuse-overlayfs cannot mount here"
        [ "$(findmnt -n -o FSTYPE "$QDIR/mnt")" = fuse.fuse-overlayfs ] || fail "no FUSE mount"
}

@test "io ceiling: policy show prints strict's ceiling and its rule; standard has none" {
        run sbrun --policy "$(strict)" policy show
        echo "$output"
        [ "$status" -eq 0 ]
        [[ $output == *"  io: rbps=33554432 wbps=33554432 riops=1000 wiops=1000 weight=100"* ]]
        [[ $output == *"io ceiling: io.max on every disk behind the root and the binds, io.weight at most 100; where it cannot hold (no disk, no io controller): required on the root and every writable bind (the profile's rule)"* ]]

        run sbrun --policy "$(policy_with '{}' std)" policy show
        [ "$status" -eq 0 ]
        [[ $output == *"  io: none"* ]]
        [[ $output != *"io ceiling:"* ]]

        run sbrun --policy "$(policy_with '{"floor": {"ceilings": {"io": {"write_bps": "8M", "require_enforced": false}}}}' op)" policy show
        [[ $output == *"  io: wbps=8388608"* ]]
        [[ $output == *"where it cannot hold (no disk, no io controller): not required (each source without a disk is warned about)"* ]]
}

@test "io ceiling: bad settings in the policy are refused by name" {
        local f
        for bad in '{"weight": 0}|floor.ceilings.io.weight: expected an io.weight from 1 to 10000' \
                '{"read_bps": "fast"}|floor.ceilings.io.read_bps: expected a positive size' \
                '{"rbps": 1}|floor.ceilings.io.rbps: unknown io ceiling' \
                '{"require_enforced": 1}|floor.ceilings.io.require_enforced: expected true or false'; do
                f=$(policy_with "{\"floor\": {\"ceilings\": {\"io\": ${bad%%|*}}}}" bad)
                run sbrun --policy "$f" policy show
                echo "$output"
                [ "$status" -ne 0 ]
                [[ $output == *"policy $f: ${bad#*|}"* ]]
        done
}

# This host has no usable cgroup v2: the suite's opt-out drops every limit,
# the io ceiling with them. The decision is still made and shown.
@test "io ceiling: explain adds strict's ceiling on the root's disk; under the cgroups opt-out it is dropped with every limit and the container runs" {
        [ -n "$SB_POLICY" ] || skip "this host enforces cgroups: tests/vm/io_ceiling.bats"
        make_bundle
        local disk pol
        disk=$(disk_of "$BUNDLE/rootfs")
        pol=$(strict)
        run sbrun --policy "$pol" policy explain -b "$BUNDLE"
        echo "$output"
        [[ $output == *"added    linux.resources.blockIO[$disk]: requested (none), effective $STRICT_ADDED (rule: strict io ceiling on the disk of root.path)"* ]]
        [[ $output == *"dropped  linux.resources: requested resource limits, effective not enforced (rule: cgroups.enforce false in $pol: "* ]]

        set_args echo ran
        run --separate-stderr sbrun --policy "$pol" run -b "$BUNDLE" "$ID"
        echo "$output $stderr"
        [ "$status" -eq 0 ]
        [ "$output" = ran ]
        [[ $stderr == *"linux.resources.blockIO[$disk]: requested (none), effective $STRICT_ADDED (rule: strict io ceiling on the disk of root.path)"* ]]
        [[ $stderr == *"runs WITHOUT resource limits"* ]]

        run sbrun --policy "$pol" check
        echo "$output"
        [[ $output == *"io                 warn   ceiling rbps=33554432 wbps=33554432 riops=1000 wiops=1000 weight=100 not enforced: no usable cgroup v2"* ]]
}

@test "io ceiling: a blockIO asking for more is clamped with a warning; an operator's ceiling binds a strict container by annotation, which may only lower it" {
        make_bundle
        local disk
        disk=$(disk_of "$BUNDLE/rootfs")
        edit_config '.linux.resources.blockIO = {"throttleWriteBpsDevice": [{"major": ($d | split(":")[0] | tonumber), "minor": ($d | split(":")[1] | tonumber), "rate": 1073741824}], "throttleReadBpsDevice": [{"major": ($d | split(":")[0] | tonumber), "minor": ($d | split(":")[1] | tonumber), "rate": 0}], "weight": 1000}' --arg d "$disk"
        run sbrun --policy "$(strict)" policy explain -b "$BUNDLE"
        echo "$output"
        [[ $output == *"clamped  linux.resources.blockIO.throttleWriteBpsDevice[0]: requested $disk wbps=1073741824, effective $disk wbps=33554432 (rule: strict io ceiling)"* ]]
        [[ $output == *"clamped  linux.resources.blockIO.throttleReadBpsDevice[0]: requested $disk rbps=0 (no limit), effective $disk rbps=33554432 (rule: strict io ceiling)"* ]]
        [[ $output == *"clamped  linux.resources.blockIO.weight: requested 1000 (io.weight 10000), effective 19 (io.weight 91) (rule: strict io ceiling)"* ]]
        [[ $output == *"added    linux.resources.blockIO[$disk]: requested (none), effective riops=1000 wiops=1000 (rule: strict io ceiling on the disk of root.path)"* ]]

        # create warns with the same words.
        run detached sbrun --policy "$(strict)" create -b "$BUNDLE" "$ID"
        echo "$output"
        [ "$status" -eq 0 ]
        [[ $output == *"warning: linux.resources.blockIO.throttleWriteBpsDevice[0]: requested $disk wbps=1073741824, effective $disk wbps=33554432 (rule: strict io ceiling)"* ]]
        run sbrun delete -f "$ID"

        # standard without a ceiling: as asked, nothing said.
        run sbrun --policy "$(policy_with '{}' std)" policy explain -b "$BUNDLE"
        [[ $output != *"blockIO"* ]]

        # The operator's 1 GiB/s under standard; strict by annotation keeps
        # strict's 32 MiB/s, and the operator's lower write ceiling binds it.
        edit_config '.annotations["run.sbrun.policy"] = "strict" | del(.linux.resources.blockIO)'
        run sbrun --policy "$(policy_with '{"floor": {"volumes": {"require_project_quota": false}, "ceilings": {"io": {"read_bps": "1G", "write_bps": "1M"}}}}' op)" policy explain -b "$BUNDLE"
        echo "$output"
        [[ $output == *"added    linux.resources.blockIO[$disk]: requested (none), effective rbps=33554432 wbps=1048576 riops=1000 wiops=1000 (rule: strict io ceiling on the disk of root.path)"* ]]
}

@test "io ceiling: a loop device's ext4 is held as the device it is; a tmpfs bind needs nothing" {
        [ -e /dev/loop-control ] || skip "no loop devices"
        QDIR=$(mktemp -d "$SBRUN_TEST_TMP/io.XXXXXX")
        chmod 0755 "$QDIR"
        mkdir "$QDIR/mnt" "$QDIR/shm"
        truncate -s 16M "$QDIR/img"
        mkfs.ext4 -q "$QDIR/img"
        QLOOP=$(losetup -f --show "$QDIR/img") || skip "no free loop device"
        mount "$QLOOP" "$QDIR/mnt"
        mkdir -m 0777 "$QDIR/mnt/vol"
        make_bundle
        bind_volume "$QDIR/mnt/vol"
        local loop root_disk
        loop=$(stat -c '%Hr:%Lr' "$QLOOP")
        root_disk=$(disk_of "$BUNDLE/rootfs")
        [ "$loop" = "$(disk_of "$QDIR/mnt/vol")" ]
        edit_config '.mounts += [{destination: "/shm", type: "bind", source: "/dev/shm", options: ["rbind"]}]'
        run sbrun --policy "$(strict)" policy explain -b "$BUNDLE"
        echo "$output"
        [[ $output == *"added    linux.resources.blockIO[$loop]: requested (none), effective $STRICT_ADDED (rule: strict io ceiling on the disk of mounts[$VOL].source)"* ]]
        [[ $output == *"added    linux.resources.blockIO[$root_disk]: requested (none), effective $STRICT_ADDED (rule: strict io ceiling on the disk of root.path)"* ]]
        [ "$(grep -c 'linux.resources.blockIO\[' <<<"$output")" -eq 2 ]
        [[ $output != *"mounts[$((VOL + 1))].source"*"block device"* ]]
}

@test "io ceiling: strict refuses a writable bind on a FUSE file system by the mount's name and leaves nothing; read-only passes; the policy's waiver lets it through with a warning" {
        fuse_dir
        make_bundle
        bind_volume "$QDIR/mnt"
        local want="mounts[$VOL].source: $QDIR/mnt is on fuse.fuse-overlayfs on fuse-overlayfs, a file system with no block device to hold to the io ceiling refused (rule: $RULE)"
        run detached sbrun --policy "$(strict)" create -b "$BUNDLE" "$ID"
        echo "$output"
        [ "$status" -ne 0 ]
        [[ $output == *"$want"* ]]
        assert_no_leftovers "$ID"

        run sbrun --policy "$(strict)" policy explain -b "$BUNDLE"
        [[ $output == *"refused  mounts[$VOL].source: requested $QDIR/mnt is on fuse.fuse-overlayfs on fuse-overlayfs, a file system with no block device to hold to the io ceiling, effective refused (rule: $RULE)"* ]]

        set_cmd 'echo written >/data/f && cat /data/f'
        local pol
        pol=$(strict '"ceilings": {"io": {"require_enforced": false}}')
        run --separate-stderr sbrun --policy "$pol" run -b "$BUNDLE" "$ID"
        echo "$output $stderr"
        [ "$status" -eq 0 ]
        [ "$output" = written ]
        [[ $stderr == *"warning: mounts[$VOL].source: $QDIR/mnt is on fuse.fuse-overlayfs on fuse-overlayfs, a file system with no block device to hold to the io ceiling: allowed, the container reads and writes it at any speed (rule: floor.ceilings.io.require_enforced false in $pol)"* ]]

        edit_config '.mounts[-1].options += ["ro"]'
        set_cmd 'ls /data >/dev/null && echo read'
        run --separate-stderr sbrun --policy "$(strict)" run -b "$BUNDLE" "$ID"
        echo "$output $stderr"
        [ "$status" -eq 0 ]
        [ "$output" = read ]
        [[ $stderr != *"block device"* ]]
}

@test "io ceiling: an overlay root is followed through its layers to their disk; a layer on FUSE makes strict refuse the root" {
        make_bundle
        QDIR=$(mktemp -d "$SBRUN_TEST_TMP/io.XXXXXX")
        chmod 0755 "$QDIR"
        mkdir "$QDIR/mnt" "$QDIR/u" "$QDIR/w" "$QDIR/merged"
        mount -t overlay overlay -o "lowerdir=$BUNDLE/rootfs,upperdir=$QDIR/u,workdir=$QDIR/w" "$QDIR/merged"
        local disk
        disk=$(disk_of "$BUNDLE/rootfs")
        edit_config '.root.path = $r' --arg r "$QDIR/merged"
        run sbrun --policy "$(strict)" policy explain -b "$BUNDLE"
        echo "$output"
        umount "$QDIR/merged"
        [[ $output == *"added    linux.resources.blockIO[$disk]: requested (none), effective $STRICT_ADDED (rule: strict io ceiling on the disk of root.path)"* ]]

        # The same overlay with its lower layer on FUSE.
        command -v fuse-overlayfs >/dev/null || skip "no fuse-overlayfs"
        mkdir "$QDIR/l" "$QDIR/fu" "$QDIR/fw"
        fuse-overlayfs -o "lowerdir=$BUNDLE/rootfs,upperdir=$QDIR/fu,workdir=$QDIR/fw" "$QDIR/mnt" ||
                skip "fuse-overlayfs cannot mount here"
        mount -t overlay overlay -o "lowerdir=$QDIR/mnt,upperdir=$QDIR/u,workdir=$QDIR/w" "$QDIR/merged"
        run detached sbrun --policy "$(strict)" create -b "$BUNDLE" "$ID"
        echo "$output"
        # Down again before the leftover check: the FUSE daemon's command
        # line names the bundle.
        umount "$QDIR/merged"
        umount "$QDIR/mnt"
        [ "$status" -ne 0 ]
        [[ $output == *"root.path: $QDIR/merged is on an overlay with a layer on fuse.fuse-overlayfs on fuse-overlayfs, a file system with no block device to hold to the io ceiling refused (rule: $RULE)"* ]]
        assert_no_leftovers "$ID"
}
