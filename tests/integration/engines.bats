#!/usr/bin/env bats
# The config.json documents podman 4.3.1 and containerd 1.6.20 really sent
# (tests/unit/data/, from shared/testdata), run with their host paths
# replaced by the test's own: podman's seccomp allow-list, its /dev tmpfs,
# devpts, sysfs and cgroup mounts and binds, a network namespace joined by
# path; containerd's masked and read-only paths and signal handling.

load ../helpers

# engine_bundle DOC: $BUNDLE with the engine's config.json, our rootfs and
# our files for its host paths.
engine_bundle() {
        make_bundle
        mkdir -p "$TEST_DIR/userdata/shm"
        for f in resolv.conf hosts hostname .containerenv; do
                echo "# $f from the test" >"$TEST_DIR/userdata/$f"
        done
        jq --arg root "$BUNDLE/rootfs" --arg data "$TEST_DIR/userdata" --arg netns "$NETNS" '
                .root.path = $root |
                .mounts |= map(if .type == "bind" then
                        .source = ($data + "/" + (.source | split("/") | last)) else . end) |
                .linux.namespaces |= map(if .type == "network" and .path then .path = $netns else . end) |
                .process.terminal = false' \
                "$SBRUN_SRCDIR/tests/unit/data/$1" >"$BUNDLE/config.json"
}

@test "podman 4.3.1's config.json runs a busybox workload unchanged, its seccomp profile in force" {
        start_helper unshare --net sleep 1000
        local i
        for i in $(seq 50); do
                [ "$(readlink "/proc/$HELPER_PID/ns/net")" != "$(readlink /proc/self/ns/net)" ] && break
                sleep 0.1
        done
        NETNS=/proc/$HELPER_PID/ns/net
        engine_bundle podman-4.3.1-config.json
        edit_config '.process.args = ["sh", "-c",
                "echo workload; hostname; cat /etc/hosts; ls /dev/shm >/dev/null && echo shm;
                 grep ^Seccomp: /proc/self/status; readlink /proc/self/ns/net;
                 mkdir /tmp/x && echo mkdir-ok; ls / | wc -l"]'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "$output"
        [ "${lines[0]}" = workload ]
        [ "${lines[1]}" = "$(config_get .hostname)" ]
        [[ $output == *"# hosts from the test"* ]]
        [[ $output == *"shm"* ]]
        [[ $output == *"Seccomp:"*"2"* ]]
        [[ $output == *"$(readlink "$NETNS")"* ]]
        [[ $output == *"mkdir-ok"* ]]
        assert_no_leftovers "$ID"
}

@test "containerd 1.6.20's config.json runs; its process takes signals as containerd sends them" {
        NETNS=""
        engine_bundle containerd-1.6.20-config.json

        run detached sbrun create -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "create: $output"
        run sbrun start "$ID"
        [ "$status" -eq 0 ]
        local pid
        pid=$(container_pid "$ID")
        for i in $(seq 50); do
                grep -q tick "/proc/$pid/root/tmp/tick" 2>/dev/null && break
                sleep 0.1
        done
        grep -q tick "/proc/$pid/root/tmp/tick"
        # containerd's masked paths: /proc/kcore and friends read empty or are absent.
        run sbrun exec "$ID" sh -c 'cat /proc/keys 2>&1 | wc -c; cat /proc/timer_list | wc -c'
        [ "$status" -eq 0 ]
        [ "${lines[0]}" -eq 0 ]
        [ "${lines[1]}" -eq 0 ]

        run sbrun kill "$ID" TERM
        [ "$status" -eq 0 ]
        wait_for_status "$ID" stopped
        run sbrun delete "$ID"
        [ "$status" -eq 0 ]
        assert_no_leftovers "$ID"
}
