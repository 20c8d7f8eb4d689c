#!/usr/bin/env bats
# The files sbrun writes for its caller (common/caller_file.h): --pid-file,
# run --verdict-file and --log, at paths in directories that others may
# write too (a container they are bound into, a user's directory root
# writes to). A symlink or a hard link planted at the name must not carry
# sbrun's write to another file: each test plants one that names a
# root-owned canary, and the canary must be as it was afterwards. A whole
# file (pid, verdict) replaces whatever was at its name; a log, appended
# to, is refused when it is a symlink or has a second link.

load ../helpers

# canary NAME: a root-owned file holding "canary NAME"; prints its path.
canary() {
        printf 'canary %s\n' "$1" >"$TEST_DIR/$1"
        chmod 0644 "$TEST_DIR/$1"
        echo "$TEST_DIR/$1"
}

# assert_canary PATH NAME: the canary holds what canary NAME wrote.
assert_canary() {
        [ "$(cat "$1")" = "canary $2" ] || fail "canary $1 was written: $(head -c 200 "$1")"
}

@test "caller files: a symlink the container plants at --verdict-file is replaced; the file it named is untouched" {
        local results=$TEST_DIR/results c
        c=$(canary verdict)
        make_bundle
        mkdir -m 0777 "$results"
        edit_config '.mounts += [{destination: "/results", type: "bind", source: $s, options: ["rbind"]}]' \
                --arg s "$results"
        # The container sees the directory the verdict goes to, and leaves
        # a symlink there to a host file it cannot reach itself.
        set_cmd "ln -s '$c' /results/verdict.json"

        run sbrun run --verdict-file "$results/verdict.json" -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "run: $status $output"
        assert_canary "$c" verdict
        [ -f "$results/verdict.json" ] && [ ! -L "$results/verdict.json" ] ||
                fail "verdict.json: $(ls -l "$results")"
        jq -e '.verdict == "exited" and .exit_code == 0' "$results/verdict.json" >/dev/null ||
                fail "verdict: $(cat "$results/verdict.json")"
        # No temporary file is left beside it.
        [ "$(ls -A "$results")" = verdict.json ] || fail "left in the directory: $(ls -A "$results")"
}

@test "caller files: --pid-file replaces a symlink at its path and ignores one at <path>.sbrun-tmp" {
        local dir=$TEST_DIR/run c_pid c_tmp pid
        c_pid=$(canary pid)
        c_tmp=$(canary tmp)
        make_bundle
        set_args sleep 1000
        mkdir "$dir"
        # The caller's directory: a rootless caller's own.
        [ -z "${SBRUN_AS_USER:-}" ] || chown "$SBRUN_AS_USER:" "$dir"
        # The names a user who owns the directory could plant: the pid
        # file itself and the temporary name sbrun once used.
        ln -s "$c_pid" "$dir/pid"
        ln -s "$c_tmp" "$dir/pid.sbrun-tmp"

        run detached sbrun create -b "$BUNDLE" --pid-file "$dir/pid" "$ID"
        [ "$status" -eq 0 ] || fail "create: $status $output"
        assert_canary "$c_pid" pid
        assert_canary "$c_tmp" tmp
        pid=$(container_pid "$ID")
        [ -f "$dir/pid" ] && [ ! -L "$dir/pid" ] || fail "pid file: $(ls -l "$dir")"
        [ "$(cat "$dir/pid")" = "$pid" ] || fail "pid file holds '$(cat "$dir/pid")', not $pid"
        # The planted name is left as it was, and no temporary remains.
        [ "$(readlink "$dir/pid.sbrun-tmp")" = "$c_tmp" ] || fail "$(ls -l "$dir")"
        [ "$(ls -A "$dir" | sort | tr '\n' ' ')" = "pid pid.sbrun-tmp " ] ||
                fail "left in the directory: $(ls -A "$dir")"
        sbrun delete --force "$ID" || fail "delete failed"
}

@test "caller files: exec --pid-file writes through no symlink at its path or beside it" {
        local c_pid c_tmp pid
        c_pid=$(canary exec-pid)
        c_tmp=$(canary exec-tmp)
        make_bundle
        set_args sleep 1000
        detached sbrun run -d -b "$BUNDLE" "$ID" || fail "run -d failed"
        ln -s "$c_pid" "$TEST_DIR/exec.pid"
        ln -s "$c_tmp" "$TEST_DIR/exec.pid.sbrun-tmp"

        run detached sbrun exec --detach --pid-file "$TEST_DIR/exec.pid" "$ID" sleep 999
        [ "$status" -eq 0 ] || fail "exec: $status $output"
        assert_canary "$c_pid" exec-pid
        assert_canary "$c_tmp" exec-tmp
        [ ! -L "$TEST_DIR/exec.pid" ] || fail "the symlink is still there"
        pid=$(cat "$TEST_DIR/exec.pid")
        [ "$(tr '\0' ' ' <"/proc/$pid/cmdline")" = "sleep 999 " ] || fail "pid $pid is not the exec"
        sbrun delete --force "$ID" || fail "delete failed"
}

@test "caller files: --log through a symlink or to a file of two links is refused by name; an existing log is appended to" {
        local c_sym c_link log=$TEST_DIR/logs/sbrun.log
        c_sym=$(canary sym)
        c_link=$(canary link)
        make_bundle
        mkdir "$TEST_DIR/logs"
        [ -z "${SBRUN_AS_USER:-}" ] || chown "$SBRUN_AS_USER:" "$TEST_DIR/logs"

        ln -s "$c_sym" "$log"
        run sbrun --log "$log" run -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "--log $log: is a symbolic link: sbrun does not write through one"
        assert_canary "$c_sym" sym

        rm "$log"
        # A file the caller may write, under another name too.
        [ -z "${SBRUN_AS_USER:-}" ] || chown "$SBRUN_AS_USER:" "$c_link"
        ln "$c_link" "$log"
        run sbrun --log "$log" run -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "--log $log: has 2 links: sbrun appends only to a file with one"
        assert_canary "$c_link" link

        # What engines do: a log of their own, with earlier lines, is kept
        # and appended to (--debug: the run writes lines of its own).
        rm "$log"
        echo "an earlier line" >"$log"
        [ -z "${SBRUN_AS_USER:-}" ] || chown "$SBRUN_AS_USER:" "$log"
        run sbrun --debug --log "$log" run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "run: $status $output"
        [ "$(head -n 1 "$log")" = "an earlier line" ] || fail "log: $(head -n 3 "$log")"
        [ "$(wc -l <"$log")" -gt 1 ] || fail "nothing appended: $(cat "$log")"
}
