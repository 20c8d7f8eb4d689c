#!/usr/bin/env bats
# Rootless podman 5 on Debian 13 with its defaults: the systemd cgroup
# manager under the user's systemd --user, pasta for the network, and
# --userns=auto from the user's subordinate ids; sbrun beside crun. The
# user and everything of it are made and removed here
# (tests/rootless/rootless.bash), as in tests/vm/systemd_rootless.bats. Run
# in the trixie guest (tests/vm/trixie-suite.sh).

load ../helpers
load ../engines/lib/readme
load ../rootless/rootless
load vm_helpers

# pasta copies the host's interface and routes into the container; the
# guest has none but lo, so this file gives it one (a dummy interface with
# a default route, the guest's alone).
NET_DEV=sbt-dummy0
NET_ADDR=192.0.2.10

setup_file() {
        vm_require_systemd
        modprobe dummy || fail "no dummy module"
        ip link add "$NET_DEV" type dummy &&
                ip addr add "$NET_ADDR/24" dev "$NET_DEV" &&
                ip link set "$NET_DEV" up &&
                ip route add default via 192.0.2.1 dev "$NET_DEV" || fail "cannot make $NET_DEV"
        rl_user_create
        vm_user_manager_start
        # The image where the user may read it (bats' own dirs are 0700).
        IMG_DIR=$(mktemp -d /tmp/sbrl-img.XXXXXX) && chmod 0755 "$IMG_DIR" || fail "mktemp"
        export IMG_DIR
        rl_podman_configure "$SBRUN_REAL" "$IMG_DIR/busybox.tar"
        # The distro's network default (pasta) instead of the helper's
        # "none", which Debian 12's guest needs (no /dev/net/tun there for
        # slirp4netns).
        local home
        home=$(getent passwd "$RL_USER" | cut -d: -f6)
        sed -i '/^netns = "none"$/d' "$home/.config/containers/containers.conf"
}

teardown_file() {
        if [ -n "${RL_USER:-}" ]; then
                as_user sh -c 'cd && podman rm -af -t 0; podman system reset -f' >/dev/null 2>&1 || true
                loginctl disable-linger "$RL_USER" >/dev/null 2>&1 || true
                systemctl stop "user@$RL_UID.service" "user-runtime-dir@$RL_UID.service" >/dev/null 2>&1 || true
                loginctl terminate-user "$RL_USER" >/dev/null 2>&1 || true
                rl_user_remove
        fi
        ip link del "$NET_DEV" 2>/dev/null || true
        [ -z "${IMG_DIR:-}" ] || rm -rf "$IMG_DIR"
}

teardown() {
        as_user sh -c 'cd && podman rm -af -t 0' >/dev/null 2>&1 || true
}

# both NAME ARG...: `podman --runtime RT ARG...` as the user, RT crun then
# sbrun; results in RT_status_crun/RT_out_crun and _sbrun. crun failing
# fails the test (the test is wrong, not sbrun).
both() {
        local name=$1 rt path q=
        shift
        printf -v q ' %q' "$@"
        for rt in crun sbrun; do
                path=crun
                [ "$rt" = sbrun ] && path=$SBRUN_REAL
                run as_user sh -c "cd && podman --runtime '$path'$q"
                printf -v "RT_status_$rt" '%s' "$status"
                printf -v "RT_out_$rt" '%s' "$output"
                printf '%s\n' "$name, $rt: status $status: $output" | sed 's/^/# /' >&3
        done
        [ "$RT_status_crun" -eq 0 ] || fail "$name with crun: status $RT_status_crun: $RT_out_crun"
}

@test "rootless podman 5, sbrun beside crun: pasta (the default) gives the container the host's address and route" {
        run as_user sh -c 'cd && podman info --format "{{.Host.CgroupManager}} {{.Host.NetworkBackend}} {{.Host.Security.Rootless}} {{.Host.Pasta.Executable}}"'
        [[ $output == "systemd netavark true "*pasta ]] || fail "podman info: $output"
        both pasta run --rm busybox sh -c 'ip -4 -o addr show | awk "\$2 != \"lo\" { print \$4 }"; ip route show default | cut -d" " -f1-3'
        [ "$RT_status_sbrun" -eq 0 ] || fail "sbrun: $RT_out_sbrun"
        [ "$RT_out_sbrun" = "$RT_out_crun" ] || fail "crun said '$RT_out_crun', sbrun '$RT_out_sbrun'"
        [[ $RT_out_sbrun == "$NET_ADDR/24"* ]] || fail "no $NET_ADDR inside: $RT_out_sbrun"
}

@test "rootless podman 5, sbrun beside crun: --userns=auto maps the container to a range of the user's subordinate ids; limits in force" {
        both userns run --rm --userns=auto --memory 64m --pids-limit 32 busybox sh -c \
                'cat /proc/self/uid_map; id -u; cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/pids.max'
        # Rootless podman 5 asks for an idmapped mount here: sbrun, root of
        # podman's user namespace, makes it over what that namespace mounted,
        # as crun does.
        [ "$RT_status_sbrun" -eq 0 ] || fail "sbrun: $RT_out_sbrun"
        [ "$RT_out_sbrun" = "$RT_out_crun" ] || fail "crun said '$RT_out_crun', sbrun '$RT_out_sbrun'"
        local first
        read -r -a first <<<"$RT_out_sbrun"
        # Seen from inside: uid 0 is a uid of rootless podman's own user
        # namespace other than 0 (the user itself), i.e. a subordinate id.
        [ "${first[0]}" = 0 ] && [ "${first[1]}" -ge 1 ] && [ "${first[2]}" -ge 1024 ] ||
                fail "uid_map: $RT_out_sbrun"
        [ "$(sed -n '$p' <<<"$RT_out_sbrun")" = 32 ] || fail "limits: $RT_out_sbrun"
}
