# Private configuration for driving the real podman with sbrun as its OCI
# runtime (tests/engines/podman.bats). Nothing under /etc/containers,
# /var/lib/containers or /run/containers is written: podman gets its own
# --root and --runroot, containers.conf, storage.conf and registries.conf, all
# under one temp dir that pm_setup_file makes and pm_teardown_file removes.
#
# The runtime podman runs is $PM_DIR/bin/sbrun, a wrapper that execs the
# built sbrun with the suite's operator policy (on a hybrid cgroup host, the
# cgroup opt-out; none where the host has cgroup v2 controllers, as in the
# VM lane). The containers.conf is the README's "From podman" snippet with
# the runtime path replaced, plus the private paths. Its cgroup_manager is
# cgroupfs unless PM_CGROUP_MANAGER says systemd, or default: none, podman's
# own default (systemd on a systemd host: tests/vm/systemd_podman.bats).

PM_IMAGE=docker.io/library/busybox:latest

# pm_setup_file: the private podman tree, the runtime wrapper and the image.
pm_setup_file() {
        [ "$(id -u)" -eq 0 ] || fail "the podman tests run as root (rootful podman)"
        command -v podman >/dev/null || fail "podman not found: tests/install-deps.sh installs it"
        command -v conmon >/dev/null || fail "conmon not found: tests/install-deps.sh installs it"
        [ -x "$SBRUN" ] || fail "runtime under test not found: SBRUN=$SBRUN"
        "$SBRUN_SRCDIR/tests/lib/make-rootfs.sh" "$SBRUN_ROOTFS" ||
                fail "cannot build the busybox rootfs in $SBRUN_ROOTFS"

        mkdir -p "$SBRUN_TEST_TMP"
        chmod 0755 "$SBRUN_TEST_TMP"
        PM_DIR=$(mktemp -d "$SBRUN_TEST_TMP/podman.XXXXXX")
        chmod 0755 "$PM_DIR"
        export PM_DIR
        mkdir -p "$PM_DIR"/{bin,root,runroot,tmp,volumes,net,hooks}
        pm_system_snapshot >"$PM_DIR/system.before"
        export PM_CWD=$PWD
        if [ -e oom ]; then touch "$PM_DIR/cwd-had-oom"; fi

        # The operator policy: root-owned and not writable by others.
        if host_has_v2_controllers; then
                PM_POLICY=""
        else
                PM_POLICY=$PM_DIR/policy.json
                printf '%s\n' '{"cgroups": {"enforce": false}}' >"$PM_POLICY"
                chmod 0644 "$PM_POLICY"
        fi
        export PM_POLICY
        # Rootful podman passes the runtime no --root: sbrun's state goes to
        # the suite's tree, never to the default /run/sbrun.
        mkdir -m 0700 "$PM_DIR/sbrun-state"
        {
                echo '#!/bin/sh'
                printf "exec '%s' --root '%s'" "$SBRUN" "$PM_DIR/sbrun-state"
                [ -n "$PM_POLICY" ] && printf " --policy '%s'" "$PM_POLICY"
                echo ' "$@"'
        } >"$PM_DIR/bin/sbrun"
        chmod 0755 "$PM_DIR/bin/sbrun"
        export PM_RUNTIME=$PM_DIR/bin/sbrun

        # containers.conf: the README's snippet, the runtime path replaced,
        # and the private paths added to its [engine] table.
        local snippet
        snippet=$(readme_block 'podman: containers.conf')
        [ -n "$snippet" ] || fail "README.md has no containers.conf snippet after its marker"
        grep -q '^\[engine\]$' <<<"$snippet" || fail "the README's containers.conf has no [engine] table"
        # Rootful podman asks for RLIMIT_NOFILE and RLIMIT_NPROC 1048576, and
        # runs its children with RLIMIT_NPROC 32768. Raising a hard limit
        # needs CAP_SYS_RESOURCE, which this machine's root lacks (runc fails
        # the same way): the containers then get limits podman's children hold.
        local ulimits="" nofile nproc cgroups=""
        # Without enforcement (the opt-out policy on a hybrid host), conmon
        # gets no cgroup of its own either: podman would make one in every
        # v1 hierarchy of the host.
        [ -n "$PM_POLICY" ] && cgroups='cgroups = "no-conmon"'
        if ! prlimit --nofile=1048576:1048576 true 2>/dev/null; then
                nofile=$(ulimit -Hn)
                nproc=$(ulimit -Hu)
                [ "$nproc" = unlimited ] || [ "$nproc" -gt 32768 ] && nproc=32768
                ulimits="default_ulimits = [\"nofile=$nofile:$nofile\", \"nproc=$nproc:$nproc\"]"
        fi
        {
                cat <<EOF
[containers]
netns = "none"
log_driver = "k8s-file"
cgroupns = "private"
$cgroups
$ulimits

[network]
network_config_dir = "$PM_DIR/net"

EOF
                # PM_CGROUP_MANAGER=default: no cgroup_manager line, podman's
                # own choice (systemd where systemd is PID 1).
                local manager_line="cgroup_manager = \"${PM_CGROUP_MANAGER:-cgroupfs}\"\\
"
                [ "${PM_CGROUP_MANAGER:-}" = default ] && manager_line=""
                sed "s|/usr/local/bin/sbrun|$PM_RUNTIME|g" <<<"$snippet" |
                        sed "/^\[engine\]\$/a\\
${manager_line}events_logger = \"file\"\\
events_logfile_path = \"$PM_DIR/events.log\"\\
tmp_dir = \"$PM_DIR/tmp\"\\
volume_path = \"$PM_DIR/volumes\"\\
static_dir = \"$PM_DIR/root/libpod\"\\
hooks_dir = [\"$PM_DIR/hooks\"]\\
conmon_path = [\"$(command -v conmon)\"]\\
helper_binaries_dir = [\"/usr/libexec/podman\", \"/usr/lib/podman\", \"/usr/bin\"]\\
lock_type = \"file\""
        } >"$PM_DIR/containers.conf"

        cat >"$PM_DIR/storage.conf" <<EOF
[storage]
driver = "overlay"
graphroot = "$PM_DIR/root"
runroot = "$PM_DIR/runroot"
EOF
        # No registry at all: a short name resolves in local storage only.
        cat >"$PM_DIR/registries.conf" <<EOF
unqualified-search-registries = []
EOF
        pm_env

        "$SBRUN_SRCDIR/tests/engines/lib/make-image.sh" "$PM_DIR/busybox.tar" "$PM_IMAGE" ||
                fail "tests/engines/lib/make-image.sh failed"
        # Copying an image writes c/image's blob-info cache, which podman
        # 4.3 (as root) keeps in /var/lib/containers/cache whatever --root
        # says: the copies (the load, and the pause image podman builds for
        # the first pod) run in a mount namespace of their own with a tmpfs
        # over /var/lib.
        pm_private_var_lib "
                podman load -q -i '$PM_DIR/busybox.tar' &&
                podman pod create --name sbrun-pause-build >/dev/null &&
                podman pod rm sbrun-pause-build >/dev/null" ||
                fail "podman load of the suite's image, or the pause image build, failed"
}

# pm_env: point podman (and what it starts: conmon, the exit command) at
# the private tree.
pm_env() {
        export CONTAINERS_CONF=$PM_DIR/containers.conf
        export CONTAINERS_STORAGE_CONF=$PM_DIR/storage.conf
        export CONTAINERS_REGISTRIES_CONF=$PM_DIR/registries.conf
        export TMPDIR=$PM_DIR/tmp
        export PM_RUNTIME=$PM_DIR/bin/sbrun
}

# pm_private_var_lib SCRIPT: run SCRIPT (with podman() defined) where
# /var/lib is a fresh tmpfs, in a mount namespace that ends with it.
pm_private_var_lib() {
        unshare --mount --propagation private bash -c "
                set -e
                mount -t tmpfs -o mode=0755 sbrun-podman-var-lib /var/lib
                podman() { command podman --root '$PM_DIR/root' --runroot '$PM_DIR/runroot' \"\$@\"; }
                $1" 3>&-
}

# podman ARGS...: the real podman on the private tree. Bats' fd 3 is closed:
# conmon and the container would otherwise hold it and make bats wait.
# A hung engine or runtime must not hang the suite: each command has 100s.
podman() {
        timeout -k 5 100 podman --root "$PM_DIR/root" --runroot "$PM_DIR/runroot" "$@" 3>&-
}

# pm_pty_run: tests/helpers/pty_run.c (a command on a new pty), built once;
# or SBRUN_PTY_RUN, built beforehand (the trixie guest has no compiler:
# tests/run-all.sh builds it static on the host).
pm_pty_run() {
        local bin=${SBRUN_PTY_RUN:-$PM_DIR/pty_run}
        [ -x "$bin" ] || cc -O2 -Wall -o "$bin" "$SBRUN_SRCDIR/tests/helpers/pty_run.c" ||
                fail "cannot build tests/helpers/pty_run.c"
        echo "$bin"
}

# pm_system_snapshot: podman's system paths, which the suite must not touch,
# and the cgroups podman makes with cgroupfs (read-only look).
pm_system_snapshot() {
        find /etc/containers /var/lib/containers /run/containers /run/libpod \
                /dev/shm/libpod_lock /run/sbrun -printf '%p %y %s %T@\n' 2>/dev/null | sort
        find /sys/fs/cgroup -maxdepth 4 -type d -name '*libpod*' 2>/dev/null | sort
}

# pm_drop_netavark_run_dir: rootful podman with the netavark backend makes
# /run/containers/networks (where netavark keeps its IPAM database) each
# time it starts, even with netns "none": the path is fixed in podman
# (containers/common's netavarkRunDir; network_config_dir moves only the
# configuration and the lock), so it cannot go to the private tree. Where
# the suite made it (not in system.before) and left it empty, it goes, with
# /run/containers if the suite made that too; else /run/containers gets its
# time back. Anything in it stays, for pm_leftovers to report.
pm_drop_netavark_run_dir() {
        local before=$PM_DIR/system.before mtime
        [ -d /run/containers/networks ] || return 0
        grep -q '^/run/containers/networks ' "$before" && return 0
        # podman 5's netavark (Debian 13: tests/vm/trixie-suite.sh) also
        # keeps its firewall state, aardvark-dns's and the IPAM database
        # there once a pod or kube play ran: netavark's own state, in the
        # directory the suite made.
        rm -rf /run/containers/networks/firewall /run/containers/networks/aardvark-dns \
                /run/containers/networks/aardvark.lock /run/containers/networks/ipam.db
        rmdir /run/containers/networks 2>/dev/null || return 0
        mtime=$(awk '$1 == "/run/containers" { print $4 }' "$before")
        if [ -z "$mtime" ]; then
                rmdir /run/containers 2>/dev/null || true
        else
                touch -m -d "@$mtime" /run/containers
        fi
}

# pm_leftovers: what the suite may have left in its podman tree: containers,
# pods, volumes, processes of the runtime or conmon naming the tree, mounts.
pm_leftovers() {
        local out pid
        out=$(podman ps -aq 2>&1) && [ -z "$out" ] || echo "containers: $out"
        out=$(podman pod ps -q 2>&1) && [ -z "$out" ] || echo "pods: $out"
        out=$(podman volume ls -q 2>&1) && [ -z "$out" ] || echo "volumes: $out"
        for pid in $(grep -ls -- "[${PM_DIR:0:1}]${PM_DIR:1}" /proc/[0-9]*/cmdline | cut -d/ -f3); do
                [ "$pid" = "$$" ] || [ "$pid" = "$BASHPID" ] ||
                        echo "process $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
        done
        awk -v d="$PM_DIR/" 'index($5, d) == 1 && $5 !~ "/root/overlay$" { print "mount " $5 }' \
                /proc/self/mountinfo
        # The podman commands above remade netavark's run directory.
        pm_drop_netavark_run_dir
        pm_system_snapshot | diff "$PM_DIR/system.before" - |
                grep -v '^> /sys/fs/cgroup/\([^/]*/\)\?libpod_parent$' |
                sed -n 's/^[<>] /system path changed: /p'
        # conmon's OOM marker lands in the directory podman ran from.
        [ -e "$PM_DIR/cwd-had-oom" ] || [ ! -e "$PM_CWD/oom" ] || echo "conmon's oom file $PM_CWD/oom"
        find "$PM_DIR/sbrun-state" -mindepth 1 -maxdepth 1 ! -name .seccomp-cache \
                -printf 'runtime state %p\n' 2>/dev/null
}

# pm_clean_tests: remove what a test made (run in teardown, so one failed
# test does not break the next).
pm_clean_tests() {
        podman pod rm -af -t 0 >/dev/null 2>&1 || true
        podman rm -af -t 0 >/dev/null 2>&1 || true
        podman volume rm -af >/dev/null 2>&1 || true
}

# pm_teardown_file: nothing may be left; then the private tree goes away.
pm_teardown_file() {
        local left i rc=0
        [ -n "${PM_DIR:-}" ] && [ -d "$PM_DIR" ] || return 0
        pm_clean_tests
        for ((i = 0; i < 50; i++)); do
                left=$(pm_leftovers)
                [ -z "$left" ] && break
                sleep 0.1
        done
        if [ -n "$left" ]; then
                echo "podman suite left things behind:" >&2
                echo "$left" >&2
                rc=1
        fi
        podman rmi -af >/dev/null 2>&1 || true
        command podman --root "$PM_DIR/root" --runroot "$PM_DIR/runroot" system reset -f >/dev/null 2>&1 3>&- || true
        pm_drop_netavark_run_dir
        # podman (cgroupfs) makes /libpod_parent in every v1 hierarchy of a
        # hybrid host, even when the runtime makes no cgroup under it: the
        # empty directories it made for the suite go (rmdir fails if a process
        # is still in one).
        local d
        for d in $(find /sys/fs/cgroup -maxdepth 2 -type d -name libpod_parent 2>/dev/null); do
                grep -qxF "$d" "$PM_DIR/system.before" && continue
                find "$d" -depth -type d -exec rmdir {} + || rc=1
        done
        # The overlay driver keeps its home as a private mount of its own.
        awk -v d="$PM_DIR/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo | sort -r |
                while read -r m; do umount "$m" 2>/dev/null || umount -l "$m"; done
        if awk -v d="$PM_DIR/" 'index($5, d) == 1 { exit 1 }' /proc/self/mountinfo; then
                rm -rf --one-file-system "$PM_DIR"
        else
                echo "keeping $PM_DIR: something is still mounted below it" >&2
                rc=1
        fi
        return $rc
}
