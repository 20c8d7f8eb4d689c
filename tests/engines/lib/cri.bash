# cri.bash: a private containerd with its CRI plugin, for tests/engines/cri.bats.
#
# The daemon runs in a mount namespace of its own whose /run is a fresh
# tmpfs: containerd 1.6 puts its shim sockets under /run/containerd/s and the
# CRI plugin its pod network namespaces under /run/netns, both fixed paths,
# and neither may touch the host's. Everything else (root, state, sockets,
# CNI config and plugins, pod logs) lives under $CRI_DIR. The pod network
# is lo only (lib/cni-lo-only): nothing on the host's network. Mounts the daemon
# makes (snapshots, netns, /dev/shm of pods) stay in that namespace:
# cri_ns runs a command there, to look at them.
#
# The runtime handler "sbrun" is the containerd snippet of README.md
# (section "Kubernetes"), with BinaryName pointing at a wrapper that adds the
# suite's --policy (see sb_policy in tests/helpers.bash).
#
# Needs: containerd, ctr, containernetworking-plugins (loopback), catatonit
# (the pause process), python3-grpcio and python3-grpc-tools (cri_client.py).

CRI_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CRI_PYTHON=${CRI_PYTHON:-/usr/bin/python3}
# The images the CRI plugin knows: the suite's busybox under the name a pod
# manifest uses, and a pause image made of catatonit.
CRI_IMAGE=${CRI_IMAGE:-docker.io/library/busybox:latest}
CRI_PAUSE_IMAGE=localhost/sbrun-pause:latest
CRI_SNAPSHOTTER=${CRI_SNAPSHOTTER:-overlayfs}
# The README block that is the runtime handler: cri-runtime-handler, or
# cri-runtime-handler-systemd (SystemdCgroup = true, tests/vm/systemd_containerd.bats).
CRI_HANDLER_BLOCK=${CRI_HANDLER_BLOCK:-cri-runtime-handler}

# cri ARGS...: the suite's CRI client against the private daemon.
cri() {
        "$CRI_PYTHON" "$CRI_LIB/cri_client.py" --socket "$CRI_SOCK" "$@"
}

# cri_ns CMD...: CMD in the daemon's mount namespace.
cri_ns() {
        nsenter -t "$CRI_PID" -m -- "$@"
}

# cri_ctr ARGS...: ctr in the k8s.io namespace, where the CRI plugin looks.
cri_ctr() {
        cri_ns ctr --address "$CRI_SOCK" -n k8s.io "$@"
}

# cri_make_pause_image OUT.tar REF: a one-layer OCI archive holding
# catatonit as /pause, run as `/pause -P` (pause mode: sleep, reap, exit on
# TERM), the role Kubernetes' own pause image plays.
cri_make_pause_image() {
        local out=$1 ref=$2 w blobs layer config manifest diff_id
        w=$(mktemp -d "$CRI_DIR/pause.XXXXXX")
        blobs=$w/layout/blobs/sha256
        mkdir -p "$w/rootfs/dev" "$w/rootfs/proc" "$w/rootfs/sys" "$w/rootfs/etc" "$blobs"
        cp "$(command -v catatonit)" "$w/rootfs/pause"
        # blob FILE TYPE: FILE into the layout, a descriptor on stdout.
        blob() {
                local sum
                sum=$(sha256sum "$1" | cut -d' ' -f1)
                jq -cn --arg t "$2" --arg d "sha256:$sum" --argjson s "$(stat -c %s "$1")" \
                        '{mediaType: $t, digest: $d, size: $s}'
                mv "$1" "$blobs/$sum"
        }
        tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=2000-01-01 \
                -C "$w/rootfs" -cf "$w/layer.tar" .
        diff_id=sha256:$(sha256sum "$w/layer.tar" | cut -d' ' -f1)
        layer=$(blob "$w/layer.tar" application/vnd.oci.image.layer.v1.tar)
        jq -n --arg id "$diff_id" '{architecture: "amd64", os: "linux",
                config: {Entrypoint: ["/pause", "-P"], WorkingDir: "/"},
                rootfs: {type: "layers", diff_ids: [$id]}}' >"$w/config.json"
        config=$(blob "$w/config.json" application/vnd.oci.image.config.v1+json)
        jq -n --argjson c "$config" --argjson l "$layer" '{schemaVersion: 2,
                mediaType: "application/vnd.oci.image.manifest.v1+json",
                config: $c, layers: [$l]}' >"$w/manifest.json"
        manifest=$(blob "$w/manifest.json" application/vnd.oci.image.manifest.v1+json)
        jq -n --argjson m "$manifest" --arg ref "$ref" '{schemaVersion: 2,
                manifests: [$m + {annotations: {"io.containerd.image.name": $ref,
                        "org.opencontainers.image.ref.name": ($ref | sub(".*:"; ""))}}]}' \
                >"$w/layout/index.json"
        echo '{"imageLayoutVersion": "1.0.0"}' >"$w/layout/oci-layout"
        tar -C "$w/layout" -cf "$out" oci-layout index.json blobs
        rm -rf "$w"
}

# cri_write_config: $CRI_DIR/config.toml, the runtime wrapper and the CNI
# configuration.
cri_write_config() {
        local policy=$1 snippet
        snippet=$(readme_block "$CRI_HANDLER_BLOCK")
        [ -n "$snippet" ] || fail "README.md has no block after <!-- $CRI_HANDLER_BLOCK -->"
        [[ $snippet == *'BinaryName = "/usr/local/bin/sbrun"'* ]] ||
                fail "README's CRI snippet has no BinaryName = \"/usr/local/bin/sbrun\""

        {
                echo '#!/bin/sh'
                if [ -n "$policy" ]; then
                        printf 'exec %q --policy %q "$@"\n' "$SBRUN" "$policy"
                else
                        printf 'exec %q "$@"\n' "$SBRUN"
                fi
        } >"$CRI_DIR/sbrun-runtime"
        chmod 0755 "$CRI_DIR/sbrun-runtime"

        mkdir -p "$CRI_DIR/cni/bin" "$CRI_DIR/cni/conf" "$CRI_DIR/pods"
        # lo (containerd adds it) and nothing else: see lib/cni-lo-only.
        ln -s /usr/lib/cni/loopback "$CRI_DIR/cni/bin/loopback"
        ln -s "$CRI_LIB/cni-lo-only" "$CRI_DIR/cni/bin/cni-lo-only"
        cat >"$CRI_DIR/cni/conf/10-sbrun.conflist" <<-EOF
	{"cniVersion": "1.0.0", "name": "sbrun-lo-only", "plugins": [{"type": "cni-lo-only"}]}
	EOF

        # Lowering oom_score_adj (the pause container asks for -998) needs
        # CAP_SYS_RESOURCE, which the development machines withhold even
        # from root: then containerd's option for that case, as rootless
        # setups use. Where root has it (the VM lane), sbrun gets -998.
        local restrict_oom=false
        (($(printf '%d' "0x$(awk '$1 == "CapEff:" { print $2 }' /proc/self/status)") >> 24 & 1)) ||
                restrict_oom=true

        cat >"$CRI_DIR/config.toml" <<-EOF
	version = 2
	root = "$CRI_DIR/root"
	state = "$CRI_DIR/state"
	disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs",
	  "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.aufs",
	  "io.containerd.internal.v1.opt", "io.containerd.tracing.processor.v1.otlp"]
	[grpc]
	  address = "$CRI_SOCK"
	[ttrpc]
	  address = "$CRI_SOCK.ttrpc"
	[debug]
	  level = "info"
	[plugins."io.containerd.grpc.v1.cri"]
	  sandbox_image = "$CRI_PAUSE_IMAGE"
	  disable_apparmor = true
	  restrict_oom_score_adj = $restrict_oom
	  stream_server_address = "127.0.0.1"
	  stream_server_port = "0"
	  [plugins."io.containerd.grpc.v1.cri".cni]
	    bin_dir = "$CRI_DIR/cni/bin"
	    conf_dir = "$CRI_DIR/cni/conf"
	  [plugins."io.containerd.grpc.v1.cri".containerd]
	    snapshotter = "$CRI_SNAPSHOTTER"
	    default_runtime_name = "runc"
	    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
	      runtime_type = "io.containerd.runc.v2"
	EOF
        # README's snippet as written, but for the wrapper's path.
        printf '%s\n' "${snippet//\/usr\/local\/bin\/sbrun/$CRI_DIR/sbrun-runtime}" >>"$CRI_DIR/config.toml"
}

# cri_start POLICY: start the daemon (POLICY: sbrun's --policy file, or ""),
# import the images, wait until the CRI plugin reports ready. Sets CRI_DIR,
# CRI_SOCK, CRI_PID (exported, for the tests of the file).
cri_start() {
        local policy=$1 i
        CRI_DIR=$(mktemp -d "$SBRUN_TEST_TMP/cri.XXXXXX")
        chmod 0755 "$CRI_DIR"
        CRI_SOCK=$CRI_DIR/containerd.sock
        export CRI_DIR CRI_SOCK CRI_STUB_DIR=$CRI_DIR/stubs
        cri_write_config "$policy" || return 1

        # mount -n: no utab, whose lock file would be made in the host's /run.
        # CRI_SYSTEM_BUS=1 (a systemd host, SystemdCgroup = true): the host's
        # /run/dbus and /run/systemd stay visible in the fresh /run, moved
        # over it, so that sbrun under the shim reaches the system bus; they
        # are the daemon namespace's own mounts and go with it.
        local keep=""
        [ "${CRI_SYSTEM_BUS:-0}" = 1 ] && keep="dbus systemd"
        mkdir -p "$CRI_DIR/keep"
        setsid unshare --mount --propagation private -- sh -c '
                for d in $2; do
                        mkdir -p "$3/$d" && mount -n --bind "/run/$d" "$3/$d" || exit 1
                done
                mount -n -t tmpfs -o mode=0755 sbrun-cri-run /run || exit 1
                for d in $2; do
                        mkdir -p "/run/$d" && mount -n --move "$3/$d" "/run/$d" || exit 1
                done
                exec containerd --config "$1"' \
                sh "$CRI_DIR/config.toml" "$keep" "$CRI_DIR/keep" </dev/null >"$CRI_DIR/containerd.log" 2>&1 3>&- &
        CRI_PID=$!
        export CRI_PID
        echo "$CRI_PID" >"$CRI_DIR/containerd.pid"
        for ((i = 0; i < 300; i++)); do
                [ -S "$CRI_SOCK" ] && break
                kill -0 "$CRI_PID" 2>/dev/null || break
                sleep 0.1
        done
        [ -S "$CRI_SOCK" ] || {
                tail -n 20 "$CRI_DIR/containerd.log" >&2
                fail "containerd did not start (log $CRI_DIR/containerd.log)"
                return 1
        }

        "$SBRUN_SRCDIR/tests/engines/lib/make-image.sh" "$CRI_DIR/busybox.tar" "$CRI_IMAGE" &&
                cri_make_pause_image "$CRI_DIR/pause.tar" "$CRI_PAUSE_IMAGE" &&
                cri_ctr images import "$CRI_DIR/busybox.tar" >/dev/null &&
                cri_ctr images import "$CRI_DIR/pause.tar" >/dev/null ||
                fail "cannot import the images into the private containerd"

        # Ready: both the runtime and the (loopback) network conditions, the
        # two the kubelet waits for. containerd 1.7 reports a third one
        # (ContainerdHasNoDeprecationWarnings), which no kubelet reads.
        for ((i = 0; i < 100; i++)); do
                cri status 2>/dev/null | jq -e '[.status.conditions[] |
                        select(.type == "RuntimeReady" or .type == "NetworkReady") | .status == true] |
                        all and length == 2' >/dev/null && return 0
                sleep 0.2
        done
        cri status >&2
        fail "the CRI plugin is not ready"
}

# cri_remove_all: stop and remove every pod (and with it its containers).
cri_remove_all() {
        local pod
        for pod in $(cri list 2>/dev/null | jq -r '.pods[].id'); do
                cri stop-pod "$pod" || true
                cri remove-pod "$pod" || true
        done
}

# cri_stop: stop the daemon (by its pid) and wait for it.
cri_stop() {
        [ -n "${CRI_PID:-}" ] || return 0
        kill -TERM "$CRI_PID" 2>/dev/null || return 0
        timeout_wait "$CRI_PID" 20 || {
                kill -KILL "$CRI_PID" 2>/dev/null
                timeout_wait "$CRI_PID" 5
        }
}

# cri_shim_pids: the shims of the private daemon (their command line names
# its socket).
cri_shim_pids() {
        local pid
        for pid in $(grep -lsF -- "$CRI_SOCK" /proc/[0-9]*/cmdline | cut -d/ -f3); do
                [ "$pid" = "$CRI_PID" ] && continue
                grep -qsF containerd-shim "/proc/$pid/cmdline" && echo "$pid"
        done
}

# cri_leftovers: print what a pod left behind in the daemon; nothing when
# everything is gone. Pods and containers CRI still lists, the shim's sbrun
# state, shims, pod network namespaces, mounts under $CRI_DIR and processes
# in the pid namespaces recorded in $CRI_DIR/pidns (one test's: a freed
# namespace's inode number may be reused by anyone's next container).
cri_leftovers() {
        local out pid ns
        out=$(cri list) || {
                echo "cri list failed"
                return 0
        }
        jq -r '.pods[] | "pod \(.id) \(.metadata.name) \(.state // "SANDBOX_READY")"' <<<"$out"
        jq -r '.containers[] | "container \(.id) \(.metadata.name) \(.state // "CONTAINER_CREATED")"' <<<"$out"
        # The shim's sbrun root (runc's default, in the private /run); the
        # cache of compiled seccomp filters is sbrun's, not a container's.
        cri_ns find /run/containerd/runc -mindepth 2 -maxdepth 2 ! -name .seccomp-cache -printf 'sbrun state %p\n' 2>/dev/null
        for pid in $(cri_shim_pids); do
                echo "shim $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline")"
        done
        cri_ns find /run/netns -mindepth 1 -printf 'netns %p\n' 2>/dev/null
        cri_ns awk -v d="$CRI_DIR" 'index($5, d "/") == 1 { print "mount " $5 }' /proc/self/mountinfo
        if [ -s "$CRI_DIR/pidns" ]; then
                for pid in $(ls /proc | grep -E '^[0-9]+$'); do
                        ns=$(readlink "/proc/$pid/ns/pid" 2>/dev/null) || continue
                        grep -qxF "$ns" "$CRI_DIR/pidns" &&
                                echo "process $pid: $(cut -d' ' -f2-3 "/proc/$pid/stat" 2>/dev/null)" \
                                        "$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
                done
        fi
        return 0
}
