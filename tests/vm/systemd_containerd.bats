#!/usr/bin/env bats
# containerd on a systemd host with the systemd cgroup driver: the README's
# `ctr run --runc-systemd-cgroup` line and its CRI handler block with
# `SystemdCgroup = true`, as written there (the built sbrun for the
# installed one). The shim then calls sbrun with --systemd-cgroup, and each
# container is a scope that sbrun's systemd driver starts: for a pod, the
# scope cri-containerd-ID.scope in the pod's slice as the kubelet names it
# (kubepods-besteffort-pod<uid>.slice). Checked against systemctl show and
# the cgroup files; nothing is left after the pod is removed. Run in the
# systemd guest of the VM lane (tests/vm/systemd-suite.sh).

load ../helpers
load ../engines/lib/readme
load ../engines/lib/cri

setup_file() {
        [ "$(cat /proc/1/comm)" = systemd ] || fail "PID 1 is not systemd: run this through tests/vm/run.sh --systemd"
        export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-600}
        CRI_HANDLER_BLOCK=cri-runtime-handler-systemd CRI_SYSTEM_BUS=1 cri_start ""
        cri_ns ctr --address "$CRI_SOCK" -n sbt-sd images import "$CRI_DIR/busybox.tar" >/dev/null ||
                fail "cannot import the image into namespace sbt-sd"
}

teardown_file() {
        [ -n "${CRI_DIR:-}" ] || return 0
        cri_remove_all
        cri_stop
        rm -rf --one-file-system "$CRI_DIR"
}

teardown() {
        local left i id
        # What a failed ctr test left in its namespace.
        for id in $(cri_ns ctr --address "$CRI_SOCK" -n sbt-sd containers ls -q 2>/dev/null); do
                cri_ns ctr --address "$CRI_SOCK" -n sbt-sd tasks kill -s KILL "$id" >/dev/null 2>&1
                sleep 0.5
                cri_ns ctr --address "$CRI_SOCK" -n sbt-sd tasks delete -f "$id" >/dev/null 2>&1
                cri_ns ctr --address "$CRI_SOCK" -n sbt-sd containers delete "$id" >/dev/null 2>&1
        done
        cri_remove_all
        for ((i = 0; i < 100; i++)); do
                left=$(cri_leftovers; sd_units)
                [ -z "$left" ] && break
                sleep 0.1
        done
        [ -z "$left" ] || fail "the test left behind: $left"
}

# sd_units: the container scopes and pod slices systemd still has loaded
# and not inactive.
sd_units() {
        systemctl list-units --all --no-legend --plain 'cri-containerd-*.scope' 'sbrun-*.scope' \
                'kubepods*.slice' | awk '$3 != "inactive" { print "unit " $1 " " $3 }'
}

# show UNIT PROPERTY: systemd's value of PROPERTY.
show() {
        systemctl show -P "$2" "$1"
}

@test "containerd, systemd driver: the README's ctr --runc-systemd-cgroup line runs as written; no unit is left after --rm" {
        local cmd
        cmd=$(readme_block "containerd: ctr systemd")
        [[ $cmd == "ctr run "*"--runc-systemd-cgroup --cgroup system.slice:sbrun:demo"* ]] || fail "README block: $cmd"
        # The built sbrun for the installed one, the suite's image for Docker
        # Hub's, the private containerd for the system's.
        cmd=${cmd//\/usr\/local\/bin\/sbrun/$CRI_DIR/sbrun-runtime}
        cmd=${cmd//docker.io\/library\/busybox:latest/$CRI_IMAGE}
        cmd="ctr --address $CRI_SOCK --namespace sbt-sd ${cmd#ctr }"
        run cri_ns bash -c "$cmd"
        [ "$status" -eq 0 ] || fail "status $status: $output"
        [ "$output" = "hello from sbrun" ]
        # --rm: the scope went with the task.
        [ "$(show sbrun-demo.scope LoadState)" = not-found ]
        [ -z "$(sd_units)" ] || fail "units left: $(sd_units)"
}

@test "containerd, SystemdCgroup = true: a pod's containers are cri-containerd-ID.scope in its kubepods slice, limits as properties, UpdateContainerResources; gone with the pod" {
        local uid slice pf cf pod_id ctr_id pod_unit ctr_unit cg
        uid=$(cat /proc/sys/kernel/random/uuid)
        # The kubelet's name for a BestEffort pod's slice under the systemd
        # driver: its uid with "_" for "-".
        slice=kubepods-besteffort-pod${uid//-/_}.slice
        pf=$CRI_DIR/pod-sd.json
        jq -n --arg uid "$uid" --arg slice "$slice" --arg logs "$CRI_DIR/pods/default_sd_$uid" '{
                metadata: {name: "sd", uid: $uid, namespace: "default", attempt: 0},
                hostname: "sd", log_directory: $logs,
                linux: {cgroup_parent: $slice,
                        security_context: {namespace_options: {network: "POD", pid: "CONTAINER", ipc: "POD"}}}
        }' >"$pf"
        pod_id=$(cri run-pod-sandbox "$pf" sbrun)
        pod_unit=cri-containerd-$pod_id.scope
        cf=$CRI_DIR/ctr-sd.json
        jq -n --arg image "$CRI_IMAGE" '{
                metadata: {name: "app", attempt: 0}, image: {image: $image},
                command: ["sleep", "600"], log_path: "app/0.log",
                linux: {resources: {memory_limit_in_bytes: 67108864, cpu_period: 100000, cpu_quota: 50000},
                        security_context: {namespace_options: {network: "POD", pid: "CONTAINER", ipc: "POD"}}}
        }' >"$cf"
        ctr_id=$(cri create-container "$pod_id" "$cf" "$pf")
        ctr_unit=cri-containerd-$ctr_id.scope
        cri start-container "$ctr_id"

        # Both scopes, in the pod's slice, in the kubelet's tree.
        systemctl show -p ActiveState -p ControlGroup -p MemoryMax -p CPUQuotaPerSecUSec "$pod_unit" "$ctr_unit"
        [ "$(show "$pod_unit" ActiveState)" = active ]
        [ "$(show "$ctr_unit" ActiveState)" = active ]
        [ "$(show "$ctr_unit" Slice)" = "$slice" ]
        cg=/kubepods.slice/kubepods-besteffort.slice/$slice/$ctr_unit
        [ "$(show "$ctr_unit" ControlGroup)" = "$cg" ]
        [ "$(show "$pod_unit" ControlGroup)" = "/kubepods.slice/kubepods-besteffort.slice/$slice/$pod_unit" ]
        [ "$(show "$ctr_unit" Delegate)" = yes ]
        # The limits: the unit's properties, the cgroup's files, what the
        # container sees.
        [ "$(show "$ctr_unit" MemoryMax)" = 67108864 ]
        [ "$(show "$ctr_unit" CPUQuotaPerSecUSec)" = 500ms ]
        [ "$(cat "/sys/fs/cgroup$cg/memory.max")" = 67108864 ]
        [ "$(cat "/sys/fs/cgroup$cg/cpu.max")" = "50000 100000" ]
        run cri exec-sync "$ctr_id" 10 cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/cpu.max
        [ "$status" -eq 0 ]
        [ "$output" = $'67108864\n50000 100000' ] || fail "limits in the container: $output"

        # UpdateContainerResources: the unit's properties follow, so that a
        # daemon-reload keeps the new values.
        cri update-container "$ctr_id" '{"memory_limit_in_bytes": 134217728, "cpu_period": 100000, "cpu_quota": 20000}'
        [ "$(show "$ctr_unit" MemoryMax)" = 134217728 ]
        [ "$(show "$ctr_unit" CPUQuotaPerSecUSec)" = 200ms ]
        systemctl daemon-reload
        [ "$(cat "/sys/fs/cgroup$cg/memory.max")" = 134217728 ]
        [ "$(cat "/sys/fs/cgroup$cg/cpu.max")" = "20000 100000" ]

        # The app's scope goes with it, the pod's slice stays for the pause
        # container; then the pod, its scope and the slices made for it.
        cri stop-container "$ctr_id" 2
        cri remove-container "$ctr_id"
        [ "$(show "$ctr_unit" LoadState)" = not-found ]
        [ "$(show "$slice" ActiveState)" = active ]
        cri stop-pod "$pod_id"
        cri remove-pod "$pod_id"
        [ "$(show "$pod_unit" LoadState)" = not-found ]
        [ -z "$(sd_units)" ] || fail "units left: $(sd_units)"
        [ ! -e "/sys/fs/cgroup/kubepods.slice" ] || fail "left: $(find /sys/fs/cgroup/kubepods.slice -type d)"
}
