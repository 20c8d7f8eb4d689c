#!/usr/bin/env bats
# The policy floor's seccomp filter (docs/policy.md#the-floor-seccomp-filter)
# against syscall-level attacks.
# A static attack program (tests/helpers/floor_attack.c) makes each raw
# syscall inside a real container and prints the errno it got; its
# arguments are chosen so that the kernel alone would answer something
# other than EPERM, or succeed. The container gets CAP_SYS_ADMIN and
# CAP_SYS_PTRACE, so that the floor filter, not a missing capability, is
# what must stop mount, keyctl and ptrace.

load ../helpers
load attack_helpers

# attack_bundle: a bundle with the attack program and the host's full
# busybox (it has unshare) in /bin, a writable rootfs and the capabilities
# the floor must make useless.
attack_bundle() {
        local attack
        attack=$(helper_bin floor_attack) || return 1
        make_bundle
        cp "$attack" "$BUNDLE/rootfs/bin/floor_attack"
        cp "$(command -v busybox)" "$BUNDLE/rootfs/bin/busybox-full"
        edit_config '.root.readonly = false |
                .process.capabilities |= with_entries(.value += ["CAP_SYS_ADMIN", "CAP_SYS_PTRACE"] | .value |= unique)'
}

# run_attack PROFILE ATTACK [ARG]: run the attack as the container's process.
run_attack() {
        local profile=$1
        shift
        set_args floor_attack "$@"
        run_under "$profile"
}

# expect_errno PROFILE ATTACK ERRNO: the attack ran and got ERRNO.
expect_errno() {
        local profile=$1 attack=$2 want=$3
        run_attack "$profile" "$attack"
        if [ "$status" -ne 0 ] || [ "$output" != "$attack rc=-1 errno=$want" ]; then
                fail "$profile: $attack: expected errno $want, got status $status: $output"
                return 1
        fi
        assert_no_leftovers "$ID"
}

@test "floor: raw clone(CLONE_NEWUSER), unshare and setns fail with EPERM under both profiles" {
        attack_bundle
        for profile in standard strict; do
                expect_errno $profile clone-newuser 1
                expect_errno $profile unshare-user 1
                expect_errno $profile setns 1
        done
}

@test "floor: busybox 'unshare -U' fails under both profiles" {
        attack_bundle
        for profile in standard strict; do
                set_cmd 'busybox-full unshare -U -r id -u; echo "status=$?"'
                run_under $profile
                [ "$status" -eq 0 ]
                [[ $output == *"Operation not permitted"* ]]
                [[ $output == *"status=1"* ]]
                [[ $output != *$'\n0\n'* ]]
                assert_no_leftovers "$ID"
        done
}

@test "floor: clone3 gets ENOSYS and a threaded program still works under both profiles" {
        attack_bundle
        for profile in standard strict; do
                expect_errno $profile clone3 38
                run_attack $profile threads
                [ "$status" -eq 0 ]
                [ "$output" = "threads ok" ]
                assert_no_leftovers "$ID"
        done
}

@test "floor: a 32-bit syscall through int 0x80 and an x32 syscall cannot mkdir (each where the kernel runs it outside)" {
        attack_bundle
        # The control: each attack run on the host, outside any container. An
        # entry point the kernel itself refuses (this host's kernel has no
        # x32: ENOSYS) proves nothing inside: that attack is left to the VM
        # lane (tests/vm/floor_attacks.bats, syscall.x32=y), and the test is
        # skipped, saying so, when neither works here.
        local attacks=() attack bin
        bin=$(helper_bin floor_attack)
        for attack in int80-mkdir x32-mkdir; do
                run "$bin" "$attack" "$TEST_DIR/control-$attack"
                if [ "$status" -eq 0 ] && [ "$output" = "$attack rc=0 errno=0" ] &&
                        [ -d "$TEST_DIR/control-$attack" ]; then
                        attacks+=("$attack")
                else
                        echo "# control: $attack does not work on this kernel outside a container: $output" >&3
                fi
        done
        [ ${#attacks[@]} -gt 0 ] || skip "neither int 0x80 nor x32 mkdir works on this kernel outside a container"
        for profile in standard strict; do
                for attack in "${attacks[@]}"; do
                        run_attack $profile $attack /tmp/$attack
                        # Killed (SIGSYS 159, or SIGSEGV 139 where the kernel has
                        # no 32-bit entry at all) or refused: never done.
                        [[ $output != *"rc=0 "* ]]
                        [ "$status" -ne 0 ] || [[ $output == *"rc=-1"* ]]
                        [ ! -e "$BUNDLE/rootfs/tmp/$attack" ]
                        assert_no_leftovers "$ID"
                done
                run_attack $profile int80-getpid
                [[ $output != *"rc=1 "* ]]
                assert_no_leftovers "$ID"
        done
}

@test "floor: mount, keyctl, bpf, perf_event_open, userfaultfd, io_uring_setup fail with EPERM" {
        attack_bundle
        for profile in standard strict; do
                for attack in keyctl bpf perf_event_open userfaultfd io_uring_setup; do
                        expect_errno $profile $attack 1
                done
                run_attack $profile mount /tmp
                [ "$status" -eq 0 ]
                [ "$output" = "mount rc=-1 errno=1" ]
                assert_no_leftovers "$ID"
        done
}

@test "floor: ptrace of a sibling fails with EPERM under both profiles" {
        attack_bundle
        for profile in standard strict; do
                run_attack $profile ptrace-sibling
                [ "$status" -eq 0 ]
                [ "$output" = "ptrace-sibling rc=-1 errno=1" ]
                assert_no_leftovers "$ID"
        done
}

@test "floor: sockets work under standard; under strict socket() fails, AF_UNIX socketpair works" {
        attack_bundle
        run_attack standard socket-inet
        [ "$status" -eq 0 ]
        [[ $output == "socket-inet rc="[0-9]*" errno=0" ]]
        assert_no_leftovers "$ID"

        expect_errno strict socket-inet 1
        expect_errno strict socket-unix 1
        expect_errno strict socketpair-inet 1
        run_attack strict socketpair-unix
        [ "$status" -eq 0 ]
        [ "$output" = "socketpair-unix rc=0 errno=0" ]
        assert_no_leftovers "$ID"
}

@test "floor: the filter holds for 'sbrun exec' too" {
        attack_bundle
        set_args sleep 60
        run detached sbrun create -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        run sbrun start "$ID"
        [ "$status" -eq 0 ]
        run sbrun exec "$ID" floor_attack clone-newuser
        [ "$status" -eq 0 ]
        [ "$output" = "clone-newuser rc=-1 errno=1" ]
        run sbrun exec "$ID" floor_attack mount /tmp
        [ "$output" = "mount rc=-1 errno=1" ]
        run sbrun delete --force "$ID"
        [ "$status" -eq 0 ]
        assert_no_leftovers "$ID"
}

# The project quota that bounds a volume under strict follows each file's
# project id and inherit flag, which the owner may change in the host's
# user namespace (docs/policy.md#volumes): where volumes must be bounded the
# floor refuses both requests, on a tmpfs /tmp as anywhere.
@test "floor: a file's attributes (its project id) cannot be changed where volumes must be bounded: strict, require_project_quota, exec" {
        local bin attack require
        attack_bundle
        bin=$(helper_bin floor_attack)
        require=$(policy_for standard '{"floor": {"volumes": {"require_project_quota": true}}}')
        for attack in setflags fssetxattr; do
                # The control: the owner may, on the host and under standard.
                run "$bin" "$attack" "$TEST_DIR/control-file"
                [ "$output" = "$attack rc=0 errno=0" ] || fail "host: $output"
                run_attack standard "$attack"
                [ "$output" = "$attack rc=0 errno=0" ] || fail "standard: $output"
                expect_errno strict "$attack" 1
                set_args floor_attack "$attack"
                run sbrun --policy "$require" --log "$TEST_DIR/sbrun.log" run -b "$BUNDLE" "$ID"
                [ "$output" = "$attack rc=-1 errno=1" ] || fail "require_project_quota: $output"
                assert_no_leftovers "$ID"
        done
        set_args sleep 60
        run detached sbrun --policy "$(strict_policy)" --log "$TEST_DIR/sbrun.log" run -d -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "run -d: $output"
        run sbrun exec "$ID" floor_attack setflags /tmp/exec-file
        [ "$output" = "setflags rc=-1 errno=1" ] || fail "exec: $output"
        run sbrun delete --force "$ID"
        [ "$status" -eq 0 ]
        assert_no_leftovers "$ID"
}

@test "floor: an ordinary busybox workload runs under both profiles" {
        attack_bundle
        set_cmd 'umask 022; mkdir -p /tmp/w && cd /tmp/w && echo hello >f && cp f g && sed s/hello/bye/ g >h &&
                 cat f h | sort | uniq | wc -l && ls | tr "\n" " " && tar cf /tmp/a.tar . && gzip -c /tmp/a.tar | gunzip | tar tf - | wc -l &&
                 (sleep 0.1 & wait) && echo $(( 6 * 7 )) | grep -q 42 && floor_attack threads'
        for profile in standard strict; do
                run_under $profile
                [ "$status" -eq 0 ]
                [[ $output == *"2"*"f g h"*"threads ok"* ]]
                assert_no_leftovers "$ID"
                rm -rf "$BUNDLE/rootfs/tmp/w" "$BUNDLE/rootfs/tmp/a.tar"
        done
}

# floor_entry N: the cached floor program N (0 deny-list, 1 allow-list, 2
# deny-list with the file-attribute ioctls: strict's).
floor_entry() {
        local e bpf_eval
        bpf_eval=$(helper_bin bpf_eval) || return 1
        for e in "$ROOT"/.seccomp-cache/*.bpf; do
                if [ "$("$bpf_eval" "$e" key | sed -n 2p)" = "program $1" ]; then
                        echo "$e"
                        return 0
                fi
        done
        fail "no cached floor program $1 in $ROOT/.seccomp-cache"
}

# The kernel of the test machine may have no 32-bit or x32 entry at all, so
# the tests above cannot tell the floor's answer from the kernel's: here the
# cached floor programs themselves are run on such syscalls.
@test "floor: the programs kill i386 and x32 syscalls and answer the native ones as listed" {
        local eval deny allow standard
        eval=$(helper_bin bpf_eval)
        attack_bundle
        run_attack strict threads
        [ "$status" -eq 0 ]
        run_attack standard threads
        [ "$status" -eq 0 ]
        deny=$(floor_entry 2)
        allow=$(floor_entry 1)
        standard=$(floor_entry 0)
        for p in "$deny" "$allow" "$standard"; do
                [ "$("$eval" "$p" i386 20)" = kill_process ]          # getpid via int 0x80
                [ "$("$eval" "$p" i386 39)" = kill_process ]          # mkdir via int 0x80
                [ "$("$eval" "$p" x86_64 $((0x40000000 | 83)))" = kill_process ] # x32 mkdir
                [ "$("$eval" "$p" x86_64 $((0x40000000 | 39)))" = kill_process ] # x32 getpid
                [ "$("$eval" "$p" x86_64 39)" = allow ]                # getpid
                [ "$("$eval" "$p" x86_64 435)" = "errno 38" ]          # clone3
        done
        # clone's namespace flags are the deny-list's (stacked under strict too).
        [ "$("$eval" "$deny" x86_64 56 $((0x10000000 | 17)))" = "errno 1" ] # clone(NEWUSER|SIGCHLD)
        [ "$("$eval" "$deny" x86_64 56 $((0x20000 | 17)))" = "errno 1" ]    # clone(NEWNS|SIGCHLD)
        [ "$("$eval" "$deny" x86_64 56 17)" = allow ]                  # clone(SIGCHLD): fork
        [ "$("$eval" "$deny" x86_64 165)" = "errno 1" ]                # mount
        [ "$("$eval" "$deny" x86_64 41)" = allow ]                     # socket
        [ "$("$eval" "$allow" x86_64 41)" = "errno 1" ]                # socket
        [ "$("$eval" "$allow" x86_64 95)" = allow ]                    # umask
        [ "$("$eval" "$allow" x86_64 55)" = allow ]                    # getsockopt
        [ "$("$eval" "$allow" x86_64 51)" = allow ]                    # getsockname
        [ "$("$eval" "$allow" x86_64 53 1)" = allow ]                  # socketpair(AF_UNIX)
        [ "$("$eval" "$allow" x86_64 53 2)" = "errno 1" ]              # socketpair(AF_INET)
        # ioctl(fd, request): TIOCSTI under both; the file-attribute requests
        # under strict only, a set high half of the request included.
        for p in "$deny" "$standard"; do
                [ "$("$eval" "$p" x86_64 16 0 $((0x5412)))" = "errno 1" ]             # TIOCSTI
                [ "$("$eval" "$p" x86_64 16 0 $((0x80086601)))" = allow ]             # FS_IOC_GETFLAGS
        done
        for req in 0x40086602 0x40046602 0x401c5820 0xffffffff40086602; do # SETFLAGS, 32, FSSETXATTR
                [ "$("$eval" "$deny" x86_64 16 0 "$req")" = "errno 1" ] || fail "strict: ioctl $req"
                [ "$("$eval" "$standard" x86_64 16 0 "$req")" = allow ] || fail "standard: ioctl $req"
        done
        assert_no_leftovers "$ID"
}
