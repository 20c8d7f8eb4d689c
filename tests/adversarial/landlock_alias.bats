#!/usr/bin/env bats
# Landlock's W^X ("landlock": {"exec_writable": false}) against aliasing
# binds (spec/floor_landlock.c): Landlock's rules sit on inodes and are
# found by walking up the path the process used, so one host tree bound
# twice, writable at one place and executable at another, would let the
# container run through the second what it wrote through the first. Such a
# config is refused at create, naming both mounts, before anything runs:
# a writable bind of a directory with a read-only bind of its parent, the
# same the other way round, and a writable bind of a directory inside the
# rootfs (which the root then aliases). Binds of trees that do not overlap
# still run, and what is written there still cannot be executed. This
# host's kernel offers Landlock (ABI 7); the old build ran the written
# program in every case.

load ../helpers
load attack_helpers

# wx_policy: strict with W^X (and without strict's project quota for a
# writable bind, which this host's ext4 has not).
wx_policy() {
        policy_for strict '{"landlock": {"mode": "required", "exec_writable": false},
                "floor": {"volumes": {"require_project_quota": false}}}'
}

# host_tree DIR...: host directories the container's user may write.
host_tree() {
        mkdir -p "$@"
        [ -z "${SBRUN_AS_USER:-}" ] || chown -R "$SBRUN_AS_USER:" "$@"
}

# add_binds WRITABLE-SOURCE WRITABLE-DEST RO-SOURCE RO-DEST: the two binds
# appended to $BUNDLE's mounts; sets W and R to their indexes.
add_binds() {
        W=$(config_get '.mounts | length')
        R=$((W + 1))
        edit_config '.mounts += [
                {destination: $wd, type: "bind", source: $ws, options: ["rbind", "rw"]},
                {destination: $rd, type: "bind", source: $rs, options: ["rbind", "ro"]}]' \
                --arg ws "$1" --arg wd "$2" --arg rs "$3" --arg rd "$4"
}

@test "landlock W^X: a writable bind and a read-only bind of its parent are refused; nothing runs, nothing is written" {
        local p d
        host_tree "$TEST_DIR/host/inner"
        # As sbrun names them: the paths it holds open.
        p=$(realpath "$TEST_DIR/host") d=$(realpath "$TEST_DIR/host/inner")
        make_bundle
        add_binds "$d" /data "$p" /ro
        set_cmd 'cp /bin/busybox /data/busybox && /ro/inner/busybox echo EXECUTED-WRITTEN'
        run sbrun --policy "$(wx_policy)" --log "$TEST_DIR/sbrun.log" run -b "$BUNDLE" "$ID"
        [[ $output != *EXECUTED-WRITTEN* ]] || fail "the written program ran: $output"
        assert_fails_cleanly "$ID" \
                "mounts[$R].source: $p contains mounts[$W].source $d (writable at /data): the same files would be executable at /ro refused (rule: landlock.exec_writable false in $TEST_DIR/policy-strict.json: no host tree both writable and executable)" \
                "$d/busybox"
}

@test "landlock W^X: a writable bind of a directory with a read-only bind inside it is refused" {
        local p d
        host_tree "$TEST_DIR/host/inner"
        # As sbrun names them: the paths it holds open.
        p=$(realpath "$TEST_DIR/host") d=$(realpath "$TEST_DIR/host/inner")
        make_bundle
        add_binds "$p" /data "$d" /ro
        set_cmd 'cp /bin/busybox /data/inner/busybox && /ro/busybox echo EXECUTED-WRITTEN'
        run sbrun --policy "$(wx_policy)" --log "$TEST_DIR/sbrun.log" run -b "$BUNDLE" "$ID"
        [[ $output != *EXECUTED-WRITTEN* ]] || fail "the written program ran: $output"
        assert_fails_cleanly "$ID" \
                "mounts[$R].source: $d is inside mounts[$W].source $p (writable at /data)" "$d/busybox"
}

@test "landlock W^X: the same tree bound writable and read-only is refused" {
        local d
        host_tree "$TEST_DIR/host/inner"
        d=$(realpath "$TEST_DIR/host/inner")
        make_bundle
        add_binds "$d" /data "$d" /ro
        set_cmd 'cp /bin/busybox /data/busybox && /ro/busybox echo EXECUTED-WRITTEN'
        run sbrun --policy "$(wx_policy)" --log "$TEST_DIR/sbrun.log" run -b "$BUNDLE" "$ID"
        [[ $output != *EXECUTED-WRITTEN* ]] || fail "the written program ran: $output"
        assert_fails_cleanly "$ID" "mounts[$R].source: $d is mounts[$W].source $d (writable at /data)" \
                "$d/busybox"
}

@test "landlock W^X: a second mount of the tree on the host is the same tree" {
        [ -z "${SBRUN_AS_USER:-}" ] || skip "mounts on the host need root; the rootless lane runs the others"
        local p a
        host_tree "$TEST_DIR/host/inner" "$TEST_DIR/alias"
        # /alias is the host's inner directory under another path: no path
        # compare sees it, the path inside the file system does.
        mount --bind "$TEST_DIR/host/inner" "$TEST_DIR/alias"
        p=$(realpath "$TEST_DIR/host") a=$(realpath "$TEST_DIR/alias")
        make_bundle
        add_binds "$a" /data "$p" /ro
        set_cmd 'cp /bin/busybox /data/busybox && /ro/inner/busybox echo EXECUTED-WRITTEN'
        run sbrun --policy "$(wx_policy)" --log "$TEST_DIR/sbrun.log" run -b "$BUNDLE" "$ID"
        umount "$TEST_DIR/alias"
        [[ $output != *EXECUTED-WRITTEN* ]] || fail "the written program ran: $output"
        assert_fails_cleanly "$ID" "mounts[$R].source: $p contains mounts[$W].source $a (writable at /data)" \
                "$TEST_DIR/host/inner/busybox"
}

@test "landlock W^X: a writable bind of a directory inside the rootfs is refused naming root.path" {
        # The rootfs's own /srv/w, bound writable at /data: the read-only
        # root shows the same files at /srv/w.
        local w=$BUNDLE/rootfs/srv/w i
        make_bundle
        host_tree "$w"
        edit_config '.mounts += [{destination: "/data", type: "bind", source: $s, options: ["rbind", "rw"]}]' \
                --arg s "$w"
        i=$(config_get '.mounts | length - 1')
        set_cmd 'cp /bin/busybox /data/busybox && /srv/w/busybox echo EXECUTED-WRITTEN'
        run sbrun --policy "$(wx_policy)" --log "$TEST_DIR/sbrun.log" run -b "$BUNDLE" "$ID"
        [[ $output != *EXECUTED-WRITTEN* ]] || fail "the written program ran: $output"
        assert_fails_cleanly "$ID" \
                "mounts[$i].source: $(realpath "$w") (writable at /data) is inside root.path $(realpath "$BUNDLE/rootfs"): the same files would be executable at /srv/w" \
                "$w/busybox"
}

@test "landlock W^X: binds of trees apart from each other run, and what is written there still does not execute" {
        local a=$TEST_DIR/host/a b=$TEST_DIR/host/b
        host_tree "$a" "$b"
        cp "$SBRUN_ROOTFS/bin/busybox" "$b/busybox"
        [ -z "${SBRUN_AS_USER:-}" ] || chown "$SBRUN_AS_USER:" "$b/busybox"
        make_bundle
        add_binds "$a" /data "$b" /ro
        set_cmd 'cp /bin/busybox /data/busybox; /data/busybox echo EXECUTED-WRITTEN; echo "rc=$?"; /ro/busybox echo ran-from-ro'
        run sbrun --policy "$(wx_policy)" --log "$TEST_DIR/sbrun.log" run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "$output"
        [[ $output != *EXECUTED-WRITTEN* ]] || fail "the written program ran: $output"
        [[ $output == *"/data/busybox: Permission denied"* ]] || fail "$output"
        [[ $output == *rc=126* ]] || fail "$output"
        [[ $output == *ran-from-ro* ]] || fail "$output"
        [ -f "$a/busybox" ] || fail "nothing was written to $a"
}
