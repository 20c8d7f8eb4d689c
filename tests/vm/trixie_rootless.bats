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

# rpodman RT ARG...: podman as the user with runtime RT (crun or sbrun), at
# most 200 s.
rpodman() {
        local rt=$1 path=crun q=
        shift
        [ "$rt" = sbrun ] && path=$SBRUN_REAL
        printf -v q ' %q' "$@"
        as_user sh -c "cd && exec timeout -k 5 200 podman --runtime '$path'$q" 3>&-
}

@test "rootless podman 5, sbrun beside crun: run -d, exec (exit code, --user), -it, stop, rm; --read-only --tmpfs, --init; a pod; nothing left" {
        [ -x "${SBRUN_PTY_RUN:-}" ] || fail "SBRUN_PTY_RUN is not a program: tests/run-all.sh builds tests/helpers/pty_run.c"
        # Where the user may run it (run-all.sh's directory is root's, 0700).
        local pty=$IMG_DIR/pty_run rt path a b
        install -m 0755 "$SBRUN_PTY_RUN" "$pty" || fail "install pty_run"
        for rt in crun sbrun; do
                path=crun
                [ "$rt" = sbrun ] && path=$SBRUN_REAL
                rpodman "$rt" run -d --name "lc-$rt" busybox sleep 1000 >/dev/null || fail "$rt: run -d"
                run rpodman "$rt" exec "lc-$rt" sh -c 'echo in; exit 5'
                [ "$status" -eq 5 ] && [ "$output" = in ] || fail "$rt: exec: $status $output"
                run rpodman "$rt" exec --user 1234:5678 "lc-$rt" id -u
                [ "$output" = 1234 ] || fail "$rt: exec --user: $output"
                run as_user "$pty" sh -c "cd && exec podman exec -it lc-$rt sh -c 'tty; echo exec-ok'"
                [ "$status" -eq 0 ] && [[ $output == *"/dev/pts/"*exec-ok* ]] || fail "$rt: exec -it: $output"
                run rpodman "$rt" stop -t 1 "lc-$rt"
                [ "$status" -eq 0 ] || fail "$rt: stop: $output"
                [ "$(rpodman "$rt" inspect --format '{{.State.Status}}' "lc-$rt")" = exited ] || fail "$rt: not exited"
                run rpodman "$rt" rm "lc-$rt"
                [ "$status" -eq 0 ] || fail "$rt: rm: $output"

                run as_user "$pty" sh -c "cd && exec podman --runtime '$path' run --rm -it busybox sh -c 'tty; exit 4'"
                [ "$status" -eq 4 ] && [[ $output == *"/dev/pts/0"* ]] || fail "$rt: run -it: status $status: $output"
                run rpodman "$rt" run --rm --read-only --tmpfs /scratch:size=1m busybox sh -c \
                        'touch /x 2>/dev/null && echo rw || echo ro; echo ok >/scratch/f && cat /scratch/f'
                [ "$output" = "$(printf 'ro\nok')" ] || fail "$rt: --read-only --tmpfs: $output"
                run rpodman "$rt" run --rm --init busybox sh -c 'tr "\0" " " </proc/1/cmdline'
                [[ $output == "/run/podman-init -- sh -c"* ]] || fail "$rt: --init: $output"

                rpodman "$rt" pod create --name "duo-$rt" >/dev/null || fail "$rt: pod create"
                rpodman "$rt" run -d --pod "duo-$rt" --name "one-$rt" busybox sleep 1000 >/dev/null || fail "$rt: one"
                rpodman "$rt" run -d --pod "duo-$rt" --name "two-$rt" busybox sleep 1000 >/dev/null || fail "$rt: two"
                a=$(rpodman "$rt" exec "one-$rt" readlink /proc/self/ns/net)
                b=$(rpodman "$rt" exec "two-$rt" readlink /proc/self/ns/net)
                [ -n "$a" ] && [ "$a" = "$b" ] || fail "$rt: pod: one has '$a', two has '$b'"
                run rpodman "$rt" pod rm -f -t 0 "duo-$rt"
                [ "$status" -eq 0 ] || fail "$rt: pod rm: $output"
        done
        run rpodman sbrun ps -aq
        [ -z "$output" ] || fail "containers left: $output"
        run rpodman sbrun pod ps -q
        [ -z "$output" ] || fail "pods left: $output"
        [ -z "$(find "$RL_RUNTIME_DIR/sbrun" -mindepth 1 -maxdepth 1 ! -name .seccomp-cache 2>/dev/null)" ] ||
                fail "sbrun state left: $(ls -A "$RL_RUNTIME_DIR/sbrun")"
}
