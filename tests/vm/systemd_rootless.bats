#!/usr/bin/env bats
# Rootless on a systemd host: a lingering test user with its own systemd
# --user (user@UID.service, which systemd delegates cpu, memory and pids
# to), sbrun run by that user with --systemd-cgroup, and rootless podman
# with its default (systemd) cgroup manager. The limits are in force in the
# scope the user's manager made below user@UID.service, read inside the
# container, and no scope is left. Without delegation (cgroupfs from a
# cgroup the user cannot write) create fails closed by name. Run in the
# systemd guest of the VM lane (tests/vm/systemd-suite.sh); the user and
# everything of it are made and removed here (tests/rootless/rootless.bash).

load ../helpers
load ../engines/lib/readme
load ../rootless/rootless
load vm_helpers

setup_file() {
        vm_require_systemd
        rl_user_create
        vm_user_manager_start
        export RL_MANAGER_CG=/sys/fs/cgroup/user.slice/user-$RL_UID.slice/user@$RL_UID.service
}

teardown_file() {
        [ -n "${RL_USER:-}" ] || return 0
        as_user sh -c 'cd && podman system reset -f' >/dev/null 2>&1 || true
        loginctl disable-linger "$RL_USER" >/dev/null 2>&1 || true
        systemctl stop "user@$RL_UID.service" "user-runtime-dir@$RL_UID.service" >/dev/null 2>&1 || true
        loginctl terminate-user "$RL_USER" >/dev/null 2>&1 || true
        rl_user_remove
}

# user_scopes: the scopes the user's manager holds for containers.
user_scopes() {
        find "$RL_MANAGER_CG" -type d \( -name 'sbrun-*.scope' -o -name 'libpod-*.scope' \) 2>/dev/null
}

@test "rootless, systemd --user: sbrun --systemd-cgroup run as the user: the limits are in force in a scope below user@UID.service, gone after" {
        make_bundle
        edit_config '.linux.resources.memory = {"limit": 67108864} | .linux.resources.pids = {"limit": 32}'
        set_cmd 'cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/pids.max; cat /proc/self/cgroup; sleep 1000'
        run detached sbrun --systemd-cgroup run -d -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "run: $output"
        local pid cg
        pid=$(container_pid "$ID")
        cg=/sys/fs/cgroup$(sed -n 's/^0:://p' "/proc/$pid/cgroup")
        [ "$cg" = "$RL_MANAGER_CG/user.slice/sbrun-$ID.scope" ] || fail "cgroup: $cg"
        [ "$(cat "$cg/memory.max")" = 67108864 ]
        [ "$(cat "$cg/pids.max")" = 32 ]
        [ "$(stat -c %U "$cg")" = "$RL_USER" ]
        run sbrun exec "$ID" cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/pids.max
        [ "$output" = "67108864
32" ] || fail "inside: $output"
        run sbrun delete --force "$ID"
        [ "$status" -eq 0 ] || fail "delete: $output"
        assert_no_leftovers "$ID"
        [ -z "$(user_scopes)" ] || fail "scopes left: $(user_scopes)"
}

@test "rootless, no delegation: cgroupfs from a cgroup the user cannot write fails closed by name, leaving nothing" {
        make_bundle
        run detached sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -ne 0 ]
        [[ $output == *"is not writable by uid $RL_UID (rootless): no cgroup is delegated to this user; run sbrun with --systemd-cgroup"* ]] ||
                fail "$output"
        assert_no_leftovers "$ID"
}

@test "rootless podman, systemd cgroup manager: --memory 64m --pids-limit 32 in force inside; no scope after rm" {
        # The README's file with the built sbrun; no cgroup_manager line:
        # podman's own default on a systemd host.
        rl_podman_configure "$SBRUN_REAL" "$TEST_DIR/busybox.tar"
        run as_user sh -c 'cd && podman info --format "{{.Host.CgroupManager}} {{.Host.Security.Rootless}}"'
        [ "$output" = "systemd true" ] || fail "podman info: $output"
        run as_user sh -c 'cd && podman run --rm --memory 64m --pids-limit 32 busybox \
                sh -c "cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/pids.max; cat /proc/self/cgroup"'
        [ "$status" -eq 0 ] || fail "run: $output"
        [ "${lines[0]}" = 67108864 ] && [ "${lines[1]}" = 32 ] || fail "inside: $output"
        run as_user sh -c 'cd && podman ps -aq'
        [ -z "$output" ] || fail "containers left: $output"
        [ -z "$(user_scopes)" ] || fail "scopes left: $(user_scopes)"
        as_user sh -c 'cd && podman rmi -af' >/dev/null 2>&1 || true
}
