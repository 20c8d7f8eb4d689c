#!/usr/bin/env bats
# Landlock under strict (spec/floor_landlock.h, runtime/init/init_landlock.c):
# writes only beneath what the config makes writable, for the first process
# and every exec'd one, even where a mount appears later; executing a file
# just written works by default and is EACCES with "exec_writable": false;
# ordinary work (a shell, a C compiler building and running a program in
# /tmp) goes on; a kernel without Landlock fails a strict create by name, or
# runs it with a warning where the operator said best-effort; under strict
# a TCP socket handed in connects nowhere (ABI 4). This host's kernel offers
# Landlock ABI 7 (sbrun uses up to 4); tests/vm/cgroups-suite.sh runs the
# "under strict a write", "/tmp" and "a program written" tests again in the
# VM lane's guest, whose kernel (Debian's 6.1) offers ABI 2, and
# tests/vm/no_landlock.bats checks a real kernel without Landlock.

load ../helpers

# Where the output is read, warnings go to --log FILE: on a host with cgroup
# v2 the sbrun helper passes no --log of its own (the VM lane's guest).
strict() {
        edit_config '.annotations["run.sbrun.policy"] = "strict"'
}

# sbrun_no_landlock: prints the path of a script that runs sbrun where the
# kernel appears to have no Landlock (tests/helpers/no_landlock.c).
sbrun_no_landlock() {
        local bin=$SBRUN_TEST_TMP/no_landlock
        if [ ! -x "$bin" ]; then
                cc -O2 -Wall -o "$bin.tmp.$$" "$SBRUN_SRCDIR/tests/helpers/no_landlock.c" &&
                        mv "$bin.tmp.$$" "$bin" || fail "cannot build tests/helpers/no_landlock.c"
        fi
        printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$bin" "$SBRUN" >"$TEST_DIR/sbrun-no-landlock"
        chmod 0755 "$TEST_DIR/sbrun-no-landlock"
        echo "$TEST_DIR/sbrun-no-landlock"
}

# no_landlock ARG...: sbrun (as the sbrun helper runs it) without Landlock.
no_landlock() {
        local wrapper
        wrapper=$(sbrun_no_landlock) || return 1
        SBRUN=$wrapper sbrun "$@"
}

# landlock_tcp_bin: tests/helpers/landlock_tcp.c built static (it runs in
# the busybox rootfs too); prints its path.
landlock_tcp_bin() {
        local bin=$SBRUN_TEST_TMP/landlock_tcp
        if [ ! -x "$bin" ]; then
                cc -O2 -Wall -static -o "$bin.tmp.$$" "$SBRUN_SRCDIR/tests/helpers/landlock_tcp.c" &&
                        mv "$bin.tmp.$$" "$bin" || fail "cannot build tests/helpers/landlock_tcp.c"
        fi
        echo "$bin"
}

# late_mount_case: in a mount namespace of the test's own, $TEST_DIR/src is
# a shared mount bound read-only at /shared in the container (rslave, runc's
# default). Once the container runs, a tmpfs is mounted at src/sub: it
# propagates into the container as a writable mount the config never named.
# The first process then writes there, and so does an exec'd one. Prints
# what each got and what is in the tmpfs after.
late_mount_case() {
        edit_config '.mounts += [{destination: "/shared", type: "bind", source: $s, options: ["rbind", "ro"]}]' \
                --arg s "$TEST_DIR/src"
        set_args sh -c 'while [ ! -e /shared/sub/ready ]; do sleep 0.05; done
                if echo first >/shared/sub/first; then echo "first wrote"; else echo "first refused"; fi
                exec sleep 1000'
        mkdir -p "$TEST_DIR/src/sub"
        unshare -m --propagation unchanged "$BASH" -c '
                set -e
                mount --make-rprivate /
                mount --bind "$1/src" "$1/src" && mount --make-shared "$1/src"
                "${@:4}" run -d -b "$2" "$3" </dev/null >"$1/first.out" 2>&1 3>&-
                mount -t tmpfs late "$1/src/sub"
                : >"$1/src/sub/ready"
                for i in $(seq 100); do grep -q "first" "$1/first.out" && break; sleep 0.1; done
                if "${@:4}" exec "$3" sh -c "echo exec >/shared/sub/exec" 2>"$1/exec.err" 3>&-; then
                        echo "exec wrote"
                else
                        echo "exec refused: $(cat "$1/exec.err")"
                fi
                cat "$1/first.out"
                echo "files: $(ls "$1/src/sub" | tr "\n" " ")"
                "${@:4}" delete --force "$3" 3>&-
                umount "$1/src/sub" "$1/src"' \
                _ "$TEST_DIR" "$BUNDLE" "$ID" "$SBRUN" --root "$ROOT" ${SB_POLICY:+--policy "$SB_POLICY"} \
                --log "$TEST_DIR/sbrun.log"
}

@test "landlock: under strict a write beneath a mount that appeared after create is EACCES, for the first process and exec; standard writes there" {
        make_bundle
        run late_mount_case
        [ "$status" -eq 0 ] || fail "$output"
        [ "${lines[0]}" = "exec wrote" ] || fail "standard: $output"
        [[ $output == *"first wrote"* ]] || fail "standard: $output"

        make_bundle "$TEST_DIR/strict"
        BUNDLE=$TEST_DIR/strict strict
        ID=$(new_id)
        BUNDLE=$TEST_DIR/strict run late_mount_case
        [ "$status" -eq 0 ] || fail "$output"
        [[ ${lines[0]} == "exec refused: "*"Permission denied"* ]] || fail "strict: $output"
        [[ $output == *"first refused"* ]] || fail "strict: $output"
        [[ $output == *"/shared/sub/first: Permission denied"* ]] || fail "strict: $output"
        [[ $output == *"files: ready "* ]] || fail "strict: $output"
        assert_no_leftovers "$ID"
}

@test "landlock: under strict /tmp, /dev/shm and /dev/null take writes; /proc does not" {
        make_bundle
        strict
        set_cmd 'echo a >/tmp/a && cat /tmp/a; echo b >/dev/shm/b && cat /dev/shm/b
                echo c >/dev/null && echo null-ok
                { echo x >/proc/self/comm; } 2>/dev/null && echo comm-written || echo comm-refused'
        run sbrun --log "$TEST_DIR/sbrun.log" run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "$output"
        [ "${lines[0]}" = a ] && [ "${lines[1]}" = b ] && [ "${lines[2]}" = null-ok ] || fail "$output"
        [ "${lines[3]}" = comm-refused ] || fail "$output"

        # The same commands under standard: the proc write and the bind go through.
        make_bundle "$TEST_DIR/std"
        BUNDLE=$TEST_DIR/std set_cmd '{ echo x >/proc/self/comm; } 2>/dev/null && echo comm-written || echo comm-refused'
        run sbrun --log "$TEST_DIR/sbrun.log" run -b "$TEST_DIR/std" "$(new_id)"
        [ "$output" = comm-written ] || fail "standard: $output"
}

@test "landlock: a program written to /tmp runs by default; with exec_writable false it is EACCES and the root's still run" {
        make_bundle
        strict
        set_cmd 'mkdir /tmp/x && cp /bin/busybox /tmp/x/ && /tmp/x/busybox echo ran-from-tmp
                echo "rc=$?"; busybox echo ran-from-root'
        run sbrun --log "$TEST_DIR/sbrun.log" run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "$output"
        [ "${lines[0]}" = ran-from-tmp ] && [ "${lines[1]}" = rc=0 ] || fail "$output"
        [ "${lines[2]}" = ran-from-root ] || fail "$output"

        local policy
        policy=$(policy_with '{"landlock": {"exec_writable": false}}' wx)
        # Apart: strict's output limit brings the two streams through two
        # pipes, which keep no order between them (docs/policy.md).
        run --separate-stderr sbrun --policy "$policy" --log "$TEST_DIR/wx.log" run -b "$BUNDLE" "$(new_id)"
        [ "$status" -eq 0 ] || fail "$output $stderr"
        [[ $stderr == *"/tmp/x/busybox: Permission denied"* ]] || fail "$output $stderr"
        [ "${lines[0]}" = rc=126 ] && [ "${lines[1]}" = ran-from-root ] || fail "$output $stderr"

        # With a writable root nothing would be left to run: refused by name.
        make_bundle "$TEST_DIR/rw"
        BUNDLE=$TEST_DIR/rw edit_config '.root.readonly = false'
        run sbrun --policy "$(policy_with '{"landlock": {"mode": "required", "exec_writable": false}}' wxrw)" \
                --log "$TEST_DIR/wxrw.log" run -b "$TEST_DIR/rw" "$(new_id)"
        [ "$status" -ne 0 ] || fail "$output"
        [[ $output == *"root.readonly: false refused (rule: landlock.exec_writable false in "*"the root would be writable and nothing executable)"* ]] ||
                fail "$output"
}

@test "landlock: under strict a C compiler writes to /tmp and runs what it built" {
        command -v gcc >/dev/null || fail "gcc is not installed (tests/install-deps.sh)"
        mkdir -p "$BUNDLE/rootfs"/{usr,proc,dev,sys,tmp,etc}
        for d in bin sbin lib lib64; do ln -s "usr/$d" "$BUNDLE/rootfs/$d"; done
        (cd "$BUNDLE" && sbrun spec) || fail "sbrun spec"
        stat -c '%d:%i' "$BUNDLE/rootfs" | tee -a "$SBRUN_TEST_TMP/rootfs.ids" >>"$TEST_DIR/rootfs.ids"
        edit_config '.process.terminal = false | .mounts += [{destination: "/usr", type: "bind", source: "/usr", options: ["rbind", "ro"]}]'
        strict
        set_args sh -c 'printf "#include <stdio.h>\nint main(void) { puts(\"built and ran\"); return 0; }\n" >/tmp/h.c &&
                gcc -o /tmp/h /tmp/h.c && /tmp/h'
        run sbrun --log "$TEST_DIR/sbrun.log" run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "$output"
        [ "$output" = "built and ran" ] || fail "$output"
}

@test "landlock: a kernel without it fails a strict create by name and leaves nothing; best-effort runs with a warning; standard does not need it" {
        make_bundle
        strict
        set_args echo ran
        run no_landlock create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "landlock: a container without Landlock refused (rule: strict: Landlock; this kernel has none (built in but not enabled: add landlock to the kernel's lsm= list)"

        local policy
        policy=$(policy_with '{"landlock": {"mode": "best-effort"}}' best)
        run no_landlock --policy "$policy" run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "$output"
        [[ $output == *"landlock: this kernel has none (built in but not enabled"*"the container runs without it (rule: landlock.mode best-effort in $policy)"* ]] ||
                fail "$output"
        [[ ${lines[-1]} == ran ]] || fail "$output"

        make_bundle "$TEST_DIR/std"
        BUNDLE=$TEST_DIR/std set_args echo ran
        run no_landlock --log "$TEST_DIR/sbrun.log" run -b "$TEST_DIR/std" "$(new_id)"
        [ "$status" -eq 0 ] && [ "$output" = ran ] || fail "$output"
}

@test "landlock: under strict a TCP socket handed in connects nowhere: connect and bind are the seccomp floor's EPERM, fast open's connect Landlock's EACCES; without Landlock it connects" {
        local tcp probe policy
        tcp=$(landlock_tcp_bin) || return 1
        probe=$("$tcp" probe) || fail "tests/helpers/landlock_tcp.c probe: $probe"
        case $probe in
        "abi "[0-3]) skip "this kernel's Landlock ($probe) has no TCP rights (ABI 4): strict has no TCP rule here" ;;
        *fastopen-off) skip "net.ipv4.tcp_fastopen has no client bit: no fast open to reach the TCP rule with" ;;
        *fastopen-unchecked) skip "this kernel's Landlock lets fast open's connect through ($probe): no way to reach the TCP rule past the seccomp floor" ;;
        *fastopen-checked) ;;
        *) fail "tests/helpers/landlock_tcp.c probe: $probe" ;;
        esac
        make_bundle
        strict
        cp "$tcp" "$BUNDLE/rootfs/bin/landlock_tcp"
        set_args landlock_tcp inside
        # fd 3: an unconnected TCP socket of the host's network namespace,
        # fd 4: a listener on its 127.0.0.1. Not through sbrun(), which
        # closes fd 3.
        policy=$(policy_with '{}' plain)
        run "$tcp" outside "$SBRUN" --root "$ROOT" --policy "$policy" --log "$TEST_DIR/sbrun.log" \
                run --preserve-fds 2 -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "$output"
        [ "${lines[0]}" = "connect: Operation not permitted" ] || fail "$output"
        [ "${lines[1]}" = "bind: Operation not permitted" ] || fail "$output"
        [ "${lines[2]}" = "fastopen: Permission denied" ] || fail "$output"
        [ "${lines[3]}" = "listener: no connection" ] || fail "$output"

        # The same container and seccomp floor where the kernel appears to
        # have no Landlock (best-effort): the same socket connects.
        policy=$(policy_with '{"landlock": {"mode": "best-effort"}}' best)
        run "$tcp" outside "$(sbrun_no_landlock)" --root "$ROOT" --policy "$policy" --log "$TEST_DIR/best.log" \
                run --preserve-fds 2 -b "$BUNDLE" "$(new_id)"
        [ "$status" -eq 0 ] || fail "$output"
        grep -q "landlock: this kernel has none" "$TEST_DIR/best.log" || fail "no warning: $(cat "$TEST_DIR/best.log")"
        [ "${lines[0]}" = "connect: Operation not permitted" ] || fail "without Landlock: $output"
        [ "${lines[1]}" = "bind: Operation not permitted" ] || fail "without Landlock: $output"
        [ "${lines[2]}" = "fastopen: ok" ] || fail "without Landlock: $output"
        [ "${lines[3]}" = "listener: a connection" ] || fail "without Landlock: $output"
}

@test "landlock: policy show, explain and check report it" {
        make_bundle
        strict
        run sbrun policy explain --bundle "$BUNDLE"
        [ "$status" -eq 0 ] || fail "$output"
        [[ $output == *"added    landlock: requested (none), effective ABI "*": writes beneath "*" paths; exec there allowed; TCP "*" (rule: strict: Landlock)"* ]] ||
                fail "$output"
        run sbrun --policy "$(policy_with '{"landlock": {"mode": "required", "exec_writable": false}}' show)" policy show
        [[ $output == *"landlock: required (landlock.mode required), exec from writable paths denied; kernel: ABI "* ]] ||
                fail "$output"
        run sbrun check
        [[ $(grep '^landlock ' <<<"$output") == "landlock "*" ok "*"ABI "*" (sbrun uses up to 4)" ]] ||
                fail "$output"
        run no_landlock --policy "$(policy_with '{"floor": {"profile": "strict"}}' strictdefault)" check
        [[ $(grep '^landlock ' <<<"$output") == "landlock "*" FAIL "*"none: built in but not enabled"* ]] ||
                fail "$output"
}
