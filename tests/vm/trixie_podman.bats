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
        pm_clean_tests
}

# both NAME CMD...: run `podman --runtime RT CMD...` for RT crun, then
# sbrun (this file's wrapper, tests/engines/lib/podman.bash); each run's
# status and output are in $RT_status_crun/$RT_out_crun and _sbrun. Fails
# when crun's run fails: the test itself is then wrong, not sbrun.
both() {
        local name=$1 rt
        shift
        for rt in crun sbrun; do
                local path=crun
                [ "$rt" = sbrun ] && path=$PM_RUNTIME
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
                path=crun
                [ "$rt" = sbrun ] && path=$PM_RUNTIME
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
