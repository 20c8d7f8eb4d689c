#!/usr/bin/env bats
# The floor against a hostile config.json (docs/policy.md, "Protected host
# trees" and "Mount options"): the one who writes the bundle picks every
# path and option. The root and every bind source are judged by what they
# are (device, inode, the path inside their file system), however the
# config spells them; an option element is judged as the kernel reads it,
# split on commas; a recursive option is carried out or refused. Each test
# looks at what the container saw or what the host kept.

load ../helpers
load attack_helpers

# The test's own mounts (a second mount of a tree, a submount) and a
# canary an old runtime let a container write on the host go first, so
# that a failing test leaves nothing either.
teardown() {
        local m
        if [ -n "${TEST_DIR:-}" ]; then
                for m in $(mounts_under "$TEST_DIR" | sort -r); do
                        umount -l "$m" || true
                done
        fi
        rm -f "/var/tmp/sbrun-root-canary-${ID:-none}"
        sb_teardown
}

# run_profile PROFILE [JSON]: `sbrun run` of $BUNDLE under PROFILE.
run_profile() {
        run sbrun --policy "$(policy_for "$@")" --log "$TEST_DIR/sbrun.log" run -b "$BUNDLE" "$ID"
}

# explain_profile PROFILE: `sbrun policy explain` of $BUNDLE under PROFILE.
explain_profile() {
        run sbrun --policy "$(policy_for "$1")" policy explain --bundle "$BUNDLE"
}

# A container that, if it ran, would leave a mark on the host: its root is
# the host's, so /var/tmp is the host's /var/tmp.
canary_cmd() {
        CANARY=/var/tmp/sbrun-root-canary-$ID
        set_cmd "echo escaped > $CANARY"
}

assert_root_refused() {
        local spelling=$1 profile
        for profile in standard strict; do
                run_profile $profile
                echo "$profile ($spelling): $output"
                [ "$status" -ne 0 ]
                [[ $output == *"root.path: \"$spelling\" ("* ]]
                [[ $output == *"refused (rule: standard: no root or bind of a host system directory"* ]]
                [ ! -e "$CANARY" ] || { rm -f "$CANARY"; fail "$profile: the container ran on the host's root"; }
                [ -z "$(ls -A "$ROOT")" ] || fail "$profile: state left: $(ls -A "$ROOT")"
                explain_profile $profile
                [ "$status" -eq 0 ]
                [[ $output == *"refused  root.path: requested \"$spelling\" ("* ]] ||
                        fail "$profile: explain does not judge the root: $output"
        done
}

@test "root: / is refused under standard and strict, by path, by .., and through a symlink" {
        make_bundle
        canary_cmd
        edit_config '.root = {"path": "/", "readonly": false}'
        assert_root_refused /
        edit_config '.root.path = "../../../../../../../../../.."'
        assert_root_refused ../../../../../../../../../..
        ln -s / "$BUNDLE/hostroot"
        edit_config '.root.path = "hostroot"'
        assert_root_refused hostroot
}

@test "root: a host system directory (/usr) or a second mount of / is refused" {
        make_bundle
        canary_cmd
        edit_config '.root = {"path": "/usr", "readonly": true}'
        assert_root_refused /usr
        # Another mount of the host's root file system: another spelling of
        # the same tree, found by the path inside its file system.
        mkdir "$TEST_DIR/alias"
        mount --bind / "$TEST_DIR/alias"
        edit_config ".root.path = \"$TEST_DIR/alias\""
        assert_root_refused "$TEST_DIR/alias"
        umount "$TEST_DIR/alias"
}

@test "root: sbrun's state root or anything in it is refused" {
        make_bundle
        mkdir -p "$ROOT/other"
        cp -a "$BUNDLE/rootfs/." "$ROOT/other/"
        edit_config ".root.path = \"$ROOT/other\""
        run_profile standard
        echo "$output"
        [ "$status" -ne 0 ]
        [[ $output == *"is inside sbrun's state root $ROOT"*"rule: standard: no root or bind of sbrun's state root"* ]]
        rm -rf "$ROOT/other"
}

# The seccomp cache every later container loads its filter from, and the
# other containers' state.
@test "binds: anything in the state root is refused, however it is spelled" {
        make_bundle
        # A first container fills the cache.
        set_cmd true
        run_profile standard
        [ "$status" -eq 0 ]
        [ -d "$ROOT/.seccomp-cache" ]
        local before
        before=$(cd "$ROOT/.seccomp-cache" && find . -type f -exec sha256sum {} + | sort)
        mkdir "$TEST_DIR/alias" "$TEST_DIR/data"
        ln -s "$ROOT/.seccomp-cache" "$TEST_DIR/link"
        mount --bind "$ROOT" "$TEST_DIR/alias"
        local src
        for src in "$ROOT/.seccomp-cache" "$TEST_DIR/link" "$TEST_DIR/alias/.seccomp-cache" \
                "$TEST_DIR/alias" "$TEST_DIR"; do
                edit_config ".mounts += [{\"destination\": \"/cache\", \"type\": \"bind\",
                        \"source\": \"$src\", \"options\": [\"rbind\", \"rw\"]}] |
                        .process.args = [\"sh\", \"-c\", \"for f in /cache/*/*; do echo > \$f; done\"]"
                run_profile standard
                echo "$src: $output"
                [ "$status" -ne 0 ]
                [[ $output == *"mounts["*"].source: \"$src\" ("*"sbrun's state root $ROOT"*refused* ]]
                edit_config 'del(.mounts[-1])'
        done
        # A bind of a directory that holds a mount of the state root: bwrap
        # binds recursively, so what is mounted below a source is judged too.
        edit_config ".mounts += [{\"destination\": \"/cache\", \"type\": \"bind\",
                \"source\": \"$TEST_DIR/data\", \"options\": [\"rbind\", \"ro\"]}]"
        mkdir "$TEST_DIR/data/below"
        mount --bind "$ROOT" "$TEST_DIR/data/below"
        run_profile standard
        echo "below: $output"
        [ "$status" -ne 0 ]
        [[ $output == *"\"$TEST_DIR/data\" ($TEST_DIR/data/below is sbrun's state root $ROOT)"*refused* ]]
        umount "$TEST_DIR/data/below"
        # A relative --root is the same state root.
        edit_config ".mounts[-1].source = \"$ROOT/.seccomp-cache\""
        run bash -c "cd '$TEST_DIR' && '$SBRUN' --root state --policy '$(policy_for standard)' run -b '$BUNDLE' '$ID' 2>&1"
        echo "relative: $output"
        [ "$status" -ne 0 ]
        [[ $output == *"is inside sbrun's state root $ROOT"*refused* ]]
        edit_config 'del(.mounts[-1])'
        umount "$TEST_DIR/alias"
        [ "$(cd "$ROOT/.seccomp-cache" && find . -type f -exec sha256sum {} + | sort)" = "$before" ]
        # The next container still has its filter.
        set_cmd 'grep Seccomp: /proc/self/status; if unshare -U true 2>/dev/null; then echo UNSHARED; fi'
        run_profile standard
        [ "$status" -eq 0 ]
        [[ $output == *"Seccomp:"*2* ]]
        [[ $output != *UNSHARED* ]]
}

@test "binds: nothing in /etc, /usr or /proc is bound writable; read-only is an engine's ordinary bind" {
        make_bundle
        set_cmd 'cat /x >/dev/null && echo READ'
        local src
        for src in /etc/hostname /usr/share /proc/sys/kernel/core_pattern /root /var/spool; do
                edit_config ".mounts += [{\"destination\": \"/x\", \"type\": \"bind\",
                        \"source\": \"$src\", \"options\": [\"rbind\", \"rw\"]}]"
                run_profile standard
                echo "$src: $output"
                [ "$status" -ne 0 ]
                [[ $output == *"\"$src\" ($src is "*"a host system directory"*") refused (rule: standard: no root or bind of a host system directory or its ancestor, nothing in it writable)"* ]]
                edit_config 'del(.mounts[-1])'
        done
        edit_config '.mounts += [{"destination": "/x", "type": "bind",
                "source": "/etc/hostname", "options": ["rbind", "ro"]}]'
        run_profile standard
        [ "$status" -eq 0 ]
        [[ $output == *READ* ]]
}

@test "binds: the audit log's directory is judged by what it is, not by the policy's spelling" {
        # A rootless caller's trail is its own ($XDG_STATE_HOME/sbrun), not audit.log's.
        [ -z "${SBRUN_AS_USER:-}" ] || skip "a rootless caller writes its own trail"
        make_bundle
        local real=$TEST_DIR/audit-real
        mkdir -m 0700 "$real"
        [ -z "${SBRUN_AS_USER:-}" ] || chown "$SBRUN_AS_USER:" "$real"
        ln -s "$real" "$TEST_DIR/audit-link"
        local extra="{\"audit\": {\"log\": \"$TEST_DIR/audit-link/audit.jsonl\"}}"
        set_cmd true
        run_profile standard "$extra"
        [ "$status" -eq 0 ]
        [ -s "$real/audit.jsonl" ]
        local before n
        before=$(sha256sum <"$real/audit.jsonl")
        n=$(wc -c <"$real/audit.jsonl")
        edit_config ".mounts += [{\"destination\": \"/log\", \"type\": \"bind\",
                \"source\": \"$real/audit.jsonl\", \"options\": [\"bind\", \"rw\"]}]"
        set_cmd 'echo forged > /log'
        run_profile standard "$extra"
        echo "$output"
        [ "$status" -ne 0 ]
        [[ $output == *"is inside sbrun's audit trail directory"*refused* ]]
        # Only appended: what was there is unchanged, nothing forged.
        [ "$(head -c "$n" "$real/audit.jsonl" | sha256sum)" = "$before" ]
        ! grep -q forged "$real/audit.jsonl"
}

@test "tmpfs: an option element with commas is judged as the kernel reads it" {
        make_bundle
        edit_config '.mounts += [{"destination": "/big", "type": "tmpfs", "source": "tmpfs",
                "options": ["size=1m", "nr_inodes=100", "uid=0,size=4g,nr_inodes=0"]}]'
        set_cmd 'grep " /big " /proc/self/mounts'
        local profile size inodes
        for profile in standard strict; do
                run_profile $profile
                echo "$profile: $output"
                [ "$status" -eq 0 ]
                size=$(sed -n 's/.*size=\([0-9]*\)k.*/\1/p' <<<"$output")
                inodes=$(sed -n 's/.*nr_inodes=\([0-9]*\).*/\1/p' <<<"$output")
                [ -n "$size" ] && [ -n "$inodes" ] || fail "no size or nr_inodes shown"
                # nr_inodes=0 is no limit at all: over every ceiling. (A
                # `[ a ] && [ b ]` line would assert nothing when a fails.)
                local max_size=$((1024 * 1024)) max_inodes=$((1024 * 1024))
                [ $profile = standard ] || { max_size=$((64 * 1024)) max_inodes=16384; }
                [ "$size" -le "$max_size" ] || fail "$profile: size=${size}k over ${max_size}k"
                [ "$inodes" -gt 0 ] && [ "$inodes" -le "$max_inodes" ] ||
                        fail "$profile: nr_inodes=$inodes, not 1..$max_inodes"
                grep -q "mounts\[[0-9]*\].options: requested size=4g" "$TEST_DIR/sbrun.log"
                : >"$TEST_DIR/sbrun.log"
        done
        # An empty option is one nobody asked for.
        edit_config '.mounts[-1].options = ["size=1m,,nr_inodes=9"]'
        run_profile standard
        [ "$status" -ne 0 ]
        [[ $output == *"options: \"size=1m,,nr_inodes=9\" has an empty option"* ]]
}

@test "mount options: rro is read-only on the bind and every mount below it; rrw and data on a bind are refused" {
        make_bundle
        mkdir -p "$TEST_DIR/data/sub"
        mount -t tmpfs -o size=1m tmpfs "$TEST_DIR/data/sub"
        edit_config ".mounts += [{\"destination\": \"/d\", \"type\": \"bind\",
                \"source\": \"$TEST_DIR/data\", \"options\": [\"rbind\", \"rro\"]}]"
        set_cmd 'touch /d/x 2>&1; touch /d/sub/y 2>&1; grep " /d" /proc/self/mounts'
        run_profile standard
        echo "$output"
        [ "$status" -eq 0 ]
        [ ! -e "$TEST_DIR/data/x" ] || fail "/d/x was written through rro"
        [ ! -e "$TEST_DIR/data/sub/y" ] || fail "/d/sub/y was written through rro"
        [[ $output == *"/d/x: Read-only file system"* ]]
        [[ $output == *"/d/sub/y: Read-only file system"* ]]
        edit_config '.mounts[-1].options = ["rbind", "rrw"]'
        run_profile standard
        [ "$status" -ne 0 ]
        [[ $output == *"options: \"rrw\" is not supported by sbrun"* ]]
        edit_config '.mounts[-1].options = ["rbind,size=1g"]'
        run_profile standard
        [ "$status" -ne 0 ]
        [[ $output == *"options: \"size=1g\" is not supported by sbrun on a bind mount"* ]]
        edit_config '.mounts[-1].options = ["rbind", "nosymfollow"]'
        set_cmd 'grep " /d " /proc/self/mounts'
        run_profile standard
        [ "$status" -eq 0 ]
        [[ $output == *nosymfollow* ]]
        umount "$TEST_DIR/data/sub"
}
