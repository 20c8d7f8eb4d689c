#!/usr/bin/env bats
# linux.seccomp: real filters in real containers. A static probe program
# (tests/helpers/seccomp_probe.c) makes the syscalls and prints the errno it
# got; a small listener (tests/helpers/seccomp_listener.c) plays the engine
# for SCMP_ACT_NOTIFY.

load ../helpers

PODMAN_PROFILE=$BATS_TEST_DIRNAME/data/podman-4.3.1-seccomp.json

# helper_bin NAME [static]: tests/helpers/NAME.c built once per suite run.
helper_bin() {
        local name=$1 bin=$SBRUN_TEST_TMP/$1 flags=
        [ "${2:-}" = static ] && flags=-static
        if [ ! -x "$bin" ]; then
                cc -O2 -Wall $flags -o "$bin.tmp.$$" "$SBRUN_SRCDIR/tests/helpers/$name.c" -lpthread &&
                        mv "$bin.tmp.$$" "$bin" || fail "cannot build the $name helper"
        fi
        echo "$bin"
}

# seccomp_bundle JQ-PROFILE [JQ-ARGS...]: a bundle with the probe in /bin, a
# writable rootfs, and linux.seccomp set to the jq expression.
seccomp_bundle() {
        local profile=$1 probe
        shift
        probe=$(helper_bin seccomp_probe static) || return 1
        make_bundle
        cp "$probe" "$BUNDLE/rootfs/bin/seccomp_probe"
        edit_config ".root.readonly = false | .linux.seccomp = ($profile)" "$@"
}

# sh_cmd SHELL-COMMAND: process.args = ["sh", "-c", SHELL-COMMAND]. (jq
# would take a "-c" given through --args for its own option.)
sh_cmd() {
        edit_config '.process.args = ["sh", "-c", $c]' --arg c "$1"
}

# exact_u64: "@u64:N" strings in config.json become the bare number N. jq
# 1.6 keeps numbers as doubles and would round any N above 2^53; call it
# after the last edit_config.
exact_u64() {
        sed -i -E 's/"@u64:([0-9]+)"/\1/g' "$BUNDLE/config.json"
        grep -q 9223372036854775809 "$BUNDLE/config.json"
}

allow_but() { # ACTION [ERRNO] SYSCALL...: a default-allow profile
        local action=$1 errno=$2
        shift 2
        jq -n --arg a "$action" --argjson e "$errno" '{defaultAction: "SCMP_ACT_ALLOW",
                syscalls: [{names: $ARGS.positional, action: $a}
                           + (if $e >= 0 then {errnoRet: $e} else {} end)]}' --args "$@"
}

@test "seccomp: mkdir denied with errnoRet 38 fails with ENOSYS, the rest works" {
        seccomp_bundle "$(allow_but SCMP_ACT_ERRNO 38 mkdir mkdirat)"
        sh_cmd 'seccomp_probe mkdir /tmp/d; mkdir /tmp/d2; echo data >/tmp/f && cat /tmp/f && ls -d /tmp'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "mkdir rc=-1 errno=38" ]
        [[ $output == *"can't create directory '/tmp/d2': Function not implemented"* ]]
        [[ $output == *$'data\n/tmp'* ]]
        [ ! -e "$BUNDLE/rootfs/tmp/d" ]
        assert_no_leftovers "$ID"
}

@test "seccomp: SCMP_ACT_KILL_PROCESS makes 'sbrun run' exit 159 (SIGSYS)" {
        seccomp_bundle "$(allow_but SCMP_ACT_KILL_PROCESS -1 mkdir mkdirat)"
        sh_cmd 'echo before; exec mkdir /tmp/d'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 159 ]
        [ "$output" = before ]
        [ ! -e "$BUNDLE/rootfs/tmp/d" ]
        assert_no_leftovers "$ID"
}

@test "seccomp: argument rules compare all 64 bits, unsigned, as written" {
        # personality(2) takes the whole register: 0x8000000000000001 and 1
        # differ only above bit 31, and UINT64_MAX is above INT64_MAX.
        seccomp_bundle '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [
                {names: ["personality"], action: "SCMP_ACT_ERRNO", errnoRet: 33,
                 args: [{index: 0, value: "@u64:9223372036854775809", op: "SCMP_CMP_EQ"}]},
                {names: ["personality"], action: "SCMP_ACT_ERRNO", errnoRet: 34,
                 args: [{index: 0, value: "@u64:9223372036854775809", op: "SCMP_CMP_GT"}]},
                {names: ["personality"], action: "SCMP_ACT_ERRNO", errnoRet: 1,
                 args: [{index: 0, value: 8, op: "SCMP_CMP_EQ"}]}]}'
        sh_cmd 'for v in 0xffffffff 8 0x8000000000000001 1 0xffffffffffffffff 0x8000000000000000; do
                         seccomp_probe personality $v; done'
        exact_u64

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "personality rc=0 errno=0" ]      # 0xffffffff: query, allowed
        [ "${lines[1]}" = "personality rc=-1 errno=1" ]     # 8: EQ rule
        [ "${lines[2]}" = "personality rc=-1 errno=33" ]    # EQ above INT64_MAX
        [[ ${lines[3]} == "personality rc="*" errno=0" ]]   # 1: same low 32 bits, allowed
        [ "${lines[4]}" = "personality rc=-1 errno=34" ]    # GT, unsigned
        [[ ${lines[5]} == "personality rc="*" errno=0" ]]   # INT64_MIN as signed: not GT
}

@test "seccomp: podman 4.3.1's profile runs busybox and denies exactly what it says" {
        seccomp_bundle '$p[0]' --slurpfile p "$PODMAN_PROFILE"
        sh_cmd 'echo hello | tr a-z A-Z; ls / | grep -c bin; mkdir -p /tmp/a/b && touch /tmp/a/b/f &&
                 find /tmp/a -type f; date +%Y >/dev/null && echo date-ok; id -u; sleep 0.1 &
                 wait && echo waited; grep ^Seccomp: /proc/self/status;
                 seccomp_probe netlink-audit; seccomp_probe netlink-route;
                 seccomp_probe add_key; seccomp_probe bpf; seccomp_probe threads'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = HELLO ]
        [ "${lines[1]}" = 2 ] # bin, sbin
        [ "${lines[2]}" = /tmp/a/b/f ]
        [ "${lines[3]}" = date-ok ]
        [ "${lines[4]}" = 0 ]
        [ "${lines[5]}" = waited ]
        [[ ${lines[6]} == "Seccomp:"*2 ]]
        # socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT): the AND-ed rule's EINVAL;
        # another netlink protocol is allowed.
        [ "${lines[7]}" = "netlink-audit rc=-1 errno=22" ]
        [[ ${lines[8]} == "netlink-route rc="[0-9]*" errno=0" ]]
        # add_key is not in the allow-list: defaultErrnoRet 38 (ENOSYS), not
        # EPERM; bpf is in the errnoRet 1 (EPERM) list.
        [ "${lines[9]}" = "add_key rc=-1 errno=38" ]
        [ "${lines[10]}" = "bpf rc=-1 errno=1" ]
        [ "${lines[11]}" = "threads ok" ]
        assert_no_leftovers "$ID"
}

@test "seccomp: clone3 gets ENOSYS under a profile that does not name it; threads still start" {
        # podman's allow-list without clone3, default EPERM.
        seccomp_bundle '$p[0] | del(.defaultErrnoRet)
                        | .syscalls |= map(.names -= ["clone3"])' --slurpfile p "$PODMAN_PROFILE"
        sh_cmd 'seccomp_probe clone3; seccomp_probe threads; seccomp_probe add_key'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "clone3 rc=-1 errno=38" ]
        [ "${lines[1]}" = "threads ok" ]
        [ "${lines[2]}" = "add_key rc=-1 errno=1" ] # the default is still EPERM
}

@test "seccomp: a profile that names clone3 gets exactly what it says" {
        seccomp_bundle "$(allow_but SCMP_ACT_ERRNO 1 clone3)"
        sh_cmd 'seccomp_probe clone3; seccomp_probe threads'

        run sbrun run -b "$BUNDLE" "$ID"
        # glibc does not fall back to clone on EPERM: the breakage that the
        # ENOSYS rule spares profiles that do not know clone3.
        [ "$status" -eq 1 ]
        [ "${lines[0]}" = "clone3 rc=-1 errno=1" ]
        [ "${lines[1]}" = "threads Operation not permitted" ]
}

@test "seccomp: SCMP_ACT_NOTIFY hands a working listener fd and the state to listenerPath" {
        local listener sock=$TEST_DIR/listener.sock i
        listener=$(helper_bin seccomp_listener)
        seccomp_bundle "$(allow_but SCMP_ACT_NOTIFY -1 mkdir mkdirat) + {listenerPath: \$s,
                        listenerMetadata: \"sbrun-test-metadata\"}" --arg s "$sock"
        sh_cmd 'seccomp_probe mkdir /tmp/n; echo after'

        start_helper "$listener" "$sock" "$TEST_DIR/state.json"
        for ((i = 0; i < 50; i++)); do [ -S "$sock" ] && break; sleep 0.1; done
        [ -S "$sock" ]

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        # The listener answered mkdir with ENOLINK (67) through the fd it got.
        [ "${lines[0]}" = "mkdir rc=-1 errno=67" ]
        [ "${lines[1]}" = after ]
        grep -qx "fd received" "$TEST_DIR/state.json.log"
        grep -qx "syscall 83" "$TEST_DIR/state.json.log" # x86_64 mkdir
        [ "$(jq -r '.fds[0]' "$TEST_DIR/state.json")" = seccompFd ]
        [ "$(jq -r .metadata "$TEST_DIR/state.json")" = sbrun-test-metadata ]
        [ "$(jq -r .state.id "$TEST_DIR/state.json")" = "$ID" ]
        [ "$(jq -r .state.bundle "$TEST_DIR/state.json")" = "$BUNDLE" ]
        [ "$(jq -r .pid "$TEST_DIR/state.json")" -gt 1 ]
        [ "$(jq -r .pid "$TEST_DIR/state.json")" = "$(jq -r .state.pid "$TEST_DIR/state.json")" ]
        assert_no_leftovers "$ID"
}

@test "seccomp: SCMP_ACT_NOTIFY without a listener at listenerPath fails create cleanly" {
        seccomp_bundle "$(allow_but SCMP_ACT_NOTIFY -1 mkdir) + {listenerPath: \$s}" \
                --arg s "$TEST_DIR/nobody.sock"

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "linux.seccomp.listenerPath: connect to \"$TEST_DIR/nobody.sock\""
}

@test "seccomp: the compiled program is cached; a damaged cache entry is rebuilt" {
        local entry
        seccomp_bundle "$(allow_but SCMP_ACT_ERRNO 38 mkdir mkdirat)"
        set_args seccomp_probe mkdir /tmp/d

        # The first container compiles (the state root may only exist after it).
        run "$SBRUN" --root "$ROOT" ${SB_POLICY:+--policy "$SB_POLICY"} --debug run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [[ $output == *"seccomp: compiled"* ]]
        # The policy floor's programs are cached beside it.
        entry=$(grep -L sbrun-floor-seccomp "$ROOT"/.seccomp-cache/*.bpf)
        [ -f "$entry" ]

        # The second compiles nothing.
        run "$SBRUN" --root "$ROOT" ${SB_POLICY:+--policy "$SB_POLICY"} --debug run -b "$BUNDLE" "$(new_id)"
        [ "$status" -eq 0 ]
        [[ $output == *"seccomp: cache hit $entry"* ]]
        [[ $output != *"seccomp: compiled"* ]]
        [[ $output == *"mkdir rc=-1 errno=38"* ]]

        # A flipped byte in the program: detected, rebuilt, never loaded.
        printf '\xff' | dd of="$entry" bs=1 seek=$(($(stat -c %s "$entry") - 3)) conv=notrunc 2>/dev/null
        run "$SBRUN" --root "$ROOT" ${SB_POLICY:+--policy "$SB_POLICY"} --debug run -b "$BUNDLE" "$(new_id)"
        [ "$status" -eq 0 ]
        [[ $output == *"is invalid (checksum mismatch), rebuilding"* ]]
        [[ $output == *"seccomp: compiled"* ]]
        [[ $output == *"mkdir rc=-1 errno=38"* ]]

        # A truncated entry: the same.
        truncate -s 40 "$entry"
        run "$SBRUN" --root "$ROOT" ${SB_POLICY:+--policy "$SB_POLICY"} --debug run -b "$BUNDLE" "$(new_id)"
        [ "$status" -eq 0 ]
        [[ $output == *"is invalid"*"rebuilding"* ]]
        [[ $output == *"mkdir rc=-1 errno=38"* ]]

        # And the rebuilt entry is good again.
        run "$SBRUN" --root "$ROOT" ${SB_POLICY:+--policy "$SB_POLICY"} --debug run -b "$BUNDLE" "$(new_id)"
        [ "$status" -eq 0 ]
        [[ $output == *"seccomp: cache hit"* ]]
}

@test "seccomp: an unknown syscall name is skipped with a warning, as runc does" {
        seccomp_bundle "$(allow_but SCMP_ACT_ERRNO 38 mkdir no_such_syscall_sbrun)"
        set_args seccomp_probe mkdir /tmp/d

        # Warnings go to stderr, or to the --log the suite's policy adds.
        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ ! -f "$TEST_DIR/sbrun.log" ] || output+=$'\n'$(cat "$TEST_DIR/sbrun.log")
        [[ $output == *'linux.seccomp.syscalls[0].names[1]: syscall '*'no_such_syscall_sbrun'*' is unknown'*skipped* ]]
        [[ $output == *"mkdir rc=-1 errno=38"* ]]
}

# invalid PROFILE-JQ EXPECTED-MESSAGE: create fails naming the JSON path and
# leaves nothing behind (no state dir under --root).
invalid() {
        local id
        BUNDLE=$(mktemp -d -u "$TEST_DIR/bundle.XXXXXX")
        id=$(new_id)
        seccomp_bundle "$1"
        run detached sbrun create -b "$BUNDLE" "$id"
        assert_fails_cleanly "$id" "$2"
        [ ! -e "$ROOT/$id" ]
}

@test "seccomp: invalid profiles fail create with the JSON path and leave nothing" {
        invalid '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir"], action: "SCMP_ACT_EXPLODE"}]}' \
                'linux.seccomp.syscalls[0].action'
        invalid '{defaultAction: "SCMP_ACT_NOPE"}' 'linux.seccomp.defaultAction'
        invalid '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir"], action: "SCMP_ACT_ERRNO",
                  args: [{index: 0, value: 1, op: "SCMP_CMP_ALMOST"}]}]}' \
                'linux.seccomp.syscalls[0].args[0].op'
        invalid '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir"], action: "SCMP_ACT_ERRNO",
                  args: [{index: 6, value: 1, op: "SCMP_CMP_EQ"}]}]}' \
                'linux.seccomp.syscalls[0].args[0].index'
        invalid '{defaultAction: "SCMP_ACT_ALLOW", architectures: ["SCMP_ARCH_X86_64", "SCMP_ARCH_VAX"]}' \
                'linux.seccomp.architectures[1]'
        # Known to the OCI schema, not to this libseccomp.
        invalid '{defaultAction: "SCMP_ACT_ALLOW", architectures: ["SCMP_ARCH_M68K"]}' \
                'linux.seccomp.architectures[0]: "SCMP_ARCH_M68K" is not supported by libseccomp'
        invalid '{defaultAction: "SCMP_ACT_ALLOW", flags: ["SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_SPEEDY"]}' \
                'linux.seccomp.flags[1]: unknown flag "SECCOMP_FILTER_FLAG_SPEEDY"'
        invalid '{defaultAction: "SCMP_ACT_ERRNO", defaultErrnoRet: 5000}' \
                'linux.seccomp.defaultAction: 5000 is out of range'
}

@test "seccomp: flags TSYNC, LOG and SPEC_ALLOW are accepted and the filter works" {
        seccomp_bundle "$(allow_but SCMP_ACT_ERRNO 38 mkdir mkdirat) + {flags: [
                \"SECCOMP_FILTER_FLAG_TSYNC\", \"SECCOMP_FILTER_FLAG_LOG\", \"SECCOMP_FILTER_FLAG_SPEC_ALLOW\"]}"
        set_args seccomp_probe mkdir /tmp/d

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$output" = "mkdir rc=-1 errno=38" ]
}

@test "seccomp: features lists the actions, operators, architectures and flags" {
        run sbrun features
        [ "$status" -eq 0 ]
        [ "$(jq -r '.linux.seccomp.enabled' <<<"$output")" = true ]
        for a in SCMP_ACT_NOTIFY SCMP_ACT_KILL_PROCESS SCMP_ACT_ERRNO SCMP_ACT_LOG; do
                jq -e --arg a "$a" '.linux.seccomp.actions | index($a)' <<<"$output" >/dev/null
        done
        jq -e '.linux.seccomp.operators | index("SCMP_CMP_MASKED_EQ")' <<<"$output" >/dev/null
        jq -e '.linux.seccomp.archs | index("SCMP_ARCH_X86_64")' <<<"$output" >/dev/null
        jq -e '.linux.seccomp.supportedFlags | index("SECCOMP_FILTER_FLAG_TSYNC")' <<<"$output" >/dev/null
}
