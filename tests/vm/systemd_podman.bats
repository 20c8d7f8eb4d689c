#!/usr/bin/env bats
# podman with its default cgroup manager on a systemd host (systemd): it
# calls sbrun with --systemd-cgroup and a "machine.slice:libpod:ID"
# cgroupsPath, so the container is the scope libpod-ID.scope that sbrun's
# systemd driver starts. Each resource command is checked against the
# unit's properties (systemctl show) and the cgroup's files, and no unit is
# left after `podman rm -f`. Run in the systemd guest of the VM lane
# (tests/vm/systemd-suite.sh).

load ../helpers
load ../engines/lib/readme
load ../engines/lib/podman
load vm_helpers

setup_file() {
        [ "$(cat /proc/1/comm)" = systemd ] || fail "PID 1 is not systemd: run this through tests/vm/run.sh --systemd"
        # No cgroup_manager in containers.conf: podman's own default.
        PM_CGROUP_MANAGER=default pm_setup_file
}

teardown_file() {
        pm_teardown_file
}

setup() {
        pm_env
}

teardown() {
        pm_clean_tests
}

@test "podman, its default cgroup manager: run --rm --memory 64m IMAGE cat /sys/fs/cgroup/memory.max prints 67108864; no libpod unit afterwards" {
        run podman info --format '{{.Host.CgroupManager}}'
        [ "$output" = systemd ] || fail "podman's default cgroup manager here: $output"
        run podman run --rm --memory 64m busybox cat /sys/fs/cgroup/memory.max
        [ "$status" -eq 0 ] || fail "run: $output"
        [ "${lines[-1]}" = 67108864 ] || fail "run: $output"
        run systemctl list-units --all --no-legend --plain 'libpod-*'
        [ -z "$output" ] || fail "units left: $output"
}

@test "podman, systemd cgroup manager: --memory 64m --cpus 0.5 --pids-limit 32 in libpod-ID.scope; update, pause/unpause, stats through it; rm -f leaves no unit" {
        run podman run -d --name sdpm --memory 64m --cpus 0.5 --pids-limit 32 busybox sleep 1000
        [ "$status" -eq 0 ] || fail "run: $output"
        local id=${lines[-1]} unit cg
        unit=libpod-$id.scope
        cg=/sys/fs/cgroup/machine.slice/$unit
        systemctl show -p ActiveState -p Delegate -p MemoryMax -p TasksMax -p CPUQuotaPerSecUSec -p ControlGroup "$unit"
        [ "$(systemctl show -P ActiveState "$unit")" = active ]
        [ "$(systemctl show -P Delegate "$unit")" = yes ]
        [ "$(systemctl show -P ControlGroup "$unit")" = "/machine.slice/$unit" ]
        [ "$(systemctl show -P MemoryMax "$unit")" = 67108864 ]
        [ "$(systemctl show -P TasksMax "$unit")" = 32 ]
        [ "$(systemctl show -P CPUQuotaPerSecUSec "$unit")" = 500ms ]
        [ "$(cat "$cg/memory.max")" = 67108864 ]
        [ "$(cat "$cg/pids.max")" = 32 ]
        [ "$(cat "$cg/cpu.max")" = "50000 100000" ]
        run podman exec sdpm cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/pids.max
        [ "$status" -eq 0 ] || fail "exec: $output"
        [ "${lines[0]}" = 67108864 ] && [ "${lines[1]}" = 32 ] || fail "inside: $output"

        # (podman 4.3's stats shows the limit of the container's config, not
        # an update's: read before it.)
        run podman stats --no-stream --format '{{.Name}} {{.MemUsage}} {{.PIDs}}' sdpm
        [ "$status" -eq 0 ] || fail "stats: $output"
        [[ $output == "sdpm "*" / 67.11MB 1" ]] || fail "stats: $output"

        # podman 4.3's update has no --pids-limit.
        run podman update --memory 96m --cpus 0.25 sdpm
        [ "$status" -eq 0 ] || fail "update: $output"
        [ "$(systemctl show -P MemoryMax "$unit")" = 100663296 ]
        [ "$(cat "$cg/memory.max")" = 100663296 ]
        [ "$(systemctl show -P CPUQuotaPerSecUSec "$unit")" = 250ms ]
        [ "$(cat "$cg/cpu.max")" = "25000 100000" ]
        systemctl daemon-reload
        [ "$(cat "$cg/memory.max")" = 100663296 ]
        [ "$(cat "$cg/cpu.max")" = "25000 100000" ]

        run podman pause sdpm
        [ "$status" -eq 0 ] || fail "pause: $output"
        [ "$(cat "$cg/cgroup.freeze")" = 1 ]
        run podman unpause sdpm
        [ "$status" -eq 0 ] || fail "unpause: $output"
        [ "$(cat "$cg/cgroup.freeze")" = 0 ]

        run podman rm -f sdpm
        [ "$status" -eq 0 ] || fail "rm -f: $output"
        local left
        left=$(systemctl list-units --all --no-legend --plain "libpod-*$id*")
        [ -z "$left" ] || fail "units left: $left"
        [ ! -e "$cg" ]
        left=$(systemctl list-units --failed --no-legend --plain)
        [ -z "$left" ] || fail "failed units: $left"
}
