#!/usr/bin/env bats
# exec: a new process in a running container, with its namespaces, cgroup
# and confinement; the --process documents podman and containerd write.

load ../helpers

# A running container whose process waits; sets INIT_PID.
start_sleeper() {
        make_bundle
        set_cmd 'sleep 1000'
        run detached sbrun run -d -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "run -d: $output"
        INIT_PID=$(container_pid "$ID")
}

@test "exec runs in every namespace of the container" {
        start_sleeper
        local ns expected=""
        for ns in cgroup ipc mnt net pid user uts; do
                expected+="$ns $(readlink "/proc/$INIT_PID/ns/$ns") "
        done

        run sbrun exec "$ID" sh -c 'for ns in cgroup ipc mnt net pid user uts; do
                printf "%s %s " $ns $(readlink /proc/self/ns/$ns); done'
        [ "$status" -eq 0 ]
        [ "$output" = "$expected" ]
}

@test "exec gets the container process's capabilities and no_new_privs" {
        start_sleeper
        local cap_eff cap_bnd
        cap_eff=$(awk '/^CapEff/ {print $2}' "/proc/$INIT_PID/status")
        cap_bnd=$(awk '/^CapBnd/ {print $2}' "/proc/$INIT_PID/status")

        run sbrun exec "$ID" sh -c 'grep -E "^(CapEff|CapBnd|NoNewPrivs)" /proc/self/status'
        [ "$status" -eq 0 ]
        [[ $output == *"CapEff:"*"$cap_eff"* ]]
        [[ $output == *"CapBnd:"*"$cap_bnd"* ]]
        [[ $output == *"NoNewPrivs:"*"1"* ]]
}

@test "exec gets the container's seccomp filter" {
        make_bundle
        set_cmd 'sleep 1000'
        edit_config '.root.readonly = false | .linux.seccomp = {defaultAction: "SCMP_ACT_ALLOW",
                syscalls: [{names: ["mkdir", "mkdirat"], action: "SCMP_ACT_ERRNO", errnoRet: 38}]}'
        run detached sbrun run -d -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]

        run sbrun exec "$ID" sh -c 'mkdir /exec-dir; grep -c . /proc/self/status >/dev/null; grep ^Seccomp: /proc/self/status'
        [[ $output == *"Function not implemented"* ]]
        [[ $output == *"Seccomp:"*"2"* ]]
        [ ! -e "$BUNDLE/rootfs/exec-dir" ]
}

@test "exec passes the process's exit code and 128+N for a signal" {
        start_sleeper

        run sbrun exec "$ID" sh -c 'exit 5'
        [ "$status" -eq 5 ]
        run sbrun exec "$ID" sh -c 'kill -9 $$'
        [ "$status" -eq 137 ]
}

@test "exec flags: --user, --env, --cwd, --additional-gids" {
        start_sleeper

        run sbrun exec --user 1000:1000 --additional-gids 20 --env FOO=bar --cwd /tmp "$ID" \
                sh -c 'id -u; id -g; id -G; echo $FOO; pwd'
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = 1000 ]
        [ "${lines[1]}" = 1000 ]
        [[ ${lines[2]} == *20* ]]
        [ "${lines[3]}" = bar ]
        [ "${lines[4]}" = /tmp ]
}

@test "exec of a missing executable fails with the wording podman maps to 127" {
        start_sleeper

        run -127 sbrun exec "$ID" no-such-program
        [ "$status" -eq 127 ]
        [[ $output == *'exec: "no-such-program": executable file not found in $PATH'* ]]
        run -127 sbrun exec "$ID" /no/such/program
        [[ $output == *'exec: "/no/such/program": stat /no/such/program: no such file or directory'* ]]
}

@test "exec of a file without the execute bit fails with the wording podman maps to 126" {
        start_sleeper
        printf '#!/bin/sh\necho ran\n' >"$BUNDLE/rootfs/not-executable"
        chmod 0644 "$BUNDLE/rootfs/not-executable"

        run -126 sbrun exec "$ID" /not-executable
        [[ $output == *'exec: "/not-executable": stat /not-executable: permission denied'* ]]
        [[ $output != *ran* ]]
        run -126 sbrun exec -e PATH=/ "$ID" not-executable
        [[ $output == *'exec: "not-executable": permission denied'* ]]
}

@test "an argument list over the kernel's limit fails with 126, as runc's, not 127" {
        # 3 MiB of arguments: over the kernel's limit (a quarter of the
        # 8 MiB stack limit), within a process document's 4 MiB.
        jq -n '{args: (["/bin/true"] + [range(30000) | "x" * 100]), cwd: "/",
                env: ["PATH=/bin"], user: {uid: 0, gid: 0}}' >"$TEST_DIR/big.json"
        start_sleeper

        run -126 sbrun exec --process "$TEST_DIR/big.json" "$ID"
        [[ $output == *"rgument list too long"* ]]
        [ "$(container_status "$ID")" = running ]

        # The same as the container's own program.
        sbrun delete --force "$ID"
        edit_config '.process.args = (["/bin/true"] + [range(30000) | "x" * 100])'
        run -126 sbrun run -b "$BUNDLE" "$ID"
        [[ $output == *"rgument list too long"* ]]
}

@test "exec into a stopped container fails and leaves nothing" {
        make_bundle
        set_cmd 'true'
        run detached sbrun create -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        run sbrun start "$ID"
        wait_for_status "$ID" stopped

        run sbrun exec "$ID" true
        [ "$status" -ne 0 ]
        [[ $output == *"cannot exec in a stopped container"* ]]
        run sbrun delete "$ID"
        assert_no_leftovers "$ID"
}

@test "exec --process: podman's and containerd's process documents" {
        start_sleeper
        local doc
        for doc in podman-4.3.1-exec-process.json containerd-1.6.20-exec-process.json; do
                jq '.args = ["sh", "-c", "echo from-$ENGINE; grep ^CapEff /proc/self/status"] |
                    .env += ["ENGINE=" + $e]' --arg e "${doc%%-*}" \
                        "$SBRUN_SRCDIR/tests/unit/data/$doc" >"$TEST_DIR/$doc"
                run sbrun exec --process "$TEST_DIR/$doc" "$ID"
                [ "$status" -eq 0 ] || fail "$doc: $output"
                [[ $output == *"from-${doc%%-*}"* ]]
        done
        # podman's document asks for 11 capabilities; the standard floor
        # drops CAP_SETFCAP (bit 31): CapEff shows the other 10, not more.
        run sbrun exec --process "$TEST_DIR/podman-4.3.1-exec-process.json" "$ID"
        [[ $output == *"CapEff:"*"00000000000405fb"* ]]
}

@test "exec --detach --pid-file: the process runs in the container; kill --all ends it" {
        start_sleeper

        run detached sbrun exec --detach --pid-file "$TEST_DIR/exec.pid" "$ID" sleep 999
        [ "$status" -eq 0 ]
        local pid
        pid=$(cat "$TEST_DIR/exec.pid")
        [ "$(readlink "/proc/$pid/ns/pid")" = "$(readlink "/proc/$INIT_PID/ns/pid")" ]

        run sbrun kill --all "$ID" KILL
        [ "$status" -eq 0 ]
        local i
        for i in $(seq 50); do
                [ -e "/proc/$pid" ] && [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ] || break
                sleep 0.1
        done
        [ ! -e "/proc/$pid" ] || [ "$(awk '{print $3}' "/proc/$pid/stat")" = Z ]
}

@test "exec --detach under a subreaper: the exec'd process is reaped with its status" {
        start_sleeper
        local reaper
        reaper=$(subreaper_bin)

        run "$reaper" "${SBRUN_ARGV[@]}" exec --detach --pid-file "$TEST_DIR/exec.pid" "$ID" sh -c 'exit 7'
        [ "$status" -eq 0 ]
        [[ $output == *"reaped $(cat "$TEST_DIR/exec.pid") exit 7"* ]]
}

@test "exec --cgroup: refused by name where the container has no cgroup, and given twice" {
        host_has_v2_controllers && skip "this host has cgroup v2 controllers: tests/vm/cgroups_v2.bats runs exec --cgroup"
        start_sleeper
        run sbrun exec --cgroup sub "$ID" touch /tmp/ran
        [ "$status" -eq 1 ]
        [[ $output == *"--cgroup: \"sub\": container $ID has no cgroup"* ]]
        run sbrun exec --cgroup a --cgroup b "$ID" touch /tmp/ran
        [ "$status" -eq 1 ]
        [[ $output == *'--cgroup: given twice ("a", "b")'* ]]
        [ ! -e "/proc/$INIT_PID/root/tmp/ran" ]
}
