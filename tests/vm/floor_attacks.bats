#!/usr/bin/env bats
# Attacks on the policy floor (docs/policy.md) that need a real cgroup v2 hierarchy
# or a kernel with the 32-bit and x32 syscall entry points: a fork bomb, a
# memory bomb, and i386/x32 syscalls, each under the standard and the
# strict profile. Each must fail, and leave nothing behind. Run in the VM
# lane through tests/vm/cgroups-suite.sh, which sets SBRUN_FLOOR_ATTACK to
# tests/helpers/floor_attack.c built static.
#
# The guest is ~50x slower than the host (TCG): the limits are kept small
# with operator policies where the profile's defaults would take minutes to
# reach, and the defaults themselves are checked with `policy explain`.

load ../helpers
load vm_helpers

setup() {
        vm_require_cgroup2
        [ -x "${SBRUN_FLOOR_ATTACK:-}" ] ||
                fail "SBRUN_FLOOR_ATTACK (tests/helpers/floor_attack.c built static) not found: run tests/vm/cgroups-suite.sh"
        sb_setup
}

# policy NAME JSON: an operator policy file (root-owned, 0644); prints its path.
policy() {
        local f=$TEST_DIR/$1.json
        printf '%s\n' "$2" >"$f"
        chmod 0644 "$f"
        echo "$f"
}

# sbp POLICY-FILE ARGS...: sbrun under that operator policy, warnings to the log.
sbp() {
        local pol=$1
        shift
        sbrun --policy "$pol" --log "$TEST_DIR/sbrun.log" "$@"
}

# explain_change POLICY-FILE FIELD: "action effective rule" of FIELD in
# `policy explain --format json` of $BUNDLE.
explain_change() {
        sbp "$1" policy explain --bundle "$BUNDLE" --format json |
                jq -r --arg f "$2" '.changes[] | select(.field == $f) | "\(.action) \(.effective) \(.rule)"'
}

# bomb_count: how many processes in the guest run floor_attack fork-bomb.
# ("[f]ork-bomb" matches the bomb but not grep's own command line.)
bomb_count() {
        grep -ls -- '[f]ork-bomb' /proc/[0-9]*/cmdline | wc -l
}

# assert_bomb_gone: no process of the bomb is left (killed ones may take a
# moment to go).
assert_bomb_gone() {
        local i n
        for ((i = 0; i < 50; i++)); do
                n=$(bomb_count)
                [ "$n" -eq 0 ] && return 0
                sleep 0.1
        done
        fail "$n processes of the fork bomb survived teardown"
}

# trace MESSAGE: with SBRUN_VM_TRACE=1, a timestamped line in the TAP output.
trace() {
        [ "${SBRUN_VM_TRACE:-0}" = 1 ] && echo "# $SECONDS s: $*" >&3
        return 0
}

# watch_bomb LIMIT [BG-PID]: sample the container's cgroup while the bomb
# runs; fail if it ever holds more than LIMIT tasks. Until the kernel has
# refused forks and 10 samples more, or until BG-PID (a foreground `sbrun
# run`) ends. Shell builtins in the loop: every fork costs under TCG, and
# more with a bomb next door.
watch_bomb() {
        local limit=$1 bg=${2:-} cg n v k max=0 hit=0 after=0 i ev=0 bombs=0
        cg=$(cgdir)
        # sbrun writes the limits just after it makes the cgroup, before it
        # moves any process in: wait for them.
        for ((i = 0; i < 300; i++)); do
                v=
                read -r v 2>/dev/null <"$cg/pids.max" || true
                [ "$v" = "$limit" ] && break
                sleep 0.1
        done
        [ "$v" = "$limit" ] || fail "pids.max is '$v', not $limit"
        trace "the bomb's cgroup is there"
        for ((i = 0; i < 600; i++)); do
                read -r n 2>/dev/null <"$cg/pids.current" || break
                [ "$n" -gt "$max" ] && max=$n
                [ "$n" -le "$limit" ] || fail "$n tasks in a cgroup limited to $limit"
                { while read -r k v; do if [ "$k" = max ]; then ev=$v; fi; done; } 2>/dev/null <"$cg/pids.events" || break
                if [ "$ev" -gt 0 ] && [ $hit = 0 ]; then
                        hit=1
                        trace "forks refused at $n tasks"
                        # What assert_bomb_gone counts after teardown is seen now.
                        bombs=$(bomb_count)
                        trace "$bombs processes run the bomb"
                        # The guest still works while the bomb is at its limit.
                        run timeout 60 sh -c '(echo alive) | cat'
                        [ "$output" = alive ] || fail "the guest cannot fork while the bomb runs: $output"
                        trace "the guest can fork"
                fi
                [ $hit = 1 ] && after=$((after + 1))
                if [ -n "$bg" ]; then
                        kill -0 "$bg" 2>/dev/null || break
                elif [ $after -ge 10 ]; then
                        break
                fi
                sleep 0.2
        done
        trace "watched $i samples"
        echo "most tasks seen: $max of $limit; forks refused: $ev"
        [ $hit = 1 ] || fail "the bomb never reached its limit of $limit tasks (most seen: $max)"
        if [ -e "$cg/pids.peak" ]; then
                read -r v <"$cg/pids.peak"
                [ "$v" -le "$limit" ] || fail "pids.peak $v > $limit"
        fi
        [ "$bombs" -gt 0 ] && [ "$bombs" -le "$limit" ] ||
                fail "$bombs processes ran the bomb at its limit of $limit"
}

# bomb_bundle: a bundle whose process is floor_attack's fork bomb, which
# stays at the limit (a busybox shell's bomb gives up at the first refused
# fork), with no pids limit of its own.
bomb_bundle() {
        make_bundle
        cp "$SBRUN_FLOOR_ATTACK" "$BUNDLE/rootfs/bin/floor_attack"
        set_args floor_attack fork-bomb
        edit_config 'del(.linux.resources.pids)'
}

# --- fork bomb ------------------------------------------------------------------

@test "fork bomb, standard: a spec with no pids limit gets the ceiling; the bomb stays under it; delete --force leaves nothing" {
        trace "setup done"
        bomb_bundle
        trace "bundle made"
        # The built-in standard ceiling, 4096 tasks, is too many to fork
        # under TCG: explain shows that it applies, the bomb runs under an
        # operator's ceiling of 64.
        std=$(policy standard '{}')
        [ "$(explain_change "$std" linux.resources.pids.limit)" = "added 4096 standard pids ceiling" ]
        pol=$(policy pids64 '{"floor": {"ceilings": {"pids": 64}}}')
        [ "$(explain_change "$pol" linux.resources.pids.limit)" = "added 64 standard pids ceiling" ]

        trace "explained"
        detached sbp "$pol" run -d -b "$BUNDLE" "$ID"
        trace "run -d returned"
        cg=$(cgdir)
        watch_bomb 64
        run sbrun delete --force "$ID"
        trace "deleted"
        [ "$status" -eq 0 ] || fail "delete --force: status $status: $output"
        [ ! -e "$cg" ]
        assert_bomb_gone
        assert_no_leftovers "$ID"
}

@test "fork bomb, strict: the default ceiling of 256 tasks holds; the run's --timeout ends it and leaves nothing" {
        bomb_bundle
        pol=$(policy strict '{"floor": {"profile": "strict"}}')
        [ "$(explain_change "$pol" linux.resources.pids.limit)" = "added 256 strict pids ceiling" ]

        run_bg "$TEST_DIR/run.out" --policy "$pol" --log "$TEST_DIR/sbrun.log" \
                run -b "$BUNDLE" --timeout 12 --verdict-file "$TEST_DIR/verdict.json" "$ID"
        bg=$BG_PID
        trace "run started"
        cg=$(cgdir)
        watch_bomb 256 "$bg"
        timeout_wait "$bg" 60 || fail "sbrun run --timeout 12 did not end"
        trace "run ended"
        [ "$WAIT_STATUS" -eq 137 ] || fail "run: status $WAIT_STATUS: $(cat "$TEST_DIR/run.out")"
        [ "$(jq -r .verdict "$TEST_DIR/verdict.json")" = timeout ]
        [ ! -e "$cg" ]
        assert_bomb_gone
        assert_no_leftovers "$ID"
}

# --- memory bomb ------------------------------------------------------------------

# A shell doubling a string until the kernel's OOM killer ends it.
MEMBOMB='x=0123456789abcdef; while :; do x=$x$x; done'

@test "memory bomb, standard: an operator memory ceiling binds a spec with no limit: OOM kill, verdict oom" {
        make_bundle
        set_cmd "$MEMBOMB"
        edit_config 'del(.linux.resources.memory)'
        pol=$(policy mem32 '{"floor": {"ceilings": {"memory": "32M"}}}')
        [ "$(explain_change "$pol" linux.resources.memory.limit)" = "added 33554432 standard memory ceiling" ]

        run sbp "$pol" run -b "$BUNDLE" --verdict-file "$TEST_DIR/verdict.json" "$ID"
        [ "$status" -eq 137 ] || fail "status $status: $output"
        grep -q "OOM: the kernel's OOM killer killed" "$TEST_DIR/sbrun.log"
        # Beside what it read and wrote ("io", on a cgroup with the io controller).
        run jq -c '{verdict, exit_code, signal}' "$TEST_DIR/verdict.json"
        [ "$output" = '{"verdict":"oom","exit_code":137,"signal":9}' ]
        [ ! -e "$(cgdir)" ]
        assert_no_leftovers "$ID"
}

@test "memory bomb, strict: memory ceiling 32M with no swap: OOM kill, verdict oom" {
        make_bundle
        set_cmd "$MEMBOMB"
        edit_config 'del(.linux.resources.memory)'
        pol=$(policy strict-mem32 '{"floor": {"profile": "strict", "ceilings": {"memory": "32M"}}}')
        [ "$(explain_change "$pol" linux.resources.memory.limit)" = "added 33554432 strict memory ceiling" ]
        # memory+swap equal to memory: no swap.
        [[ $(explain_change "$pol" linux.resources.memory.swap) == *" 33554432 "* ]]

        run sbp "$pol" run -b "$BUNDLE" --verdict-file "$TEST_DIR/verdict.json" "$ID"
        [ "$status" -eq 137 ] || fail "status $status: $output"
        grep -q "OOM: the kernel's OOM killer killed" "$TEST_DIR/sbrun.log"
        # Beside what it read and wrote ("io", on a cgroup with the io controller).
        run jq -c '{verdict, exit_code, signal}' "$TEST_DIR/verdict.json"
        [ "$output" = '{"verdict":"oom","exit_code":137,"signal":9}' ]
        [ ! -e "$(cgdir)" ]
        assert_no_leftovers "$ID"
}

# --- i386 and x32 syscalls ------------------------------------------------------

# The control: this kernel has both entry points (tests/vm/run.sh boots it
# with syscall.x32=y), so without the floor each attack below would work.
@test "ia32 and x32 syscalls work in the guest without sbrun (the control for the next test)" {
        local d=$TEST_DIR/bare
        mkdir "$d"
        run "$SBRUN_FLOOR_ATTACK" int80-mkdir "$d/int80"
        [ "$status" -eq 0 ]
        [ "$output" = "int80-mkdir rc=0 errno=0" ]
        [ -d "$d/int80" ]
        run "$SBRUN_FLOOR_ATTACK" x32-mkdir "$d/x32"
        [ "$status" -eq 0 ]
        [ "$output" = "x32-mkdir rc=0 errno=0" ]
        [ -d "$d/x32" ]
        run "$SBRUN_FLOOR_ATTACK" int80-getpid
        [ "$status" -eq 0 ]
        [[ $output == "int80-getpid rc="[1-9]*" errno=0" ]]
}

@test "floor: a real int 0x80 or x32 syscall kills the container process (SIGSYS) under both profiles; mkdir never happens" {
        make_bundle
        cp "$SBRUN_FLOOR_ATTACK" "$BUNDLE/rootfs/bin/floor_attack"
        # A host directory the container can write to, so that a mkdir that
        # got through would be seen here after the container is gone.
        mkdir -m 0777 "$TEST_DIR/out"
        edit_config '.mounts += [{"destination": "/out", "type": "bind", "source": $d, "options": ["rbind", "rw"]}]' \
                --arg d "$TEST_DIR/out"
        local std strict profile pol attack
        std=$(policy standard '{}')
        # /out is a writable volume on the guest's unbounded tmpfs, which
        # strict would refuse (docs/policy.md#volumes): waived here, with the
        # warning going to the log.
        strict=$(policy strict '{"floor": {"profile": "strict", "volumes": {"require_project_quota": false}}}')
        for profile in standard strict; do
                [ $profile = standard ] && pol=$std || pol=$strict
                for attack in int80-mkdir x32-mkdir int80-getpid; do
                        # The same process first makes a directory the native
                        # way: the mount is writable, only the floor stops the
                        # attack's mkdir.
                        set_cmd "mkdir /out/native-$attack-$profile && exec floor_attack $attack /out/$attack-$profile"
                        run sbp "$pol" run -b "$BUNDLE" "$ID"
                        echo "$profile $attack: status $status, output: $output"
                        [ -d "$TEST_DIR/out/native-$attack-$profile" ]
                        [ "$status" -eq 159 ]
                        [ -z "$output" ]
                        [ ! -e "$TEST_DIR/out/$attack-$profile" ]
                        assert_no_leftovers "$ID"
                done
        done
}
