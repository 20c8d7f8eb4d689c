#!/usr/bin/env bats
# A damaged state directory: a truncated or corrupt state.json, a missing
# exec.fifo, a mount left in it, a state root on a full file system. Each command says what is
# wrong, and `delete --force` still removes the container.

load ../helpers

teardown() {
        # A failed test's bind in the state directory.
        if [ -n "${YARD:-}" ]; then
                while umount -l "$YARD" 2>/dev/null; do :; done
        fi
        if [ -n "${FULL_FS:-}" ]; then
                # The containers first: their state lives on it.
                for id in $(test_container_ids); do
                        "${SBRUN_ARGV[@]}" delete --force "$id" >/dev/null 2>&1 3>&- || true
                done
                umount "$FULL_FS" || true
        fi
        sb_teardown
}

created_container() {
        make_bundle
        set_args sleep 1000
        detached sbrun create -b "$BUNDLE" "$ID" || fail "create failed"
        PID=$(container_pid "$ID")
}

# assert_all_fail_naming WORDS...: state, start, kill and delete (without
# --force) each fail, and their message names every one of WORDS.
assert_all_fail_naming() {
        local cmd w
        for cmd in "state $ID" "start $ID" "kill $ID KILL" "delete $ID"; do
                # shellcheck disable=SC2086
                run sbrun $cmd
                [ "$status" -ne 0 ] || fail "'$cmd' succeeded on a damaged container: $output"
                for w in "$@"; do
                        [[ $output == *"$w"* ]] || fail "'$cmd': expected '$w' in: $output"
                done
        done
}

# delete --force of the damaged container succeeds, and neither its state
# nor its process is left.
assert_force_delete_cleans_up() {
        run sbrun delete --force "$ID"
        [ "$status" -eq 0 ] || fail "delete --force: $output"
        assert_no_leftovers "$ID"
        # Killed is enough: once reparented, it waits to be reaped by the
        # machine's pid 1, which may take its time (a zombie still answers
        # kill -0).
        local state
        state=$(awk '{print $3}' "/proc/$PID/stat" 2>/dev/null || true)
        [ -z "$state" ] || [ "$state" = Z ] || fail "the container process $PID still runs ($state)"
}

@test "a truncated state.json: every command names it, delete --force cleans up" {
        created_container
        truncate -s 20 "$ROOT/$ID/state.json"

        assert_all_fail_naming "state.json" "$ID"
        assert_force_delete_cleans_up
}

@test "a corrupt state.json (not JSON): every command names it, delete --force cleans up" {
        created_container
        printf '\x00\x01garbage{{{' >"$ROOT/$ID/state.json"

        assert_all_fail_naming "state.json" "$ID"
        assert_force_delete_cleans_up
}

@test "an empty state.json of a running container: delete --force says what it could not do" {
        created_container
        sbrun start "$ID"
        : >"$ROOT/$ID/state.json"

        run sbrun state "$ID"
        [ "$status" -ne 0 ]
        [[ $output == *"state.json"* ]] || fail "$output"
        run sbrun delete --force "$ID"
        [ "$status" -eq 0 ] || fail "delete --force: $output"
        [ ! -e "$ROOT/$ID" ] || fail "state dir left"
        # The record was the only place that held the pid: the process is
        # not found, and delete says so rather than pretend.
        [[ $output$(cat "$TEST_DIR/sbrun.log" 2>/dev/null) == *"is not killed"* ]] ||
                fail "no warning about the process: $output"
        kill -KILL "$PID" 2>/dev/null || true
}

@test "a mount left in the state directory (CRIU's cgroup yard after a killed checkpoint): delete detaches it and removes nothing below it" {
        created_container
        # As the yard is: a bind of a tree whose empty directories (cgroups,
        # there) a walk would remove.
        mkdir -p "$TEST_DIR/hier/empty-cgroup" "$ROOT/$ID/criu-cgroup-yard/unified"
        YARD=$ROOT/$ID/criu-cgroup-yard/unified
        # Twice: a checkpoint retried after a killed one stacks its bind.
        mount --bind "$TEST_DIR/hier" "$YARD"
        mount --bind "$TEST_DIR/hier" "$YARD"
        run sbrun delete --force "$ID"
        [ "$status" -eq 0 ] || fail "delete --force: $output"
        [ -d "$TEST_DIR/hier/empty-cgroup" ] || fail "delete removed a directory below the mount"
        ! grep -qF " $ROOT/$ID/" /proc/self/mountinfo || fail "the mount is left: $(grep -F " $ROOT/$ID/" /proc/self/mountinfo)"
        [ ! -e "$ROOT/$ID" ] || fail "the state directory is left: $(find "$ROOT/$ID")"
        YARD=
        assert_no_leftovers "$ID"
}

@test "a mount elsewhere in the state directory is neither walked nor detached: delete --force fails, and removes nothing below it" {
        created_container
        mkdir -p "$TEST_DIR/hier/empty" "$ROOT/$ID/elsewhere"
        YARD=$ROOT/$ID/elsewhere
        mount --bind "$TEST_DIR/hier" "$YARD"
        run sbrun delete --force "$ID"
        [ "$status" -ne 0 ] || fail "delete --force went through a mount it did not make"
        [[ $output == *"remove state directory $ROOT/$ID"* ]] || fail "not named: $output"
        [ -d "$TEST_DIR/hier/empty" ] || fail "delete removed a directory below the mount"
        grep -qF " $YARD " /proc/self/mountinfo || fail "delete detached a mount it did not make"
        umount "$YARD"
        YARD=
        run sbrun delete --force "$ID"
        [ "$status" -eq 0 ] || fail "delete --force after the umount: $output"
        assert_no_leftovers "$ID"
}

@test "a missing exec.fifo: start names it, the container stays, delete --force cleans up" {
        created_container
        rm "$ROOT/$ID/exec.fifo"

        run sbrun start "$ID"
        [ "$status" -ne 0 ] || fail "start succeeded without exec.fifo"
        [[ $output == *"exec.fifo is missing"* ]] || fail "start: $output"
        run sbrun state "$ID"
        [ "$status" -eq 0 ]
        [ "$(jq -r .status <<<"$output")" = created ] || fail "$output"
        run sbrun delete --force "$ID"
        [ "$status" -eq 0 ] || fail "delete --force: $output"
        assert_no_leftovers "$ID"
}

# full_root: the state root on a 512 KiB tmpfs of this test; fill_root
# fills it to the last byte.
full_root() {
        FULL_FS=$TEST_DIR/full
        mkdir -p "$FULL_FS"
        mount -t tmpfs -o size=512k,mode=0700 sbrun-test-full "$FULL_FS"
        ROOT=$FULL_FS/state
        SBRUN_ARGV=("$SBRUN" --root "$ROOT")
        [ -n "$SB_POLICY" ] && SBRUN_ARGV+=(--policy "$SB_POLICY" --log "$TEST_DIR/sbrun.log")
}

unmount_full() {
        umount "$FULL_FS" && FULL_FS=""
}

fill_root() {
        dd if=/dev/zero of="$FULL_FS/filler" bs=4k 2>/dev/null || true
        # Small files still fit in what dd left: fill it with them too.
        local i=0
        while printf 'x' >"$FULL_FS/f$i" 2>/dev/null; do i=$((i + 1)); done
}

@test "a full state root: create fails naming the space, and leaves nothing" {
        full_root
        make_bundle
        fill_root

        run detached sbrun create -b "$BUNDLE" "$ID"
        [ "$status" -ne 0 ] || fail "create succeeded on a full file system"
        [[ ${output,,} == *"no space left on device"* ]] || fail "create: $output"
        [[ $output == *"$ROOT/$ID"* ]] || fail "create does not say where: $output"
        rm -f "$FULL_FS/filler"
        [ ! -e "$ROOT/$ID" ] || fail "state dir left on the full file system"
        unmount_full
        assert_no_leftovers "$ID"
}

@test "a full state root: start fails naming the space before the process runs" {
        full_root
        make_bundle
        set_cmd 'echo ran >/ran; sleep 1000'
        edit_config '.root.readonly = false'
        detached sbrun create -b "$BUNDLE" "$ID" || fail "create failed"
        fill_root

        run sbrun start "$ID"
        [ "$status" -ne 0 ] || fail "start succeeded on a full file system"
        [[ ${output,,} == *"no space left on device"* ]] || fail "start: $output"
        sleep 0.5
        [ ! -e "$BUNDLE/rootfs/ran" ] || fail "the process ran although start failed"
        run sbrun state "$ID"
        [ "$(jq -r .status <<<"$output")" = created ] || fail "state after a failed start: $output"
        # With room again, the same container starts.
        rm -f "$FULL_FS/filler"
        sbrun start "$ID"
        wait_for_status "$ID" running
        run sbrun delete --force "$ID"
        [ "$status" -eq 0 ] || fail "delete --force: $output"
        [ ! -e "$ROOT/$ID" ] || fail "state dir left on the full file system"
        unmount_full
        assert_no_leftovers "$ID"
}

@test "a full state root: kill and delete --force still work" {
        full_root
        make_bundle
        set_args sleep 1000
        detached sbrun create -b "$BUNDLE" "$ID" || fail "create failed"
        sbrun start "$ID"
        fill_root

        run sbrun kill "$ID" KILL
        [ "$status" -eq 0 ] || fail "kill: $output"
        run sbrun delete --force "$ID"
        [ "$status" -eq 0 ] || fail "delete --force: $output"
        [ ! -e "$ROOT/$ID" ] || fail "state dir left on the full file system"
        unmount_full
        assert_no_leftovers "$ID"
}
