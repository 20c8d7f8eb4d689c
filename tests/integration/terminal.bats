#!/usr/bin/env bats
# Terminals: a pty made in the container, its master sent over
# --console-socket (runc's protocol), or proxied by a foreground run.

load ../helpers

# console_receiver: tests/helpers/console_receiver.c, built on demand.
receiver_bin() {
        local bin=$SBRUN_TEST_TMP/console_receiver
        if [ ! -x "$bin" ]; then
                cc -O2 -Wall -o "$bin.tmp.$$" "$SBRUN_SRCDIR/tests/helpers/console_receiver.c" &&
                        mv "$bin.tmp.$$" "$bin" || fail "cannot build the console receiver"
        fi
        echo "$bin"
}

# start_receiver: listen on $TEST_DIR/console.sock; it types "tty; echo ok"
# into the pty it receives and copies the answer to $TEST_DIR/receiver.out.
# 40 s for each of its waits (the ASan lane beside a VM guest is slow); the
# tests wait as long for it.
RECEIVER_WAIT=40
start_receiver() {
        SOCK=$TEST_DIR/console.sock
        # Emptied here, not only by the background job's redirection, which
        # may come late: a second receiver of a test must not be taken for
        # listening on the first one's "listening".
        : >"$TEST_DIR/receiver.out"
        "$(receiver_bin)" "$SOCK" "tty; echo ok" ok "$RECEIVER_WAIT" >"$TEST_DIR/receiver.out" 2>&1 3>&- &
        RECEIVER_PID=$!
        echo "$RECEIVER_PID" >>"$TEST_DIR/bg.pids"
        local i
        for i in $(seq 50); do
                grep -q listening "$TEST_DIR/receiver.out" 2>/dev/null && return 0
                sleep 0.1
        done
        fail "the console receiver did not start"
}

@test "create --console-socket: the receiver types into the pty and reads /dev/pts/0 and ok" {
        make_bundle
        set_args sh
        edit_config '.process.terminal = true'
        start_receiver

        run detached sbrun create --console-socket "$SOCK" -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "create: $output"
        run sbrun start "$ID"
        [ "$status" -eq 0 ]
        timeout_wait "$RECEIVER_PID" "$RECEIVER_WAIT" || fail "the receiver did not finish"
        [ "$WAIT_STATUS" -eq 0 ] || fail "receiver: $(cat "$TEST_DIR/receiver.out")"
        grep -q '^/dev/pts/0' "$TEST_DIR/receiver.out"
        grep -q '^ok' "$TEST_DIR/receiver.out"
}

# caller_sees_eof CMD...: run CMD with its stdout and stderr on a pipe and
# read the pipe to its end, as containerd's shim reads `runc create`.
# Fails if the end does not come: a process that outlives CMD holds it, or if
# CMD fails (pipefail: the pipeline's status is CMD's, not cat's).
caller_sees_eof() {
        run timeout 20 "$BASH" -c 'set -o pipefail; "$@" 2>&1 3>&- | cat' _ "$@"
        [ "$status" -ne 124 ] || fail "no EOF on the caller's stdout: a container process holds it"
        [ "$status" -eq 0 ] || fail "$*: $output"
}

@test "create and exec --detach with a terminal leave the caller's stdout and stderr to the caller" {
        make_bundle
        set_args sh
        edit_config '.process.terminal = true'
        start_receiver

        caller_sees_eof "${SBRUN_ARGV[@]}" create --console-socket "$SOCK" -b "$BUNDLE" "$ID"
        # The container's stdio is the pty alone.
        pid=$(container_pid "$ID")
        for fd in 0 1 2; do
                [[ $(readlink "/proc/$pid/fd/$fd") == /dev/pts/* ]] ||
                        fail "fd $fd of the container is $(readlink "/proc/$pid/fd/$fd")"
        done
        run sbrun start "$ID"
        [ "$status" -eq 0 ]
        timeout_wait "$RECEIVER_PID" "$RECEIVER_WAIT" || fail "the receiver did not finish"
        [ "$WAIT_STATUS" -eq 0 ] || fail "receiver (exit $WAIT_STATUS): $(cat "$TEST_DIR/receiver.out")"

        edit_config '.process.terminal = false | .process.args = ["sleep", "1000"]'
        run detached sbrun run -d -b "$BUNDLE" "$ID-x"
        [ "$status" -eq 0 ]
        start_receiver
        caller_sees_eof "${SBRUN_ARGV[@]}" exec --tty --console-socket "$SOCK" --detach "$ID-x" sh
        timeout_wait "$RECEIVER_PID" "$RECEIVER_WAIT" || fail "the receiver did not finish"
        [ "$WAIT_STATUS" -eq 0 ] || fail "receiver (exit $WAIT_STATUS): $(cat "$TEST_DIR/receiver.out")"
        grep -q '^ok' "$TEST_DIR/receiver.out" || fail "receiver: $(cat "$TEST_DIR/receiver.out")"
}

@test "exec --tty --console-socket: a pty session into a running container" {
        make_bundle
        set_cmd 'sleep 1000'
        run detached sbrun run -d -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        start_receiver

        run detached sbrun exec --tty --console-socket "$SOCK" --detach "$ID" sh
        [ "$status" -eq 0 ] || fail "exec: $output"
        timeout_wait "$RECEIVER_PID" "$RECEIVER_WAIT" || fail "the receiver did not finish"
        [ "$WAIT_STATUS" -eq 0 ] || fail "receiver: $(cat "$TEST_DIR/receiver.out")"
        grep -q '^/dev/pts/' "$TEST_DIR/receiver.out"
        grep -q '^ok' "$TEST_DIR/receiver.out"
}

@test "the init process's /dev/console is its pty, and consoleSize is applied" {
        make_bundle
        set_cmd 'tty; stty size; ls -l /dev/console'
        edit_config '.process.terminal = true | .process.consoleSize = {height: 30, width: 100}'

        # A foreground run without a console socket proxies the pty, as runc's.
        run script -qec "$(printf '%q ' "${SBRUN_ARGV[@]}" run -b "$BUNDLE" "$ID") </dev/null" /dev/null
        [ "$status" -eq 0 ]
        [[ $output == *"/dev/pts/0"* ]]
        [[ $output == *"30 100"* ]]
        [[ $output == *"136,"*"/dev/console"* ]]
}

@test "a terminal without --console-socket is refused for create" {
        make_bundle
        edit_config '.process.terminal = true'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "process.terminal: a terminal needs --console-socket"
}

@test "without a terminal, stdio passes through: pipes stay pipes and EOF reaches the process" {
        make_bundle
        set_cmd '[ -p /proc/self/fd/0 ] && echo stdin-is-pipe; cat; echo after-eof'

        run bash -c 'printf "line1\nline2\n" | "$@"' _ "${SBRUN_ARGV[@]}" run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = stdin-is-pipe ]
        [ "${lines[1]}" = line1 ]
        [ "${lines[2]}" = line2 ]
        [ "${lines[3]}" = after-eof ]
}
