#!/usr/bin/env bats
# --pidfd-socket (runtime/container/pidfd_socket.c), as runc 1.2: create,
# run and exec send a pidfd of the container's process (the exec'd one) over
# the caller's unix stream socket, with "standard" (or "setns") as the
# message. tests/helpers/pidfd_receiver.py is the caller: it reads the pid
# the pidfd names from /proc/self/fdinfo and can signal through it.

load ../helpers

# receive [--signal N SECONDS]: the receiver on $TEST_DIR/pidfd.sock, its lines in
# $PIDFD_LOG.
receive() {
        PIDFD_LOG=$TEST_DIR/pidfd.log
        start_helper python3 "$SBRUN_SRCDIR/tests/helpers/pidfd_receiver.py" \
                "$TEST_DIR/pidfd.sock" "$PIDFD_LOG" "$@"
        RECEIVER_PID=$HELPER_PID
        wait_file_has "$PIDFD_LOG" listening
}

# received N: waits for N lines after "listening" and prints them.
received() {
        local i
        for ((i = 0; i < 100; i++)); do
                [ "$(grep -cvx listening "$PIDFD_LOG")" -ge "$1" ] && break
                sleep 0.1
        done
        grep -vx listening "$PIDFD_LOG"
}

# unreceive: the receiver goes (its command line names the test's
# directory, which assert_no_leftovers would count).
unreceive() {
        kill -KILL -- "-$RECEIVER_PID" 2>/dev/null || true
        wait "$RECEIVER_PID" 2>/dev/null || true
}

@test "--pidfd-socket: create sends a pidfd of the container's process; exec one of the exec'd process" {
        receive
        make_bundle
        set_args sleep 100
        sbrun create --pidfd-socket "$TEST_DIR/pidfd.sock" -b "$BUNDLE" "$ID"
        local pid
        pid=$(sbrun state "$ID" | jq -r .pid)
        run received 1
        [ "$output" = "standard $pid fds=1" ]
        sbrun start "$ID"
        sbrun exec -d --pidfd-socket "$TEST_DIR/pidfd.sock" --pid-file "$TEST_DIR/exec.pid" \
                "$ID" sleep 100
        run received 2
        [ "${lines[1]}" = "setns $(cat "$TEST_DIR/exec.pid") fds=1" ]
        unreceive
        sbrun delete --force "$ID"
        assert_no_leftovers "$ID"
}

@test "--pidfd-socket: run's pidfd signals the container's process" {
        receive --signal 15 2
        make_bundle
        set_cmd 'trap "echo got TERM; exit 7" TERM; sleep 100 & wait'
        run sbrun run --pidfd-socket "$TEST_DIR/pidfd.sock" -b "$BUNDLE" "$ID"
        [ "$status" -eq 7 ]
        [ "$output" = "got TERM" ]
        run received 1
        [[ $output == "standard "[0-9]*" fds=1" ]]
        unreceive
        assert_no_leftovers "$ID"
}

@test "--pidfd-socket: a socket nobody listens on fails create and exec, leaving nothing" {
        make_bundle
        run sbrun create --pidfd-socket "$TEST_DIR/nobody.sock" -b "$BUNDLE" "$ID"
        [ "$status" -ne 0 ]
        [[ $output == *"--pidfd-socket: connect to \"$TEST_DIR/nobody.sock\""* ]]
        [ ! -e "$ROOT/$ID" ]
        assert_no_leftovers "$ID"

        set_args sleep 100
        sbrun create -b "$BUNDLE" "$ID"
        sbrun start "$ID"
        run sbrun exec --pidfd-socket "$TEST_DIR/nobody.sock" "$ID" touch /tmp/ran
        [ "$status" -ne 0 ]
        [[ $output == *"--pidfd-socket: connect to"* ]]
        [ "$(sbrun ps "$ID" | wc -l)" -le 2 ] # its process alone
        sbrun delete --force "$ID"
        assert_no_leftovers "$ID"
}
