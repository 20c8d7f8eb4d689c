#!/usr/bin/env bats
# Confinement a container gets: capabilities, no_new_privs, no leaked fds,
# no view of the host, and a process model that resists CVE-2019-5736.

load ../helpers

caps_of() {
        awk -v k="$1:" '$1 == k { print $2 }' <<<"$output"
}

@test "the five capability sets of a non-root process are exactly what the spec says" {
        make_bundle
        set_args cat /proc/self/status
        edit_config '.process.user = {"uid": 1000, "gid": 1000} |
                .process.capabilities = {
                        "bounding":    ["CAP_KILL", "CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT"],
                        "inheritable": ["CAP_KILL", "CAP_NET_BIND_SERVICE"],
                        "permitted":   ["CAP_KILL", "CAP_NET_BIND_SERVICE"],
                        "effective":   ["CAP_KILL", "CAP_NET_BIND_SERVICE"],
                        "ambient":     ["CAP_NET_BIND_SERVICE"]}'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        # CAP_KILL = bit 5, CAP_NET_BIND_SERVICE = bit 10, CAP_SYS_CHROOT = bit 18
        # (all inside the floor's ceiling; CAP_NET_RAW is not, see floor.bats).
        # Across execve a non-root process keeps only its ambient set.
        [ "$(caps_of CapBnd)" = 0000000000040420 ]
        [ "$(caps_of CapInh)" = 0000000000000420 ]
        [ "$(caps_of CapPrm)" = 0000000000000400 ]
        [ "$(caps_of CapEff)" = 0000000000000400 ]
        [ "$(caps_of CapAmb)" = 0000000000000400 ]
}

@test "an ambient capability outside the inheritable set is skipped with a warning, as runc does" {
        make_bundle
        set_args cat /proc/self/status
        edit_config '.process.user = {"uid": 1000, "gid": 1000} |
                .process.capabilities = {
                        "bounding":    ["CAP_KILL", "CAP_NET_BIND_SERVICE"],
                        "inheritable": ["CAP_NET_BIND_SERVICE"],
                        "permitted":   ["CAP_KILL", "CAP_NET_BIND_SERVICE"],
                        "effective":   ["CAP_KILL", "CAP_NET_BIND_SERVICE"],
                        "ambient":     ["CAP_KILL", "CAP_NET_BIND_SERVICE"]}'

        run --separate-stderr sbrun --log "" run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "$stderr"
        [[ $stderr == *"process.capabilities.ambient: CAP_KILL is not in the permitted, inheritable and bounding sets"*"skipped"* ]]
        [[ $stderr != *CAP_NET_BIND_SERVICE* ]]
        # CAP_NET_BIND_SERVICE (bit 10) is raised; CAP_KILL (bit 5) is not.
        [ "$(caps_of CapAmb)" = 0000000000000400 ]
}

@test "root in the container gets the bounding set and nothing more" {
        make_bundle
        set_args cat /proc/self/status
        edit_config '.process.capabilities = {
                        "bounding":  ["CAP_KILL", "CAP_NET_BIND_SERVICE"],
                        "permitted": ["CAP_KILL", "CAP_NET_BIND_SERVICE"],
                        "effective": ["CAP_KILL", "CAP_NET_BIND_SERVICE"]}'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$(caps_of CapBnd)" = 0000000000000420 ]
        [ "$(caps_of CapPrm)" = 0000000000000420 ]
        [ "$(caps_of CapEff)" = 0000000000000420 ]
        [ "$(caps_of CapAmb)" = 0000000000000000 ]
}

@test "without CAP_SYS_ADMIN root in the container cannot mount" {
        make_bundle
        set_cmd 'mount -t tmpfs none /tmp 2>&1; echo rc=$?'

        run sbrun run -b "$BUNDLE" "$ID"
        [[ $output == *"rc=1"* || $output == *"rc=255"* ]]
        [[ $output == *"ermission denied"* || $output == *"not permitted"* ]]
}

@test "an unknown capability name is refused or dropped, never granted" {
        make_bundle
        set_args cat /proc/self/status
        edit_config '.process.capabilities = {
                        "bounding":  ["CAP_KILL", "CAP_NO_SUCH_THING"],
                        "permitted": ["CAP_KILL"],
                        "effective": ["CAP_KILL"]}'

        run sbrun run -b "$BUNDLE" "$ID"
        if [ "$status" -eq 0 ]; then
                [ "$(caps_of CapBnd)" = 0000000000000020 ]
        else
                [ "$status" -eq 1 ]
                [[ $output == *CAP_NO_SUCH_THING* ]]
                assert_no_leftovers "$ID"
        fi
}

@test "capabilities of the wrong type are refused" {
        make_bundle
        edit_config '.process.capabilities.bounding = "CAP_KILL"'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" process.capabilities.bounding
}

@test "noNewPrivileges: true sets no_new_privs" {
        make_bundle
        set_args grep NoNewPrivs /proc/self/status
        edit_config '.process.noNewPrivileges = true'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [[ $output == *"NoNewPrivs:"*1 ]]
}

@test "noNewPrivileges: false still runs with no_new_privs, and says so in the log" {
        make_bundle
        set_args grep NoNewPrivs /proc/self/status
        edit_config '.process.noNewPrivileges = false'

        run sbrun --log "$TEST_DIR/log" run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [[ $output == *"NoNewPrivs:"*1* ]]
        grep -q noNewPrivileges "$TEST_DIR/log"
}

@test "no fd of the runtime reaches a created container" {
        make_bundle
        set_args sleep 1000

        detached sbrun create -b "$BUNDLE" "$ID" 5</etc/hostname
        sbrun start "$ID"
        pid=$(container_pid "$ID")
        [ "$(ls "/proc/$pid/fd" | sort -n | tr '\n' ' ')" = "0 1 2 " ]
}

@test "after create, the container process is no child of the runtime or of bwrap" {
        make_bundle
        set_args sleep 1000

        detached sbrun create -b "$BUNDLE" "$ID"
        pid=$(container_pid "$ID")
        ppid=$(awk '/^PPid:/ { print $2 }' "/proc/$pid/status")
        parent=$(cat "/proc/$ppid/comm")
        [ "$parent" != bwrap ]
        [ "$parent" != "$(basename "$SBRUN")" ]
        # No bwrap process is left for this bundle: every one is checked
        # (one that exits meanwhile is none left).
        local cmdline
        for p in $(pgrep -x bwrap); do
                cmdline=$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null) || continue
                [[ $cmdline != *"$TEST_DIR"* ]] || fail "bwrap $p is left for this bundle: $cmdline"
        done
}

@test "the created container's executable is not the runtime binary on the host (CVE-2019-5736)" {
        make_bundle
        set_args sleep 1000

        detached sbrun create -b "$BUNDLE" "$ID"
        pid=$(container_pid "$ID")
        [ "$(stat -L -c %d:%i "/proc/$pid/exe")" != "$(stat -L -c %d:%i "$SBRUN")" ]
        # Nor any other file on the host's root file system.
        [ "$(stat -L -c %d "/proc/$pid/exe")" != "$(stat -c %d /)" ]
}

@test "the container cannot see the host's file system" {
        make_bundle
        set_cmd 'ls /oldroot 2>&1; echo rc=$?; ls /newroot 2>&1; echo rc=$?; cat /etc/hostname'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$(grep -c 'rc=[^0]' <<<"$output")" -eq 2 ]
        [ "${lines[-1]}" = sbrun-rootfs ]
}

@test "the container cannot see host processes" {
        start_helper sleep 1000
        make_bundle
        set_cmd 'ls /proc | grep -c "^[0-9]"'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$output" -le 3 ]
}
