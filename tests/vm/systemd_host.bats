#!/usr/bin/env bats
# sbrun on a host whose PID 1 is systemd, as most of its users' hosts are:
# first that the lane's systemd boot is what it claims (PID 1, a settled
# system, the system bus), then that sbrun without --systemd-cgroup keeps
# to cgroupfs under the path it is given, as runc does, beside systemd.
# Needs the VM lane's systemd boot: run it through tests/vm/systemd-suite.sh.

load ../helpers
load vm_helpers

setup() {
        vm_require_cgroup2
        vm_require_systemd
        sb_setup
}

@test "systemd host: PID 1 is systemd, the system is running, the system bus answers" {
        [ "$(cat /proc/1/comm)" = systemd ]
        [ "$(readlink /proc/1/exe)" = "$(readlink -f /lib/systemd/systemd)" ]

        run systemctl is-system-running
        [ "$output" = running ] ||
                fail "is-system-running says '$output'; failed units: $(systemctl list-units --failed --no-legend --plain | tr '\n' ' ')"

        # PID 1 over the system bus: its version is the installed systemd's
        # (systemctl --version: "systemd 252 (252.39-1~deb12u2)").
        run busctl call org.freedesktop.systemd1 /org/freedesktop/systemd1 \
                org.freedesktop.DBus.Properties Get ss org.freedesktop.systemd1.Manager Version
        [ "$status" -eq 0 ]
        local want
        want=$(systemctl --version | sed -n '1s/^systemd [0-9]* (\(.*\))$/\1/p')
        [ -n "$want" ]
        [ "$output" = "v s \"$want\"" ]
}

@test "without --systemd-cgroup: cgroupfs at linux.cgroupsPath as runc, the 32 MiB limit in force, nothing left, no failed unit" {
        local cg=/sys/fs/cgroup/sbrun-sdhost-test
        [ ! -e "$cg" ]
        make_bundle
        # The container says its limit (through its cgroup namespace, rooted at
        # its own cgroup) and waits at a gate while the test looks from outside.
        mkdir "$TEST_DIR/gate"
        touch "$TEST_DIR/gate/hold"
        edit_config '.mounts += [{"destination": "/gate", "type": "bind", "source": $g, "options": ["rbind", "rw"]}]' \
                --arg g "$TEST_DIR/gate"
        set_cmd 'echo "memory.max=$(cat /sys/fs/cgroup/memory.max)"; echo "cgroup=$(cat /proc/self/cgroup)"
                 touch /gate/up; while [ -e /gate/hold ]; do sleep 0.1; done'
        edit_config '.linux.cgroupsPath = "/sbrun-sdhost-test" | .linux.resources.memory = {"limit": 33554432}'

        run_bg "$TEST_DIR/run.out" run -b "$BUNDLE" "$ID"
        local i
        for ((i = 0; i < 1200; i++)); do
                [ -e "$TEST_DIR/gate/up" ] && break
                kill -0 "$BG_PID" 2>/dev/null || break
                sleep 0.1
        done
        [ -e "$TEST_DIR/gate/up" ] || fail "the container never came up: $(cat "$TEST_DIR/run.out")"
        # From the root of the cgroupfs, not below sbrun's own cgroup (the
        # lane's sbrun-vm.service) nor in a unit of systemd's.
        grep -qx "$(container_pid "$ID")" "$cg/cgroup.procs"
        [ "$(cat "$cg/memory.max")" = 33554432 ]
        [ -z "$(find /sys/fs/cgroup/system.slice -name 'sbrun-sdhost-test*' 2>/dev/null)" ]

        rm "$TEST_DIR/gate/hold"
        timeout_wait "$BG_PID" 120 || fail "sbrun run did not return: $(cat "$TEST_DIR/run.out")"
        cat "$TEST_DIR/run.out"
        [ "$WAIT_STATUS" -eq 0 ]
        grep -qx 'memory.max=33554432' "$TEST_DIR/run.out"
        grep -qx 'cgroup=0::/' "$TEST_DIR/run.out"
        [ ! -e "$cg" ]

        run systemctl list-units --failed --no-legend --plain
        [ "$status" -eq 0 ]
        [ -z "$output" ] || fail "failed units: $output"
        assert_no_leftovers "$ID"
}
