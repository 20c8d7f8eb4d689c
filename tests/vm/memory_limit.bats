#!/usr/bin/env bats
# A container at or near its memory limit must never wedge the runtime:
# `run` returns, `exec` returns (with the process's output or a clear
# error), and nothing is left. sbrun-init joins the cgroup, so what sbrun
# and bwrap allocate while setting up is not charged to the container
# (docs/design.md, "What is charged to the container"). Needs a pure
# cgroup v2 host: run it in the VM lane through tests/vm/cgroups-suite.sh.
# Every sbrun call is under `timeout`, so a wedge fails the test instead of
# hanging the lane.

load ../helpers
load vm_helpers

# Generous: the guest runs under TCG, ~50x slower than the host.
SB_TIMEOUT=120

setup() {
        vm_require_cgroup2
        sb_setup
}

# bounded ARG...: `sbrun ARG...` under a hard timeout (SIGKILL: a wedged
# sbrun may not end on SIGTERM), stdout to $TEST_DIR/out, stderr to
# $TEST_DIR/err; sets $rc. Not returning in time fails the test.
bounded() {
        local start=$SECONDS
        rc=0
        timeout -s KILL "$SB_TIMEOUT" "${SBRUN_ARGV[@]}" "$@" </dev/null \
                >"$TEST_DIR/out" 2>"$TEST_DIR/err" 3>&- || rc=$?
        echo "sbrun $1: rc=$rc after $((SECONDS - start))s stdout=[$(cat "$TEST_DIR/out")]" \
                "stderr=[$(cat "$TEST_DIR/err")]"
        [ $((SECONDS - start)) -lt "$SB_TIMEOUT" ] ||
                fail "sbrun $1 did not return within ${SB_TIMEOUT}s (killed by timeout)"
}

# ten_runs LOCATION: the 512 KiB container's bundle on LOCATION
# (tests/vm/bundle-fs.sh: tmpfs, ext4 on a loop device, the host's tree over
# 9p), `run` of /bin/echo hi ten times: each returns, prints hi, exits 0 and
# leaves no cgroup. On a disk-backed bundle the page cache of what the
# container reads is charged to its cgroup, which tmpfs hides.
ten_runs() {
        local base
        base=$("$SBRUN_SRCDIR/tests/vm/bundle-fs.sh" "$1") || fail "no bundle location $1"
        BUNDLE=$base/$(basename "$TEST_DIR")
        # The 9p location is the host's tree: removed with the test.
        echo "$BUNDLE" >>"$TEST_DIR/bundles.rm"
        make_bundle "$BUNDLE"
        set_args /bin/echo hi
        edit_config '.linux.resources.memory = {"limit": 524288}'

        local i id
        for ((i = 1; i <= 10; i++)); do
                id=$(new_id)
                bounded run -b "$BUNDLE" "$id"
                [ "$rc" -eq 0 ] || fail "run $i ($1): exit $rc"
                [ "$(cat "$TEST_DIR/out")" = hi ] || fail "run $i ($1): the container printed no 'hi'"
                [ ! -e "$(cgdir "$id")" ] || fail "run $i ($1): cgroup $(cgdir "$id") left behind"
                assert_no_leftovers "$id"
        done
}

teardown() {
        local dir
        if [ -f "${TEST_DIR:-}/bundles.rm" ]; then
                while read -r dir; do
                        rm -rf "$dir"
                done <"$TEST_DIR/bundles.rm"
        fi
        sb_teardown
}

@test "512 KiB memory limit: /bin/echo hi runs and run returns, 10 times in a row (bundle on tmpfs)" {
        ten_runs tmpfs
}

@test "512 KiB memory limit: /bin/echo hi runs and run returns, 10 times in a row (bundle on ext4)" {
        ten_runs ext4
}

@test "512 KiB memory limit: /bin/echo hi runs and run returns, 10 times in a row (bundle on 9p)" {
        ten_runs 9p
}

@test "512 KiB memory limit: the cgroup namespace is rooted at the container's cgroup, limits in force" {
        make_bundle
        # `sbrun spec` asks for a cgroup namespace and mounts cgroup2 at
        # /sys/fs/cgroup.
        [ "$(config_get '[.linux.namespaces[].type] | index("cgroup") != null')" = true ]
        set_cmd 'cat /proc/self/cgroup /sys/fs/cgroup/memory.max'
        edit_config '.linux.resources.memory = {"limit": 524288}'

        bounded run -b "$BUNDLE" "$ID"
        [ "$rc" -eq 0 ]
        [ "$(cat "$TEST_DIR/out")" = "$(printf '0::/\n524288')" ]
        assert_no_leftovers "$ID"
}

@test "512 KiB memory limit: the container's pid 1 is in its cgroup, seen from the host" {
        make_bundle
        set_args sleep 1000
        edit_config '.linux.resources.memory = {"limit": 524288}'

        bounded run -d -b "$BUNDLE" "$ID"
        [ "$rc" -eq 0 ]
        local pid
        pid=$(container_pid "$ID")
        [ "$(cat "/proc/$pid/cgroup")" = "0::/sbrun/$ID" ]
        grep -qx "$pid" "$(cgdir)/cgroup.procs"
        bounded delete --force "$ID"
        [ "$rc" -eq 0 ]
        assert_no_leftovers "$ID"
}

@test "exec into a container at its memory limit returns, and the container is deletable" {
        make_bundle
        # tmpfs pages cannot be reclaimed (no swap in the guest): the cgroup
        # stays a few pages under its 8 MiB limit.
        set_cmd 'head -c 7900k /dev/zero >/dev/shm/fill; echo filled; exec sleep 100000'
        edit_config '.linux.resources.memory = {"limit": 8388608}'

        timeout -s KILL "$SB_TIMEOUT" "${SBRUN_ARGV[@]}" run -d -b "$BUNDLE" "$ID" \
                </dev/null >"$TEST_DIR/container.out" 2>&1 3>&-
        local i
        for ((i = 0; i < 600; i++)); do
                grep -q filled "$TEST_DIR/container.out" && break
                sleep 0.1
        done
        grep -q filled "$TEST_DIR/container.out" || fail "the container did not fill its memory"
        local cg
        cg=$(cgdir)
        echo "memory.current $(cat "$cg/memory.current") of $(cat "$cg/memory.max")"
        [ "$(cat "$cg/memory.current")" -gt $((8388608 - 1048576)) ]

        for ((i = 1; i <= 3; i++)); do
                bounded exec "$ID" /bin/echo exec-hi
                if [ "$rc" -eq 0 ]; then
                        [ "$(cat "$TEST_DIR/out")" = exec-hi ]
                else
                        # A failure must say why.
                        grep -Eq 'OOM|memory' "$TEST_DIR/err" ||
                                fail "exec $i failed (exit $rc) without naming the memory limit"
                fi
        done

        bounded delete --force "$ID"
        [ "$rc" -eq 0 ]
        [ ! -e "$cg" ]
        assert_no_leftovers "$ID"
}
