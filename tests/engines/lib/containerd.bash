# tests/engines/lib/containerd.bash: a private containerd for the engine
# suites (containerd.bats; cri.bats may reuse it). Load it after ../helpers.
#
#   containerd_start [CONFIG_EXTRA]   in setup_file: writes $CTRD_DIR/config.toml
#                                     (own root, state, sockets; CRI disabled
#                                     unless CONFIG_EXTRA says otherwise), starts
#                                     containerd, waits for its socket
#   ctrd ARGS...                      ctr against it, in namespace $CTRD_NS
#   containerd_import_image [REF]     tests/engines/lib/make-image.sh + import
#   containerd_leftovers              prints what is left (tasks, containers,
#                                     shims, mounts, cgroups); empty when clean
#   ctrd_in_ns CMD...                 CMD in the daemon's mount namespace (its
#                                     /run: what ctr's default FIFO dir needs)
#   containerd_stop                   in teardown_file: kills it by pid, removes
#                                     $CTRD_DIR
#
# containerd 1.6 and its shims put their sockets and the runc root under
# /run/containerd whatever the config says (the shim's socket directory is
# fixed at build time). So the daemon runs in a mount namespace of its own
# with a fresh tmpfs on /run: nothing under the host's /run/containerd is
# created, the system's containerd (if any) is never seen, and every mount
# the shims make (the rootfs overlays) goes away with the namespace. The
# sockets, the FIFOs and the daemon's root and state live in $CTRD_DIR,
# which both sides see.

CTRD_NS=${CTRD_NS:-sbt-ctrd}
CTRD_RUNTIME=io.containerd.runc.v2
CTRD_IMAGE=${CTRD_IMAGE:-localhost/sbrun-busybox:latest}

# containerd_policy DIR: the operator policy the suite runs sbrun under
# (tests/helpers.bash's sb_policy: the cgroup opt-out on a host without v2
# controllers, none in the VM lane), written to DIR/policy.json; prints its
# path, or nothing when sbrun runs without one.
containerd_policy() {
        local dir=$1
        case ${SBRUN_POLICY:-auto} in
        none) return 0 ;;
        auto) host_has_v2_controllers && return 0 ;;
        *)
                echo "$SBRUN_POLICY"
                return 0
                ;;
        esac
        printf '%s\n' '{"cgroups": {"enforce": false}}' >"$dir/policy.json"
        chmod 0644 "$dir/policy.json"
        echo "$dir/policy.json"
}

# containerd_wrapper DIR: DIR/sbrun-runtime, the runtime binary the shim
# runs (--runc-binary / BinaryName): the built sbrun with the suite's
# policy. Sets CTRD_WRAPPER.
containerd_wrapper() {
        local dir=$1 policy
        policy=$(containerd_policy "$dir")
        CTRD_WRAPPER=$dir/sbrun-runtime
        {
                echo '#!/bin/sh'
                if [ -n "$policy" ]; then
                        printf 'exec %q --policy %q "$@"\n' "$SBRUN" "$policy"
                else
                        printf 'exec %q "$@"\n' "$SBRUN"
                fi
        } >"$CTRD_WRAPPER"
        chmod 0755 "$CTRD_WRAPPER"
}

containerd_start() {
        local extra=${1:-} i
        command -v containerd >/dev/null || fail "containerd not found: apt-get install containerd"
        command -v ctr >/dev/null || fail "ctr not found: apt-get install containerd"
        command -v containerd-shim-runc-v2 >/dev/null ||
                fail "containerd-shim-runc-v2 not found: apt-get install containerd"
        [ -x "$SBRUN" ] || fail "runtime under test not found: SBRUN=$SBRUN"
        mkdir -p "$SBRUN_TEST_TMP"
        chmod 0755 "$SBRUN_TEST_TMP"
        CTRD_DIR=$(mktemp -d "$SBRUN_TEST_TMP/ctrd.XXXXXX")
        chmod 0755 "$CTRD_DIR"
        mkdir -p "$CTRD_DIR/root" "$CTRD_DIR/state" "$CTRD_DIR/fifo"
        CTRD_SOCK=$CTRD_DIR/containerd.sock
        containerd_wrapper "$CTRD_DIR"
        # The CRI plugin is off unless CONFIG_EXTRA turns it on (cri.bats):
        # it would start a CNI and streaming server that ctr does not need.
        local disabled='"io.containerd.grpc.v1.cri", '
        [[ $extra == *'io.containerd.grpc.v1.cri'* ]] && disabled=''
        cat >"$CTRD_DIR/config.toml" <<EOF
version = 2
root = "$CTRD_DIR/root"
state = "$CTRD_DIR/state"
disabled_plugins = [${disabled}"io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]

[grpc]
  address = "$CTRD_SOCK"

[ttrpc]
  address = "$CTRD_SOCK.ttrpc"

[debug]
  level = "info"

$extra
EOF
        # A fresh tmpfs on /run in a mount namespace of containerd's own
        # (see above); stdin, stdout and bats' fd 3 closed so that bats does
        # not wait for the daemon.
        setsid unshare --mount --propagation private -- sh -c \
                'mount -t tmpfs -o mode=0755 tmpfs /run && exec containerd --config "$1"' \
                sh "$CTRD_DIR/config.toml" </dev/null >"$CTRD_DIR/containerd.log" 2>&1 3>&- &
        # setsid does not fork (a background job is no group leader), unshare
        # without --fork and sh both exec: $CTRD_PID is containerd itself.
        CTRD_PID=$!
        echo "$CTRD_PID" >"$CTRD_DIR/pid"
        # 30 s, ten times that in the VM lane (TCG).
        local tries=300
        [ "${SBRUN_VM:-}" = 1 ] && tries=3000
        for ((i = 0; i < tries; i++)); do
                if [ -S "$CTRD_SOCK" ] && ctrd version >/dev/null 2>&1; then
                        export CTRD_DIR CTRD_SOCK CTRD_PID CTRD_WRAPPER
                        return 0
                fi
                kill -0 "$CTRD_PID" 2>/dev/null || break
                sleep 0.1
        done
        tail -n 30 "$CTRD_DIR/containerd.log" >&2
        fail "containerd did not come up on $CTRD_SOCK"
}

# ctrd ARGS...: ctr against the suite's containerd. Bats' fd 3 is closed: a
# task holding it would make bats wait forever.
ctrd() {
        ctr --address "$CTRD_SOCK" --namespace "$CTRD_NS" "$@" 3>&-
}

# ctrd_in_ns CMD...: CMD in the daemon's mount namespace, where /run is the
# daemon's own tmpfs: a ctr run without --fifo-dir makes its FIFOs in
# /run/containerd/fifo, which the shim must see and the host must not get.
ctrd_in_ns() {
        nsenter --mount="/proc/$CTRD_PID/ns/mnt" -- "$@" 3>&-
}

# containerd_import_image [REF]: the suite's busybox image, built offline and
# imported.
containerd_import_image() {
        local ref=${1:-$CTRD_IMAGE}
        "$SBRUN_SRCDIR/tests/engines/lib/make-image.sh" "$CTRD_DIR/image.tar" "$ref" ||
                fail "cannot build the image archive"
        ctrd images import "$CTRD_DIR/image.tar" >/dev/null || fail "ctr images import failed"
        rm -f "$CTRD_DIR/image.tar"
}

# containerd_leftovers: one line per thing the suite's containerd still has
# or holds (tasks, containers, shims, mounts in its namespace, cgroups).
containerd_leftovers() {
        local pid
        ctrd tasks ls -q 2>/dev/null | sed 's/^/task /'
        ctrd containers ls -q 2>/dev/null | sed 's/^/container /'
        # Shims name the daemon's socket on their command line.
        for pid in $(grep -ls -- "[${CTRD_SOCK:0:1}]${CTRD_SOCK:1}" /proc/[0-9]*/cmdline | cut -d/ -f3); do
                [ "$pid" = "$CTRD_PID" ] && continue
                [ "$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" = "" ] && continue
                case $(tr '\0' ' ' <"/proc/$pid/cmdline") in
                *containerd-shim*) echo "process $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline")" ;;
                esac
        done
        # The rootfs mounts of the shims, in the daemon's mount namespace.
        awk -v d="$CTRD_DIR/" 'index($5, d) == 1 { print "mount " $5 }' \
                "/proc/$CTRD_PID/mountinfo" 2>/dev/null
        # sbrun's cgroups for the namespace (/<namespace>/<id>).
        local cg
        for cg in $(awk '$3 == "cgroup2" { print $2 }' /proc/mounts); do
                [ -d "$cg/$CTRD_NS" ] || continue
                find "$cg/$CTRD_NS" -mindepth 1 -type d -printf 'cgroup %p\n'
        done
        return 0
}

# containerd_cleanup: what a failed test left: every task killed and
# deleted, every container removed (with its snapshot).
containerd_cleanup() {
        local id
        for id in $(ctrd tasks ls -q 2>/dev/null); do
                ctrd tasks kill -s KILL "$id" >/dev/null 2>&1 || true
                ctrd tasks delete -f "$id" >/dev/null 2>&1 || true
        done
        for id in $(ctrd containers ls -q 2>/dev/null); do
                ctrd containers delete "$id" >/dev/null 2>&1 || true
        done
}

containerd_stop() {
        local i pid cg
        [ -n "${CTRD_DIR:-}" ] && [ -d "$CTRD_DIR" ] || return 0
        pid=$(cat "$CTRD_DIR/pid" 2>/dev/null)
        if [ -n "$pid" ]; then
                kill -TERM "$pid" 2>/dev/null || true
                for ((i = 0; i < 100; i++)); do
                        kill -0 "$pid" 2>/dev/null || break
                        sleep 0.1
                done
                kill -KILL "$pid" 2>/dev/null || true
                wait "$pid" 2>/dev/null || true
        fi
        # Shims outlive their daemon: the ones it started (they name its
        # socket) go with it, and their containers with them.
        for pid in $(grep -ls -- "[${CTRD_SOCK:0:1}]${CTRD_SOCK:1}" /proc/[0-9]*/cmdline | cut -d/ -f3); do
                case $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) in
                *containerd-shim*) kill -KILL "$pid" 2>/dev/null || true ;;
                esac
        done
        # The namespace's parent cgroup sbrun made (runc leaves it as well).
        for cg in $(awk '$3 == "cgroup2" { print $2 }' /proc/mounts); do
                [ -d "$cg/$CTRD_NS" ] && rmdir "$cg/$CTRD_NS" 2>/dev/null
        done
        # Nothing of the daemon is mounted on the host side: remove it all,
        # without crossing into another file system.
        if ! awk -v d="$CTRD_DIR/" 'index($5, d) == 1 { exit 1 }' /proc/self/mountinfo; then
                echo "containerd_stop: keeping $CTRD_DIR: something is mounted below it" >&2
                return 1
        fi
        rm -rf --one-file-system "$CTRD_DIR"
}
