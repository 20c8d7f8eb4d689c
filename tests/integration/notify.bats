#!/usr/bin/env bats
# sd_notify (runtime/container/notify_socket.c): the caller's NOTIFY_SOCKET
# never enters the container; the process gets /run/notify/notify.sock, a
# proxy that start (or a foreground run) reads until READY=1 and passes on
# as READY=1 and MAINPID, then BARRIER=1, as runc does. A python listener
# (tests/helpers/notify_listener.py) plays systemd; tests/helpers/sd_notify.c
# plays the service inside.

load ../helpers

# sd_notify_bin: tests/helpers/sd_notify.c built static (it runs in the
# busybox rootfs); prints its path.
sd_notify_bin() {
        local bin=$SBRUN_TEST_TMP/sd_notify
        if [ ! -x "$bin" ]; then
                cc -O2 -Wall -static -o "$bin.tmp.$$" "$SBRUN_SRCDIR/tests/helpers/sd_notify.c" &&
                        mv "$bin.tmp.$$" "$bin" || fail "cannot build tests/helpers/sd_notify.c"
        fi
        echo "$bin"
}

# notify_bundle SHELL-COMMAND: the bundle, sd_notify in its /bin.
notify_bundle() {
        make_bundle
        cp "$(sd_notify_bin)" "$BUNDLE/rootfs/bin/sd_notify"
        set_cmd "$1"
}

# listen ADDRESS: the caller's socket (a path, or @NAME), its messages in
# $TEST_DIR/notify.log; sets NOTIFY_LOG.
listen() {
        NOTIFY_LOG=$TEST_DIR/notify.log
        start_helper python3 "$SBRUN_SRCDIR/tests/helpers/notify_listener.py" "$1" "$NOTIFY_LOG"
        LISTENER_PID=$HELPER_PID
        wait_file_has "$NOTIFY_LOG" ready
}

# unlisten: the listener goes (its command line names the test's directory,
# which assert_no_leftovers would count).
unlisten() {
        kill -KILL -- "-$LISTENER_PID" 2>/dev/null || true
        wait "$LISTENER_PID" 2>/dev/null || true
}

# messages: what the listener got, without its "ready".
messages() {
        grep -vx ready "$NOTIFY_LOG"
}

@test "NOTIFY_SOCKET: start waits for READY=1 and passes on only READY=1, MAINPID and BARRIER=1" {
        listen "$TEST_DIR/host.sock"
        notify_bundle 'echo "$NOTIFY_SOCKET" >/seen; ls /run/notify >>/seen
                sd_notify "STATUS=starting" "MAINPID=1\nFDSTORE=1"
                sd_notify --fd "FDSTORE=1\nFDNAME=x" </seen || exit 9
                sleep 1; sd_notify "STATUS=up\nREADY=1" || exit 8; exec sleep 100'
        edit_config '.root.readonly = false'

        NOTIFY_SOCKET=$TEST_DIR/host.sock sbrun create -b "$BUNDLE" "$ID"
        [ "$(messages | wc -l)" -eq 0 ]
        local t0 t1
        t0=$(date +%s%N)
        NOTIFY_SOCKET=$TEST_DIR/host.sock sbrun start "$ID"
        t1=$(date +%s%N)
        # start came back after the process's READY=1, a second in.
        [ $(((t1 - t0) / 1000000)) -ge 900 ] || fail "start returned after $(((t1 - t0) / 1000000)) ms"
        local pid
        pid=$(sbrun state "$ID" | jq -r .pid)
        run messages
        [ "${lines[0]}" = "READY=1|MAINPID=$pid| fds=0" ]
        [ "${lines[1]}" = "BARRIER=1 fds=1" ]
        [ "${#lines[@]}" -eq 2 ]
        # The process saw the proxy, never the caller's path.
        run cat "$BUNDLE/rootfs/seen"
        [ "${lines[0]}" = /run/notify/notify.sock ]
        [ "${lines[1]}" = notify.sock ]
        # The proxy socket goes once READY=1 is passed on.
        [ ! -e "$ROOT/$ID/notify/notify.sock" ]
        sbrun delete --force "$ID"
        unlisten
        assert_no_leftovers "$ID"
}

@test "NOTIFY_SOCKET: start waits while the process lives without READY=1, unlocked, and returns when it ends" {
        listen "$TEST_DIR/host.sock"
        notify_bundle 'sd_notify STATUS=no-ready; exec sleep 100'
        NOTIFY_SOCKET=$TEST_DIR/host.sock sbrun create -b "$BUNDLE" "$ID"
        NOTIFY_SOCKET=$TEST_DIR/host.sock run_bg "$TEST_DIR/start.out" start "$ID"
        local start=$BG_PID
        sleep 2
        kill -0 "$start" || fail "start returned before READY=1: $(cat "$TEST_DIR/start.out")"
        # The state directory is not locked while start waits.
        run timeout 10 "${SBRUN_ARGV[@]}" state "$ID"
        [ "$status" -eq 0 ]
        [ "$(jq -r .status <<<"$output")" = running ]
        run timeout 10 "${SBRUN_ARGV[@]}" kill "$ID" KILL
        [ "$status" -eq 0 ]
        timeout_wait "$start" 10 || fail "start still waits for a container that is gone"
        [ "$WAIT_STATUS" -eq 0 ]
        [ "$(messages | wc -l)" -eq 0 ]
        sbrun delete "$ID"
        unlisten
        assert_no_leftovers "$ID"
}

@test "NOTIFY_SOCKET: an abstract address, and run in the foreground names itself as MAINPID" {
        local name=@sbrun-notify-$ID
        listen "$name"
        notify_bundle 'sd_notify READY=1 && echo told'
        NOTIFY_SOCKET=$name run_bg "$TEST_DIR/run.out" run -b "$BUNDLE" "$ID"
        local runner=$BG_PID
        timeout_wait "$runner" 20 || fail "run did not end"
        [ "$WAIT_STATUS" -eq 0 ] || fail "run: $(cat "$TEST_DIR/run.out")"
        grep -qx told "$TEST_DIR/run.out"
        run messages
        [ "${lines[0]}" = "READY=1|MAINPID=$runner| fds=0" ]
        [ "${lines[1]}" = "BARRIER=1 fds=1" ]
        unlisten
        assert_no_leftovers "$ID"
}

@test "NOTIFY_SOCKET: READY=1 comes through under strict (its floor lets a datagram socket connect)" {
        listen "$TEST_DIR/host.sock"
        notify_bundle 'sd_notify READY=1 || exit 7; nc 127.0.0.1 9 </dev/null; echo told'
        edit_config '.annotations["run.sbrun.policy"] = "strict"'
        NOTIFY_SOCKET=$TEST_DIR/host.sock run_bg "$TEST_DIR/run.out" run -b "$BUNDLE" "$ID"
        local runner=$BG_PID
        timeout_wait "$runner" 20 || fail "run did not end"
        [ "$WAIT_STATUS" -eq 0 ] || fail "run: $(cat "$TEST_DIR/run.out")"
        # Any other socket stays refused.
        grep -q "nc: socket: Operation not permitted" "$TEST_DIR/run.out"
        grep -qx told "$TEST_DIR/run.out"
        run messages
        [ "${lines[0]}" = "READY=1|MAINPID=$runner| fds=0" ]
        unlisten
        assert_no_leftovers "$ID"
}

@test "NOTIFY_SOCKET: strict's notify program allows only AF_UNIX datagram sockets and connect, never bind" {
        listen "$TEST_DIR/host.sock"
        notify_bundle 'sd_notify READY=1'
        edit_config '.annotations["run.sbrun.policy"] = "strict"'
        NOTIFY_SOCKET=$TEST_DIR/host.sock run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        unlisten
        local eval=$SBRUN_TEST_TMP/bpf_eval e p=""
        [ -x "$eval" ] || cc -O2 -Wall -o "$eval" "$SBRUN_SRCDIR/tests/helpers/bpf_eval.c" ||
                fail "cannot build tests/helpers/bpf_eval.c"
        for e in "$ROOT"/.seccomp-cache/*.bpf; do
                [ "$("$eval" "$e" key | sed -n 2p)" = "program 3" ] && p=$e
        done
        [ -n "$p" ] || fail "no cached floor program 3 in $ROOT/.seccomp-cache"
        # socket(2) is 41, connect 42, bind 49; AF_UNIX 1, AF_INET 2, AF_INET6 10.
        [ "$("$eval" "$p" x86_64 41 1 2)" = allow ]                          # AF_UNIX, SOCK_DGRAM
        [ "$("$eval" "$p" x86_64 41 1 $((2 | 0x80000 | 0x800)))" = allow ]   # ... CLOEXEC|NONBLOCK
        [ "$("$eval" "$p" x86_64 41 1 1)" = "errno 1" ]                      # SOCK_STREAM
        [ "$("$eval" "$p" x86_64 41 1 5)" = "errno 1" ]                      # SOCK_SEQPACKET
        [ "$("$eval" "$p" x86_64 41 2 2)" = "errno 1" ]                      # AF_INET datagram
        [ "$("$eval" "$p" x86_64 41 10 2)" = "errno 1" ]                     # AF_INET6 datagram
        [ "$("$eval" "$p" x86_64 41 16 2)" = "errno 1" ]                     # AF_NETLINK
        [ "$("$eval" "$p" x86_64 42)" = allow ]                              # connect
        [ "$("$eval" "$p" x86_64 49)" = "errno 1" ]                          # bind
        assert_no_leftovers "$ID"
}

@test "NOTIFY_SOCKET: not an absolute path or @NAME is refused by name, and leaves nothing" {
        notify_bundle 'true'
        # detached: a created container (a runtime that took the value)
        # would hold run's pipe.
        NOTIFY_SOCKET=relative.sock run detached sbrun create -b "$BUNDLE" "$ID"
        [ "$status" -ne 0 ]
        [[ $output == *'NOTIFY_SOCKET: "relative.sock": not an absolute path'* ]]
        [ ! -e "$ROOT/$ID" ]
        [ ! -e "$BUNDLE/rootfs/run/notify" ]
        assert_no_leftovers "$ID"
}

@test "NOTIFY_SOCKET: a socket nobody listens on fails start, which leaves the container created" {
        notify_bundle 'sd_notify READY=1; exec sleep 100'
        NOTIFY_SOCKET=$TEST_DIR/nobody.sock sbrun create -b "$BUNDLE" "$ID"
        NOTIFY_SOCKET=$TEST_DIR/nobody.sock run sbrun start "$ID"
        [ "$status" -ne 0 ]
        [[ $output == *"NOTIFY_SOCKET: connect to \"$TEST_DIR/nobody.sock\""* ]]
        [ "$(sbrun state "$ID" | jq -r .status)" = created ]
        # Started without it, nothing waits.
        run env -u NOTIFY_SOCKET "${SBRUN_ARGV[@]}" start "$ID"
        [ "$status" -eq 0 ]
        sbrun delete --force "$ID"
        assert_no_leftovers "$ID"
}

@test "NOTIFY_SOCKET: without it nothing is bound at /run/notify and the process has none" {
        notify_bundle 'echo "[$NOTIFY_SOCKET]"; ls /run/notify 2>&1 || echo none'
        run env -u NOTIFY_SOCKET "${SBRUN_ARGV[@]}" run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "[]" ]
        [[ ${lines[1]} == *"No such file"* ]]
}
