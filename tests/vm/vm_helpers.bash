# Shared by the VM lane's bats files (after `load ../helpers`).

# vm_require_cgroup2: fail loudly outside a pure cgroup v2 host.
vm_require_cgroup2() {
        [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ] ||
                fail "/sys/fs/cgroup is not cgroup2: run this in the VM lane (tests/vm/cgroups-suite.sh)"
}

# cgdir [ID]: the cgroup sbrun makes for a container without
# linux.cgroupsPath.
cgdir() {
        echo "/sys/fs/cgroup/sbrun/${1:-$ID}"
}

# vm_require_systemd: fail loudly unless PID 1 is systemd (run.sh --systemd).
vm_require_systemd() {
        [ "$(cat /proc/1/comm)" = systemd ] ||
                fail "PID 1 is $(cat /proc/1/comm), not systemd: run this in the VM lane's systemd boot (tests/vm/systemd-suite.sh)"
}

# vm_user_manager_start: the rootless test user (rl_user_create) lingering,
# so that logind starts its user@UID.service as at boot; returns once its
# systemd --user and D-Bus sockets are there.
vm_user_manager_start() {
        systemctl start systemd-logind.service || fail "cannot start systemd-logind"
        loginctl enable-linger "$RL_USER" || fail "loginctl enable-linger $RL_USER"
        local i
        for ((i = 0; i < 600; i++)); do
                [ -S "$RL_RUNTIME_DIR/systemd/private" ] && [ -S "$RL_RUNTIME_DIR/bus" ] && break
                sleep 0.5
        done
        [ -S "$RL_RUNTIME_DIR/systemd/private" ] ||
                fail "no systemd --user for $RL_USER: $(systemctl status "user@$RL_UID.service" 2>&1 | tail -5)"
}
