#!/usr/bin/env bats
# The Debian 13 guest (tests/vm/run.sh --guest trixie) is what the trixie
# suite claims to test on: Debian 13's kernel, systemd 257 as PID 1, the
# engine versions of that release; and `sbrun check` is clean there.
# Run in that guest (tests/vm/trixie-suite.sh).

load ../helpers
load vm_helpers

setup_file() {
        vm_require_systemd
        . /etc/os-release
        [ "$VERSION_CODENAME" = trixie ] || fail "not the trixie guest: $PRETTY_NAME"
}

# pkg_version PKG: the installed version of PKG.
pkg_version() {
        dpkg-query -W -f '${Version}' "$1"
}

@test "trixie guest: Debian 13, its 6.12 kernel, systemd 257 as PID 1 and running, and the engines of that release" {
        . /etc/os-release
        [ "$VERSION_ID" = 13 ] || fail "VERSION_ID=$VERSION_ID"
        case $(uname -r) in 6.12.*+deb13-*) ;; *) fail "kernel $(uname -r)" ;; esac
        [ -d "/lib/modules/$(uname -r)" ] || fail "the booted kernel is not the tree's"
        run systemctl --version
        [[ ${lines[0]} == "systemd 257 "* ]] || fail "systemctl --version: ${lines[0]}"
        run systemctl is-system-running
        [ "$output" = running ] || fail "is-system-running: $output; failed: $(systemctl list-units --failed --no-legend --plain)"
        [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]
        local p v
        for p in podman:5.4 crun:1.21 runc:1.1 containerd:1.7 bubblewrap:0.12 conmon:2.1 netavark:1.14; do
                v=$(pkg_version "${p%%:*}") || fail "${p%%:*} is not installed"
                v=${v#*:} # the epoch
                case $v in "${p#*:}".* | "${p#*:}"[-~+]*) ;; *) fail "${p%%:*} $v, not ${p#*:}" ;; esac
        done
        run podman --version
        [[ $output == "podman version 5."* ]] || fail "$output"
        run bwrap --version
        [ "$output" = "bubblewrap 0.12.0" ] || fail "$output"
}

@test "trixie guest: sbrun (the host's static build) runs; sbrun check is ready with every item ok, bwrap 0.12 included" {
        run file -L "$SBRUN"
        # static-pie where the toolchain links it (configure.ac): file(1)
        # says "static-pie linked" then.
        [[ $output == *"statically linked"* || $output == *"static-pie linked"* ]] || fail "not static: $output"
        run "$SBRUN" check
        echo "$output"
        [ "$status" -eq 0 ] || fail "check exited $status"
        [[ ${lines[-1]} == "ready: "* ]] || fail "not ready"
        grep -E '^bwrap +ok +/usr/bin/bwrap: bubblewrap 0\.12\.0$' <<<"$output" ||
                fail "bwrap's line: $(grep '^bwrap' <<<"$output")"
        run grep -vE '^(ITEM|[a-z][a-z0-9 ]* +ok +|$|ready: )' <<<"$output"
        [ -z "$output" ] || fail "items not ok: $output"
}
