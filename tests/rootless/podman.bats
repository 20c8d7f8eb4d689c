#!/usr/bin/env bats
# Rootless podman (4.3.1, conmon, vfs storage, --network none) driving sbrun
# as the unprivileged user the file makes: podman runs sbrun as root of its
# own user namespace, so sbrun finds itself rootless there (as runc's
# --rootless auto does) and attempts nothing that needs the host's root.
# The user's podman configuration is the README's "Rootless" snippet,
# written to ~/.config/containers as the README says; the image is the
# suite's, built offline. Nothing may be left: no container, process,
# mount or runtime state of the user.

load ../helpers
load ../engines/lib/readme
load rootless

setup_file() {
        rl_user_create
        local home
        home=$(getent passwd "$RL_USER" | cut -d: -f6)
        export RP_HOME=$home
        # The operator's policy, where this host needs the cgroup opt-out: in
        # podman's user namespace the host's root is unmapped, so sbrun reads
        # a policy only from /etc/sbrun (spec/operator_policy.h).
        RP_POLICY=""
        if ! host_has_v2_controllers; then
                RP_POLICY=/etc/sbrun/test-$RL_USER.json
                install -d -m 0755 /etc/sbrun
                printf '%s\n' '{"cgroups": {"enforce": false}}' >"$RP_POLICY"
                chmod 0644 "$RP_POLICY"
        fi
        export RP_POLICY
        # The runtime podman runs: the built sbrun, with that policy.
        RP_RUNTIME=$home/bin/sbrun
        as_user mkdir -p "$home/bin" "$home/.config/containers"
        {
                echo '#!/bin/sh'
                printf "exec '%s'" "$SBRUN_REAL"
                [ -n "$RP_POLICY" ] && printf " --policy '%s'" "$RP_POLICY"
                echo ' "$@"'
        } | as_user sh -c "cat >'$RP_RUNTIME' && chmod 0755 '$RP_RUNTIME'"
        export RP_RUNTIME
        # This host has no systemd user session (the VM lane's systemd
        # guest has one): cgroupfs.
        rl_podman_configure "$RP_RUNTIME" "$SBRUN_TEST_TMP/rootless-busybox.tar" \
                'cgroup_manager = "cgroupfs"'
}

teardown_file() {
        local left=""
        if [ -n "${RL_USER:-}" ]; then
                upodman pod rm -af -t 0 >/dev/null 2>&1
                upodman rm -af -t 0 >/dev/null 2>&1
                left=$(rp_leftovers)
                upodman system reset -f >/dev/null 2>&1
        fi
        [ -z "${RP_POLICY:-}" ] || rm -f "$RP_POLICY"
        rl_user_remove
        [ -z "$left" ] || fail "rootless podman left: $left"
}

teardown() {
        upodman pod rm -af -t 0 >/dev/null 2>&1 || true
        upodman rm -af -t 0 >/dev/null 2>&1 || true
}

# upodman ARGS...: podman as the test user, from its home, at most 100 s.
upodman() {
        as_user sh -c 'cd && exec timeout -k 5 100 podman "$@"' podman "$@" 3>&-
}

# rp_leftovers: containers, the user's processes (but podman's pause
# process, which holds its user namespace until reset), mounts made in its
# namespace that show here, sbrun state of the user.
rp_leftovers() {
        local out pid
        out=$(upodman ps -aq 2>&1) && [ -z "$out" ] || echo "containers: $out"
        out=$(upodman pod ps -q 2>&1) && [ -z "$out" ] || echo "pods: $out"
        for pid in $(awk -v u="$RL_UID" '/^Uid:/ && $2 == u { split(FILENAME, p, "/"); print p[3] }' \
                /proc/[0-9]*/status 2>/dev/null); do
                [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = catatonit ] && continue
                echo "process $pid: $({ tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null)"
        done
        find "$RL_RUNTIME_DIR/sbrun" -mindepth 1 -maxdepth 1 ! -name .seccomp-cache \
                -printf 'runtime state %p\n' 2>/dev/null
}

# rp_no_leftovers: rp_leftovers has nothing, once processes that were
# already exiting when podman returned (a pod's conmons) are gone: a few
# seconds at most.
rp_no_leftovers() {
        local left i
        for ((i = 0; i < 50; i++)); do
                left=$(rp_leftovers)
                [ -z "$left" ] && return 0
                sleep 0.1
        done
        fail "rootless podman left: $left"
}

@test "rootless podman: run as the user, sbrun rootless in podman's user namespace" {
        run upodman run --rm busybox sh -c 'id -u; cat /proc/self/uid_map'
        [ "$status" -eq 0 ] || fail "status $status: $output"
        [ "${lines[0]}" = 0 ] || fail "$output"
        # Container root is the user; podman's namespace maps the rest to the
        # user's subordinate ids.
        [[ ${lines[1]} =~ ^\ *0\ +$RL_UID\ +1$ ]] || fail "uid_map: $output"
        run upodman info --format '{{.Host.Security.Rootless}} {{.Host.OCIRuntime.Path}}'
        [ "$output" = "true $RP_RUNTIME" ] || fail "podman info: $output"
        # sbrun's state went to the user's runtime directory (runc's rule).
        [ "$(stat -c '%U %a' "$RL_RUNTIME_DIR/sbrun")" = "$RL_USER 700" ]
        rp_no_leftovers
}

@test "rootless podman: run -it and exec -it give a terminal" {
        local pty=$SBRUN_TEST_TMP/pty_run
        [ -x "$pty" ] || cc -O2 -Wall -o "$pty" "$SBRUN_SRCDIR/tests/helpers/pty_run.c"
        run as_user "$pty" sh -c 'cd && exec podman run --rm -it busybox sh -c "tty; exit 4"'
        [ "$status" -eq 4 ] || fail "run -it: status $status: $output"
        [[ $output == *"/dev/pts/0"* ]] || fail "run -it: $output"
        upodman run -d --name term busybox sleep 1000 >/dev/null
        run as_user "$pty" sh -c 'cd && exec podman exec -it term sh -c "tty; echo exec-ok"'
        [ "$status" -eq 0 ] || fail "exec -it: $output"
        [[ $output == *"/dev/pts/"*exec-ok* ]] || fail "exec -it: $output"
}

@test "rootless podman: exec, stop and rm" {
        upodman run -d --name box busybox sleep 1000 >/dev/null
        run upodman exec box sh -c 'echo in-box; id -u'
        [ "$output" = "in-box
0" ] || fail "exec: $output"
        run upodman stop -t 1 box
        [ "$status" -eq 0 ] || fail "stop: $output"
        [ "$(upodman inspect --format '{{.State.Status}}' box)" = exited ]
        run upodman rm box
        [ "$status" -eq 0 ] || fail "rm: $output"
        rp_no_leftovers
}

@test "rootless podman: --read-only, --tmpfs and --init" {
        run upodman run --rm --read-only --tmpfs /scratch:size=1m busybox sh -c \
                'touch /x; echo ok >/scratch/f && cat /scratch/f; grep " /scratch " /proc/mounts'
        [[ $output == *"touch: /x: Read-only file system"* ]] || fail "root writable: $output"
        [[ $output == *ok*"tmpfs /scratch tmpfs"*"size=1024k"* ]] || fail "tmpfs: $output"
        run upodman run --rm --init busybox sh -c 'cat /proc/1/cmdline | tr "\0" " "'
        [[ $output == "/run/podman-init -- sh -c"* ]] || fail "--init: $output"
}

@test "rootless podman: a pod's containers share its namespaces" {
        run upodman pod create --name duo
        [ "$status" -eq 0 ] || fail "pod create: $output"
        upodman run -d --pod duo --name one busybox sleep 1000 >/dev/null
        upodman run -d --pod duo --name two busybox sleep 1000 >/dev/null
        local ns a b
        for ns in ipc uts net; do
                a=$(upodman exec one readlink /proc/self/ns/$ns)
                b=$(upodman exec two readlink /proc/self/ns/$ns)
                [ -n "$a" ] && [ "$a" = "$b" ] || fail "$ns: one has '$a', two has '$b'"
        done
        run upodman pod rm -f -t 0 duo
        [ "$status" -eq 0 ] || fail "pod rm: $output"
        rp_no_leftovers
}

@test "rootless podman: in podman's user namespace a policy is read only from /etc/sbrun" {
        # Root-owned and 0644, but elsewhere: there, the host's root shows as
        # the overflow uid, as every user the namespace does not map does.
        local p=$SBRUN_TEST_TMP/rootless-elsewhere.json
        printf '%s\n' '{"cgroups": {"enforce": false}}' >"$p"
        chmod 0644 "$p"
        run upodman --runtime-flag "policy=$p" run --rm busybox true
        rm -f "$p"
        [ "$status" -ne 0 ]
        [[ $output == *"policy $p: in a user namespace that does not map the host's root (rootless), only a policy in /etc/sbrun/ is read"* ]] ||
                fail "$output"
        rp_no_leftovers
}

@test "rootless podman: the floor holds (no host network, no added capability above the floor)" {
        run upodman run --rm --network host busybox true
        [ "$status" -ne 0 ]
        [[ $output == *"the host network namespace refused"* ]] || fail "--network host: $output"
        run upodman run --rm --cap-add SYS_ADMIN busybox grep CapEff /proc/self/status
        [ "$status" -eq 0 ] || fail "$output"
        # CAP_SYS_ADMIN is bit 21: the standard floor's ceiling takes it away.
        (( (0x${output##*:[[:space:]]} >> 21) % 2 == 0 )) || fail "CAP_SYS_ADMIN kept: $output"
}
