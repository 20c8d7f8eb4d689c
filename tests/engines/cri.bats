#!/usr/bin/env bats
# A Kubernetes pod on sbrun, through containerd's CRI plugin.
#
# No kubelet here: lib/cri_client.py makes the CRI calls a kubelet makes
# (RunPodSandbox with the RuntimeClass's handler, CreateContainer, ...) to a
# private containerd (lib/cri.bash) whose runtime handler "sbrun" is the
# README's snippet. The pod is the README's pod manifest, translated the way
# the kubelet does. Every test removes its pods and checks that nothing is
# left: no pod or container in CRI, no sbrun state, no shim, no netns, no
# mount, no process of the pod.

load ../helpers
load lib/readme
load lib/cri

# The README's manifests, parsed (python3-yaml), as JSON.
readme_yaml() {
        readme_block "$1" | "$CRI_PYTHON" -c 'import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin)))'
}

setup_file() {
        local tool
        [ "$(id -u)" -eq 0 ] || fail "the CRI tests must run as root"
        for tool in containerd ctr containerd-shim-runc-v2 catatonit nsenter unshare jq; do
                command -v "$tool" >/dev/null || fail "$tool not found (tests/install-deps.sh installs it)"
        done
        [ -x /usr/lib/cni/loopback ] || fail "no /usr/lib/cni/loopback: apt-get install containernetworking-plugins"
        "$CRI_PYTHON" -c 'import grpc, grpc_tools, yaml' ||
                fail "$CRI_PYTHON lacks grpc, grpc_tools or yaml: apt-get install python3-grpcio python3-grpc-tools python3-yaml"
        [ -x "$SBRUN" ] || fail "runtime under test not found: SBRUN=$SBRUN"

        # The suite's policy (see sb_policy in ../helpers.bash): on a host
        # without cgroup v2 controllers, sbrun runs only with the opt-out.
        local policy=""
        if ! host_has_v2_controllers; then
                policy=$SBRUN_TEST_TMP/cri-policy.json
                printf '%s\n' '{"cgroups": {"enforce": false}}' >"$policy"
                chmod 0644 "$policy"
        fi
        cri_start "$policy"
}

teardown_file() {
        local left rc=0
        [ -n "${CRI_DIR:-}" ] || return 0
        cri_remove_all
        left=$(cri_leftovers)
        [ -z "$left" ] || {
                echo "leftovers in the private containerd:" >&2
                echo "$left" >&2
                rc=1
        }
        cri_stop
        # Shims outlive their daemon: one still here is a leftover too.
        left=$(cri_shim_pids)
        if [ -n "$left" ]; then
                echo "leftover shims: $left" >&2
                kill -KILL $left 2>/dev/null
                rc=1
        fi
        # The daemon's mount namespace (and every mount in it) is gone with
        # its last process; only then are its files safe to remove.
        if [ -z "$(mounts_under "$CRI_DIR")" ]; then
                rm -rf --one-file-system "$CRI_DIR"
        else
                echo "leftover mounts under $CRI_DIR" >&2
                rc=1
        fi
        rm -f "$SBRUN_TEST_TMP/cri-policy.json"
        return $rc
}

setup() {
        :
}

teardown() {
        local left i
        cri_remove_all
        for ((i = 0; i < 50; i++)); do
                left=$(cri_leftovers)
                [ -z "$left" ] && break
                sleep 0.1
        done
        rm -f "$CRI_DIR/pidns"
        [ -z "$left" ] || fail "the test left behind: $left"
}

# pod_config NAME [JQ-FILTER]: a PodSandboxConfig as the kubelet writes it for
# pod NAME in namespace default, edited by JQ-FILTER; prints its file.
pod_config() {
        local name=$1 filter=${2:-.} uid f
        uid=$(cat /proc/sys/kernel/random/uuid)
        f=$CRI_DIR/pod-$name.json
        jq -n --arg name "$name" --arg uid "$uid" --arg logs "$CRI_DIR/pods/default_${name}_$uid" '{
                metadata: {name: $name, uid: $uid, namespace: "default", attempt: 0},
                hostname: $name,
                log_directory: $logs,
                labels: {"io.kubernetes.pod.name": $name, "io.kubernetes.pod.namespace": "default",
                         "io.kubernetes.pod.uid": $uid},
                linux: {security_context: {namespace_options: {network: "POD", pid: "CONTAINER", ipc: "POD"}}}
        }' | jq "$filter" >"$f"
        echo "$f"
}

# container_config NAME IMAGE COMMAND-JSON [JQ-FILTER]: a ContainerConfig as
# the kubelet writes it; prints its file.
container_config() {
        local f=$CRI_DIR/ctr-$1.json
        jq -n --arg name "$1" --arg image "$2" --argjson cmd "$3" '{
                metadata: {name: $name, attempt: 0},
                image: {image: $image},
                command: $cmd,
                log_path: ($name + "/0.log"),
                labels: {"io.kubernetes.container.name": $name},
                linux: {security_context: {namespace_options: {network: "POD", pid: "CONTAINER", ipc: "POD"}}}
        }' | jq "${4:-.}" >"$f"
        echo "$f"
}

# remember_pidns PID: leftover checks look for processes in PID's pid namespace.
remember_pidns() {
        readlink "/proc/$1/ns/pid" >>"$CRI_DIR/pidns"
}

# sbrun_state ID: `sbrun state` in the shim's state root.
sbrun_state() {
        cri_ns "$CRI_DIR/sbrun-runtime" --root /run/containerd/runc/k8s.io state "$1"
}

# wait_container_state ID STATE: ContainerStatus reaches STATE within 10 s.
wait_container_state() {
        local i got
        for ((i = 0; i < 100; i++)); do
                got=$(cri container-status "$1" | jq -r '.status.state // "CONTAINER_CREATED"')
                [ "$got" = "$2" ] && return 0
                sleep 0.1
        done
        fail "container $1 is $got, waited 10 s for $2"
}

@test "the CRI plugin answers on runtime.v1 and runtime.v1alpha2" {
        run cri version
        [ "$status" -eq 0 ]
        [ "$(jq -r .runtime_name <<<"$output")" = containerd ]
        [ "$(jq -r .runtime_api_version <<<"$output")" = v1 ]
        run cri --api v1alpha2 version
        [ "$status" -eq 0 ]
        [ "$(jq -r .runtime_api_version <<<"$output")" = v1alpha2 ]
        # Runtime and network ready (the network is lo only).
        run cri status
        [ "$status" -eq 0 ]
        [ "$(jq -c '[.status.conditions[] | select(.status) | .type] | sort' <<<"$output")" = '["NetworkReady","RuntimeReady"]' ]
}

@test "the README's RuntimeClass and pod: a pod on sbrun, its log, ExecSync, status, stop, remove, nothing left" {
        local rc pod spec name image cmd pf cf pod_id ctr_id info pause_pid app_pid logdir line what i

        # The manifests as the README has them: the RuntimeClass's handler
        # is the CRI runtime handler of the README's containerd snippet.
        rc=$(readme_yaml k8s-runtimeclass)
        pod=$(readme_yaml k8s-pod)
        [ "$(jq -r .kind <<<"$rc")" = RuntimeClass ]
        [ "$(jq -r .handler <<<"$rc")" = sbrun ]
        grep -qF '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.sbrun]' "$CRI_DIR/config.toml"
        [ "$(jq -r .spec.runtimeClassName <<<"$pod")" = "$(jq -r .metadata.name <<<"$rc")" ]
        name=$(jq -r .metadata.name <<<"$pod")
        spec=$(jq -c '.spec.containers[0]' <<<"$pod")
        image=$(jq -r .image <<<"$spec")
        cmd=$(jq -c .command <<<"$spec")

        # RunPodSandbox with the handler the RuntimeClass names.
        pf=$(pod_config "$name")
        pod_id=$(cri run-pod-sandbox "$pf" "$(jq -r .handler <<<"$rc")")
        run cri pod-status "$pod_id"
        [ "$status" -eq 0 ]
        [ "$(jq -r '.status.state // "SANDBOX_READY"' <<<"$output")" = SANDBOX_READY ]
        [ "$(jq -r .status.runtime_handler <<<"$output")" = sbrun ]
        info=$(jq -r .info.info <<<"$output")
        [ "$(jq -r .runtimeOptions.binary_name <<<"$info")" = "$CRI_DIR/sbrun-runtime" ]
        pause_pid=$(jq -r .pid <<<"$info")
        remember_pidns "$pause_pid"
        [ "$(tr '\0' ' ' <"/proc/$pause_pid/cmdline")" = "/pause -P " ]
        # The pause container is sbrun's: running in the shim's state root,
        # where sbrun keeps the policy it was created under.
        run sbrun_state "$pod_id"
        [ "$status" -eq 0 ]
        [ "$(jq -r .status <<<"$output")" = running ]
        [ "$(jq -r '.annotations."io.kubernetes.cri.container-type"' <<<"$output")" = sandbox ]
        cri_ns test -f "/run/containerd/runc/k8s.io/$pod_id/policy.json"

        # The app container: the pod manifest's container.
        cf=$(container_config "$(jq -r .name <<<"$spec")" "$image" "$cmd")
        ctr_id=$(cri create-container "$pod_id" "$cf" "$pf")
        cri start-container "$ctr_id"
        wait_container_state "$ctr_id" CONTAINER_RUNNING
        run sbrun_state "$ctr_id"
        [ "$(jq -r .status <<<"$output")" = running ]
        cri_ns test -f "/run/containerd/runc/k8s.io/$ctr_id/policy.json"
        app_pid=$(jq -r .pid <<<"$output")
        remember_pidns "$app_pid"

        # Its stdout in the pod's log, in the CRI log format.
        logdir=$(jq -r .log_directory "$pf")
        for ((i = 0; i < 50; i++)); do
                [ -s "$logdir/$(jq -r .name <<<"$spec")/0.log" ] && break
                sleep 0.1
        done
        line=$(head -n 1 "$logdir/$(jq -r .name <<<"$spec")/0.log")
        [[ $line =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+(Z|[+-][0-9:]+)\ stdout\ F\ hello\ from\ sbrun$ ]] ||
                fail "log line: '$line'"

        run cri container-status "$ctr_id"
        [ "$status" -eq 0 ]
        [ "$(jq -r .status.state <<<"$output")" = CONTAINER_RUNNING ]
        [ "$(jq -r .status.image.image <<<"$output")" = "$image" ]
        [ "$(jq -r .status.log_path <<<"$output")" = "$logdir/$(jq -r .name <<<"$spec")/0.log" ]

        # ExecSync: output, error and exit code.
        run --separate-stderr cri exec-sync "$ctr_id" 10 sh -c 'echo out; echo err >&2; exit 3'
        [ "$status" -eq 3 ]
        [ "$output" = out ]
        [ "$stderr" = err ]
        # In the pod's namespaces: its hostname and its network (lo only).
        run cri exec-sync "$ctr_id" 10 hostname
        [ "$status" -eq 0 ]
        [ "$output" = "$name" ]
        run cri exec-sync "$ctr_id" 10 sh -c 'tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " " | sort | tr "\n" " "'
        [ "$output" = "lo " ]
        [ "$(readlink "/proc/$app_pid/ns/net")" = "$(readlink "/proc/$pause_pid/ns/net")" ]
        [ "$(readlink "/proc/$app_pid/ns/pid")" != "$(readlink "/proc/$pause_pid/ns/pid")" ]

        # The leftover check sees every part of a live pod.
        run cri_leftovers
        for what in "pod $pod_id" "container $ctr_id" "sbrun state /run/containerd/runc/k8s.io/$pod_id" \
                "sbrun state /run/containerd/runc/k8s.io/$ctr_id" shim "netns /run/netns/" \
                "mount $CRI_DIR/" "process $pause_pid: " "process $app_pid: "; do
                [[ $output == *"$what"* ]] || fail "cri_leftovers does not see '$what' of a live pod: $output"
        done

        # StopContainer: sleep, pid 1 of its namespace, ignores SIGTERM; the
        # SIGKILL after the grace period ends it: exit code 137.
        cri stop-container "$ctr_id" 2
        run cri container-status "$ctr_id"
        [ "$(jq -r .status.state <<<"$output")" = CONTAINER_EXITED ]
        [ "$(jq -r .status.exit_code <<<"$output")" = 137 ]
        cri remove-container "$ctr_id"
        cri stop-pod "$pod_id"
        cri remove-pod "$pod_id"

        run cri list
        [ "$output" = '{"pods": [], "containers": []}' ]
        run cri_leftovers
        [ -z "$output" ] || fail "left behind: $output"
}

# A pod with one sleeping container of the suite's busybox; sets POD_ID,
# POD_CONFIG, CTR_ID. Extra jq filters edit the pod and container configs.
run_pod() {
        local name=$1 pod_filter=${2:-.} ctr_filter=${3:-.} cf
        POD_CONFIG=$(pod_config "$name" "$pod_filter")
        POD_ID=$(cri run-pod-sandbox "$POD_CONFIG" sbrun)
        cf=$(container_config app "$CRI_IMAGE" '["sleep", "600"]' "$ctr_filter")
        CTR_ID=$(cri create-container "$POD_ID" "$cf" "$POD_CONFIG")
}

@test "the floor under a pod: capabilities.add and seccomp Unconfined do not loosen it" {
        run_pod floor . '.linux.security_context.capabilities.add_capabilities = ["SYS_ADMIN", "NET_RAW"]
                | .linux.security_context.seccomp = {profile_type: "Unconfined"}'
        cri start-container "$CTR_ID"
        wait_container_state "$CTR_ID" CONTAINER_RUNNING

        run cri exec-sync "$CTR_ID" 10 cat /proc/self/status
        [ "$status" -eq 0 ]
        # containerd's default set (with NET_RAW, MKNOD, AUDIT_WRITE,
        # SETFCAP) less the floor's drops, and nothing the pod added:
        # CHOWN DAC_OVERRIDE FOWNER FSETID KILL SETGID SETUID SETPCAP
        # NET_BIND_SERVICE SYS_CHROOT.
        [[ $output == *$'CapEff:\t00000000000405fb'* ]] || fail "capabilities: $output"
        [[ $output == *$'CapBnd:\t00000000000405fb'* ]] || fail "capabilities: $output"
        [[ $output == *$'NoNewPrivs:\t1'* ]]
        # Unconfined asks for no filter: the floor's is there all the same.
        [[ $output == *$'Seccomp:\t2'* ]] || fail "seccomp: $output"
        # The floor's filter at work: no new namespaces (unshare -> EPERM).
        run cri exec-sync "$CTR_ID" 10 unshare -m true
        [ "$status" -ne 0 ]
        [[ $output == *"Operation not permitted"* ]]
}

@test "the floor under a pod: privileged: true fails StartContainer with the refusal of a host device" {
        run_pod priv '.linux.security_context.privileged = true' '.linux.security_context.privileged = true'
        run cri start-container "$CTR_ID"
        [ "$status" -eq 125 ]
        # A privileged container gets every host device; the first one that
        # is not in the floor's set stops create, by name.
        [[ $output == *"linux.devices["*"refused (rule: standard: only standard or operator-allowed devices)"* ]] ||
                fail "StartContainer: $output"
        run cri container-status "$CTR_ID"
        [ "$(jq -r .status.state <<<"$output")" != CONTAINER_RUNNING ]
        run sbrun_state "$CTR_ID"
        [ "$status" -ne 0 ]
}

@test "the floor under a pod: hostNetwork fails RunPodSandbox with the refusal of the host network" {
        local pf
        pf=$(pod_config hostnet '.linux.security_context.namespace_options.network = "NODE"')
        run cri run-pod-sandbox "$pf" sbrun
        [ "$status" -eq 125 ]
        [[ $output == *"linux.namespaces: the host network namespace refused (rule: standard: no host network namespace)"* ]] ||
                fail "RunPodSandbox: $output"
        run cri list
        [ "$(jq '.pods | length' <<<"$output")" = 0 ]
}

@test "the floor under a pod: hostPID and hostIPC fail RunPodSandbox with the refusal naming the namespace" {
        local pf t
        for t in pid ipc; do
                pf=$(pod_config "host$t" ".linux.security_context.namespace_options.$t = \"NODE\"")
                run cri run-pod-sandbox "$pf" sbrun
                [ "$status" -eq 125 ] || fail "host$t: status $status: $output"
                [[ $output == *"linux.namespaces: the host $t namespace refused (rule: standard: no host $t namespace)"* ]] ||
                        fail "RunPodSandbox with host$t: $output"
                run cri list
                [ "$(jq '.pods | length' <<<"$output")" = 0 ]
        done
}

@test "resources through CRI: memory and cpu limits at create, UpdateContainerResources" {
        run_pod res . '.linux.resources = {memory_limit_in_bytes: 67108864, cpu_period: 100000, cpu_quota: 50000}'
        cri start-container "$CTR_ID"
        wait_container_state "$CTR_ID" CONTAINER_RUNNING

        if ! host_has_v2_controllers; then
                # This host: the suite's opt-out policy; the container runs
                # without limits, says so, and an update fails clearly.
                run sbrun_state "$CTR_ID"
                [ "$(jq -r .sbrun.resources <<<"$output")" = unenforced ]
                run cri update-container "$CTR_ID" '{"memory_limit_in_bytes": 134217728}'
                [ "$status" -eq 125 ]
                [[ $output == *"container $CTR_ID has no cgroup: it runs without resource limits"* ]] ||
                        fail "UpdateContainerResources: $output"
                return 0
        fi
        # Real cgroup v2 (the VM lane): the limits, seen from the container.
        run cri exec-sync "$CTR_ID" 10 cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/cpu.max
        [ "$status" -eq 0 ]
        [ "$output" = $'67108864\n50000 100000' ] || fail "limits in the container: $output"
        cri update-container "$CTR_ID" '{"memory_limit_in_bytes": 134217728, "cpu_period": 100000, "cpu_quota": 20000}'
        run cri exec-sync "$CTR_ID" 10 cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/cpu.max
        [ "$output" = $'134217728\n20000 100000' ] || fail "limits after UpdateContainerResources: $output"
}
