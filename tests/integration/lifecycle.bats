#!/usr/bin/env bats
# A container's life: create, start, state, kill, delete, run.

load ../helpers

@test "spec + run: a busybox bundle says hello" {
        make_bundle
        set_cmd 'echo hello from sbrun; id; hostname'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "hello from sbrun" ]
        [[ ${lines[1]} == "uid=0(root) gid=0(root)"* ]]
        [ "${lines[2]}" = "$(config_get .hostname)" ]
        assert_no_leftovers "$ID"
}

@test "run from inside the bundle directory needs no --bundle" {
        make_bundle
        set_args echo in-bundle

        run bash -c 'cd "$1" && shift && "$@"' _ "$BUNDLE" "${SBRUN_ARGV[@]}" run "$ID"
        [ "$status" -eq 0 ]
        [ "$output" = "in-bundle" ]
}

@test "run exits with the container's exit code" {
        make_bundle
        set_cmd 'exit 3'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 3 ]
        assert_no_leftovers "$ID"
}

@test "run of a container killed with 'kill ID KILL' from another process exits 137" {
        make_bundle
        set_cmd 'echo started; sleep 1000'

        run_bg "$TEST_DIR/run.out" run -b "$BUNDLE" "$ID"
        wait_for_status "$ID" running
        # Running is before the shell's first line: kill only once it
        # printed it (under ASan, beside a VM guest, the kill came first).
        wait_file_has "$TEST_DIR/run.out" started

        run sbrun kill "$ID" KILL
        [ "$status" -eq 0 ]

        timeout_wait "$BG_PID" 10
        [ "$WAIT_STATUS" -eq 137 ]
        grep -qx started "$TEST_DIR/run.out"
        assert_no_leftovers "$ID"
}

@test "create -> created, start -> running, kill KILL -> stopped, delete -> gone" {
        make_bundle
        set_args sleep 1000

        # create: the process exists and waits; --pid-file holds its host pid.
        run detached sbrun create -b "$BUNDLE" --pid-file "$TEST_DIR/pid" "$ID"
        [ "$status" -eq 0 ]
        [ "$(container_status "$ID")" = created ]
        pid=$(container_pid "$ID")
        [ "$pid" -gt 0 ]
        [ "$(cat "$TEST_DIR/pid")" = "$pid" ]
        # The pid is the container's pid 1 (NSpid: host pid ... 1).
        nspid=$(awk '/^NSpid:/ { $1 = ""; print }' "/proc/$pid/status")
        [ "$(awk '{ print $NF }' <<<"$nspid")" = 1 ]
        [ "$(awk '{ print $1 }' <<<"$nspid")" = "$pid" ]
        # Not yet the user's program.
        [ "$(tr '\0' ' ' <"/proc/$pid/cmdline")" != "sleep 1000 " ]

        run sbrun start "$ID"
        [ "$status" -eq 0 ]
        [ "$(container_status "$ID")" = running ]
        [ "$(container_pid "$ID")" = "$pid" ]
        [ "$(tr '\0' ' ' <"/proc/$pid/cmdline")" = "sleep 1000 " ]

        run sbrun kill "$ID" KILL
        [ "$status" -eq 0 ]
        wait_for_status "$ID" stopped

        run sbrun delete "$ID"
        [ "$status" -eq 0 ]
        assert_no_leftovers "$ID"
        [ ! -e "/proc/$pid/cmdline" ] || [ -z "$(tr -d '\0' <"/proc/$pid/cmdline")" ]
}

@test "state prints ociVersion, id, pid, status, bundle, rootfs, created, annotations" {
        make_bundle
        set_args sleep 1000
        edit_config '.annotations = {"org.example.owner": "tests"}'

        detached sbrun create -b "$BUNDLE" "$ID"
        run sbrun state "$ID"
        [ "$status" -eq 0 ]
        jq -e . <<<"$output" >/dev/null
        [[ $(jq -r .ociVersion <<<"$output") == 1.* ]]
        [ "$(jq -r .id <<<"$output")" = "$ID" ]
        [ "$(jq -r .status <<<"$output")" = created ]
        [ "$(jq -r '.pid | type' <<<"$output")" = number ]
        [ "$(jq -r .bundle <<<"$output")" = "$BUNDLE" ]
        [ "$(jq -r .rootfs <<<"$output")" = "$BUNDLE/rootfs" ]
        [ "$(jq -r '.annotations["org.example.owner"]' <<<"$output")" = tests ]
        # created is an RFC 3339 time stamp from the last minute.
        created=$(jq -r .created <<<"$output")
        [ $(($(date +%s) - $(date -d "$created" +%s))) -lt 60 ]
}

@test "start of a created container runs the program once; a second start fails" {
        make_bundle
        set_cmd 'echo ran >>/tmp/log; sleep 1000'
        edit_config '.root.readonly = false'

        detached sbrun create -b "$BUNDLE" "$ID"
        [ ! -e "$BUNDLE/rootfs/tmp/log" ]
        sbrun start "$ID"
        wait_for_status "$ID" running

        run sbrun start "$ID"
        [ "$status" -ne 0 ]
        sleep 0.3
        [ "$(cat "$BUNDLE/rootfs/tmp/log")" = ran ]
        [ "$(container_status "$ID")" = running ]
}

@test "a container that exits on its own is stopped and can be deleted" {
        make_bundle
        set_cmd 'exit 0'

        detached sbrun create -b "$BUNDLE" "$ID"
        sbrun start "$ID"
        wait_for_status "$ID" stopped
        run sbrun delete "$ID"
        [ "$status" -eq 0 ]
        assert_no_leftovers "$ID"
}

@test "delete of a running container without --force fails and changes nothing" {
        make_bundle
        set_args sleep 1000

        detached sbrun create -b "$BUNDLE" "$ID"
        sbrun start "$ID"
        pid=$(container_pid "$ID")
        before=$(sbrun state "$ID")

        run sbrun delete "$ID"
        [ "$status" -ne 0 ]
        [ "$(container_status "$ID")" = running ]
        [ "$(sbrun state "$ID")" = "$before" ]
        kill -0 "$pid"

        run sbrun delete --force "$ID"
        [ "$status" -eq 0 ]
        assert_no_leftovers "$ID"
}

@test "delete --force of a created container removes it" {
        make_bundle
        set_args sleep 1000

        detached sbrun create -b "$BUNDLE" "$ID"
        run sbrun delete -f "$ID"
        [ "$status" -eq 0 ]
        assert_no_leftovers "$ID"
}

@test "a subreaper that calls create and start reaps the container with its exit status" {
        make_bundle
        set_cmd 'sleep 0.3; exit 7'

        run "$(subreaper_bin)" "${SBRUN_ARGV[@]}" create -b "$BUNDLE" --pid-file "$TEST_DIR/pid" "$ID" \
                --then "${SBRUN_ARGV[@]}" start "$ID"
        [ "$status" -eq 0 ]
        [ "$output" = "reaped $(cat "$TEST_DIR/pid") exit 7" ]
        [ "$(container_status "$ID")" = stopped ]
        sbrun delete "$ID"
        assert_no_leftovers "$ID"
}

@test "a subreaper sees the signal that killed the container" {
        make_bundle
        set_args sleep 1000

        "$(subreaper_bin)" "${SBRUN_ARGV[@]}" create -b "$BUNDLE" --pid-file "$TEST_DIR/pid" "$ID" \
                --then "${SBRUN_ARGV[@]}" start "$ID" >"$TEST_DIR/reaper.out" 2>&1 3>&- &
        reaper=$!
        wait_for_status "$ID" running
        sbrun kill "$ID" KILL
        timeout_wait "$reaper" 10
        [ "$WAIT_STATUS" -eq 0 ]
        [ "$(cat "$TEST_DIR/reaper.out")" = "reaped $(cat "$TEST_DIR/pid") signal 9" ]
}

@test "run --detach returns at once and leaves the container running" {
        make_bundle
        set_args sleep 1000

        run detached sbrun run -d -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$(container_status "$ID")" = running ]
        sbrun kill "$ID" KILL
        wait_for_status "$ID" stopped
        sbrun delete "$ID"
        assert_no_leftovers "$ID"
}

@test "run removes the container when it exits; run --keep keeps it stopped" {
        make_bundle
        set_cmd 'exit 0'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$(container_status "$ID")" = none ]

        id2=$(new_id)
        run sbrun run --keep -b "$BUNDLE" "$id2"
        [ "$status" -eq 0 ]
        [ "$(container_status "$id2")" = stopped ]
        sbrun delete "$id2"
        assert_no_leftovers "$id2"
}

@test "kill without a signal sends SIGTERM" {
        make_bundle
        set_cmd 'trap "exit 42" TERM; echo ready; while :; do sleep 0.1; done'

        run_bg "$TEST_DIR/run.out" run -b "$BUNDLE" "$ID"
        wait_for_status "$ID" running
        for i in $(seq 50); do grep -q ready "$TEST_DIR/run.out" && break; sleep 0.1; done

        run sbrun kill "$ID"
        [ "$status" -eq 0 ]
        timeout_wait "$BG_PID" 10
        [ "$WAIT_STATUS" -eq 42 ]
}

@test "kill takes signal names with and without SIG, and numbers" {
        make_bundle
        set_cmd 'trap "echo got-usr1" USR1; trap "echo got-usr2" USR2; trap "echo got-hup" HUP; echo ready; while :; do sleep 0.1; done'

        run_bg "$TEST_DIR/run.out" run -b "$BUNDLE" "$ID"
        wait_for_status "$ID" running
        for i in $(seq 50); do grep -q ready "$TEST_DIR/run.out" && break; sleep 0.1; done

        # Each trap runs only once the shell's current `sleep 0.1` ends,
        # which on a loaded machine can take seconds: wait up to 20 s, and
        # say what the shell had pending or caught if it never came.
        local pid
        pid=$(container_pid "$ID")
        for sig in SIGUSR1:got-usr1 USR2:got-usr2 1:got-hup; do
                sbrun kill "$ID" "${sig%%:*}"
                for i in $(seq 200); do grep -q "${sig#*:}" "$TEST_DIR/run.out" && break; sleep 0.1; done
                grep -q "${sig#*:}" "$TEST_DIR/run.out" || {
                        echo "# no ${sig#*:} after kill ${sig%%:*}; output: $(cat "$TEST_DIR/run.out")"
                        grep -E '^(State|SigPnd|ShdPnd|SigBlk|SigCgt)' "/proc/$pid/status" | sed 's/^/#   /'
                        false
                }
        done

        sbrun kill "$ID" 9
        timeout_wait "$BG_PID" 10
        [ "$WAIT_STATUS" -eq 137 ]
}

@test "kill --all reaches every process of the container" {
        make_bundle
        set_cmd 'sleep 1000 & sleep 1000 & echo ready; wait'

        run_bg "$TEST_DIR/run.out" run -b "$BUNDLE" "$ID"
        wait_for_status "$ID" running
        for i in $(seq 50); do grep -q ready "$TEST_DIR/run.out" && break; sleep 0.1; done

        run sbrun kill --all "$ID" KILL
        [ "$status" -eq 0 ]
        timeout_wait "$BG_PID" 10
        [ "$WAIT_STATUS" -eq 137 ]
        assert_no_leftovers "$ID"
}

@test "kill with an unknown signal fails and the container keeps running" {
        make_bundle
        set_args sleep 1000
        detached sbrun run -d -b "$BUNDLE" "$ID"

        run sbrun kill "$ID" SIGNOPE
        [ "$status" -eq 1 ]
        [[ $output == *NOPE* ]]
        [ "$(container_status "$ID")" = running ]
}

@test "kill of a stopped container fails with runc's 'container not running'" {
        # containerd's shim matches these words to treat the kill of an
        # exited task as done (CRI StopContainer, RemovePodSandbox).
        make_bundle
        set_cmd 'exit 0'
        detached sbrun create -b "$BUNDLE" "$ID"
        sbrun start "$ID"
        wait_for_status "$ID" stopped

        run sbrun kill "$ID" KILL
        [ "$status" -eq 1 ]
        [[ $output == *"container not running"* ]]
        run sbrun kill --all "$ID" KILL
        [ "$status" -eq 1 ]
        [[ $output == *"container not running"* ]]
        [ "$(container_status "$ID")" = stopped ]
}

@test "list shows containers as a table, as JSON and as bare IDs" {
        make_bundle
        set_args sleep 1000
        detached sbrun create -b "$BUNDLE" "$ID"

        run sbrun list
        [ "$status" -eq 0 ]
        [[ ${lines[0]} == "ID"*"PID"*"STATUS"*"BUNDLE"*"CREATED"* ]]
        [[ ${lines[1]} == "$ID "*" created "*"$BUNDLE "* ]]

        run sbrun list --format json
        [ "$status" -eq 0 ]
        [ "$(jq -r 'length' <<<"$output")" = 1 ]
        [ "$(jq -r '.[0].id' <<<"$output")" = "$ID" ]
        [ "$(jq -r '.[0].status' <<<"$output")" = created ]
        [ "$(jq -r '.[0].bundle' <<<"$output")" = "$BUNDLE" ]

        run sbrun list -q
        [ "$status" -eq 0 ]
        [ "$output" = "$ID" ]
}

@test "list names the owner in the table and in JSON alike, as runc's list" {
        make_bundle
        set_args sleep 1000
        detached sbrun create -b "$BUNDLE" "$ID"
        # The rootless lane's runtime runs as SBRUN_AS_USER.
        local me owner
        me=$(id -un "${SBRUN_AS_USER:-$(id -u)}")
        owner=$(stat -c %u "$ROOT/$ID/state.json")

        run -0 sbrun list
        [[ ${lines[1]} == "$ID "*" $me" ]]
        run -0 sbrun list --format json
        [ "$(jq -r '.[0].owner' <<<"$output")" = "$me" ]

        # A uid without a name in /etc/passwd shows as runc shows it.
        local uid=4242
        ! grep -q "^[^:]*:[^:]*:$uid:" /etc/passwd || fail "uid $uid has a name here"
        chown "$uid" "$ROOT/$ID/state.json"
        run -0 sbrun list
        [[ ${lines[1]} == "$ID "*" #$uid" ]]
        run -0 sbrun list --format json
        chown "$owner" "$ROOT/$ID/state.json"
        [ "$(jq -r '.[0].owner' <<<"$output")" = "#$uid" ]
}

@test "list of an empty root prints only the header" {
        run sbrun list
        [ "$status" -eq 0 ]
        [ "${#lines[@]}" -eq 1 ]
        run sbrun list -q
        [ "$status" -eq 0 ]
        [ -z "$output" ]
}

# Opening exec.fifo releases the init; a program as short as `true` could be
# gone before start took its pidfd, and start failed with "is not running"
# (about 1 run in 250 here with 40 at once).
@test "200 sbrun run lifecycles, 40 at a time, all succeed and leave nothing" {
        make_bundle
        set_args true
        edit_config '.root.readonly = true'
        printf '%s\n' $(seq 200) >"$TEST_DIR/n"

        local -a g=(--root "$ROOT")
        [ -n "$SB_POLICY" ] && g+=(--policy "$SB_POLICY")
        run xargs -P 40 -I{} "$BASH" -c '
                out=$("$@" "$0-{}" 2>&1) || echo "run {} failed: $out"' \
                "$ID" "$SBRUN" "${g[@]}" run -b "$BUNDLE" <"$TEST_DIR/n"
        [ "$status" -eq 0 ]
        [ -z "$output" ] || fail "$(grep -c '^run .* failed' <<<"$output") runs failed: $output"
        [ -z "$(ls -A "$ROOT" | grep -v '^\.seccomp-cache$')" ]
        for i in 1 100 200; do
                assert_no_leftovers "$ID-$i"
        done
}
