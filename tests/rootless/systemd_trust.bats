#!/usr/bin/env bats
# Whom a rootless sbrun believes to be its systemd (runtime/cgroup/
# systemd_scope.c, runtime/dbus/dbus_connection.c): $XDG_RUNTIME_DIR must be
# the user's own directory, writable by no one else and not a link, before
# any socket in it is touched; and a socket's server must be the user or
# root (SO_PEERCRED), before a byte is sent to it. The "systemd" here is
# tests/rootless/fake-bus.py run by uid 65534 (nobody), which logs every
# connection and what the client sent. This host runs no systemd, and
# without cgroup v2 controllers create never reaches the bus, so the
# driver's own probe is what is run: `sbrun check`'s systemd line, which
# opens the user's systemd exactly as create does (systemd_probe). The
# signals' sender check is tests/unit/test_dbus_trust.c's, on a socketpair.

load ../helpers
load rootless

setup_file() {
        rl_user_create
}

teardown_file() {
        rl_user_remove
}

OTHER=65534

# fake_bus DIR SOCKET...: fake-bus.py as uid $OTHER, listening on each
# SOCKET (in DIR, which $OTHER may write), logging to $TEST_DIR/fake.log;
# returns once it listens.
fake_bus() {
        local dir=$1 i
        shift
        install -m 0755 "$SBRUN_SRCDIR/tests/rootless/fake-bus.py" "$TEST_DIR/fake-bus.py"
        install -m 0666 /dev/null "$TEST_DIR/fake.log"
        start_helper setpriv --reuid=$OTHER --regid=$OTHER --clear-groups \
                /usr/bin/python3 "$TEST_DIR/fake-bus.py" "$TEST_DIR/fake.log" "$@"
        for ((i = 0; i < 50; i++)); do
                grep -qx ready "$TEST_DIR/fake.log" && return 0
                sleep 0.1
        done
        fail "fake-bus.py did not start: $(cat "$TEST_DIR/fake.log")"
}

# systemd_line XDG: `sbrun check`'s systemd detail, run by the test user
# with XDG_RUNTIME_DIR=XDG (sets $output to it).
systemd_line() {
        run setpriv --reuid="$RL_UID" --regid="$RL_GID" --init-groups --reset-env \
                env XDG_RUNTIME_DIR="$1" "$SBRUN_REAL" --root "$ROOT" \
                ${SB_POLICY:+--policy "$SB_POLICY"} check --format json
        jq -e . <<<"$output" >/dev/null || fail "check: not JSON: $output"
        output=$(jq -r '.items[] | select(.item == "systemd") | "\(.status) \(.detail)"' \
                <<<"$output")
}

@test "rootless systemd: an XDG_RUNTIME_DIR another user owns is refused by name; its sockets hear nothing" {
        local d=$TEST_DIR/xdg-other
        mkdir -p "$d/systemd"
        chown -R $OTHER:$OTHER "$d"
        chmod 0755 "$d" "$d/systemd"
        fake_bus "$d" "$d/systemd/private" "$d/bus"
        systemd_line "$d"
        [[ $output == "warn --systemd-cgroup (rootless): XDG_RUNTIME_DIR=$d: owned by uid $OTHER with mode 0755; it must be owned by the caller (uid $RL_UID) and writable by nobody else"* ]] ||
                fail "$output"
        ! grep -q connect "$TEST_DIR/fake.log" || fail "sbrun connected: $(cat "$TEST_DIR/fake.log")"
        [ "$(find "$d" | wc -l)" -eq 4 ] || fail "left in $d: $(find "$d")"
}

@test "rootless systemd: an XDG_RUNTIME_DIR others may write into, or a link to one, is refused by name" {
        # The user's, but open to all: nobody planted a "systemd" in it.
        local d=$TEST_DIR/xdg-open
        install -d -m 0777 -o "$RL_UID" -g "$RL_GID" "$d"
        setpriv --reuid=$OTHER --regid=$OTHER --clear-groups mkdir -m 0755 "$d/systemd"
        fake_bus "$d" "$d/systemd/private" "$d/bus"
        systemd_line "$d"
        [[ $output == "warn --systemd-cgroup (rootless): XDG_RUNTIME_DIR=$d: owned by uid $RL_UID with mode 0777; it must be owned by the caller (uid $RL_UID) and writable by nobody else"* ]] ||
                fail "$output"
        ! grep -q connect "$TEST_DIR/fake.log" || fail "sbrun connected: $(cat "$TEST_DIR/fake.log")"

        # A link, even to the user's own directory: the link's parent is
        # not the user's to keep.
        ln -s "$RL_RUNTIME_DIR" "$TEST_DIR/xdg-link"
        systemd_line "$TEST_DIR/xdg-link"
        [[ $output == "warn --systemd-cgroup (rootless): XDG_RUNTIME_DIR=$TEST_DIR/xdg-link: a symbolic link;"* ]] ||
                fail "$output"
}

@test "rootless systemd: a private socket or bus in the user's own directory served by another uid is refused naming that uid; it is sent nothing" {
        local plant=$TEST_DIR/plant
        install -d -m 0755 -o $OTHER -g $OTHER "$plant"
        install -d -m 0700 -o "$RL_UID" -g "$RL_GID" "$RL_RUNTIME_DIR/systemd"
        # Listening as $OTHER, then moved where the user's systemd listens
        # (a socket's server is whoever listened on it, wherever it is).
        fake_bus "$plant" "$plant/private" "$plant/bus"
        mv "$plant/private" "$RL_RUNTIME_DIR/systemd/private"
        systemd_line "$RL_RUNTIME_DIR"
        local pid
        pid=$(pgrep -u $OTHER -f "$TEST_DIR/fake-bus.py")
        [[ $output == "warn --systemd-cgroup (rootless): D-Bus: $RL_RUNTIME_DIR/systemd/private is served by uid $OTHER (pid $pid), neither the caller (uid $RL_UID) nor root: refused"* ]] ||
                fail "$output"
        grep -qx "read $plant/private 0" "$TEST_DIR/fake.log" ||
                fail "sbrun sent something: $(cat "$TEST_DIR/fake.log")"

        # No private socket: the user's bus, served by $OTHER, is refused too.
        rm -rf "$RL_RUNTIME_DIR/systemd"
        mv "$plant/bus" "$RL_RUNTIME_DIR/bus"
        systemd_line "$RL_RUNTIME_DIR"
        [[ $output == "warn --systemd-cgroup (rootless): D-Bus: $RL_RUNTIME_DIR/bus is served by uid $OTHER (pid $pid), neither the caller (uid $RL_UID) nor root: refused"* ]] ||
                fail "$output"
        grep -qx "read $plant/bus 0" "$TEST_DIR/fake.log" ||
                fail "sbrun sent something: $(cat "$TEST_DIR/fake.log")"
        rm -f "$RL_RUNTIME_DIR/bus"
        [ -z "$(ls -A "$RL_RUNTIME_DIR")" ] || fail "left in $RL_RUNTIME_DIR: $(ls -A "$RL_RUNTIME_DIR")"
}
