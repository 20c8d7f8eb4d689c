#!/usr/bin/env bats
# podman 5 (rootful) on Debian 13 with its distro defaults (the systemd
# cgroup manager, netavark), sbrun and crun side by side: each test runs the
# same commands with both runtimes and expects the same answers, so that a
# difference is sbrun's. The private podman tree is tests/engines/lib/
# podman.bash's; run in the trixie guest (tests/vm/trixie-suite.sh), where
# /etc/subuid, netavark's bridge and its run directory are the guest's own.

load ../helpers
load ../engines/lib/readme
load ../engines/lib/podman
load vm_helpers

# The range rootful --userns=auto draws from: /etc/subuid's and
# /etc/subgid's "containers" entries (podman's rule), added for this file.
AUTO_START=3000000
AUTO_COUNT=1000000

setup_file() {
        vm_require_systemd
        PM_CGROUP_MANAGER=default pm_setup_file
        local f
        for f in /etc/subuid /etc/subgid; do
                ! grep -q '^containers:' "$f" || fail "$f has a containers entry already"
                echo "containers:$AUTO_START:$AUTO_COUNT" >>"$f"
        done
}

teardown_file() {
        sed -i '/^containers:/d' /etc/subuid /etc/subgid
        # netavark's bridge, its firewall rules and state, and its IPAM
        # database are the guest's (tests/engines/lib/podman.bash would report the
        # database as a changed system path): gone with the last container,
        # or here.
        ip link del podman0 2>/dev/null || true
        rm -rf /run/containers/networks/ipam.db /run/containers/networks/aardvark-dns \
                /run/containers/networks/firewall
        pm_teardown_file
}

setup() {
        pm_env
}

teardown() {
        # What a notify test left when it failed: its units and Quadlet files.
        local units
        units=$(systemctl list-units --all --no-legend --plain 'sbtest-sdnotify-*' 'sbtest-quadlet-*' |
                awk '{ print $1 }')
        [ -z "$units" ] || systemctl stop $units >/dev/null 2>&1 || true
        [ -z "$units" ] || systemctl reset-failed $units >/dev/null 2>&1 || true
        if [ -d "$QUADLET_DIR" ]; then
                rm -rf "$QUADLET_DIR"
                systemctl daemon-reload
        fi
        pm_clean_tests
}

# rt_path RT: what `podman --runtime` takes for RT (crun, or sbrun's
# wrapper).
rt_path() {
        if [ "$1" = sbrun ]; then echo "$PM_RUNTIME"; else echo crun; fi
}

# both NAME CMD...: run `podman --runtime RT CMD...` for RT crun, then
# sbrun (this file's wrapper, tests/engines/lib/podman.bash); each run's
# status and output are in $RT_status_crun/$RT_out_crun and _sbrun. Fails
# when crun's run fails: the test itself is then wrong, not sbrun.
both() {
        local name=$1 rt
        shift
        for rt in crun sbrun; do
                local path
                path=$(rt_path "$rt")
                run podman --runtime "$path" "$@"
                printf -v "RT_status_$rt" '%s' "$status"
                printf -v "RT_out_$rt" '%s' "$output"
                printf '%s\n' "$name, $rt: status $status: $output" | sed 's/^/# /' >&3
        done
        [ "$RT_status_crun" -eq 0 ] || fail "$name with crun: status $RT_status_crun: $RT_out_crun"
}

# same NAME: sbrun's answer is crun's.
same() {
        [ "$RT_status_sbrun" = "$RT_status_crun" ] && [ "$RT_out_sbrun" = "$RT_out_crun" ] ||
                fail "$1: crun said ($RT_status_crun) '$RT_out_crun', sbrun said ($RT_status_sbrun) '$RT_out_sbrun'"
}

@test "podman 5 rootful, sbrun beside crun: the systemd cgroup manager and netavark are the defaults; run --read-only --tmpfs, --init, resource flags read inside give crun's answers" {
        run podman info --format '{{.Host.CgroupManager}} {{.Host.NetworkBackend}} {{.Version.Version}}'
        [[ $output == "systemd netavark 5."* ]] || fail "podman info: $output"
        both read-only run --rm --read-only --tmpfs /scratch:size=1m busybox sh -c \
                'touch /x 2>/dev/null && echo rw || echo ro; touch /scratch/y && echo scratch-ok; awk "\$2 == \"/scratch\" { print \$3 }" /proc/mounts'
        same read-only
        [ "$RT_out_sbrun" = "$(printf 'ro\nscratch-ok\ntmpfs')" ] || fail "read-only: $RT_out_sbrun"
        both init run --rm --init busybox sh -c 'tr "\0" " " </proc/1/cmdline; echo'
        same init
        [[ $RT_out_sbrun == "/run/podman-init -- sh -c"* ]] || fail "init: $RT_out_sbrun"
        both resources run --rm --memory 64m --cpus 0.5 --pids-limit 32 busybox \
                cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/cpu.max /sys/fs/cgroup/pids.max
        same resources
        [ "$RT_out_sbrun" = "$(printf '67108864\n50000 100000\n32')" ] || fail "resources: $RT_out_sbrun"
}

@test "podman 5 rootful, sbrun beside crun: run -d, exec (exit code, --user), stop, rm leave nothing" {
        local rt path
        for rt in crun sbrun; do
                path=$(rt_path "$rt")
                run podman --runtime "$path" run -d --name "lc-$rt" busybox sleep 1000
                [ "$status" -eq 0 ] || fail "$rt: run -d: $output"
                run podman exec "lc-$rt" sh -c 'echo in; exit 5'
                [ "$status" -eq 5 ] && [ "$output" = in ] || fail "$rt: exec: $status $output"
                run podman exec --user 1234:5678 "lc-$rt" id -u
                [ "$output" = 1234 ] || fail "$rt: exec --user: $output"
                run podman stop -t 2 "lc-$rt"
                [ "$status" -eq 0 ] || fail "$rt: stop: $output"
                [ "$(podman inspect --format '{{.State.Status}}' "lc-$rt")" = exited ] || fail "$rt: not exited after stop"
                run podman rm "lc-$rt"
                [ "$status" -eq 0 ] || fail "$rt: rm: $output"
        done
        run podman ps -aq
        [ -z "$output" ] || fail "containers left: $output"
        run systemctl list-units --all --no-legend --plain 'libpod-*'
        [ -z "$output" ] || fail "units left: $output"
}

@test "podman 5 rootful, sbrun beside crun: netavark's bridge network gives the container an address on the podman network" {
        both bridge run --rm --network podman busybox sh -c 'ip -4 -o addr show eth0 | awk "{ print \$4 }"'
        [ "$RT_status_sbrun" -eq 0 ] || fail "sbrun: $RT_out_sbrun"
        [[ $RT_out_crun == 10.88.* ]] || fail "crun's address: $RT_out_crun"
        [[ $RT_out_sbrun == 10.88.* ]] || fail "sbrun's address: $RT_out_sbrun"
}

@test "podman 5 rootful, sbrun beside crun: --userns=auto maps the container into the containers range of /etc/subuid" {
        both userns run --rm --userns=auto busybox sh -c 'cat /proc/self/uid_map /proc/self/gid_map; id -u'
        [ "$RT_status_sbrun" -eq 0 ] || fail "sbrun: $RT_out_sbrun"
        local line start count
        while read -r line; do
                set -- $line
                [ "$#" -eq 1 ] && { [ "$1" = 0 ] || fail "id -u: $1"; continue; }
                start=$2 count=$3
                [ "$1" = 0 ] && [ "$start" -ge "$AUTO_START" ] &&
                        [ $((start + count)) -le $((AUTO_START + AUTO_COUNT)) ] ||
                        fail "a mapping outside containers:$AUTO_START:$AUTO_COUNT: $line"
        done <<<"$RT_out_sbrun"
        [ "$(wc -l <<<"$RT_out_sbrun")" = "$(wc -l <<<"$RT_out_crun")" ] || fail "crun: $RT_out_crun"
}

# sd_notify_bin: tests/helpers/sd_notify.c built static on the host (this
# guest has no compiler; tests/run-all.sh passes it).
sd_notify_bin() {
        [ -x "${SBRUN_SD_NOTIFY:-}" ] || fail "SBRUN_SD_NOTIFY is not a program: tests/run-all.sh builds tests/helpers/sd_notify.c"
        echo "$SBRUN_SD_NOTIFY"
}

# A container that says READY=1 only once the test lets it ($1/go appears):
# until then its unit must stay "activating", whatever the runtime.
# It ends on SIGTERM (its pid 1 would ignore it otherwise), as a service does.
READY_WHEN_LET="trap 'exit 0' TERM; until [ -e /out/go ]; do sleep 0.1; done; /sd_notify READY=1; sleep 1000 & wait"

# Where Quadlet reads a root's units from: the one of its directories no
# test here snapshots (/etc/containers and /run/containers must stay as they
# were: tests/engines/lib/podman.bash); teardown removes it.
QUADLET_DIR=/usr/share/containers/systemd

# unit_state_becomes UNIT STATE: the unit reaches STATE (systemctl
# is-active) within 60 s.
unit_state_becomes() {
        local i state
        for ((i = 0; i < 600; i++)); do
                state=$(systemctl is-active "$1") || true
                [ "$state" = "$2" ] && return 0
                sleep 0.1
        done
        fail "$1 is $state, not $2: $(systemctl status "$1" 2>&1 | tail -15)"
}

# notify_unit_case RT UNIT DIR START-CMD...: START-CMD starts UNIT without
# waiting; the unit must stay activating until the container may send
# READY=1, then become active; podman stop ends it and leaves nothing.
notify_unit_case() {
        local rt=$1 unit=$2 dir=$3
        shift 3
        "$@" || fail "$rt: cannot start $unit"
        unit_state_becomes "$unit" activating
        # Podman and the runtime are up and the container runs: its unit
        # still waits for it.
        sleep 2
        [ "$(systemctl is-active "$unit" || true)" = activating ] ||
                fail "$rt: $unit is $(systemctl is-active "$unit") before the container said READY=1"
        touch "$dir/go"
        unit_state_becomes "$unit" active
        systemctl stop "$unit" || fail "$rt: systemctl stop $unit"
        unit_state_becomes "$unit" inactive
}

@test "podman 5 rootful, sbrun beside crun: run --sdnotify=container in a Type=notify unit is started by the container's READY=1, not before" {
        local rt path unit dir notify
        notify=$(sd_notify_bin)
        for rt in crun sbrun; do
                path=$(rt_path "$rt")
                unit=sbtest-sdnotify-$rt
                dir=$PM_DIR/sdnotify-$rt
                mkdir -p "$dir"
                notify_unit_case "$rt" "$unit.service" "$dir" \
                        systemd-run --no-block --unit "$unit" -p Type=notify -p NotifyAccess=all \
                        -p TimeoutStartSec=120 -p TimeoutStopSec=60 -E CONTAINERS_CONF -E CONTAINERS_STORAGE_CONF \
                        -E CONTAINERS_REGISTRIES_CONF -E TMPDIR \
                        "$(type -P podman)" --root "$PM_DIR/root" --runroot "$PM_DIR/runroot" \
                        --runtime "$path" run --rm --name "sdnotify-$rt" --sdnotify=container \
                        -v "$notify:/sd_notify:ro" -v "$dir:/out" "$PM_IMAGE" sh -c "$READY_WHEN_LET"
        done
        run podman ps -aq
        [ -z "$output" ] || fail "containers left: $output"
}

@test "podman 5 rootful, sbrun beside crun: a Quadlet unit with Notify=true starts on the container's READY=1 and stops cleanly" {
        local rt path unit dir notify
        notify=$(sd_notify_bin)
        mkdir "$QUADLET_DIR" || fail "$QUADLET_DIR is there already"
        for rt in crun sbrun; do
                path=$(rt_path "$rt")
                unit=sbtest-quadlet-$rt
                dir=$PM_DIR/quadlet-$rt
                mkdir -p "$dir"
                cat >"$QUADLET_DIR/$unit.container" <<EOF2
[Container]
Image=$PM_IMAGE
GlobalArgs=--runtime=$path
Volume=$notify:/sd_notify:ro
Volume=$dir:/out
Exec=sh -c "$READY_WHEN_LET"
Notify=true

[Service]
Environment=CONTAINERS_CONF=$CONTAINERS_CONF CONTAINERS_STORAGE_CONF=$CONTAINERS_STORAGE_CONF
Environment=CONTAINERS_REGISTRIES_CONF=$CONTAINERS_REGISTRIES_CONF TMPDIR=$TMPDIR
TimeoutStartSec=120
TimeoutStopSec=60
EOF2
        done
        systemctl daemon-reload
        for rt in crun sbrun; do
                unit=sbtest-quadlet-$rt
                systemctl cat "$unit.service" | grep -q '^Type=notify' ||
                        fail "quadlet made no notify unit: $(systemctl cat "$unit.service" 2>&1)"
                notify_unit_case "$rt" "$unit.service" "$PM_DIR/quadlet-$rt" \
                        systemctl start --no-block "$unit.service"
        done
        run podman ps -aq
        [ -z "$output" ] || fail "containers left: $output"
}

@test "podman 5 rootful, sbrun beside crun: a :idmap volume under --userns=auto: the disk's root is the container's root (sbrun: with the operator's floor.volumes.idmap \"engine\"; refused by name without it)" {
        local rt path share=$PM_DIR/idmap-share policy=$PM_DIR/idmap-policy.json
        mkdir -p "$share"
        echo host >"$share/rootfile"
        # sbrun's default refuses an engine's idmap that gives the container's
        # root the disk's root (docs/policy.md): the operator waives it.
        jq -n '{floor: {volumes: {idmap: "engine"}}}' >"$policy"
        chmod 0644 "$policy"
        printf '#!/bin/sh\nexec %s --root %s --policy %s "$@"\n' "$SBRUN" "$PM_DIR/sbrun-state" "$policy" \
                >"$PM_DIR/bin/sbrun-idmap"
        chmod 0755 "$PM_DIR/bin/sbrun-idmap"
        for rt in crun sbrun; do
                path=crun
                [ "$rt" = sbrun ] && path=$PM_DIR/bin/sbrun-idmap
                run podman --runtime "$path" run --rm --userns=auto -v "$share:/mnt:idmap" "$PM_IMAGE" \
                        sh -c "stat -c %u:%g /mnt/rootfile; touch /mnt/made-$rt && stat -c %u:%g /mnt/made-$rt; cat /proc/self/uid_map"
                [ "$status" -eq 0 ] || fail "$rt: $output"
                [ "${lines[0]}" = 0:0 ] && [ "${lines[1]}" = 0:0 ] || fail "$rt inside: $output"
                [[ ${lines[2]} =~ ^\ *0\ +[1-9][0-9]*\  ]] || fail "$rt: no user namespace: $output"
                [ "$(stat -c %u:%g "$share/made-$rt")" = 0:0 ] ||
                        fail "$rt: made on the disk as $(stat -c %u:%g "$share/made-$rt")"
        done
        run podman --runtime "$PM_RUNTIME" run --rm --userns=auto -v "$share:/mnt:idmap" "$PM_IMAGE" true
        [ "$status" -ne 0 ] || fail "sbrun's default policy ran an engine's own-ids idmap"
        # podman 5 sends the container's range as the mount's own mapping.
        [[ $output == *".uidMappings: containerID 0 hostID $AUTO_START size "*" refused (rule: standard: an idmapped mount writes to the disk only ids the container's own user namespace maps)"* ]] ||
                fail "$output"
        run podman ps -aq
        [ -z "$output" ] || fail "containers left: $output"
}
