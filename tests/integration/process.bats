#!/usr/bin/env bats
# process.*: args, env, cwd, user, umask, rlimits, oomScoreAdj, stdio, fds.

load ../helpers

# --- args -------------------------------------------------------------------

@test "process.args[0] is looked up in the PATH of process.env" {
        make_bundle
        set_args whoami

        # busybox keeps whoami in /usr/bin.
        edit_config '.process.env = ["PATH=/bin:/usr/bin"]'
        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$output" = root ]

        edit_config '.process.env = ["PATH=/bin:/sbin"]'
        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -ne 0 ]
        [[ $output == *'executable file not found in $PATH'* ]]
}

@test "a missing executable fails create with 'executable file not found in \$PATH'" {
        make_bundle
        set_args no-such-program

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" 'executable file not found in $PATH'
        [[ $output == *no-such-program* ]]
}

@test "a missing absolute executable fails create with 'no such file or directory'" {
        make_bundle
        set_args /bin/no-such-program

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" 'no such file or directory'
        [[ $output == */bin/no-such-program* ]]
}

@test "run of a missing executable fails and leaves nothing" {
        make_bundle
        set_args no-such-program

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -ne 0 ]
        [[ $output == *'executable file not found in $PATH'* ]]
        assert_no_leftovers "$ID"
}

# podman --init: args[0] is /run/podman-init, which a bind mount puts
# over the empty mount-point file podman leaves in the image; it is found
# as the container sees it, after its mounts.
@test "process.args[0] brought by a bind mount over an empty file in the image runs" {
        make_bundle
        mkdir -p "$BUNDLE/rootfs/run"
        : >"$BUNDLE/rootfs/run/fake-init"
        chmod 0644 "$BUNDLE/rootfs/run/fake-init"
        printf '#!/bin/sh\necho init-ran "$@"\n' >"$TEST_DIR/fake-init"
        chmod 0755 "$TEST_DIR/fake-init"
        edit_config '.process.args = ["/run/fake-init", "--", "x"] |
                .mounts += [{destination: "/run/fake-init", type: "bind", source: $s, options: ["bind", "ro"]}]' \
                --arg s "$TEST_DIR/fake-init"

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "$output"
        [ "$output" = "init-ran -- x" ]

        # Through PATH too, and the image's own file would not do.
        edit_config '.process.args = ["fake-init"] | .process.env = ["PATH=/run"]'
        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "$output"
        [ "$output" = init-ran ]
        edit_config '.mounts |= map(select(.destination != "/run/fake-init"))'
        run sbrun run -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" 'exec: "fake-init": permission denied'
}

@test "process.args[0] under a fresh tmpfs fails create, not start: the mount hides the image's file" {
        make_bundle
        mkdir -p "$BUNDLE/rootfs/opt"
        printf '#!/bin/sh\necho prog-ran\n' >"$BUNDLE/rootfs/opt/prog"
        chmod 0755 "$BUNDLE/rootfs/opt/prog"
        edit_config '.process.args = ["/opt/prog"] |
                .mounts += [{destination: "/opt", type: "tmpfs", source: "tmpfs", options: ["nosuid"]}]'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" 'exec: "/opt/prog": stat /opt/prog: no such file or directory'

        # With tmpcopyup the copy is there.
        edit_config '.mounts[-1].options += ["tmpcopyup"]'
        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "$output"
        [ "$output" = prog-ran ]
}

@test "empty process.args is refused" {
        make_bundle
        edit_config '.process.args = []'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" args
}

# --- env --------------------------------------------------------------------

@test "process.env is the container's environment" {
        make_bundle
        set_cmd 'echo "$GREETING|$EMPTY|$PATH"; env | grep -c ^HOST_ONLY='
        edit_config '.process.env = ["PATH=/bin:/usr/bin", "GREETING=hello world", "EMPTY="]'

        HOST_ONLY=leak run sbrun run -b "$BUNDLE" "$ID"
        [ "${lines[0]}" = "hello world||/bin:/usr/bin" ]
        [ "${lines[1]}" = 0 ]
}

@test "process.env entries must be strings" {
        make_bundle
        edit_config '.process.env = ["A=1", 2]'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" process.env
}

# --- cwd --------------------------------------------------------------------

@test "process.cwd is the working directory" {
        make_bundle
        set_args pwd
        edit_config '.process.cwd = "/etc"'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$output" = /etc ]
}

@test "a missing process.cwd is created, as runc does" {
        make_bundle
        set_args pwd
        edit_config '.process.cwd = "/work/dir" | .root.readonly = false'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$output" = /work/dir ]
}

@test "a process.cwd that is a file fails create with 'not a directory'" {
        make_bundle
        edit_config '.process.cwd = "/etc/passwd"'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" 'not a directory'
}

@test "a relative process.cwd is refused" {
        make_bundle
        edit_config '.process.cwd = "tmp"'

        run detached sbrun create -b "$BUNDLE" "$ID"
        [[ ${output,,} == *cwd* ]]
        assert_fails_cleanly "$ID" ""
}

# --- user -------------------------------------------------------------------

@test "process.user sets uid, gid and additional groups" {
        make_bundle
        set_args id
        edit_config '.process.user = {"uid": 1000, "gid": 1000, "additionalGids": [10, 65534]}'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [[ $output == "uid=1000(user) gid=1000(user) groups="* ]]
        # The group ids of "groups=1000(user),10(uucp),...", one per line.
        local gids
        gids=$(sed -n 's/.*groups=//p' <<<"$output" | tr ',' '\n' | sed 's/(.*//')
        grep -qx 10 <<<"$gids" || fail "no group 10 in: $output"
        grep -qx 65534 <<<"$gids" || fail "no group 65534 in: $output"
        [[ $output == *"65534(nogroup)"* ]]
        [[ $output != *"groups=0"* ]]
        [[ $output != *"(root)"* ]]
}

@test "a non-root process.user has no capabilities left" {
        make_bundle
        set_cmd 'grep -E "^Cap(Inh|Prm|Eff|Amb):" /proc/self/status'
        edit_config '.process.user = {"uid": 1000, "gid": 1000} |
                .process.capabilities |= del(.ambient, .inheritable)'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$(grep -c ':[[:space:]]*0000000000000000$' <<<"$output")" -eq 4 ]
}

@test "process.user.uid of the wrong type is refused" {
        make_bundle
        edit_config '.process.user.uid = "root"'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" process.user.uid
}

@test "process.user.umask sets the umask" {
        make_bundle
        set_args sh -c umask
        edit_config '.process.user.umask = 23'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$output" = 0027 ]
}

@test "process.user.umask of the wrong type is refused" {
        make_bundle
        edit_config '.process.user.umask = "022"'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" umask
}

# --- rlimits ----------------------------------------------------------------

@test "process.rlimits set soft and hard limits" {
        make_bundle
        set_cmd 'ulimit -Sn; ulimit -Hn; ulimit -Su'
        edit_config '.process.rlimits = [
                {"type": "RLIMIT_NOFILE", "soft": 321, "hard": 654},
                {"type": "RLIMIT_NPROC", "soft": 777, "hard": 888}]'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = 321 ]
        [ "${lines[1]}" = 654 ]
        [ "${lines[2]}" = 777 ]
}

@test "an unknown rlimit type is refused" {
        make_bundle
        edit_config '.process.rlimits = [{"type": "RLIMIT_BOGUS", "soft": 1, "hard": 1}]'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" RLIMIT_BOGUS
}

@test "a duplicate rlimit is refused with 'duplicate RLIMIT_NOFILE'" {
        make_bundle
        edit_config '.process.rlimits = [
                {"type": "RLIMIT_NPROC", "soft": 10, "hard": 10},
                {"type": "RLIMIT_NOFILE", "soft": 10, "hard": 10},
                {"type": "RLIMIT_NOFILE", "soft": 20, "hard": 20}]'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" 'process.rlimits[2].type: duplicate RLIMIT_NOFILE'
}

# --- oomScoreAdj ------------------------------------------------------------

@test "process.oomScoreAdj is the container's oom_score_adj" {
        make_bundle
        set_args cat /proc/self/oom_score_adj
        edit_config '.process.oomScoreAdj = 123'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$output" = 123 ]
}

@test "process.oomScoreAdj of the wrong type is refused" {
        make_bundle
        edit_config '.process.oomScoreAdj = "high"'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" oomScoreAdj
}

# --- terminal ---------------------------------------------------------------

@test "process.terminal of the wrong type is refused" {
        make_bundle
        edit_config '.process.terminal = "yes"'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" 'config.json: process.terminal: expected a boolean'
}

# --- stdio and file descriptors ---------------------------------------------

@test "stdin, stdout and stderr pass through run" {
        make_bundle
        set_cmd 'read line; echo "out:$line"; echo "err:$line" >&2'

        run --separate-stderr bash -c 'echo ping | "$@"' _ "${SBRUN_ARGV[@]}" run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$output" = out:ping ]
        [ "$stderr" = err:ping ]
}

@test "no fd other than stdio reaches the container" {
        make_bundle
        set_cmd 'ls /proc/self/fd | tr "\n" " "'

        # Extra fds open in the caller must not leak in.
        run sbrun run -b "$BUNDLE" "$ID" 4</etc/hostname 7>/dev/null 9</dev/null
        [ "$status" -eq 0 ]
        # 3 is ls's own handle on /proc/self/fd.
        [ "$output" = "0 1 2 3 " ]
}

@test "--preserve-fds 1 passes fd 3 and nothing else" {
        make_bundle
        set_cmd 'ls /proc/self/fd | tr "\n" " "; echo; cat <&3'
        echo "from fd 3" >"$TEST_DIR/fd3"

        # Not through sbrun(), which closes fd 3.
        run "${SBRUN_ARGV[@]}" run --preserve-fds 1 -b "$BUNDLE" "$ID" \
                3<"$TEST_DIR/fd3" 4</etc/hostname 7>/dev/null
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "0 1 2 3 4 " ]
        [ "${lines[1]}" = "from fd 3" ]
}

@test "--preserve-fds of a negative or non-numeric count is refused" {
        make_bundle

        local v
        for v in lots -1 "" 3x 99999999999999999999; do
                run detached sbrun create --preserve-fds "$v" -b "$BUNDLE" "$ID"
                assert_fails_cleanly "$ID" "--preserve-fds: invalid value \"$v\""
        done
}

# --- signals ----------------------------------------------------------------

@test "the process starts with default signal dispositions and nothing blocked, whatever the engine ignored" {
        make_bundle
        set_args grep -E '^Sig(Ign|Blk):' /proc/self/status

        # nohup, a shell's trap '', a Go engine's SIGPIPE: ignored signals
        # survive fork and execve, down to the container's process.
        run bash -c 'trap "" HUP INT PIPE USR1 TERM; exec "$@"' _ "${SBRUN_ARGV[@]}" run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "status $status: $output"
        [[ $output == *"SigIgn:	0000000000000000"* ]] || fail "signals ignored in the container: $output"
        [[ $output == *"SigBlk:	0000000000000000"* ]] || fail "signals blocked in the container: $output"
        assert_no_leftovers "$ID"
}
