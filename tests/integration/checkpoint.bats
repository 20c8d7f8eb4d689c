#!/usr/bin/env bats
# checkpoint and restore where CRIU cannot run (this host's kernel fails
# its vDSO check; tests/vm/checkpoint*.bats dump and restore in the VM
# lane): what is refused before CRIU runs, and what a failing CRIU leaves.

load ../helpers

# piped_run ID: `sbrun run -d ID` with its stdio on pipes, as engines give
# it (CRIU dumps pipes, not a host file); its output in $TEST_DIR/ID.out.
piped_run() {
        # shellcheck disable=SC2016 # expanded by the inner bash
        start_helper bash -c 'sleep 100000 | "${@:2}" 2>&1 | cat >"$1"' _ "$TEST_DIR/$1.out" \
                "${SBRUN_ARGV[@]}" run -d -b "$BUNDLE" "$1"
        wait_for_status "$1" running 30 2>/dev/null ||
                fail "$1 is not running: $(cat "$TEST_DIR/$1.out")"
}

@test "checkpoint: a container that is not running is refused by its status" {
        make_bundle
        set_cmd 'sleep 100'
        detached sbrun create -b "$BUNDLE" "$ID"
        run sbrun checkpoint --image-path "$TEST_DIR/img" "$ID"
        [ "$status" -eq 1 ]
        [[ $output == *"checkpoint: container $ID is created, not running"* ]] || fail "$output"
        [ ! -e "$TEST_DIR/img" ] || fail "the image directory was made"
        run sbrun checkpoint --image-path "$TEST_DIR/img" nosuch
        [ "$status" -eq 1 ]
        [[ $output == *'container "nosuch" does not exist'* ]] || fail "$output"
}

@test "checkpoint: no criu fails naming it; the container runs on" {
        make_bundle
        set_cmd 'while :; do sleep 1; done'
        piped_run "$ID"
        run sbrun --criu /nonexistent/criu checkpoint --image-path "$TEST_DIR/img" "$ID"
        [ "$status" -eq 1 ]
        [[ $output == *"cannot run /nonexistent/criu (install CRIU, or name it with --criu PATH)"* ]] ||
                fail "$output"
        [ "$(container_status "$ID")" = running ]
        [ ! -e "$TEST_DIR/img/sbrun-checkpoint.json" ] || fail "a record was written"
}

@test "restore: a directory that is no sbrun checkpoint is refused and leaves nothing" {
        make_bundle
        mkdir "$TEST_DIR/img"
        run sbrun restore -d -b "$BUNDLE" --image-path "$TEST_DIR/img" "$ID"
        assert_fails_cleanly "$ID" "sbrun-checkpoint.json: not a checkpoint sbrun made"
        echo '{"version": 1, "id": 5}' >"$TEST_DIR/img/sbrun-checkpoint.json"
        run sbrun restore -d -b "$BUNDLE" --image-path "$TEST_DIR/img" "$ID"
        assert_fails_cleanly "$ID" "sbrun-checkpoint.json: not what sbrun checkpoint writes"
        run sbrun restore -d -b "$BUNDLE" --image-path "$TEST_DIR/none" "$ID"
        assert_fails_cleanly "$ID" "--image-path $TEST_DIR/none"
}

@test "features says whether checkpoint can work: criu's version, and root" {
        run sbrun features
        [ "$status" -eq 0 ]
        if command -v criu >/dev/null; then
                [ "$(jq -r '.annotations["run.sbrun.checkpoint.enabled"]' <<<"$output")" = true ]
                [ "$(jq -r '.annotations["run.sbrun.criu.version"]' <<<"$output")" = \
                        "$(criu --version | sed -n 's/^Version: //p')" ]
        fi
        run sbrun --criu /nonexistent/criu features
        [ "$(jq -r '.annotations["run.sbrun.checkpoint.enabled"]' <<<"$output")" = false ]
        [ "$(jq -r '.annotations["run.sbrun.criu.version"]' <<<"$output")" = null ]
}

@test "restore: a --work-path or --image-path symlink is taken only when the caller alone could have made it (containerd's bundle work link)" {
        make_bundle
        mkdir "$TEST_DIR/img" "$TEST_DIR/work" "$TEST_DIR/own" "$TEST_DIR/open"
        chmod 0700 "$TEST_DIR/own"
        chmod 0777 "$TEST_DIR/open"
        # The caller's own link, in a directory only it may write: taken;
        # the restore goes on to the images (which hold no checkpoint).
        ln -s "$TEST_DIR/work" "$TEST_DIR/own/work"
        run sbrun restore -d -b "$BUNDLE" --image-path "$TEST_DIR/img" --work-path "$TEST_DIR/own/work" "$ID"
        assert_fails_cleanly "$ID" "sbrun-checkpoint.json: not a checkpoint sbrun made"
        # In a directory anyone may write: refused by name, nothing made
        # through it.
        ln -s "$TEST_DIR/work" "$TEST_DIR/open/work"
        run sbrun restore -d -b "$BUNDLE" --image-path "$TEST_DIR/img" --work-path "$TEST_DIR/open/work" "$ID"
        assert_fails_cleanly "$ID" "--work-path $TEST_DIR/open/work: a symbolic link that another user could have made"
        # Spelled with a trailing / or /., which lstat would follow: the
        # same judgment, or refused by name.
        run sbrun restore -d -b "$BUNDLE" --image-path "$TEST_DIR/img" --work-path "$TEST_DIR/open/work/" "$ID"
        assert_fails_cleanly "$ID" "--work-path $TEST_DIR/open/work: a symbolic link that another user could have made"
        run sbrun restore -d -b "$BUNDLE" --image-path "$TEST_DIR/img" --work-path "$TEST_DIR/open/work/." "$ID"
        assert_fails_cleanly "$ID" "--work-path $TEST_DIR/open/work/.: name the directory itself"
        # The image path is judged too (CRIU writes there without a work path).
        ln -s "$TEST_DIR/img" "$TEST_DIR/open/img"
        run sbrun restore -d -b "$BUNDLE" --image-path "$TEST_DIR/open/img" "$ID"
        assert_fails_cleanly "$ID" "--image-path $TEST_DIR/open/img: a symbolic link that another user could have made"
        # A link another user owns, in the caller's directory: refused.
        ln -s "$TEST_DIR/work" "$TEST_DIR/own/theirs"
        chown -h 65534:65534 "$TEST_DIR/own/theirs"
        run sbrun restore -d -b "$BUNDLE" --image-path "$TEST_DIR/img" --work-path "$TEST_DIR/own/theirs" "$ID"
        assert_fails_cleanly "$ID" "--work-path $TEST_DIR/own/theirs: a symbolic link that another user could have made"
        # The caller's link to no directory: refused.
        ln -s "$TEST_DIR/img/none" "$TEST_DIR/own/dangling"
        run sbrun restore -d -b "$BUNDLE" --image-path "$TEST_DIR/img" --work-path "$TEST_DIR/own/dangling" "$ID"
        assert_fails_cleanly "$ID" "--work-path $TEST_DIR/own/dangling"
        [ -z "$(ls -A "$TEST_DIR/work")" ]
}
