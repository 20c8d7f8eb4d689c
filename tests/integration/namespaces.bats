#!/usr/bin/env bats
# linux.namespaces (new and joined by path), uid/gid mappings, hostname,
# domainname, sysctl.

load ../helpers

# wait_ns PID TYPE: wait until PID's TYPE namespace differs from ours.
wait_ns() {
        local pid=$1 type=$2 i
        for ((i = 0; i < 50; i++)); do
                if [ "$(readlink "/proc/$pid/ns/$type")" != "$(readlink "/proc/self/ns/$type")" ]; then
                        return 0
                fi
                sleep 0.1
        done
        fail "helper $pid never got a new $type namespace"
}

# --- new namespaces ---------------------------------------------------------

@test "a new pid namespace: the process is pid 1 and sees only its own" {
        make_bundle
        set_cmd 'echo $$; ps -o pid,comm | wc -l'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = 1 ]
        # header + sh + ps (+ wc)
        [ "${lines[1]}" -le 4 ]
}

@test "new network, ipc, uts, mount and cgroup namespaces differ from the host's" {
        make_bundle
        set_cmd 'for t in net ipc uts mnt cgroup; do readlink /proc/self/ns/$t; done'
        edit_config '.linux.namespaces |= (map(select(.type != "cgroup")) + [{"type": "cgroup"}])'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        i=0
        for t in net ipc uts mnt cgroup; do
                [[ ${lines[$i]} == "$t:["* ]]
                [ "${lines[$i]}" != "$(readlink /proc/self/ns/$t)" ]
                i=$((i + 1))
        done
}

@test "a new network namespace has only lo" {
        make_bundle
        set_cmd 'tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " "'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$output" = lo ]
}

@test "without a network namespace (the host's network) create is refused by the floor" {
        make_bundle
        set_args readlink /proc/self/ns/net
        edit_config '.linux.namespaces |= map(select(.type != "network"))'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "rule: standard: no host network namespace"
}

@test "an unknown namespace type is refused" {
        make_bundle
        edit_config '.linux.namespaces += [{"type": "bogus"}]'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" bogus
}

@test "a namespace listed twice is refused" {
        make_bundle
        edit_config '.linux.namespaces += [{"type": "ipc"}]'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" duplicate
}

# --- hostname, domainname ---------------------------------------------------

@test "hostname and domainname are set in the new uts namespace, not on the host" {
        host_name=$(hostname)
        host_domain=$(cat /proc/sys/kernel/domainname)
        make_bundle
        set_cmd 'hostname; cat /proc/sys/kernel/domainname'
        edit_config '.hostname = "box1" | .domainname = "example.test"'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = box1 ]
        [ "${lines[1]}" = example.test ]
        [ "$(hostname)" = "$host_name" ]
        [ "$(cat /proc/sys/kernel/domainname)" = "$host_domain" ]
}

@test "a hostname without a uts namespace gets the floor's new uts namespace, not the host's" {
        host_name=$(hostname)
        make_bundle
        set_args hostname
        edit_config '.hostname = "box1" | .linux.namespaces |= map(select(.type != "uts"))'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$output" = box1 ]
        [ "$(hostname)" = "$host_name" ]
}

@test "a hostname of the wrong type is refused" {
        make_bundle
        edit_config '.hostname = 42'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" hostname
}

# --- joining namespaces by path ---------------------------------------------

@test "a network namespace joined by path" {
        start_helper unshare --net sleep 1000
        wait_ns "$HELPER_PID" net
        make_bundle
        set_args readlink /proc/self/ns/net
        edit_config '.linux.namespaces |= map(if .type == "network" then .path = $p else . end)' \
                --arg p "/proc/$HELPER_PID/ns/net"

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$output" = "$(readlink "/proc/$HELPER_PID/ns/net")" ]
}

@test "a uts namespace joined by path keeps its hostname" {
        start_helper unshare --uts sh -c 'hostname joined-uts && exec sleep 1000'
        wait_ns "$HELPER_PID" uts
        for i in $(seq 50); do [ "$(nsenter -t "$HELPER_PID" -u hostname)" = joined-uts ] && break; sleep 0.1; done
        make_bundle
        set_args hostname
        edit_config 'del(.hostname) |
                .linux.namespaces |= map(if .type == "uts" then .path = $p else . end)' \
                --arg p "/proc/$HELPER_PID/ns/uts"

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$output" = joined-uts ]
}

@test "an ipc namespace joined by path" {
        start_helper unshare --ipc sleep 1000
        wait_ns "$HELPER_PID" ipc
        make_bundle
        set_args readlink /proc/self/ns/ipc
        edit_config '.linux.namespaces |= map(if .type == "ipc" then .path = $p else . end)' \
                --arg p "/proc/$HELPER_PID/ns/ipc"

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$output" = "$(readlink "/proc/$HELPER_PID/ns/ipc")" ]
}

@test "a cgroup namespace joined by path" {
        start_helper unshare --cgroup sleep 1000
        wait_ns "$HELPER_PID" cgroup
        make_bundle
        set_args readlink /proc/self/ns/cgroup
        edit_config '.linux.namespaces |= (map(select(.type != "cgroup")) + [{"type": "cgroup", "path": $p}])' \
                --arg p "/proc/$HELPER_PID/ns/cgroup"

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$output" = "$(readlink "/proc/$HELPER_PID/ns/cgroup")" ]
}

@test "a pid namespace joined by path: the container sees the process already there" {
        start_helper unshare --pid --fork sleep 1000
        for i in $(seq 50); do inner=$(pgrep -P "$HELPER_PID" sleep) && break; sleep 0.1; done
        [ -n "$inner" ]
        make_bundle
        set_cmd 'echo $$; ps -o pid,args'
        edit_config '.linux.namespaces |= map(if .type == "pid" then .path = $p else . end)' \
                --arg p "/proc/$inner/ns/pid"

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" != 1 ]
        [[ $output == *"1 sleep 1000"* ]]
}

@test "a namespace path of the wrong type is refused" {
        start_helper unshare --uts sleep 1000
        wait_ns "$HELPER_PID" uts
        make_bundle
        edit_config '.linux.namespaces |= map(if .type == "network" then .path = $p else . end)' \
                --arg p "/proc/$HELPER_PID/ns/uts"

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "linux.namespaces[1].path: \"/proc/$HELPER_PID/ns/uts\" is not a network namespace"
}

@test "a namespace path that does not exist fails with 'no such file or directory'" {
        make_bundle
        edit_config '.linux.namespaces |= map(if .type == "network" then .path = "/proc/self/ns/nope" else . end)'

        run detached sbrun create -b "$BUNDLE" "$ID"
        [[ ${output,,} == *"no such file or directory"* ]]
        assert_fails_cleanly "$ID" /proc/self/ns/nope
}

# bwrap always builds the container in a new mount namespace: joining one
# is refused, clearly, rather than run in a copy of it (docs/design.md,
# "bwrap cannot join most namespaces").
@test "joining a mount namespace by path is refused with a clear error and leaves nothing" {
        make_bundle
        # A mount namespace of the test's own, not the host's.
        unshare -m sleep 1000 </dev/null >/dev/null 2>&1 3>&- &
        local holder=$!
        for _ in $(seq 50); do
                [ "$(readlink "/proc/$holder/ns/mnt")" != "$(readlink /proc/self/ns/mnt)" ] && break
                sleep 0.1
        done
        edit_config '.linux.namespaces |= map(if .type == "mount" then .path = $p else . end)' \
                --arg p "/proc/$holder/ns/mnt"

        run detached sbrun create -b "$BUNDLE" "$ID"
        kill "$holder"
        wait "$holder" || true
        assert_fails_cleanly "$ID" "joining a mount namespace is not supported"
        [[ $output == *"linux.namespaces["*"].path"* ]]
}

# --- user namespace, uid/gid mappings ---------------------------------------

@test "a user namespace with several uid and gid ranges" {
        make_bundle
        set_cmd 'cat /proc/self/uid_map; echo --; cat /proc/self/gid_map; echo --; id -u'
        edit_config '.linux.namespaces += [{"type": "user"}] |
                .linux.uidMappings = [{"containerID": 0, "hostID": 200000, "size": 1000},
                                      {"containerID": 1000, "hostID": 1000, "size": 1}] |
                .linux.gidMappings = [{"containerID": 0, "hostID": 300000, "size": 1000},
                                      {"containerID": 1000, "hostID": 1000, "size": 1},
                                      {"containerID": 1001, "hostID": 301001, "size": 64535}] |
                (.mounts |= map(select(.destination != "/sys/fs/cgroup")))'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        maps=$(awk '{ $1 = $1; print }' <<<"$output")
        [ "$maps" = "0 200000 1000
1000 1000 1
--
0 300000 1000
1000 1000 1
1001 301001 64535
--
0" ]
}

@test "the container's root is an unprivileged host uid in a user namespace" {
        make_bundle
        mkdir -m 0777 "$TEST_DIR/share"
        # The mount point exists: the container's root may not create it.
        mkdir -p "$BUNDLE/rootfs/mnt/share"
        set_cmd 'touch /mnt/share/made-inside'
        edit_config '.linux.namespaces += [{"type": "user"}] |
                .linux.uidMappings = [{"containerID": 0, "hostID": 200000, "size": 1000}] |
                .linux.gidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}] |
                (.mounts |= map(select(.destination != "/sys/fs/cgroup"))) |
                .mounts += [{"destination": "/mnt/share", "type": "bind", "source": $s,
                             "options": ["rbind", "rw"]}]' --arg s "$TEST_DIR/share"

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$(stat -c %u:%g "$TEST_DIR/share/made-inside")" = 200000:200000 ]
}

# podman 5 under --userns=auto keeps the files it binds (hosts, hostname,
# .containerenv, the shm directory) in a run directory of mode 0700 that the
# container's root (a host uid of the range) cannot search: bwrap walks a
# bind source's path in the container's user namespace and failed there
# with "Can't find source path /proc/self/fd/N: Permission denied". sbrun
# makes such a bind itself (runtime/sandbox/mount_translate.c).
@test "a user namespace: binds from a directory its root cannot search, a file and a directory, read-write and read-only" {
        make_bundle
        local priv=$TEST_DIR/priv
        mkdir -m 0700 "$priv" "$priv/dir"
        echo from-host >"$priv/hosts"
        echo in-dir >"$priv/dir/f"
        chmod 0666 "$priv/hosts"
        chmod 0777 "$priv/dir"
        set_cmd 'cat /etc/hosts /mnt/dir/f /mnt/ro/f; echo more >>/etc/hosts && echo appended; touch /mnt/dir/new && echo made;
                 touch /mnt/ro/x 2>/dev/null || echo ro-refused; grep -c " /mnt/dir " /proc/self/mountinfo'
        edit_config '.linux.namespaces += [{"type": "user"}] |
                .linux.uidMappings = [{"containerID": 0, "hostID": 200000, "size": 1000}] |
                .linux.gidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}] |
                (.mounts |= map(select(.destination != "/sys/fs/cgroup"))) |
                .mounts += [{"destination": "/etc/hosts", "type": "bind", "source": ($p + "/hosts"), "options": ["bind", "rprivate"]},
                            {"destination": "/mnt/dir", "type": "bind", "source": ($p + "/dir"), "options": ["rbind", "rw"]},
                            {"destination": "/mnt/ro", "type": "bind", "source": ($p + "/dir"), "options": ["rbind", "ro"]}]' \
                --arg p "$priv"

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "status $status: $output"
        [[ $output == *from-host*in-dir*in-dir*appended*made*ro-refused* ]] || fail "inside: $output"
        [[ ${lines[-1]} == 1 ]] || fail "/mnt/dir is not one mount: $output"
        [ "$(tail -n 1 "$priv/hosts")" = more ] || fail "hosts: $(cat "$priv/hosts")"
        [ "$(stat -c %u "$priv/dir/new")" = 200000 ] || fail "new: $(stat -c %u "$priv/dir/new")"
        assert_no_leftovers "$ID"
}

@test "uidMappings of the wrong type are refused" {
        make_bundle
        edit_config '.linux.namespaces += [{"type": "user"}] |
                .linux.uidMappings = [{"containerID": 0, "hostID": "lots", "size": 1}] |
                .linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 1}]'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" uidMappings
}

# --- sysctl -----------------------------------------------------------------

@test "linux.sysctl sets namespaced sysctls inside the container" {
        host_fwd=$(cat /proc/sys/net/ipv4/ip_forward)
        want=$((1 - host_fwd))
        make_bundle
        set_cmd 'cat /proc/sys/net/ipv4/ip_forward /proc/sys/kernel/msgmax'
        edit_config '.linux.sysctl = {"net.ipv4.ip_forward": $f, "kernel.msgmax": "4321"}' --arg f "$want"

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "$want" ]
        [ "${lines[1]}" = 4321 ]
        [ "$(cat /proc/sys/net/ipv4/ip_forward)" = "$host_fwd" ]
}

@test "a sysctl that is not namespaced is refused" {
        before=$(cat /proc/sys/kernel/panic)
        make_bundle
        edit_config '.linux.sysctl = {"kernel.panic": "17"}'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" kernel.panic
        [ "$(cat /proc/sys/kernel/panic)" = "$before" ]
}

@test "a net sysctl without a network namespace is refused (by the floor's host-network rule)" {
        before=$(cat /proc/sys/net/ipv4/ip_forward)
        make_bundle
        edit_config '.linux.sysctl = {"net.ipv4.ip_forward": "1"} |
                .linux.namespaces |= map(select(.type != "network"))'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "rule: standard: no host network namespace"
        [ "$(cat /proc/sys/net/ipv4/ip_forward)" = "$before" ]
}
