#!/usr/bin/env bats
# Volumes under strict (spec/floor_volumes.h): a writable bind of a host
# directory must be bounded by project quota (a file system that enforces
# it, a project id its new files inherit, a block hard limit), or create
# refuses it naming the mount and what is missing, leaving nothing behind.
# A tmpfs within the tmp ceiling is bounded by its size (podman's
# per-container /dev/shm). Read-only binds and binds of single files are
# not volumes; the policy's
# floor.volumes.require_project_quota false lets an unbounded one through
# with a warning; standard asks nothing. The file systems are ext4 images
# on loop devices of the test's own. The tests that need project quota
# enforced skip, saying why, where the kernel cannot mount ext4 with it (no
# quota format, CONFIG_QFMT_V2: this development host's kernel); Debian's
# kernel has it as the quota_v2 module.

load ../helpers

# The loop file system's files, outside $TEST_DIR: a mount under it would
# be a leftover to sb_teardown.
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

# vm_modules MODULE...: in the VM lane's guest, load MODULEs from the
# booted kernel's tree (as tests/vm/bundle-fs.sh does).
vm_modules() {
        local m kdir=${SBRUN_VM_CACHE:-/var/cache/sbrun-vm}/kernel/$(uname -r)
        [ "${SBRUN_VM:-0}" = 1 ] || return 0
        for m in "$@"; do
                [ -d "/sys/module/$m" ] || modprobe -d "$kdir" "$m" || true
        done
}

# ext4_image MKFS-OPTION...: a 32 MiB ext4 image on a loop device of its
# own, $QLOOP, to be mounted at $QDIR/mnt.
ext4_image() {
        vm_modules loop ext4
        [ -e /dev/loop-control ] ||
                skip "no loop devices (/dev/loop-control): these tests need file systems of their own"
        QDIR=$(mktemp -d "$SBRUN_TEST_TMP/volumes.XXXXXX")
        chmod 0755 "$QDIR"
        mkdir "$QDIR/mnt"
        truncate -s 32M "$QDIR/img"
        mkfs.ext4 -q "$@" "$QDIR/img" || fail "mkfs.ext4 $* failed"
        QLOOP=$(losetup -f --show "$QDIR/img") || skip "no free loop device"
}

# quota_fs: ext4 with project quota enforced (mounted with prjquota) at
# $QDIR/mnt, or a skip where the kernel cannot.
quota_fs() {
        command -v setquota >/dev/null || fail "setquota not found: apt-get install quota"
        ext4_image -O quota,project -E quotatype=prjquota
        vm_modules quota_v2
        mount -o prjquota "$QLOOP" "$QDIR/mnt" ||
                skip "this kernel cannot mount ext4 with project quota (no quota format: CONFIG_QFMT_V2)"
}

# project_dir NAME PROJID [LIMIT-KIB]: a directory on the quota file
# system whose new files inherit project PROJID, with a block hard limit.
project_dir() {
        mkdir -m 0777 "$QDIR/mnt/$1"
        chattr -p "$2" +P "$QDIR/mnt/$1" || fail "chattr -p $2 +P failed"
        if [ -n "${3:-}" ]; then setquota -P "$2" 0 "$3" 0 0 "$QDIR/mnt" || fail "setquota failed"; fi
}

strict_policy() {
        policy_with "{\"floor\": {\"profile\": \"strict\"${1:+, $1}}}" strict
}

# strict_refuses TEXT: create of $BUNDLE under strict fails with an error
# holding TEXT, and leaves nothing.
strict_refuses() {
        run detached sbrun --policy "$(strict_policy)" create -b "$BUNDLE" "$ID"
        echo "$output"
        [ "$status" -ne 0 ] || fail "strict created the container"
        [[ $output == *"$1"* ]] || fail "no \"$1\" in: $output"
        assert_no_leftovers "$ID"
}

WAIVE='"volumes": {"require_project_quota": false}'
RULE='strict: a writable volume is bounded by project quota (floor.volumes.require_project_quota)'

@test "volumes: strict runs a volume bounded by project quota, and writes past its limit fail with EDQUOT" {
        quota_fs
        project_dir vol 42 1024
        make_bundle
        bind_volume "$QDIR/mnt/vol"
        set_cmd 'dd if=/dev/zero of=/data/small bs=1k count=512 2>/dev/null && echo small written
                dd if=/dev/zero of=/data/big bs=1k count=2048'
        # Apart: strict's output limit brings the two streams through two
        # pipes, which keep no order between them (docs/policy.md).
        run --separate-stderr sbrun --policy "$(strict_policy)" --log "$TEST_DIR/sbrun.log" run -b "$BUNDLE" "$ID"
        echo "$output $stderr"
        [ "$status" -ne 0 ]
        [ "${lines[0]}" = "small written" ]
        [[ $stderr == *"Disk quota exceeded"* ]]
        # The project holds what was written, no more than its limit.
        [ "$(lsattr -p "$QDIR/mnt/vol/big" | awk '{print $1}')" = 42 ]
        [ "$(du -sk "$QDIR/mnt/vol" | cut -f1)" -le 1024 ]
        ! grep -q "project quota" "$TEST_DIR/sbrun.log"
}

# A container in the host's user namespace owns what it writes: without the
# floor it could move a file to project 0 (no limit) and write on.
@test "volumes: under strict a file cannot be moved out of the volume's project, so its limit holds" {
        quota_fs
        project_dir vol 42 1024
        make_bundle
        bind_volume "$QDIR/mnt/vol"
        # The VM lane's build of it where there is one (tests/vm/cgroups-suite.sh).
        if [ -x "${SBRUN_FLOOR_ATTACK:-}" ]; then
                cp "$SBRUN_FLOOR_ATTACK" "$BUNDLE/rootfs/bin/floor_attack"
        else
                cc -O2 -Wall -static -o "$BUNDLE/rootfs/bin/floor_attack" \
                        "$SBRUN_SRCDIR/tests/helpers/floor_attack.c" -lpthread || fail "cannot build floor_attack"
        fi
        set_cmd 'floor_attack setproject /data/f 0; dd if=/dev/zero of=/data/f bs=1k count=2048'
        # Apart: strict's output limit brings the two streams through two
        # pipes, which keep no order between them (docs/policy.md).
        run --separate-stderr sbrun --policy "$(strict_policy)" --log "$TEST_DIR/sbrun.log" run -b "$BUNDLE" "$ID"
        echo "$output $stderr"
        [ "${lines[0]}" = "setproject rc=-1 errno=1" ]
        [[ $stderr == *"Disk quota exceeded"* ]]
        [ "$(lsattr -p "$QDIR/mnt/vol/f" | awk '{print $1}')" = 42 ]
        [ "$(du -sk "$QDIR/mnt/vol" | cut -f1)" -le 1024 ]
}

@test "volumes: strict refuses a writable bind of a directory without project quota, naming the mount and the rule, and leaves nothing" {
        mkdir -p "$TEST_DIR/vol"
        make_bundle
        bind_volume "$TEST_DIR/vol"
        run detached sbrun --policy "$(strict_policy)" create -b "$BUNDLE" "$ID"
        echo "$output"
        [ "$status" -ne 0 ]
        [[ $output == *"mounts[$VOL].source: $TEST_DIR/vol is on a file system without project quota ("*" on "*") refused (rule: $RULE)"* ]]
        [ -z "$(ls -A "$ROOT")" ]
        assert_no_leftovers "$ID"
}

@test "volumes: strict takes the same bind read-only, and a single file bound writable" {
        mkdir -p "$TEST_DIR/vol"
        echo hello >"$TEST_DIR/vol/greeting"
        echo before >"$TEST_DIR/file"
        make_bundle
        bind_volume "$TEST_DIR/vol" ro
        edit_config '.mounts += [{destination: "/etc/note", type: "bind", source: $s,
                options: ["bind"]}]' --arg s "$TEST_DIR/file"
        set_cmd 'cat /data/greeting; echo written >/etc/note'
        run sbrun --policy "$(strict_policy)" --log "$TEST_DIR/sbrun.log" run -b "$BUNDLE" "$ID"
        echo "$output"
        [ "$status" -eq 0 ]
        [ "$output" = hello ]
        [ "$(cat "$TEST_DIR/file")" = written ]
        ! grep -q "project quota" "$TEST_DIR/sbrun.log"
}

@test "volumes: a directory on ext4 mounted without project quota is refused, naming the file system" {
        ext4_image
        mount "$QLOOP" "$QDIR/mnt"
        mkdir -m 0777 "$QDIR/mnt/vol"
        make_bundle
        bind_volume "$QDIR/mnt/vol" rw
        strict_refuses "mounts[$VOL].source: $QDIR/mnt/vol is on a file system without project quota (ext4 on $QLOOP) refused (rule: $RULE)"
}

@test "volumes: on a file system with project quota, a directory without a project id or without a limit is refused, saying which" {
        quota_fs
        mkdir -m 0777 "$QDIR/mnt/plain"
        project_dir nolimit 43
        make_bundle
        bind_volume "$QDIR/mnt/plain"
        strict_refuses "mounts[$VOL].source: $QDIR/mnt/plain has no project id (ext4 on $QLOOP) refused (rule: $RULE)"

        edit_config '.mounts[-1].source = $s' --arg s "$QDIR/mnt/nolimit"
        strict_refuses "mounts[$VOL].source: $QDIR/mnt/nolimit is in project 43, which has no block hard limit (ext4 on $QLOOP) refused"
}

@test "volumes: a directory on a tmpfs within the tmp ceiling is bounded by its size, one on a bigger tmpfs is refused" {
        QDIR=$(mktemp -d "$SBRUN_TEST_TMP/volumes.XXXXXX")
        chmod 0755 "$QDIR"
        mkdir "$QDIR/mnt"
        mount -t tmpfs -o size=8m,mode=0777 sbrun-volume "$QDIR/mnt"
        make_bundle
        bind_volume "$QDIR/mnt"
        set_cmd 'dd if=/dev/zero of=/data/big bs=1k count=16384'
        run sbrun --policy "$(strict_policy)" --log "$TEST_DIR/sbrun.log" run -b "$BUNDLE" "$ID"
        echo "$output"
        [ "$status" -ne 0 ]
        [[ $output == *"No space left on device"* ]]
        ! grep -q "project quota\|tmpfs" "$TEST_DIR/sbrun.log"

        # Above strict's 64 MiB tmp ceiling.
        mount -o remount,size=128m "$QDIR/mnt"
        strict_refuses "mounts[$VOL].source: $QDIR/mnt is on a tmpfs of 134217728 bytes, above the tmp ceiling of 67108864 (tmpfs on sbrun-volume) refused (rule: $RULE)"
}

@test "volumes: require_project_quota false under strict runs an unbounded volume with a warning naming it" {
        mkdir -p "$TEST_DIR/vol"
        make_bundle
        bind_volume "$TEST_DIR/vol"
        set_cmd 'echo written >/data/f && cat /data/f'
        local policy
        policy=$(strict_policy "$WAIVE")
        run sbrun --policy "$policy" --log "$TEST_DIR/sbrun.log" run -b "$BUNDLE" "$ID"
        echo "$output"
        cat "$TEST_DIR/sbrun.log"
        [ "$status" -eq 0 ]
        [ "$output" = written ]
        [ "$(cat "$TEST_DIR/vol/f")" = written ]
        grep -qF "mounts[$VOL].source: $TEST_DIR/vol is on a file system without project quota (" "$TEST_DIR/sbrun.log"
        grep -qF "): allowed unbounded, the container can fill that file system (rule: floor.volumes.require_project_quota false in $policy)" "$TEST_DIR/sbrun.log"
}

@test "volumes: standard runs a writable unbounded volume without a word" {
        mkdir -p "$TEST_DIR/vol"
        make_bundle
        bind_volume "$TEST_DIR/vol"
        set_cmd 'echo written >/data/f'
        run sbrun --policy "$(policy_with '{}' standard)" --log "$TEST_DIR/sbrun.log" run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$(cat "$TEST_DIR/vol/f")" = written ]
        ! grep -q "project quota" "$TEST_DIR/sbrun.log"
}

@test "volumes: policy show prints the rule, policy explain reports a refused and a waived volume" {
        run sbrun --policy "$(strict_policy)" policy show
        [ "$status" -eq 0 ]
        [[ $output == *"volumes: project quota on writable directory binds required (the profile's rule); a file's project id and flags cannot be changed (ioctl FS_IOC_SETFLAGS, FS_IOC_FSSETXATTR: EPERM)"* ]]
        run sbrun --policy "$(policy_with '{}' standard)" policy show
        [[ $output == *"volumes: project quota on writable directory binds not required"$'\n'* ]]
        run sbrun --policy "$(policy_with '{"floor": {"volumes": {"require_project_quota": true}}}' standard)" policy show
        [[ $output == *"binds required (floor.volumes.require_project_quota true); a file's project id and flags cannot be changed"* ]]

        mkdir -p "$TEST_DIR/vol"
        make_bundle
        bind_volume "$TEST_DIR/vol"
        run sbrun --policy "$(strict_policy)" policy explain --bundle "$BUNDLE"
        echo "$output"
        [ "$status" -eq 0 ]
        [[ $output == *"refused  mounts[$VOL].source: requested $TEST_DIR/vol is on a file system without project quota ("*"), effective refused (rule: $RULE)"* ]]

        local policy
        policy=$(strict_policy "$WAIVE")
        run sbrun --policy "$policy" policy show
        [[ $output == *"volumes: project quota on writable directory binds not required (floor.volumes.require_project_quota false"* ]]
        run sbrun --policy "$policy" policy explain --bundle "$BUNDLE" --format json
        echo "$output"
        [ "$status" -eq 0 ]
        jq -e --arg f "mounts[$VOL].source" --arg p "$policy" '.allowed and
                (.changes[] | select(.field == $f) | .action == "dropped" and
                 (.effective | contains("without project quota")) and
                 .rule == "floor.volumes.require_project_quota false in \($p)")' <<<"$output"
}
